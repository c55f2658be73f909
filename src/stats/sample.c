#include "stats/sample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void pq_stats_init(pq_stats *s)
{
	memset(s, 0, sizeof *s);
}

void pq_stats_dispose(pq_stats *s)
{
	free(s->v);
	memset(s, 0, sizeof *s);
}

int pq_stats_reserve(pq_stats *s, size_t need)
{
	if (need <= s->cap)
		return 0;
	size_t cap = s->cap ? s->cap : 64;
	while (cap < need)
		cap *= 2;
	double *v = realloc(s->v, cap * sizeof *v);
	if (!v)
		return PQ_ENOMEM;
	s->v = v;
	s->cap = cap;
	return 0;
}

int pq_stats_add(pq_stats *s, double x)
{
	int rc = pq_stats_reserve(s, s->n + 1);
	if (rc)
		return rc;
	s->v[s->n++] = x;
	s->sorted = 0;
	return 0;
}

int pq_stats_merge(pq_stats *into, const pq_stats *from)
{
	int rc = pq_stats_reserve(into, into->n + from->n);
	if (rc)
		return rc;
	if (from->n)
		memcpy(into->v + into->n, from->v, from->n * sizeof *from->v);
	into->n += from->n;
	into->sorted = 0;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void pq_stats_sort(double *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_double);
}

void pq_stats_rank(size_t n, unsigned permille, size_t *lo, double *frac)
{
	if (permille > 1000)
		permille = 1000;
	/* (n - 1) * permille stays exact: n is at most a few hundred million here. */
	unsigned long long h = (unsigned long long)(n ? n - 1 : 0) * permille;
	*lo = (size_t)(h / 1000);
	*frac = (double)(h % 1000) / 1000.0;
}

double pq_stats_median(double *v, size_t n)
{
	pq_stats_sort(v, n);
	return pq_stats_quantile(v, n, PQ_STATS_MEDIAN);
}

double pq_stats_quantile(const double *sorted, size_t n, unsigned permille)
{
	size_t lo;
	double frac;
	if (n == 0)
		return NAN;
	pq_stats_rank(n, permille, &lo, &frac);
	if (frac == 0)
		return sorted[lo];
	return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

double pq_stats_percentile(pq_stats *s, double q)
{
	if (s->n == 0)
		return NAN;
	if (!s->sorted) {
		pq_stats_sort(s->v, s->n);
		s->sorted = 1;
	}
	return pq_stats_quantile(s->v, s->n, q <= 0 ? 0 : q >= 100 ? 1000 : (unsigned)lround(q * 10));
}

void pq_stats_summary(pq_stats *s, pq_summary *o)
{
	o->n = s->n;
	if (s->n == 0) {
		o->mean = o->sd = o->min = o->max = NAN;
		o->p50 = o->p90 = o->p99 = o->p999 = NAN;
		return;
	}
	/* Welford's update keeps the variance accurate for large microsecond values. */
	double mean = 0, m2 = 0;
	for (size_t i = 0; i < s->n; i++) {
		double delta = s->v[i] - mean;
		mean += delta / (double)(i + 1);
		m2 += delta * (s->v[i] - mean);
	}
	o->mean = mean;
	o->sd = s->n > 1 ? sqrt(m2 / (double)(s->n - 1)) : 0.0;
	o->p50 = pq_stats_percentile(s, 50);
	o->p90 = pq_stats_percentile(s, 90);
	o->p99 = pq_stats_percentile(s, 99);
	o->p999 = pq_stats_percentile(s, 99.9);
	o->min = s->v[0];
	o->max = s->v[s->n - 1];
}

void pq_stats_wilson(double k, double n, double z, double *lo, double *hi)
{
	if (n <= 0) {
		*lo = 0;
		*hi = 1;
		return;
	}
	double p = k / n, z2 = z * z, den = 1 + z2 / n;
	double mid = (p + z2 / (2 * n)) / den;
	double half = z * sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / den;
	*lo = mid - half < 0 ? 0 : mid - half;
	*hi = mid + half > 1 ? 1 : mid + half;
}
