/* How busy the host is around a cell: runnable tasks (procs_running of /proc/stat), the
 * 1-minute load average, and the steal counters, so a report can flag cells measured on a
 * busy or stolen-from machine. Parsing is separate from reading for the tests. */
#ifndef PQ_EXP_HOSTLOAD_H
#define PQ_EXP_HOSTLOAD_H

#include "core/cpus.h"
#include "core/err.h"
#include "net/steal.h"

/* A cell measured while the hypervisor took more than this share of the host's CPU time
 * is marked as measured on a noisy host (cell.host_ok = 0): its times may carry the
 * client's and server's own waits for a CPU. */
#define PQ_HOSTLOAD_STEAL_BUDGET_PCT 10.0

/* The endpoints' own waits for a CPU inside this machine (core/sched.h: other work here,
 * which steal does not count). A cell is marked too (host_ok = 0) when its median
 * connection's client and its server's median connection waited, together, more than
 * PQ_HOSTLOAD_WAIT_BUDGET_RTT of the cell's RTT, and never less than
 * PQ_HOSTLOAD_WAIT_FLOOR_US (a woken process's usual wake-up here is tens of
 * microseconds). A tenth of a round trip is well inside the flight model's tolerance
 * (PQ_MODEL_AGREE_RTT, a quarter): a cell within it was not made late by its host.
 * A connection that moves a response for many round trips is judged against its own
 * length as well: the budget is never less than PQ_HOSTLOAD_WAIT_BUDGET_CONN of the
 * cell's median connection time to its first response's last byte. A handshake lasts
 * 3-5 round trips, so a tenth of one is 2-3 % of it; a 1 MiB transfer at 1 Mbit/s
 * lasts about 250 round trips of 35 ms, and its endpoints wake for every few segments
 * (docs/sweep.md: 53 ms of waits in an 8.9 s connection, 0.6 %, marked against 3.5 ms). */
#define PQ_HOSTLOAD_WAIT_BUDGET_RTT 0.1
#define PQ_HOSTLOAD_WAIT_FLOOR_US 1000.0
#define PQ_HOSTLOAD_WAIT_BUDGET_CONN 0.01

/* The endpoints' wait of a cell, judged against the budget: its client's median
 * connection's plus its server's, us; either unknown (negative or NaN) counts as none,
 * both unknown give -1. */
double pq_hostload_endpoint_wait_us(double client_p50_us, double server_p50_us);
/* What a wait budget is a share of: the cell's RTT (0 or less: a local or unknown path)
 * and its median connection's time to its first response's last byte (0 or less, NaN:
 * unknown, as for handshakes alone), us. */
typedef struct pq_hostload_span {
	double rtt_us, conn_us;
} pq_hostload_span;
/* The budget for a cell of that span, us. */
double pq_hostload_wait_budget_us(pq_hostload_span s);
/* 1 when a known wait (us) is over the budget of s; 0 within or unknown (negative, NaN). */
int pq_hostload_wait_over(double wait_us, pq_hostload_span s);
/* A cell's host verdict: 1 within both budgets, 0 over either, -1 unknown (steal_pct < 0:
 * no reading; then the waits alone cannot clear it). wait_us: the client's median
 * connection's wait plus the server's, -1 unknown (then steal alone decides). */
int pq_hostload_verdict(double steal_pct, double wait_us, pq_hostload_span s);
/* Whether a cell over a budget is worth measuring again (pqtls sweep --remeasure): 1
 * unless it went over the host's budget alone, by its endpoints' waits for a CPU (steal
 * within its budget or unknown), while it ran alone for its own response's CPU (own_cpu:
 * exp/runner.h, pq_exp_cell_cpu_bound). Nothing ran beside such a cell, so its waits are
 * its own transfer's, and another attempt costs its time again for the same mark
 * (blog-payload: 1 of 5 such marks cleared). link_ok, host_ok: its verdicts, 1 within,
 * 0 over, -1 unknown; 0 for a cell within both. */
int pq_hostload_worth_again(int link_ok, int host_ok, double steal_pct, int own_cpu);

typedef struct pq_hostload {
	pq_steal_sample steal;
	int runq;      /* -1 unknown */
	double load1;  /* -1 unknown */
	long long throttled_ns; /* the cgroup CPU quota's throttling so far (core/cpus.h); -1 none or unknown */
} pq_hostload;

/* From the texts of /proc/stat and /proc/loadavg; fields it cannot find stay unknown.
 * PQ_EPARSE when neither text gives anything. */
int pq_hostload_parse(const char *stat, const char *loadavg, pq_hostload *h) PQ_MUST_USE;
/* Reads both files now (unknown fields when a file is missing), and the throttling of
 * cpus's quota (NULL or no quota: none). */
void pq_hostload_sample(pq_hostload *h, const pq_cpus *cpus);
/* The throttling between two samples, us; -1 when either has none. */
double pq_hostload_throttled_us(const pq_hostload *before, const pq_hostload *after);

#endif
