/* The sweep engine: one process measures a whole grid.
 *
 *   chains  every chain the grid needs, made or found in the cache first (exp/chains.h)
 *   links   one emulated link per link condition, brought up once, self-checked (stored;
 *           tried up to PQ_EXP_CHECK_TRIES times; a link that misses every time is used
 *           and its cells marked, or, when strict, stops the sweep), taken down after its
 *           cells
 *   fidelity  while each cell runs, the link's own accounting (release lateness, drops by
 *           cause) and the host's steal; stored with the cell and judged (link_ok,
 *           host_ok); when strict, a cell whose link went over its budget stops the sweep
 *   cells   in run order (exp/grid.h: by link, then trial, arms shuffled per trial); for
 *           each: an in-process server started in the server namespace with timeouts from
 *           the cell's conditions, the load run on this thread in the client namespace,
 *           host load sampled before and after, one transaction into the store.
 *
 * Cells already in the store for this host are skipped (resume). Connection failures are
 * rows; a cell whose server or load cannot start is a `failed` row with the reason, and
 * the sweep goes on. `stop` (set from a signal handler) ends the sweep after the cell in
 * progress. */
#ifndef PQ_EXP_RUNNER_H
#define PQ_EXP_RUNNER_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "core/err.h"
#include "exp/chains.h"
#include "exp/grid.h"
#include "exp/srvproc.h"
#include "exp/store.h"
#include "net/ktcp.h"
#include "net/linkcfg.h"

#define PQ_EXP_CHECK_TRIES 3

typedef struct pq_exp_progress {
	size_t done, total, skipped;
	uint64_t conns, failures;
	int64_t elapsed_ns;
	const char *arm;
	size_t inflight;     /* cells being measured now (1 for a serial sweep) */
	size_t inflight_max; /* how many may be at once now (exp/jobs.h backs off when cells are marked) */
	size_t marked;       /* cells measured so far over the link's or the host's budget */
	/* The estimate's weight (pq_exp_cell_work_s, seconds) of the cells measured so far
	 * (with cells at once, those in flight by their time so far, at most 90 % of their
	 * estimate) and of all to measure (stored ones left out): a long cell counts as long,
	 * so an ETA from them does not take the long cells measured first as the rate of the
	 * rest. */
	double work_done, work_total;
} pq_exp_progress;

/* Seconds left: the time so far over the estimate's weight of the cells measured, else
 * over their count; before the first: est_s (the sweep's estimate) less the time so far;
 * 0 when no cell is left. Never negative. */
double pq_exp_progress_eta_s(const pq_exp_progress *p, double est_s);

typedef struct pq_exp_run_opts {
	int no_check;
	int strict;                        /* a failed self-check or a cell over the link budget stops the sweep */
	int64_t fault_link_late_ns;        /* tests: every link releases each packet this much late */
	int test_no_link_worker;           /* tests: with jobs, this worker (1-based) brings up no link */
	int test_no_link;                  /* tests: set in that worker: every link up fails */
	int test_no_link_precheck;         /* tests: with jobs, the fast links' check before the cells brings up none */
	enum pq_backend backend;
	FILE *log;                         /* link and check lines; NULL = quiet */
	void (*progress)(void *arg, const pq_exp_progress *p);
	void *progress_arg;
	volatile sig_atomic_t *stop;
	/* Test hook (set by test programs only; no option or environment reaches it): after
	 * the first connection of the cell with this index, its server process suffers
	 * test_server_fault for real. -1 (or PQ_EXP_SRV_FAULT_NONE): never. */
	long long test_server_fault_cell;
	enum pq_exp_srv_fault test_server_fault;
	const pq_ktcp_caps *caps;          /* what the kernel offers (pq_exp_check_kernel); NULL: each link probes */
	/* The forwarder's tuning (comp_ns, early_ns, nice, rt_prio, batch_ns: the same
	 * environment `pqtls link` reads, docs/link.md); NULL: pq_link_opts_init's. */
	const struct pq_link_opts *link_tune;
	/* The forwarders' shared spin budget (net/fwd.h), made by exp/jobs.c for its workers'
	 * links; NULL: each link's own. */
	struct pq_fwd_spin_pool *spin_pool;
	/* The nice value each cell's client threads and server process run at (core/sched.h),
	 * so that other work inside the machine delays the measured connections less;
	 * PQ_SCHED_NICE_KEEP: as they are. The sweep's default: PQ_EXP_ENDPOINT_NICE. The
	 * session's scheduling group (autogroups, core/sched.h) is the caller's: `pqtls sweep`
	 * measures in a session of its own raised to the same nice (cli/sweep.c); each cell
	 * stores the group's nice it ran in. */
	int endpoint_nice;
	/* A cell over the link's or the host's budget is measured again up to this many times
	 * (0: never); only its last attempt is stored. */
	int remeasure;
	/* The pqtls binary each cell's server is exec'd from (exp/srvproc.h); NULL: forked
	 * only (unit tests, whose binary is not pqtls). */
	const char *server_exe;
	/* Links checked once for the whole sweep (exp/jobs.h: each fast link, with the machine
	 * to itself, before the cells start): bringing up one of these, the runner stores its
	 * cells against that check instead of checking again. NULL/0: none. */
	const struct pq_exp_prechecked *prechecked;
	size_t nprechecked;
	/* The CPUs the sweep may use (core/cpus.h), counted once: the dispatcher's CPU budget
	 * is a share of them, and under a cgroup CPU quota each cell stores how long the quota
	 * throttled the cgroup while it ran. NULL: read again where needed, no throttling. */
	const struct pq_cpus *cpus;
} pq_exp_run_opts;

