#include "stats/boot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "stats/sample.h"

static double median_sorted(const double *s, size_t n)
{
	return pq_stats_quantile(s, n, PQ_STATS_MEDIAN);
}

/* The median of a resample of x[0..n-1] (drawn into tmp). */
static double resample_median(const double *x, size_t n, double *tmp, pq_rng *r)
{
	for (size_t i = 0; i < n; i++)
		tmp[i] = x[pq_rng_u64(r) % n];
	pq_stats_sort(tmp, n);
	return median_sorted(tmp, n);
}

static double sorted_median(const double *x, size_t n, double *tmp)
{
	memcpy(tmp, x, n * sizeof *tmp);
	pq_stats_sort(tmp, n);
	return median_sorted(tmp, n);
}

/* The 2.5 % and 97.5 % points of v[0..n-1] (sorted here), by the one percentile. */
static void interval(double *v, size_t n, double *lo, double *hi)
{
	pq_stats_sort(v, n);
	*lo = pq_stats_quantile(v, n, 25);
	*hi = pq_stats_quantile(v, n, 975);
}

int pq_boot_diff(const double *a, size_t na, const double *b, size_t nb, size_t reps,
		 uint64_t seed, pq_boot_result *out, pq_diag *d)
{
	if (na < 2 || nb < 2 || reps < 100)
		return pq_diag_set(d, PQ_EINVAL,
				   "bootstrap: needs at least 2 values per arm and 100 resamples "
				   "(got %zu and %zu values, %zu resamples)",
				   na, nb, reps);
	size_t big = na > nb ? na : nb;
	double *tmp = malloc(big * sizeof *tmp), *diffs = malloc(reps * sizeof *diffs),
	       *ratios = malloc(reps * sizeof *ratios);
	int rc = 0;
	if (!tmp || !diffs || !ratios) {
		rc = pq_diag_set(d, PQ_ENOMEM, "bootstrap: out of memory for %zu resamples", reps);
		goto out;
	}
	pq_rng r;
	pq_rng_seed(&r, seed);
	pq_boot_result res = {.reps = reps};
	double ma = sorted_median(a, na, tmp), mb = sorted_median(b, nb, tmp);
	res.diff = mb - ma;
	res.ratio = ma != 0 ? mb / ma : NAN;
	for (size_t i = 0; i < reps; i++) {
		double ra = resample_median(a, na, tmp, &r), rb = resample_median(b, nb, tmp, &r);
		diffs[i] = rb - ra;
		ratios[i] = ra != 0 ? rb / ra : NAN;
	}
	interval(diffs, reps, &res.diff_lo, &res.diff_hi);
	interval(ratios, reps, &res.ratio_lo, &res.ratio_hi);
	res.measurable = !(res.diff_lo <= 0 && res.diff_hi >= 0);
	*out = res;
out:
	free(tmp);
	free(diffs);
	free(ratios);
	return rc;
}

void pq_boot_verdict(const pq_boot_result *r, double scale, const char *unit, char *buf, size_t n)
{
	if (!r->measurable)
		snprintf(buf, n, "no measurable difference (%+.2f to %+.2f %s)", r->diff_lo / scale,
			 r->diff_hi / scale, unit);
	else
		snprintf(buf, n, "%+.2f [%+.2f, %+.2f] %s (x%.3f [%.3f, %.3f])", r->diff / scale,
			 r->diff_lo / scale, r->diff_hi / scale, unit, r->ratio, r->ratio_lo,
			 r->ratio_hi);
}
