/* Sample statistics: keeps every sample (a run is at most millions of doubles), so
 * percentiles are exact, not bucketed. Per-thread sets are merged after join. */
#ifndef PQ_CORE_STATS_H
#define PQ_CORE_STATS_H

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

void pq_stats_init(pq_stats *s);
void pq_stats_dispose(pq_stats *s);
int pq_stats_add(pq_stats *s, double x) PQ_MUST_USE;
/* Room for `need` samples without another allocation (a real-time thread adding them then
 * never waits in the allocator). */
int pq_stats_reserve(pq_stats *s, size_t need) PQ_MUST_USE;
int pq_stats_merge(pq_stats *into, const pq_stats *from) PQ_MUST_USE;
/* Percentile q in [0, 100] by linear interpolation between closest ranks; NaN if empty. */
double pq_stats_percentile(pq_stats *s, double q);
/* Fills *out; all fields NaN (n = 0) for an empty set. */
void pq_stats_summary(pq_stats *s, pq_summary *out);

/* The Wilson score interval of k successes in n > 0 trials at normal quantile z (1.96 for
 * 95 %, 2.5758 for 99 %), clamped to [0, 1]; n == 0 gives [0, 1] (nothing is known). */
void pq_stats_wilson(double k, double n, double z, double *lo, double *hi);

#endif
