/* Cells measured at once (up to N, as the sweep's caller asks): a dispatcher in the
 * measuring process and N worker processes forked from it, each with a link of its own
 * (its own namespaces, forwarder, queues and loss sequence: no two cells share one) and
 * its own connection to the results database. The dispatcher hands out the grid's cells link by link, the
 * longest links first, grouped by class when that plays out sooner
 * (pq_exp_jobs_order_played; within a link the run order of exp/grid.h: by
 * trial, arms shuffled per trial), preferring a worker whose link is already the cell's,
 * so links are brought up once per worker. What is stored per cell does not depend on N:
 * a run of 8 at once merges with a shard measured one at a time, and resuming skips
 * stored cells whatever N was. Each fast link (net/linkcfg.h pq_link_config_fast) is
 * self-checked once, by the dispatcher, before the workers start, so that its 1 Gbit/s
 * push does not run beside the cells in flight; the workers store their cells against
 * that check (exp/runner.h prechecked).
 *
 * Concurrency guards the measurement: a cell whose RTT is small against its CPU work runs
 * with few neighbours (pq_exp_jobs_limit), and the dispatcher lets fewer cells run at once
 * when cells come back over the link's or the host's budget, more again after a run of
 * clean ones (pq_exp_jobs_ctl), saying so on the log. */
#ifndef PQ_EXP_JOBS_H
#define PQ_EXP_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "exp/runner.h"

#define PQ_EXP_JOBS_MAX 64      /* a count of cells at once is 1..64 */
/* auto: cells at once per CPU, at RTTs where the CPUs mostly wait. It reaches cells whose
 * time scale is over PQ_EXP_JOBS_RTT_PER_JOB_NS times it (160 ms at 20 on two CPUs):
 * ttfb-size's 200 ms cells at 40 against 24 at once (2026-12-07, docs/sweep.md) took
 * 103 s against 145 s, none marked, the endpoints' median waits 3.3-3.7 ms against
 * 2.3-2.6 ms (their budget 20 ms), the medians within two runs' drift; in full runs its
 * 200 ms cells 206 s against 348 s. It was 12 until then. */
#define PQ_EXP_JOBS_PER_CPU 20
#define PQ_EXP_JOBS_SOLO_RTT_NS 10000000LL /* below 10 ms RTT a cell runs alone */
/* Above it, one neighbour per 4 ms of the time scale: 2 at 10 ms, 12 at 50 ms, 25 at 100.
 * It was 5 ms until the CPUs were kept awake by polling instead of spinners (core/awake.h,
 * 2026-12-08), which halved the endpoints' waits for a CPU: ttfb-size's 50 and 100 ms
 * cells at 4 ms with polling against 5 ms with spinners, alternated, x1.20, none marked
 * in either beyond one a run, the endpoints' median waits lower still; 3.3 ms (3 at 10 ms)
 * marked 8 and 14 of 152 cells at 10 ms against 1 and 1 (docs/sweep.md, "Measured
 * here"). With spinners (--keep-awake spin) 2.5 ms had doubled the cells marked. */
#define PQ_EXP_JOBS_RTT_PER_JOB_NS 4000000LL
/* A cell whose responses keep a CPU busy for this share of its time or more (a response's
 * CPU over its connection's time, times the connections it keeps in flight) runs alone, as
 * a 0 ms cell does: a link faster than the machine forwards (1 Gbit/s here) moves a large
 * response in bursts that need the server, the forwarder and the client at the same
 * moment, so neighbours' bursts meet (pq_exp_cell_scale_ns). */
#define PQ_EXP_JOBS_SOLO_CPU_SHARE 0.05
/* A lossy link's round trip as its connections see it on average: its RTT plus their
 * expected retransmission stalls (the estimate's, pq_exp_cell_estimate_s) spread over
 * the four round trips of a handshake, while the CPUs wait on the kernel's timers
 * (pq_exp_cell_scale_ns). aws-lossy (35 ms, 3 % each way): 57 ms, 14 cells at once
 * instead of 8. A link under PQ_EXP_JOBS_SOLO_RTT_NS stays alone, lossy or not. */
#define PQ_EXP_JOBS_STALL_ROUNDS 4
/* A jittery link's reordering holds a transfer to the rate TCP keeps through it; a cell
 * whose connections wait on that rate for this many round trips or more waits as on a
 * slow link's wire (pq_exp_cell_scale_ns). From there its host budget, a hundredth of its
 * connection (exp/hostload.h), is three times a tenth of its round trip or more, and the
 * waits more neighbours add stay within it: ttlb's aws-jittery 512 KiB and 1 MiB cells,
 * 10 at once instead of 7, waited 11.9 and 22.6 ms for a CPU in a median connection
 * against budgets of about 17 and 38 ms; its 50-200 KiB cells (budgets 3.5-7.5 ms) went
 * over 7 times in 36 (docs/sweep.md, "Measured here"). */