/* A link's stored self-check and its verdict, by the link's key. */
typedef struct pq_exp_prechecked {
	const char *link_key;
	int64_t check_id;
	int ok; /* 1 within budget, 0 missed every try */
} pq_exp_prechecked;

#define PQ_EXP_REMEASURE_DEFAULT 1
#define PQ_EXP_REMEASURE_MAX 5

/* The endpoints' nice by default: the most a process can ask but one, as the link's
 * self-check probe (net/check.c) runs. Measured here (docs/model.md "The host's CPU"). */
#define PQ_EXP_ENDPOINT_NICE (-19)

typedef struct pq_exp_run_summary {
	size_t cells_run, cells_skipped, cells_failed;
	size_t cells_partial;               /* measured, but some connections failed or the server died */
	uint64_t conns, conn_failures;
	int interrupted;
	/* How faithful the sweep was (pq_exp_run_noise prints it): */
	size_t checks, checks_missed;        /* self-checks run (every attempt), missed */
	double probe_tail_max_ns;           /* the largest probe p99 over the link's median in a check; -1 none */
	size_t cells_link_known, cells_link_over; /* cells with the link's accounting, over its budget */
	size_t cells_host_known, cells_host_over; /* cells with a host verdict, over its budget */
	size_t cells_wait_over;             /* of those, over the endpoints' wait budget */
	size_t cells_remeasured;            /* attempts thrown away because they were over a budget */
	size_t cells_own_wait;              /* over the host's budget by their own transfer's waits, not measured again */
	size_t inflight_peak;               /* the most cells measured at once (0: one at a time) */
	double steal_pct_sum, steal_pct_max; /* over the cells with a steal reading */
	size_t cells_steal_known, cells_steal_over;
	size_t cells_throttled;             /* cells during which a cgroup CPU quota throttled (core/cpus.h) */
	double wait_max_us;                 /* the largest endpoints' median wait of a cell; -1 none */
	int nice;                           /* the endpoints' nice as read back (the largest); PQ_SCHED_NICE_KEEP unknown */
	int group_nice;                     /* their session group's (core/sched.h), the largest; PQ_SCHED_NICE_KEEP none */
	int runq_max;                       /* -1 unknown */
	double late_p99_max_ns;             /* the worst cell's release lateness p99; -1 none */
} pq_exp_run_summary;

/* One line on how noisy the host was and how the links held: "host: steal 4.2 % on
 * average, 12.0 % at most, run queue up to 5; probe p99 up to +21.3 ms over the link's median
 * (the probe's own waits for a CPU, not judged); links: release lateness p99 at most
 * 0.31 ms, 0 of 54 cells over the link budget; 3 of 54 over the host budget (steal > 10 %: 1;
 * the endpoints' median wait > 10 % of the RTT, 1 % of the median connection and 1 ms: 2)" */
