/* The userspace forwarder: one thread holding both TUN fds, moving each packet through
 * its direction's path and writing it into the other namespace when it is due.
 *
 * Timing: a packet's release time comes from the path (exact, in the schedule). To hit
 * it, the thread arms an absolute timerfd `early_ns` before it, then busy-waits the rest
 * (reading the TUNs meanwhile, so arrivals are stamped promptly). It runs in the
 * SCHED_FIFO class at a modest priority when allowed, so other work on the machine cannot
 * hold it off the CPU for milliseconds. There it busy-waits only within a budget (a
 * share of each 10 ms); past it, the timer alone wakes it, at most once per batch window,
 * so it sleeps whenever nothing is due and cannot take a CPU from the rest of the machine
 * (a real-time thread spinning before every release of a paced train used a whole core,
 * and the kernel then held it off for 50 ms at a time to let other work run). Refused, it
 * runs in the normal class at a heavier weight (nice) and spins without a budget. */
#ifndef PQ_NET_FWD_H
#define PQ_NET_FWD_H

#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "net/late.h"
#include "stats/sample.h"
#include "net/linkcfg.h"
#include "net/path.h"
#include "net/pcapw.h"

typedef struct pq_fwd_stats {
	pq_path_stats dir[2];
	pq_summary late;     /* release lateness in ns (actual write - due) over the link's life */
} pq_fwd_stats;

/* How the forwarder thread runs: with rt_prio 1..99 in SCHED_FIFO at that priority (0:
 * never real-time); in the normal class (rt_prio 0, or the real-time class refused: no
 * CAP_SYS_NICE, no real-time budget; pq_fwd.sched_note says why) at its own nice value.
 * It wakes early_ns before a release and busy-waits to the exact time (0..10 ms; outside
 * that range, the default), in the real-time class within the spin budget below. Past
 * that budget it wakes at most once per batch_ns (0..PQ_FWD_BATCH_MAX_NS; 0: once per
 * release), taking every release due by then. */
#define PQ_FWD_DEFAULT_EARLY_NS (150 * 1000)
#define PQ_FWD_DEFAULT_NICE (-19)
#define PQ_FWD_DEFAULT_RT_PRIO 10
#define PQ_FWD_RT_PRIO_MAX 99
#define PQ_FWD_DEFAULT_BATCH_NS (100 * 1000)
#define PQ_FWD_BATCH_MAX_NS (500 * 1000)
#define PQ_FWD_RT_SPIN_WINDOW_NS (10 * 1000 * 1000)
#define PQ_FWD_RT_SPIN_SHARE 10 /* percent of each window */
/* Tests only: fault_late_ns (0..PQ_FWD_FAULT_LATE_MAX_NS) holds every release back by that
 * long and accounts it as lateness, so a link that misses its budget can be made at will. */
#define PQ_FWD_FAULT_LATE_MAX_NS (100 * 1000 * 1000)
typedef struct pq_fwd_tune {
	int64_t early_ns;
	int nice;
	int rt_prio;
	int64_t batch_ns;
	int64_t fault_late_ns;
	struct pq_fwd_spin_pool *spin_pool; /* shared with the machine's other forwarders; NULL: none */
} pq_fwd_tune;

/* The busy-wait lead the thread uses for a requested early_ns (< 0 or above 10 ms: the
 * default). */
int64_t pq_fwd_spin_ns(int64_t early_ns);

/* The spin budget the machine's real-time forwarders share when several links are up at
 * once (a sweep's workers, each forwarder in a process of its own: a shared mapping made
 * before they fork): together at most PQ_FWD_POOL_SPIN_SHARE % of one CPU in each
 * PQ_FWD_RT_SPIN_WINDOW_NS of the monotonic clock (windows aligned to it, so every process
 * counts the same ones). Each forwarder's spin is taken from the endpoints of every cell
 * in flight: twelve 1 Mbit/s links spinning 150 us before each release made those
 * endpoints wait three times as often over their budget as no spin did (docs/link.md). */
#define PQ_FWD_POOL_SPIN_SHARE 10 /* percent of one CPU, all forwarders together */
typedef struct pq_fwd_spin_pool {
	int64_t window; /* the window's index (monotonic ns / PQ_FWD_RT_SPIN_WINDOW_NS) */
	int64_t spent;  /* ns spun in it, by every forwarder */
} pq_fwd_spin_pool;
/* A zeroed pool in a shared anonymous mapping (inherited by forked children); NULL when
 * the mapping is refused. pq_fwd_spin_pool_free(NULL) does nothing. */
