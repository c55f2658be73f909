/* Statistics on known distributions: the median's interval covers the true median about
 * 95 % of the time over many seeded samples; the bootstrap finds a known shift and
 * calls identical arms "no measurable difference"; step detection brackets a jump. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
/* cmocka needs the headers above. */
#include <cmocka.h>

#include "core/rng.h"
#include "stats/boot.h"
#include "stats/ci.h"
#include "stats/sample.h"
#include "stats/step.h"

/* Ranks by hand: P(B <= 0) for n = 6 is 1/64, so [X(1), X(6)] covers 96.9 %; n = 5
 * reaches only 93.75 %. n = 10: P(B <= 1) = 11/1024 -> 97.85 % with l = 2, while l = 3
 * (P(B <= 2) = 56/1024) gives 89.1 %. */
static void median_ranks(void **state)
{
	(void)state;
	double cov;
	assert_int_equal(pq_ci_median_rank(5, 0.95, &cov), 0);
	assert_int_equal(pq_ci_median_rank(6, 0.95, &cov), 1);
	assert_true(fabs(cov - (1 - 2.0 / 64)) < 1e-12);
	assert_int_equal(pq_ci_median_rank(10, 0.95, &cov), 2);
	assert_true(fabs(cov - (1 - 22.0 / 1024)) < 1e-12);
	/* Large n: about n/2 - 1.96 sqrt(n)/2 (n = 10,000: 4,902). */
	size_t l = pq_ci_median_rank(10000, 0.95, &cov);
	assert_true(l >= 4899 && l <= 4903);
	assert_true(cov >= 0.95 && cov < 0.96);
	assert_int_equal(pq_ci_min_n(90), 10);
	assert_int_equal(pq_ci_min_n(99), 100);
	assert_int_equal(pq_ci_min_n(99.9), 1000);
}