#define PQ_EXP_JOBS_REORDER_MIN_RTTS 30
/* A cell whose connections stall keeps the CPUs busy for a smaller share of its time than
 * one whose scale is its link's alone, so auto's count (PQ_EXP_JOBS_PER_CPU per CPU)
 * grows for it by the same factor, its scale over its link's, up to this many times
 * (pq_exp_cell_limit), never over PQ_EXP_JOBS_MAX: the loss preset's 20 % links take 64
 * at once instead of 40. Its cells' waits left room (the endpoints' median wait at most
 * 2.1 ms a connection in the full run at 24 at once, 2.5 ms at up to 47, against budgets
 * of 7.9 and 19.6 ms). A count given (--jobs N) is the most at once for every cell. */
#define PQ_EXP_JOBS_STALL_MAX 2
#define PQ_EXP_JOBS_AUTO 0

/* "auto" (PQ_EXP_JOBS_AUTO) or a count 1..PQ_EXP_JOBS_MAX; `what` names the option. */
int pq_exp_jobs_parse(const char *s, const char *what, unsigned *jobs, pq_diag *d) PQ_MUST_USE;

/* How many cells may be in flight while a cell with this time scale is (itself included),
 * at most cap: 1 below PQ_EXP_JOBS_SOLO_RTT_NS, then one per PQ_EXP_JOBS_RTT_PER_JOB_NS. */
size_t pq_exp_jobs_limit(int64_t scale_ns, size_t cap);

/* A link's time scale, against which a cell's CPU work (signing, verifying, forwarding)
 * is small or not: its RTT, plus the time its slower direction takes to carry one
 * initial window of full-size packets (at 1 Mbit/s and MTU 1500, 120 ms: a cell there
 * waits for the wire, not for a CPU). A link of 0 ns RTT and no rate limit is 0. */
int64_t pq_exp_jobs_scale_ns(const struct pq_link_config *lc);
/* The time one initial window of full-size packets (MTU mtu, 0: the default) takes at
 * rate_bps, ns: what pq_exp_jobs_scale_ns adds for a slow link, and the estimate for a
 * transfer held to the rate a jittery link's reordering lets TCP keep (exp/runner.h,
 * pq_exp_cell_scale_ns). */
int64_t pq_exp_jobs_iw_wire_ns(double rate_bps, unsigned mtu);

/* The concurrency for `asked` (PQ_EXP_JOBS_AUTO or a count) on this grid and machine, with
 * the reason in why: a remote server is measured one cell at a time unless asked
 * otherwise; auto is PQ_EXP_JOBS_PER_CPU per CPU, in *base, and as many as the grid's
 * stalling cells take beyond it (pq_exp_cell_limit) in the count returned; a count asked
 * for is both; never more than the cells to measure. `what` is the caller's name for the
 * count's input, used in why. */
unsigned pq_exp_jobs_choose(const pq_exp_grid *g, unsigned asked, const char *what, unsigned ncpu, size_t ncells,
			    unsigned *base, char *why, size_t n);

/* A cap on cells at once: lowered by one when a cell comes back marked
 * (at most once per `cap` cells finished, so one noisy moment counts once) while the
 * sweep's own work is a large part of the machine's (`ours`: pq_exp_jobs_ours), raised by
 * one after 2 x cap clean cells in a row, between 1 and max. A cell marked while other
 * work uses most of the CPUs does not lower it (fewer cells at once would not have made it
 * clean) nor counts as clean. */
typedef struct pq_exp_jobs_ctl {
	size_t cap, max;
	size_t clean_run, since_change;
} pq_exp_jobs_ctl;
void pq_exp_jobs_ctl_init(pq_exp_jobs_ctl *c, size_t max);
/* A finished cell: returns -1 when the cap went down, +1 up, 0 unchanged. */
int pq_exp_jobs_ctl_done(pq_exp_jobs_ctl *c, int marked, int ours);

/* The dispatcher's caps, one controller per class of cells: a class is the limit its time
 * scale gives (pq_exp_jobs_limit: 1 alone, 2 at 10 ms, 12 at 50 ms ...), and its cap starts
 * there. A marked cell lowers only its own class's cap: a cell that ran alone (class 1)
 * lowers nothing, and marks of 10 ms cells, where two at once was already too many, do not
 * hold 200 ms cells, which wait for the wire, to fewer. `max` is the sweep's concurrency
 * (the workers it has), every class's ceiling. */