pq_fwd_spin_pool *pq_fwd_spin_pool_new(void);
void pq_fwd_spin_pool_free(pq_fwd_spin_pool *p);

/* The spin budget: in the real-time class at most PQ_FWD_RT_SPIN_SHARE % of each
 * PQ_FWD_RT_SPIN_WINDOW_NS (a window starts at the first question after the last one
 * ended), and within the shared pool's when there is one; in the normal class (rt 0)
 * unlimited (it competes for the CPU as an equal). Times are passed in. */
typedef struct pq_fwd_spin {
	int64_t window_start, spent, budget; /* budget 0: unlimited */
	pq_fwd_spin_pool *pool;              /* NULL: this forwarder's budget alone */
} pq_fwd_spin;
void pq_fwd_spin_init(pq_fwd_spin *s, int rt, pq_fwd_spin_pool *pool);
int pq_fwd_spin_ok(pq_fwd_spin *s, int64_t now); /* may it spin now? */
void pq_fwd_spin_charge(pq_fwd_spin *s, int64_t ns);

typedef struct pq_fwd {
	int tun[2];          /* [PQ_DIR_C2S] = client TUN (read side), [PQ_DIR_S2C] = server TUN */
	pq_path path[2];
	pq_pkt_pool pool;
	int timer_fd, stop_fd, epoll_fd;
	int64_t early_ns;
	int nice;            /* the thread's nice value */
	int rt_prio;         /* SCHED_FIFO priority in force, 0: the normal class */
	int64_t batch_ns;    /* over the spin budget, at most one timed wake-up per this long */
	char sched_note[160]; /* why the real-time class was not used ("" when it was or was not asked) */
	pq_pcapw *pcap;
	pthread_t thread;
	int running;
	volatile int stop_req; /* set (atomically) by pq_fwd_stop: the spin loop may never reach epoll */
	int64_t fault_late_ns; /* tests: every release this much late (pq_fwd_tune) */
	pq_fwd_spin_pool *spin_pool; /* pq_fwd_tune's */
	pthread_mutex_t mu;  /* guards path stats and `late` against pq_fwd_stats_get */
	pq_late late;        /* release lateness: the link's life and the current window */
	uint64_t win_hint;   /* releases in the largest window taken: room for the next one */
	int tid;             /* the thread's id (0 until it runs), for its schedstat */
	uint64_t write_errors[2];
} pq_fwd;

/* Builds the paths from cfg (each direction's delay reduced by comp_ns[dir], the
 * measured fixed cost of the forwarder's own path, never below 0) and starts the thread.
 * Takes ownership of the TUN fds and of pcap (may be NULL). tune NULL: the defaults. */
int pq_fwd_start(pq_fwd *f, const pq_link_config *cfg, const int64_t comp_ns[2], int tun_c, int tun_s,
		 pq_pcapw *pcap, const pq_fwd_tune *tune, pq_diag *d) PQ_MUST_USE;
/* Stops and joins the thread, closes the TUNs (the devices vanish) and the pcap. */
int pq_fwd_stop(pq_fwd *f, pq_diag *d);
void pq_fwd_stats_get(pq_fwd *f, pq_fwd_stats *out);
/* The release lateness since the last take (or the start) into *out, starting a new window
 * (see net/late.h; summarise and dispose of *out), and the counts so far into dir[2], at
 * one instant. The next window's memory is made ready before the lock is taken, and
 * nothing is sorted under it, so the forwarder waits for no more than a copy. */
void pq_fwd_window_take(pq_fwd *f, pq_late_win *out, pq_path_stats dir[2]);
/* How long the thread has waited, runnable, for a CPU inside this machine since it
 * started (core/sched.h), ns; -1 unknown. Time the
 * hypervisor took the whole vCPU away is not in it: a release late by more than this
 * waited for a vCPU that was not running. */
int64_t pq_fwd_wait_ns(const pq_fwd *f);

/* Runs the thread on `cpus` (core/sched.h, pq_sched_split) and writes the set in force,
 * read back, as a CPU list into list (n bytes; "" unknown); 0, PQ_ESTATE when the thread
 * is not running, or -errno. */
int pq_fwd_pin(pq_fwd *f, const cpu_set_t *cpus, char *list, size_t n);

/* Frees what pq_fwd_stop keeps for a last pq_fwd_stats_get. */
void pq_fwd_dispose(pq_fwd *f);

#endif