static void describe_small(void **state)
{
	(void)state;
	double x[] = {5, 1, 4, 2, 3};
	pq_ci_desc r;
	pq_diag d = {0};
	assert_int_equal(pq_ci_describe(x, 5, &r, &d), 0);
	assert_int_equal(r.n, 5);
	assert_true(r.median == 3 && r.mean == 3);
	assert_true(fabs(r.sd - sqrt(2.5)) < 1e-12);
	assert_false(r.has_ci); /* n = 5 cannot reach 95 % */
	assert_false(r.has_p90);
	double y[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
	assert_int_equal(pq_ci_describe(y, 12, &r, &d), 0);
	assert_true(r.has_ci && r.has_p90 && !r.has_p99);
	assert_true(r.median_lo <= r.median && r.median <= r.median_hi);
	assert_int_equal(pq_ci_describe(y, 0, &r, &d), PQ_EINVAL);
	y[3] = NAN;
	assert_int_equal(pq_ci_describe(y, 12, &r, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "value 3"));
}

/* Coverage over 2,000 seeded samples of 31 exponential values (true median ln 2): the
 * interval's exact coverage for n = 31 is c (>= 0.95); the share of samples it covers
 * has a standard error of sqrt(c (1 - c) / 2000) < 0.005, so c +- 0.02 (4 standard
 * errors) fails by chance about once in 15,000 runs, and a wrong rank (one step off
 * changes c by about 0.03) fails it. The same for a skewed lognormal. */
static void median_coverage(void **state)
{
	(void)state;
	pq_rng r;
	pq_rng_seed(&r, 42);
	for (int dist = 0; dist < 2; dist++) {
		double truth = dist == 0 ? log(2.0) : 1.0, x[31], cov = 0;
		pq_ci_median_rank(31, 0.95, &cov);
		int hits = 0;
		for (int t = 0; t < 2000; t++) {
			for (int i = 0; i < 31; i++)
				x[i] = dist == 0 ? pq_rng_exp(&r, 1.0) : exp(pq_rng_normal(&r));
			pq_ci_desc dsc;
			assert_int_equal(pq_ci_describe(x, 31, &dsc, NULL), 0);
			hits += dsc.median_lo <= truth && truth <= dsc.median_hi;
		}
		double share = hits / 2000.0;
		print_message("distribution %d: coverage %.3f (exact %.3f)\n", dist, share, cov);
		assert_true(fabs(share - cov) < 0.02);
	}
}

static void bootstrap(void **state)
{
	(void)state;
	pq_rng r;
	pq_rng_seed(&r, 7);
	double a[200], b[200];
	for (int i = 0; i < 200; i++) {
		a[i] = 100 + pq_rng_normal(&r);
		b[i] = 110 + pq_rng_normal(&r);
	}
	pq_boot_result res, again;
	pq_diag d = {0};
	assert_int_equal(pq_boot_diff(a, 200, b, 200, 1000, 1, &res, &d), 0);
	assert_true(res.measurable);
	assert_true(res.diff_lo < 10 && 10 < res.diff_hi);
	assert_true(res.ratio_lo < 1.1 && 1.1 < res.ratio_hi);
	assert_int_equal(pq_boot_diff(a, 200, b, 200, 1000, 1, &again, &d), 0);
	assert_memory_equal(&res, &again, sizeof res); /* seeded: reproducible */
	char buf[160];
	pq_boot_verdict(&res, 1, "ms", buf, sizeof buf);
	assert_non_null(strstr(buf, "+10."));
	/* Identical arms: most seeds find no measurable difference. A 95 % interval
	 * excludes 0 about 5 % of the time (the percentile bootstrap of a median a little
	 * more at n = 50); over 100 pairs, more than 20 would mean a broken interval. */
	int measurable = 0;
	for (int t = 0; t < 100; t++) {
		for (int i = 0; i < 50; i++) {
			a[i] = pq_rng_exp(&r, 1);
			b[i] = pq_rng_exp(&r, 1);
		}
		assert_int_equal(pq_boot_diff(a, 50, b, 50, 400, (uint64_t)t, &res, &d), 0);
		measurable += res.measurable;
	}
	print_message("identical arms called different: %d of 100\n", measurable);
	assert_true(measurable <= 20);
	pq_boot_verdict(&res, 1, "ms", buf, sizeof buf);
	assert_true(res.measurable || strstr(buf, "no measurable difference"));
	assert_int_equal(pq_boot_diff(a, 1, b, 50, 400, 1, &res, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "at least 2 values"));
}

static void sample_set(void **state)
{
	(void)state;
	pq_stats s, t;
	pq_summary m;
	pq_stats_init(&s);
	pq_stats_init(&t);
	pq_stats_summary(&s, &m);
	assert_int_equal(m.n, 0);
	assert_true(isnan(m.p50));
	for (int i = 100; i >= 1; i--)
		assert_int_equal(pq_stats_add(i % 2 ? &s : &t, i), 0);
	assert_int_equal(pq_stats_merge(&s, &t), 0);
	pq_stats_summary(&s, &m);
	assert_int_equal(m.n, 100);
	assert_float_equal(m.mean, 50.5, 1e-9);
	assert_float_equal(m.min, 1, 1e-9);
	assert_float_equal(m.max, 100, 1e-9);
	assert_float_equal(m.p50, 50.5, 1e-9);
	assert_float_equal(m.p90, 90.1, 1e-9);
	assert_float_equal(m.sd, 29.011491975882016, 1e-9);
	pq_stats_dispose(&s);
	pq_stats_dispose(&t);
}

/* The one percentile: type 7 (numpy's default) by integer ranks. x = 1..4: p95 sits at
 * h = 3 x 0.95 = 2.85, so 3 + 0.85 x (4 - 3); the median of an even n is the mean of the
 * middle two; p = 0 and 1000 are the extremes; n = 1 is its value; none is NaN. */
static void quantile_definition(void **state)
{
	(void)state;
	const double x[4] = {1, 2, 3, 4}, one[1] = {7};
	size_t lo;
	double frac;
	pq_stats_rank(4, 950, &lo, &frac);
	assert_int_equal(lo, 2);
	assert_true(frac == 0.85);
	assert_true(pq_stats_quantile(x, 4, 950) == 3 + 0.85 * (4 - 3));
	assert_true(pq_stats_quantile(x, 4, PQ_STATS_MEDIAN) == 2.5);
	assert_true(pq_stats_quantile(x, 4, 0) == 1);
	assert_true(pq_stats_quantile(x, 4, 1000) == 4);
	assert_true(pq_stats_quantile(x, 4, 5000) == 4); /* clamped */
	assert_true(pq_stats_quantile(one, 1, 999) == 7);
	assert_true(isnan(pq_stats_quantile(x, 0, 500)));
	/* the median of values in any order: sorted, then Q at 500 */
	double z[4] = {4, 1, 3, 2};
	assert_true(pq_stats_median(z, 4) == 2.5);
	assert_true(z[0] == 1 && z[3] == 4);
	assert_true(isnan(pq_stats_median(z, 0)));
	/* 21 values 0..20: p95 is exactly the 20th (h = 19, no interpolation), not the
	 * nearest-rank 20th-of-21 nor an interpolation past it. */
	double y[21];
	for (int i = 0; i < 21; i++)
		y[i] = i;
	assert_true(pq_stats_quantile(y, 21, 950) == 19);
	/* The description's median and p95 are this definition's. */
	pq_ci_desc dsc;
	assert_int_equal(pq_ci_describe(y, 21, &dsc, NULL), 0);
	assert_true(dsc.has_p95 && dsc.p95 == 19 && dsc.median == 10);
	assert_int_equal(pq_ci_describe(y, 19, &dsc, NULL), 0);
	assert_false(dsc.has_p95);
}

/* The quantile interval: for the median it is the median's (n = 10: ranks 2 and 9,
 * as median_ranks); a p95 needs enough values beyond it (n = 20 has none to spare,
 * n = 100 gives ranks around 95). */
static void quantile_interval(void **state)
{
	(void)state;
	double x[100], lo, hi;
	for (int i = 0; i < 100; i++)
		x[i] = i + 1;
	assert_int_equal(pq_ci_quantile(x, 10, 500, 0.95, &lo, &hi), 0);
	assert_true(lo == 2 && hi == 9);
	assert_int_equal(pq_ci_quantile(x, 20, 950, 0.95, &lo, &hi), PQ_ERANGE);
	assert_true(isnan(lo) && isnan(hi));
	assert_int_equal(pq_ci_quantile(x, 100, 950, 0.95, &lo, &hi), 0);
	assert_true(lo >= 88 && lo <= 91 && hi >= 98 && hi <= 100);
	assert_int_equal(pq_ci_quantile(x, 0, 500, 0.95, &lo, &hi), PQ_ERANGE);
	assert_int_equal(pq_ci_quantile(x, 5, 500, 0.95, &lo, &hi), PQ_ERANGE);
}

static void steps(void **state)
{
	(void)state;
	/* RTT 70: flat near 212, one round trip more from 12,000 on, noise of a few ms. */
	double x[] = {4000, 6000, 8000, 10000, 12000, 14000};
	double y[] = {212.1, 213.0, 211.8, 212.9, 282.4, 283.0};
	pq_step s[4];
	assert_int_equal(pq_step_find(x, y, 6, 70, 0.5, s, 4), 1);
	assert_true(s[0].x_before == 10000 && s[0].x_after == 12000);
	assert_true(fabs(s[0].jump_rtts - 1.0) < 0.05);
	assert_int_equal(pq_step_find(x, y, 6, 0, 0.5, s, 4), 0);
	assert_int_equal(pq_step_find(x, y, 1, 70, 0.5, s, 4), 0);
	/* one slow median on a level (a busy moment, 0.52 RTT up and down again) is no step;
	 * the real step after it still is */
	double sy[] = {212.1, 213.0, 249.5, 212.9, 282.4, 283.0};
	assert_int_equal(pq_step_find(x, sy, 6, 70, 0.5, s, 4), 1);
	assert_true(s[0].x_before == 10000 && s[0].x_after == 12000);
	/* a single point on a plateau between two steps is a level, not a spike */
	double py[] = {212.1, 213.0, 282.5, 352.9, 353.4, 352.0};
	assert_int_equal(pq_step_find(x, py, 6, 70, 0.5, s, 4), 2);
	assert_true(s[0].x_after == 8000 && s[1].x_after == 10000);
	/* a drop is reported, as a negative jump */
	double dy[] = {282.1, 283.0, 282.8, 212.9, 212.4, 213.0};
	assert_int_equal(pq_step_find(x, dy, 6, 70, 0.5, s, 4), 1);
	assert_true(s[0].jump_rtts < -0.9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(median_ranks), cmocka_unit_test(describe_small),
	    cmocka_unit_test(median_coverage), cmocka_unit_test(bootstrap),
	    cmocka_unit_test(steps), cmocka_unit_test(sample_set),
	    cmocka_unit_test(quantile_definition), cmocka_unit_test(quantile_interval),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
