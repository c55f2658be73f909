/* Self-check: measures a live link against its configuration and judges what the link
 * controls, by its own accounting and the probes' centre, never by the probes' tail:
 *
 *   judged    the forwarder's release lateness (every packet's actual write against its
 *             scheduled time: p99 within PQ_LINK_LATE_BUDGET_NS) and its drops during the
 *             check (none unplanned; configured loss inside the 99 % Wilson interval of
 *             what the loss stage dropped), the rate delivered (paced UDP, within 3 %
 *             of the rate, or of what the probe offered when a starved sender offered less),
 *             and the UDP echo's median RTT (within 250 us, on links without jitter or rate),
 *             timed by the kernel's receive timestamps less the echo side's turnaround
 *   reported  the echo as the probe itself saw it (its median and p99 over the link's
 *             median), the host's steal time and run queue: how long the probe waited for
 *             a CPU, which no link can prevent
 *
 * Without the link's own accounting (the netem backend) the probes count the loss, and a
 * lost echo on a lossless link fails the check. The experiment runner calls pq_check_run
 * when it brings a link up and stores the result. */
#ifndef PQ_NET_CHECK_H
#define PQ_NET_CHECK_H

#include <stdint.h>

#include "core/err.h"
#include "stats/sample.h"
#include "net/link.h"

typedef struct pq_check_opts {
	int rtt_samples;          /* echoes timed (default 200) */
	int64_t rtt_gap_ns;       /* between echo sends (default 2 ms) */
	int64_t budget_median_ns; /* |median - configured| allowed (default 250 us) */
	double budget_rate;       /* relative rate error allowed (default 3 %) */
	int loss_probes;          /* probes per direction when loss is configured (default 4000) */
	/* How long to push each rate-limited direction: 0 (the default) is 1 s, or
	 * PQ_CHECK_FAST_PUSH_NS on a direction of PQ_LINK_FAST_BPS or more (pq_check_push_ns) */
	int64_t rate_ns;
} pq_check_opts;

void pq_check_opts_init(pq_check_opts *o);

/* The push sends PQ_CHECK_PUSH_OVER times the rate, so the bottleneck stays busy however
 * the sender is scheduled. On a fast direction it lasts PQ_CHECK_FAST_PUSH_NS: the
 * forwarder, busy from end to end, must not be busy for a whole second. The kernel's fair
 * server (Linux 6.12 on) then gives waiting tasks of the normal class 50 ms of each second
 * on its CPU, real-time class or not, and the forwarder stalls for them: a check of a
 * 1 Gbit/s link beside another cell missed 3 times in 4 with the forwarder waiting 50 ms
 * per 1 s push, its release lateness p99 40-42 ms. 0.6 s at 1 Gbit/s still counts 60,000
 * arrivals. */
#define PQ_CHECK_PUSH_OVER 1.2
#define PQ_CHECK_FAST_PUSH_NS (600 * PQ_NS_PER_MS)
/* How long a direction of this rate is pushed, given o->rate_ns (0: by the rate). */
int64_t pq_check_push_ns(int64_t rate_ns, uint64_t rate_bps);

typedef struct pq_check_dir {
	int measured_rate;        /* rate was configured and measured */
	double rate_bps, rate_err; /* achieved, relative error */
	/* What the probe's sender handed to its socket over the push (0: unknown). A sender
	 * starved of a CPU (other cells measured at once) offers less than the rate; the link
	 * is then judged on delivering what it was offered (offered_short 1). */
	double offered_bps;
	int offered_short;
	int measured_loss;
	int probes_sent, probes_got; /* loss probes */
	int loss_by_link;         /* loss counted by the loss stage (else by the probes) */
	double loss, loss_lo, loss_hi; /* measured, 99 % interval around it */
	int loss_ok, rate_ok;
} pq_check_dir;

typedef struct pq_check_result {
	int64_t rtt_cfg_ns;
	int rtt_n, rtt_lost;
	/* The echo's RTT from the kernel's receive times, less the echo side's turnaround:
	 * what the link took */
	double rtt_p50_ns, rtt_p99_ns, rtt_min_ns, rtt_max_ns;
	/* The same echoes as the probe saw them (handled minus sent): the link plus the probe's
	 * own waits for a CPU; reported, never judged */
	double probe_p50_ns, probe_p99_ns;
	double err_p50_ns, err_p99_ns; /* measured - configured */
	int rtt_ok, rtt_judged;        /* the median; judged = no jitter or rate, so a fixed RTT is expected */
	pq_check_dir dir[2];
	pq_link_window link;           /* the link's own accounting during the check */
	int link_ok;                   /* pq_link_window_ok: 1, 0, -1 not known (netem) */
	char link_why[160];            /* what was over, when link_ok is 0 */
	int ok;                        /* everything judged is within budget */
	enum pq_backend backend;
	/* The host, reported beside the verdict, never judged: */
	double host_steal;             /* share of CPU time the hypervisor took meanwhile (-1 unknown) */
	int runq_before, runq_after;   /* runnable tasks at the start and the end (-1 unknown) */
} pq_check_result;

/* The echo's RTT samples (ns) into r's rtt fields: kernel-timed (pq_check_rtt_from), as the
 * probe saw them (pq_check_probe_from). */
void pq_check_rtt_from(pq_check_result *r, pq_stats *rtt);
void pq_check_probe_from(pq_check_result *r, pq_stats *seen);
/* The host's noise as the check saw it: the probe's p99 over the link's median (-1 with no
 * echo). */
double pq_check_probe_tail_ns(const pq_check_result *r);
/* The rate (bit/s) of n arrivals at times t (ns, in order) of `bytes` each: the bytes
 * after the first counted arrival over the time to the last, leaving out the arrivals of
 * the first and last edge_ns (unless the span is under 4 edge_ns); 0 under two arrivals. */
double pq_check_rate_from_arrivals(const int64_t *t, const uint64_t *bytes, size_t n, int64_t edge_ns);
/* Every verdict of r from its measured fields and r->link, against c and o (NULL: the
 * defaults); sets the *_ok fields and r->ok. What pq_check_run does once it has measured;
 * a test gives it made-up measurements. */
void pq_check_judge(pq_check_result *r, const pq_link_config *c, const pq_check_opts *o);

int pq_check_run(pq_link *l, const pq_check_opts *o, pq_check_result *r, pq_diag *d) PQ_MUST_USE;

/* One line: "rtt 70.000 ms: median 70.031 ms (+0.031) OK; link: lateness ... OK; ...;
 * host (not judged): probe p99 +3.412 ms over its median, steal 12.0 %, run queue 3 -> 4;
 * backend userspace; within budget" */
void pq_check_format(const pq_check_result *r, char *buf, size_t n);
/* A JSON object (malloc'd), NULL on allocation failure. */
char *pq_check_json(const pq_check_result *r);

/* The 99 % Wilson interval of k successes in n trials (exposed for tests). */
void pq_check_wilson(int k, int n, double *lo, double *hi);

#endif
