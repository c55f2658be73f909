/* Sample statistics: keeps every sample (a run is at most millions of doubles), so
 * percentiles are exact, not bucketed. Per-thread sets are merged after join.
 *
 * THE percentile of pqtls (every module and the SQL views of src/exp/schema.sql use
 * this one definition): of n sorted values x[0..n-1], the q-quantile for q = p / 1000
 * (p in per mille: 500 is the median, 950 the p95, 999 the p99.9) is linear
 * interpolation between closest ranks (Hyndman and Fan's type 7, the default of numpy,
 * pandas, R and DuckDB's quantile_cont):
 *     h = (n - 1) p / 1000,  lo = floor(h),  frac = (h - lo),
 *     Q = x[lo]                                   when frac = 0,
 *     Q = x[lo] + frac * (x[lo + 1] - x[lo])      otherwise.
 * lo and frac come from integer arithmetic ((n - 1) p div 1000 and mod 1000, frac =
 * mod / 1000.0), which SQL writes the same way, so a view and a report give the same
 * double, to the last bit. The median is Q at 500 (the mean of the two middle values
 * for even n). */
#ifndef PQ_STATS_SAMPLE_H
#define PQ_STATS_SAMPLE_H

#include <stddef.h>

#include "core/err.h"

typedef struct pq_stats {
	double *v;
	size_t n, cap;
	int sorted;
} pq_stats;

typedef struct pq_summary {
	size_t n;
	double mean, sd, min, max;
	double p50, p90, p99, p999;
} pq_summary;

#define PQ_STATS_MEDIAN 500u

/* The position of the quantile p (per mille, at most 1000) among n >= 1 sorted values:
 * *lo (0-based) and *frac in [0, 1), as defined above. */
void pq_stats_rank(size_t n, unsigned permille, size_t *lo, double *frac);
/* The quantile p (per mille) of sorted[0..n-1]; NaN when n = 0. */
double pq_stats_quantile(const double *sorted, size_t n, unsigned permille);
/* Sorts v[0..n-1] ascending (NaN-free input). */
void pq_stats_sort(double *v, size_t n);
/* The median of v[0..n-1] (PQ_STATS_MEDIAN), which it sorts; NaN when n = 0. */
double pq_stats_median(double *v, size_t n);

void pq_stats_init(pq_stats *s);
void pq_stats_dispose(pq_stats *s);
int pq_stats_add(pq_stats *s, double x) PQ_MUST_USE;
/* Room for `need` samples without another allocation (a real-time thread adding them then
 * never waits in the allocator). */
int pq_stats_reserve(pq_stats *s, size_t need) PQ_MUST_USE;
int pq_stats_merge(pq_stats *into, const pq_stats *from) PQ_MUST_USE;
/* Percentile q in [0, 100] (tenths: 99.9 is the finest), pq_stats_quantile at q x 10
 * per mille; NaN if empty. */
double pq_stats_percentile(pq_stats *s, double q);
/* Fills *out; all fields NaN (n = 0) for an empty set. */
void pq_stats_summary(pq_stats *s, pq_summary *out);

/* The Wilson score interval of k successes in n > 0 trials at normal quantile z (1.96 for
 * 95 %, 2.5758 for 99 %), clamped to [0, 1]; n == 0 gives [0, 1] (nothing is known). */
void pq_stats_wilson(double k, double n, double z, double *lo, double *hi);

#endif