void pq_exp_run_noise(const pq_exp_run_summary *s, char *buf, size_t n);
/* Before anything is measured: every link condition's kernel TCP settings against what
 * this kernel offers (probed once into *caps), refusing a congestion control or qdisc it
 * lacks with the arm that asked for it and what the kernel has. Remote grids pass. */
/* When a cell has client = chromium: the browser is there and says its version (into
 * version, the run's manifest), else its error naming the arm; no such cell: "" and 0. */
int pq_exp_check_browser(const pq_exp_grid *g, char *version, size_t n, pq_diag *d) PQ_MUST_USE;
int pq_exp_check_kernel(const pq_exp_grid *g, pq_ktcp_caps *caps, pq_diag *d) PQ_MUST_USE;

/* Measures the grid's cells one after another (cells already stored are skipped). */
int pq_exp_run(const pq_exp_grid *g, const pq_exp_chains *chains, pq_store *st, const pq_exp_run_opts *o,
	       pq_exp_run_summary *sum, pq_diag *d) PQ_MUST_USE;

void pq_exp_run_summary_init(pq_exp_run_summary *s);
/* Adds one measuring process's summary to another's (counts summed, extremes kept). */
void pq_exp_run_summary_add(pq_exp_run_summary *into, const pq_exp_run_summary *s);

/* One measuring process's state across cells: the link it has up (kept while the next cell
 * wants the same link; taken down and another brought up when not), the cells' fidelity
 * added to *sum. pq_exp_run uses one for the whole grid, each worker of a concurrent sweep
 * (exp/jobs.h) one for the cells it is given. pr: the progress the load's callback moves
 * (read only; may be NULL when o->progress is NULL). */
typedef struct pq_exp_runner pq_exp_runner;
typedef struct pq_exp_cell_outcome {
	size_t conns, failures; /* connections measured, of which failed */
	int failed;             /* the cell measured nothing (status "failed") */
	int marked;             /* over the link's or the host's budget */
	int no_link;            /* (with an error) its link could not be brought up: nothing measured */
	double cpu_share;       /* the CPU it used (client, server, forwarder) over its wall time; -1 unknown */
	double cpu_per_conn_s;  /* that CPU, seconds, per connection (warm-up ones too); -1 unknown */
} pq_exp_cell_outcome;
int pq_exp_runner_new(const pq_exp_grid *g, const pq_exp_chains *chains, pq_store *st, const pq_exp_run_opts *o,
		      const pq_exp_progress *pr, pq_exp_run_summary *sum, pq_exp_runner **out, pq_diag *d) PQ_MUST_USE;
/* Measures and stores one cell. An error is the sweep's (store, link up, strict); the
 * cell's own failures are stored in its row and counted in *oc. */
int pq_exp_runner_cell(pq_exp_runner *R, const pq_exp_cell *c, pq_exp_cell_outcome *oc, pq_diag *d) PQ_MUST_USE;
/* Brings up cell c's link (taking down the one up) and self-checks it, as its first cell
 * would (stored; up to PQ_EXP_CHECK_TRIES); *out names the check. The link stays up. */
int pq_exp_runner_check_link(pq_exp_runner *R, const pq_exp_cell *c, pq_exp_prechecked *out, pq_diag *d) PQ_MUST_USE;
/* How many cells are in flight as the next is handed out, itself included (exp/jobs.c;
 * 1 until set, a serial sweep's), stored with each cell it measures (host_cells_at_once):
 * cells at once lengthen a TTFB a little (docs/sweep.md), so a reader can tell them apart. */
void pq_exp_runner_at_once(pq_exp_runner *R, int n);
/* Takes the link down and frees (NULL: nothing); an error taking the link down. */
int pq_exp_runner_free(pq_exp_runner *R, pq_diag *d);

/* Estimated seconds the grid takes here (links, checks, handshakes and transfers) with up
 * to `jobs` cells at once, `base` for a cell whose connections do not stall (exp/jobs.h,
 * pq_exp_jobs_choose; each cell with as many as pq_exp_cell_limit allows); for the
 * sweep's lists of presets and of cells and its progress line before the first cell ends. */
