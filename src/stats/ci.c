#include "stats/ci.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/sample.h"

/* P(B = k), B ~ Binomial(n, 1/2), in logs so any n works. */
static double binom_half(size_t n, size_t k)
{
	return exp(lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1) -
		   (double)n * log(2.0));
}

size_t pq_ci_median_rank(size_t n, double level, double *coverage)
{
	double tail = 0; /* P(B <= l - 1) */
	size_t best = 0;
	double cov = 0;
	for (size_t l = 1; 2 * l <= n + 1; l++) {
		tail += binom_half(n, l - 1);
		double c = 1 - 2 * tail;
		if (c < level)
			break;
		best = l;
		cov = c;
	}
	if (coverage)
		*coverage = best ? cov : 0;
	return best;
}

/* P(B = k), B ~ Binomial(n, q), 0 < q < 1. */
static double binom(size_t n, size_t k, double q)
{
	return exp(lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1) +
		   (double)k * log(q) + (double)(n - k) * log1p(-q));
}

int pq_ci_quantile(const double *sorted, size_t n, unsigned permille, double level, double *lo,
		   double *hi)
{
	double q = (double)permille / 1000.0, tail = (1 - level) / 2, below = 0;
	size_t l = 0, u = 0;
	*lo = *hi = NAN;
	if (n == 0 || permille == 0 || permille >= 1000)
		return PQ_ERANGE;
	/* l: the largest rank with P(B <= l - 1) <= tail (1-based; 0 = none). */
	for (size_t k = 0; k < n; k++) {
		below += binom(n, k, q);
		if (below > tail)
			break;
		l = k + 1;
	}
	/* u: the smallest rank with P(B >= u) <= tail. */
	double above = 0;
	for (size_t k = n; k > 0; k--) {
		above += binom(n, k, q);
		if (above > tail)
			break;
		u = k;
	}
	if (!l || !u || u <= l)
		return PQ_ERANGE;
	*lo = sorted[l - 1];
	*hi = sorted[u - 1];
	return 0;
}

size_t pq_ci_min_n(double percentile)
{
	/* At least one value beyond the percentile: n >= 1 / (1 - q). */
	return (size_t)ceil(1.0 / (1.0 - percentile / 100.0) - 1e-9);
}

int pq_ci_describe(const double *x, size_t n, pq_ci_desc *out, pq_diag *d)
{
	pq_ci_desc r = {.n = n, .sd = NAN, .median_lo = NAN, .median_hi = NAN, .p90 = NAN,
			.p95 = NAN, .p99 = NAN, .p999 = NAN};
	if (n == 0)
		return pq_diag_set(d, PQ_EINVAL, "statistics: no values");
	double *s = malloc(n * sizeof *s);
	if (!s)
		return pq_diag_set(d, PQ_ENOMEM, "statistics: out of memory for %zu values", n);
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i])) {
			free(s);
			return pq_diag_set(d, PQ_EINVAL, "statistics: value %zu is not a finite number", i);
		}
		s[i] = x[i];
		sum += x[i];
	}
	pq_stats_sort(s, n);
	r.mean = sum / (double)n;
	if (n >= 2) {
		double ss = 0;
		for (size_t i = 0; i < n; i++)
			ss += (s[i] - r.mean) * (s[i] - r.mean);
		r.sd = sqrt(ss / (double)(n - 1));
	}
	r.median = pq_stats_quantile(s, n, PQ_STATS_MEDIAN);
	size_t l = pq_ci_median_rank(n, 0.95, &r.coverage);
	if (l) {
		r.has_ci = 1;
		r.median_lo = s[l - 1];
		r.median_hi = s[n - l];
	}
	const unsigned qs[4] = {900, 950, 990, 999};
	double *v[4] = {&r.p90, &r.p95, &r.p99, &r.p999};
	int *has[4] = {&r.has_p90, &r.has_p95, &r.has_p99, &r.has_p999};
	for (int i = 0; i < 4; i++)
		if (n >= pq_ci_min_n(qs[i] / 10.0)) {
			*has[i] = 1;
			*v[i] = pq_stats_quantile(s, n, qs[i]);
		}
	free(s);
	*out = r;
	return 0;
}