typedef struct pq_exp_jobs_caps {
	pq_exp_jobs_ctl cls[PQ_EXP_JOBS_MAX + 1];
	size_t max;
} pq_exp_jobs_caps;
void pq_exp_jobs_caps_init(pq_exp_jobs_caps *k, size_t max);
/* The cap in force for cells of class `lim` (1..max; outside, clamped). */
size_t pq_exp_jobs_caps_of(const pq_exp_jobs_caps *k, size_t lim);
/* A finished cell of class `lim`: pq_exp_jobs_ctl_done on that class's controller. */
int pq_exp_jobs_caps_done(pq_exp_jobs_caps *k, size_t lim, int marked, int ours);
/* One worker fewer (it could not bring a link up): the ceiling and every cap above it
 * come down by one, never under 1. */
void pq_exp_jobs_caps_lower_max(pq_exp_jobs_caps *k);

/* Whether the sweep's work is a large part of the machine's: its workers and the children
 * they reaped (the cells' servers) used at least PQ_EXP_JOBS_OURS_SHARE of the machine's
 * busy CPU time (core/proc.h) in a window, in clock ticks; with under
 * PQ_EXP_JOBS_OURS_MIN_TICKS of busy time it cannot tell, and says yes (then the cap comes
 * down on marks as it always did). */
#define PQ_EXP_JOBS_OURS_SHARE 0.5
#define PQ_EXP_JOBS_OURS_MIN_TICKS 50
int pq_exp_jobs_ours(uint64_t ours_ticks, uint64_t busy_ticks);
/* May one more cell, with this limit, start while `inflight` cells with the limits given run? */
int pq_exp_jobs_may_start(const size_t *limits, size_t inflight, size_t next_limit, size_t cap);

/* The CPU the cells in flight may use together, as a share of the machine's CPUs: a cell
 * uses CPU (client, server, forwarder) for a share of its wall time that the dispatcher
 * learns per link from the cells measured (cheap at 50 ms, far from it at 1 ms or under a
 * sanitizer); it starts another only while the sum stays within this, so the endpoints
 * do not wait for each other. */
#define PQ_EXP_JOBS_CPU_BUDGET 0.5
/* The CPU share to expect of a cell of a link none of whose cells has ended: the CPU per
 * connection to expect of it (seconds, pq_exp_jobs_conn_cpu_for: the most a cell moving
 * no more used; negative: none has ended yet) times its conns, over its estimated time
 * alone (pq_exp_cell_estimate_s, at least 50 ms). CPU per
 * connection varies less across links than the share does (a 0 ms cell's share is its
 * whole time, a 200 ms one's a hundredth of it, for the same handshake), and the estimate
 * counts the round trips, so a quick cell measured first tells how many slow ones fit.
 * Before any cell has ended: half the budget (two cells at once), which keeps a sanitizer
 * build's first cells, many times the CPU, from starting a dozen at once. */
double pq_exp_jobs_share_guess(double cpu_per_conn_s, size_t conns, double est_s, double budget);
/* CPU per connection learnt from the cells that ended, by the bytes of their response
 * (a handshake only: 0). A connection's CPU grows with what it moves and how long it
 * takes (ttlb's 1 MiB responses at 1 Mbit/s: 0.25 s a connection, the forwarder
 * releasing and the client waking for each segment; its handshakes 13-15 ms), so the
 * most of all, asked for a lossy link's first cell of a few KiB, guessed it at most of a
 * CPU: each link's first cells then waited until the machine was empty (2.5 min of a full
 * ttlb run after the 1 Mbit/s link's last megabytes). */
typedef struct pq_exp_jobs_conn_cpu {
	long long resp;    /* response bytes, 0 for none */
	double per_conn_s; /* the most CPU per connection a cell of that response used */
} pq_exp_jobs_conn_cpu;
/* Records a cell's CPU per connection (negative: unknown, ignored) in seen[0..*n), at
 * most cap entries (one per response size; a size beyond cap counts with the largest
 * below it). */
void pq_exp_jobs_conn_cpu_learn(pq_exp_jobs_conn_cpu *seen, size_t *n, size_t cap, long long resp,
				double per_conn_s);
/* The CPU per connection to expect of a cell moving `resp` bytes: the most any ended
 * cell used whose response was no larger; none such, the most of any; none ended, -1
 * (pq_exp_jobs_share_guess's "none yet"). */
