/* An emulated WAN link between two network namespaces, as a library: the `pqtls link`
 * command and the experiment runner both use it in-process.
 *
 *   pq_link *l;
 *   if (pq_link_up(&cfg, &opts, &l, &d) == 0) {
 *       pq_link_exec_in(l, PQ_SIDE_SERVER, argv, &eo, &pid, &d);   // runs in the server ns
 *       ...
 *       pq_link_stats(l, &st);
 *       pq_link_down(l, &d);                                      // removes everything
 *   }
 *
 * The client namespace has address PQ_LINK_CLIENT_ADDR, the server PQ_LINK_SERVER_ADDR,
 * on a point-to-point device with the configured MTU. These addresses exist only inside
 * the two namespaces; nothing outside them is touched. Namespace names carry the owning
 * pid, so a run killed with SIGKILL is cleaned up by the next pq_link_up (pq_ns_sweep);
 * the TUN devices and the forwarder vanish with the process by themselves. */
#ifndef PQ_NET_LINK_H
#define PQ_NET_LINK_H

#include <sched.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/err.h"
#include "stats/sample.h"
#include "net/linkcfg.h"
#include "net/path.h"

enum pq_side { PQ_SIDE_CLIENT = 0, PQ_SIDE_SERVER = 1 };

#define PQ_LINK_CLIENT_ADDR "10.77.0.1"
#define PQ_LINK_SERVER_ADDR "10.77.0.2"
#define PQ_LINK_IFNAME "pq0"

typedef struct pq_link pq_link;

typedef struct pq_link_opts {
	const char *pcap_path; /* write what crossed the link here (userspace backend); NULL: no */
	FILE *log;             /* notes such as stale namespaces removed; NULL: quiet */
	/* Per-direction fixed cost of the forwarder path subtracted from the delay; < 0 means
	 * use the built-in estimate (see docs/link.md). */
	int64_t comp_ns;
	/* The userspace forwarder wakes this long before a release and busy-waits to the
	 * exact time; < 0 (or above 10 ms): the built-in 150 us. */
	int64_t early_ns;
	int nice; /* the forwarder thread's nice value (pq_link_opts_init: -19) */
	/* The forwarder thread's SCHED_FIFO priority, 1..99; 0: the normal class only. When
	 * the real-time class is refused it runs at `nice` and says so on `log`. */
	int rt_prio;
	/* Once the real-time forwarder has spent its spin budget (dense traffic), it wakes at
	 * most once per this long, taking every release due by then (each late by less than
	 * it); 0: one wake-up per release. At most 500 us; pq_link_opts_init: 100 us. */
	int64_t batch_ns;
	/* Tests only: the forwarder holds every release back this long and accounts it as
	 * lateness (0: never; at most 100 ms), so a link over its budget can be made. */
	int64_t fault_late_ns;
	/* The spin budget shared with the machine's other forwarders (net/fwd.h: several
	 * links at once); NULL (pq_link_opts_init): this link's own budget alone. */
	struct pq_fwd_spin_pool *spin_pool;
	/* What this kernel offers (pq_link_kernel_caps), to check the configuration's kernel
	 * TCP settings against; NULL: pq_link_up reads it (the qdiscs only when one is asked,
	 * probed in the new server namespace). */
	const pq_ktcp_caps *caps;
} pq_link_opts;

/* Defaults: no pcap, quiet, built-in compensation and wake-up, nice -19, SCHED_FIFO 10,
 * a 100 us batch window. */
void pq_link_opts_init(pq_link_opts *o);

/* Refuses with a message naming what is missing: CAP_NET_ADMIN and CAP_SYS_ADMIN (root)
 * and, for the userspace backend, read-write access to /dev/net/tun. */
int pq_link_check_privileges(enum pq_backend b, pq_diag *d) PQ_MUST_USE;

/* Refuses a congestion control or qdisc this kernel lacks, naming what it offers
 * (before anything is set up), then makes the link, sets its kernel TCP settings and
 * reads them back (pq_link_ktcp). */
int pq_link_up(const pq_link_config *cfg, const pq_link_opts *o, pq_link **out, pq_diag *d) PQ_MUST_USE;

/* What this kernel offers (congestion controls; with `qdiscs`, the qdiscs, probed in a
 * scratch namespace that is removed again): so a sweep checks every cell's settings
 * before measuring. */
int pq_link_kernel_caps(pq_ktcp_caps *caps, int qdiscs, pq_diag *d) PQ_MUST_USE;
/* The link's kernel TCP settings as the kernel reported them after pq_link_up. */
const pq_ktcp_state *pq_link_ktcp(const pq_link *l);

const char *pq_link_ns_name(const pq_link *l, enum pq_side side);
enum pq_backend pq_link_backend(const pq_link *l);
const pq_link_config *pq_link_cfg(const pq_link *l);

typedef struct pq_exec_opts {
	int own_pgrp;       /* new process group (so the whole group can be signalled) */
	int stdin_null;     /* stdin from /dev/null */
	int die_with_owner; /* SIGKILL when the process that started it dies */
} pq_exec_opts;

