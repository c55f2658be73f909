/* Self-check: measures a live link (RTT by UDP echo, rate by a paced UDP stream, loss by
 * counting probes) against its configuration and says whether each is within budget.
 * The experiment runner calls pq_check_run when it brings a link up, so a run on a link
 * that missed its budget is flagged instead of silently used. */
#ifndef PQ_NET_CHECK_H
#define PQ_NET_CHECK_H

#include <stdint.h>

#include "core/err.h"
#include "net/link.h"

typedef struct pq_check_opts {
	int rtt_samples;          /* echoes timed (default 200) */
	int64_t rtt_gap_ns;       /* between echo sends (default 2 ms) */
	int64_t budget_median_ns; /* |median - configured| allowed (default 250 us) */
	int64_t budget_p99_ns;    /* |p99 - configured| allowed (default 2 ms) */
	double budget_rate;       /* relative rate error allowed (default 3 %) */
	int loss_probes;          /* probes per direction when loss is configured (default 4000) */
	int64_t rate_ns;          /* how long to push each rate-limited direction (default 1 s) */
} pq_check_opts;

void pq_check_opts_init(pq_check_opts *o);

typedef struct pq_check_dir {
	int measured_rate;        /* rate was configured and measured */
	double rate_bps, rate_err; /* achieved, relative error */
	int measured_loss;
	double loss, loss_lo, loss_hi; /* measured, 99 % interval around it */
	int loss_ok, rate_ok;
} pq_check_dir;

typedef struct pq_check_result {
	int64_t rtt_cfg_ns;
	int rtt_n, rtt_lost;
	double rtt_p50_ns, rtt_p99_ns, rtt_min_ns, rtt_max_ns;
	double err_p50_ns, err_p99_ns; /* measured - configured */
	int rtt_ok, rtt_judged;        /* judged = no jitter, so a fixed RTT is expected */
	pq_check_dir dir[2];
	int ok;                        /* everything judged is within budget */
	enum pq_backend backend;
	double host_steal;             /* share of CPU time the hypervisor took meanwhile (-1 unknown) */
} pq_check_result;

int pq_check_run(pq_link *l, const pq_check_opts *o, pq_check_result *r, pq_diag *d) PQ_MUST_USE;

/* One line: "rtt 70.000 ms: median +0.031 ms, p99 +0.412 ms (200 samples) OK; ..." */
void pq_check_format(const pq_check_result *r, char *buf, size_t n);
/* A JSON object (malloc'd), NULL on allocation failure. */
char *pq_check_json(const pq_check_result *r);

/* The 99 % Wilson interval of k successes in n trials (exposed for tests). */
void pq_check_wilson(int k, int n, double *lo, double *hi);

#endif