double pq_exp_jobs_conn_cpu_for(const pq_exp_jobs_conn_cpu *seen, size_t n, long long resp);
/* May a cell whose CPU share is `next` start beside cells whose shares add up to `used`
 * (inflight of them), within `budget` CPUs? One cell alone always may. */
int pq_exp_jobs_cpu_fits(double used, size_t inflight, double next, double budget);

/* The order the dispatcher hands cells out in: todo holds n grid cell indices in run
 * order (exp/grid.h), each link's cells consecutive; link_key and est_s (a cell alone,
 * pq_exp_cell_estimate_s) are indexed by cell. The links go longest cell first (ties in
 * run order), but one cell of the quickest link goes before them all: the CPU shares are
 * guessed from the first cell to end (pq_exp_jobs_share_guess), and a long cell first
 * would hold the sweep at two at once for its minutes. A link's cells keep their order
 * (its trials, arms shuffled per trial). The sweep then does not wait at its end on a long
 * cell started last (a 20 % loss cell of the loss preset takes minutes), and the small-RTT
 * links, whose cells run alone or in pairs, come after the long cells instead of draining
 * them in between. What is stored does not change: a cell is the same whenever it runs.
 * PQ_ENOMEM leaves todo as it was. */
int pq_exp_jobs_order(size_t *todo, size_t n, const char *const *link_key, const double *est_s) PQ_MUST_USE;

/* Within each group of todo (n grid cell indices in run order, a group's cells
 * consecutive; group and point indexed by cell; the sweep's groups are links, every trial
 * of one), the cells that may run most at once first and the
 * fewer after them, each kind in its run order (trial by trial, as the trials shuffled
 * them): a cell of a smaller class (one that runs alone: ttlb's 512 KiB and 1 MiB
 * responses at 1 Gbit/s) makes the dispatcher wait for every cell in flight to end, and
 * shuffled among the others it did so eight times a trial; grouped by trial, once a trial,
 * and a larger class (aws-jittery's longest responses, 17 at once beside the rest's 7)
 * ran no more at once than the smaller one beside it. Only where every grid point across
 * arms (point: the cells' across_key, exp/grid.h) has one class in the group, so a point's
 * arms stay together in one kind, shuffled as the trial shuffled them, and measured beside
 * the same kind of neighbours; a group whose arms differ in class (a browser's cell beside
 * pqtls's client) keeps its order. lim[c] is a cell's class (the most at once beside it).
 * Returns how many groups were regrouped, or PQ_ENOMEM (todo as it was). */
int pq_exp_jobs_order_classes(size_t *todo, size_t n, const size_t *group, const char *const *point,
			      const size_t *lim) PQ_MUST_USE;

/* The dispatcher's run played with estimated times: cells in `order` (n grid cell
 * indices), each taking est_s[c] and of class lim[c] (pq_exp_jobs_limit), up to `jobs` at
 * once; a cell starts when the cells in flight let one of its class start beside them
 * (pq_exp_jobs_may_start), else when the first of them ends. So the classes of a mixed
 * grid drain one after another as they do when measured. Not played: the CPU budget, the
 * back-off and cells measured again. Returns when the last cell ends; -1 out of memory. */
double pq_exp_jobs_play(const size_t *order, size_t n, const double *est_s, const size_t *lim, unsigned jobs);

/* pq_exp_jobs_order's order, or the same with the links grouped by class first (most
 * cells at once first), whichever pq_exp_jobs_play ends sooner (a tie: the first). A
 * class's limit holds every cell in flight beside one of its cells, so a grid whose
 * longest links alternate between classes (the loss preset's 78.6 and 195.6 ms links) ran
 * at the smaller limit throughout; grouped, each class runs at its own. *played (NULL:
 * not wanted) is the chosen order's end, or -1. PQ_ENOMEM leaves todo in an order of
 * its cells. */
int pq_exp_jobs_order_played(size_t *todo, size_t n, const char *const *link_key, const double *est_s,
			     const size_t *lim, unsigned jobs, double *played) PQ_MUST_USE;

/* Measures the grid with up to `jobs` cells at once, `base` for a cell that does not stall
 * (pq_exp_jobs_choose; 1: pq_exp_run). st is the owner's
 * store; each worker attaches its own connection. Stops dispatching on o->stop (the cells
 * in flight finish) or on a worker's error (returned, the others' cells kept). */
int pq_exp_run_jobs(const pq_exp_grid *g, const pq_exp_chains *chains, pq_store *st, const pq_exp_run_opts *o,
		    unsigned jobs, unsigned base, pq_exp_run_summary *sum, pq_diag *d) PQ_MUST_USE;

#endif