double pq_exp_estimate_s(const pq_exp_grid *g, unsigned jobs, unsigned base);
/* The dispatcher's order of todo[0..n) (indices of g's cells) at up to `jobs` at once,
 * `base` as for pq_exp_estimate_s: a link's cells by class, then the links' order that
 * plays soonest (exp/jobs.h, pq_exp_jobs_order_classes and pq_exp_jobs_order_played). The
 * sweep's dispatcher orders its cells by it and the estimate plays the same order. Each
 * cell's time alone into est_s[0..g->n) unless NULL; the played run's seconds into
 * *played unless NULL (-1 on failure). 0, or PQ_ENOMEM (todo then in some order of its
 * cells). */
int pq_exp_order_cells(const pq_exp_grid *g, size_t *todo, size_t n, unsigned jobs, unsigned base, double *est_s,
		       double *played);
/* Estimated seconds one cell of point p takes alone (its connections, their round trips,
 * transfers and losses); what pq_exp_estimate_s adds up, and what the cells-at-once
 * dispatcher orders its link groups by (exp/jobs.h, pq_exp_jobs_order). */
double pq_exp_cell_estimate_s(const pq_exp_point *p);
/* Cell c's share of the sweep's time at up to `jobs` at once: its estimate alone over the
 * cells its class lets run together (exp/jobs.h; 1 for a browser's or a remote server's
 * cells). The progress line's ETA weighs the cells measured by it (pq_exp_progress). */
double pq_exp_cell_work_s(const pq_exp_grid *g, const pq_exp_cell *c, unsigned jobs, unsigned base);
/* The time scale of cell c's link as it will be brought up (exp/jobs.h,
 * pq_exp_jobs_scale_ns; a profile's too). A remote server's cell counts as 0 (alone: its
 * path is not ours to share out), and so does a cell whose client is a browser: a cold
 * Chromium spends tens of ms of CPU on one navigation (certificate verification alone
 * took 48 ms here), and ten of them at once on two CPUs put their own waits into every
 * neighbour's times. A cell whose response's CPU (server, forwarder and client, about
 * 33 ms a MiB here) is PQ_EXP_JOBS_SOLO_CPU_SHARE of its connection's estimated time or
 * more counts as 0 too: on aws-fast (35 ms, 1 Gbit/s) the 512 KiB and 1 MiB cells, 3 to 4
 * at once, went over the host's budget 19 times in 24 (the client waited 3.9-4.7 ms for
 * a CPU in a median connection), alone once. A lossy link's scale from 10 ms on grows by
 * its connections' expected stalls (PQ_EXP_JOBS_STALL_ROUNDS). */
int64_t pq_exp_cell_scale_ns(const pq_exp_grid *g, const pq_exp_cell *c);
/* Whether cell c runs alone for its own response's CPU (PQ_EXP_JOBS_SOLO_CPU_SHARE, above):
 * then its endpoints' waits for a CPU are its own transfer's, which measuring it again
 * does not take away (pq_exp_runner_cell). */
int pq_exp_cell_cpu_bound(const pq_exp_grid *g, const pq_exp_cell *c);
/* How many cells may be in flight while c is, itself included (exp/jobs.h): one per
 * PQ_EXP_JOBS_RTT_PER_JOB_NS of its time scale, at most `base` (auto's per-CPU count, or
 * the count asked for), for a cell whose connections stall more by as many times as
 * their stalls lengthen its scale (PQ_EXP_JOBS_STALL_MAX times at most), never over `jobs`;
 * its time scale in *scale_ns unless NULL. */
size_t pq_exp_cell_limit(const pq_exp_grid *g, const pq_exp_cell *c, unsigned jobs, unsigned base, int64_t *scale_ns);

/* The CPU this machine spends moving a response's byte through a link of its own: the
 * server's writes, the forwarder's copies and the client's reads. Measured on aws-fast
 * (35 ms, 1 Gbit/s; 0 B to 1 MiB responses, 20 connections a cell; 2026-12-06): the
 * cells' client plus server-and-link CPU grew from 197 to 863 ms, 33 ms a MiB a
 * connection. The estimate's share of a CPU and the report's reason for a fast link's
 * transfer both ask it. */
#define PQ_EXP_CPU_S_PER_BYTE (0.033 / 1048576.0)

#endif