/* Starts argv inside one side's namespace with PQTLS_SERVER_ADDR, PQTLS_CLIENT_ADDR and
 * PQTLS_LINK_SIDE in its environment. */
int pq_link_exec_in(pq_link *l, enum pq_side side, char *const argv[], const pq_exec_opts *eo,
		    pid_t *pid, pq_diag *d) PQ_MUST_USE;

/* Opens a file as seen from inside one side (e.g. "/proc/thread-self/net/tcp"). */
int pq_link_open_in(pq_link *l, enum pq_side side, const char *path, int flags, int *fd,
		    pq_diag *d) PQ_MUST_USE;
/* Runs fn(arg) on the calling thread while it is inside one side's namespace: sockets
 * created there belong to that side. */
int pq_link_run_in(pq_link *l, enum pq_side side, int (*fn)(void *arg), void *arg, pq_diag *d);

typedef struct pq_link_stats {
	enum pq_backend backend;
	pq_path_stats dir[2];    /* [PQ_DIR_C2S], [PQ_DIR_S2C]; drop_unplanned includes TUN drops */
	pq_summary late;         /* forwarder release lateness, ns (userspace backend) */
	int64_t fwd_wait_ns;     /* the forwarder's wait for a CPU so far (pq_fwd_wait_ns), -1 unknown */
} pq_link_stats;
int pq_link_stats_get(pq_link *l, pq_link_stats *out) PQ_MUST_USE;
/* "link: backend userspace; c->s 120 pkts 15.2 KiB, s->c ...; drops loss 0 queue 0 unplanned 0;
 *  release lateness p50 3 us p99 40 us max 210 us" */
void pq_link_stats_format(const pq_link_stats *s, char *buf, size_t n);
#define PQ_LINK_LATE_BUDGET_NS (1000 * 1000) /* 1 ms */
/* 1 when the forwarder's release lateness p99 was over PQ_LINK_LATE_BUDGET_NS: times
 * measured beside that traffic carry up to that much of the forwarder's own delay. */
int pq_link_stats_late_over(const pq_link_stats *s);
uint64_t pq_link_stats_unplanned(const pq_link_stats *s);

/* What the link itself did over a window (a cell, a self-check), from the forwarder's own
 * accounting: how late it released each packet against its schedule, and its drops by
 * cause. pq_link_window_begin starts a window (one per link at a time); pq_link_window_end
 * ends it into *out. late_known 0: the backend keeps no schedule (netem), late is NaN. */
typedef struct pq_link_window {
	int late_known;
	pq_summary late;      /* ns; late.n = releases in the window */
	pq_path_stats dir[2]; /* counts during the window; drop_unplanned includes TUN drops */
	/* How long the forwarder waited, runnable, for a CPU inside this machine during the
	 * window (-1 unknown): lateness well beyond it is time its vCPU did not run. */
	int64_t fwd_wait_ns;
} pq_link_window;
int pq_link_window_begin(pq_link *l) PQ_MUST_USE;
int pq_link_window_end(pq_link *l, pq_link_window *out) PQ_MUST_USE;

/* The budget a window is judged by: release lateness p99 at most PQ_LINK_LATE_BUDGET_NS
 * and no unplanned drop (configured loss and the configured queue's overflows are the
 * link doing what it was asked). 1 within, 0 over (*why says what, when given), -1 not
 * known (no schedule kept, nothing released). */
int pq_link_window_ok(const pq_link_window *w, char *why, size_t n);
uint64_t pq_link_window_unplanned(const pq_link_window *w);

/* Runs the thread that moves the link's packets (the userspace forwarder) on `cpus`
 * (core/sched.h, pq_sched_split: a browser's cell puts it beside the server, apart from
 * the client) and writes the set in force, read back, as a CPU list into list (n bytes);
 * 0, PQ_EUNSUPPORTED when the kernel moves them (netem: list ""), PQ_ESTATE when stopped. */
int pq_link_pin(pq_link *l, const cpu_set_t *cpus, char *list, size_t n);

/* Stops the forwarder and finishes the pcap; pq_link_stats_get then returns the final
 * counts (the pcap holds exactly pkts_out of both directions). Programs inside keep
 * running but nothing crosses the link any more. */
int pq_link_stop(pq_link *l, pq_diag *d);

/* Stops the forwarder (if pq_link_stop did not), kills anything still running inside, removes both namespaces and
 * frees l. Safe on NULL. Returns the first error (e.g. the pcap could not be finished). */
int pq_link_down(pq_link *l, pq_diag *d);

/* Attach to a link made by another process (`link up`), by base name pqtls-PID-N, to run
 * commands in it; pq_link_detach frees the handle and leaves the link alone. */
int pq_link_attach(const char *base, pq_link **out, pq_diag *d) PQ_MUST_USE;
void pq_link_detach(pq_link *l);

/* Names under which pq_link_up would create the next link of this process. */
void pq_link_names(unsigned n, pid_t pid, char c[64], char s[64]);

#endif
