/* Describing one sample (a cell's phase times): n, mean, sd, the median with a 95 %
 * confidence interval, and the tail percentiles the sample is large enough for.
 *
 * The median's interval is distribution-free (order statistics): with X(1) <= ... <=
 * X(n), [X(l), X(n+1-l)] covers the true median with probability 1 - 2 P(B <= l - 1),
 * B ~ Binomial(n, 1/2); l is the largest rank that keeps this at least 95 %. Below
 * n = 6 no pair of ranks reaches 95 %, and the interval is marked absent. Binomial
 * probabilities are exact (log-gamma) up to any n.
 * Tail percentiles: p90, p95, p99 and p99.9 are given only when the sample holds at
 * least 10, 20, 100 and 1,000 values (at least one value beyond each), otherwise marked
 * absent with the n each needs, never extrapolated.
 * The median and every percentile are pqtls's one definition (stats/sample.h), the one
 * the SQL views compute.
 *
 * Contract: pure functions; `x` need not be sorted (a sorted copy is made). */
#ifndef PQ_STATS_CI_H
#define PQ_STATS_CI_H

#include <stddef.h>

#include "core/err.h"

typedef struct pq_ci_desc {
	size_t n;
	double mean, sd; /* sd: sample standard deviation (n - 1); NaN below n = 2 */
	double median, median_lo, median_hi;
	int has_ci;	  /* 0 when n < 6 */
	double coverage;  /* the interval's exact coverage (>= 0.95) */
	double p90, p95, p99, p999;
	int has_p90, has_p95, has_p99, has_p999;
} pq_ci_desc;

/* PQ_EINVAL for n = 0 or a value that is not finite; PQ_ENOMEM. */
int pq_ci_describe(const double *x, size_t n, pq_ci_desc *out, pq_diag *d) PQ_MUST_USE;

/* The rank l (1-based) of the median's interval [X(l), X(n+1-l)] at `level` (0.95), and
 * its exact coverage; 0 when no interval reaches the level. */
size_t pq_ci_median_rank(size_t n, double level, double *coverage);

/* A distribution-free interval for the quantile p (per mille) of the population from a
 * sorted sample of n: [X(l), X(u)] with P(l <= B < u) >= level, B ~ Binomial(n, p/1000),
 * each tail at most (1 - level) / 2 (exact binomial, log-gamma). Returns 0 with *lo and
 * *hi set, or PQ_ERANGE when the sample is too small for such ranks (then they are NaN). */
int pq_ci_quantile(const double *sorted, size_t n, unsigned permille, double level, double *lo,
		   double *hi) PQ_MUST_USE;

/* The minimum sample sizes for the tail percentiles (10, 20, 100, 1000). */
size_t pq_ci_min_n(double percentile);

#endif
