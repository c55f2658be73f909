/* zeek/agg: counts per category and scope, unset versions apart, merge = one pass,
 * the first skipped lines by file and line, the Wilson interval. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "zeek/agg.h"

static pq_zeek_rec rec(const char *ip, int version, int resumed, int established, int64_t ts)
{
	pq_zeek_rec r;
	pq_zeek_rec_clear(&r);
	assert_int_equal(pq_zeek_addr_parse(ip, strlen(ip), &r.resp), 0);
	r.version = version;
	r.resumed = resumed;
	r.established = established;
	r.ts = ts;
	r.has_ts = ts >= 0;
	r.server_name = "s.example";
	r.server_name_len = 9;
	return r;
}

/* a day in the plausible window (2023-12-09) */
#define DAY0 19700

static void feed(pq_zeek_agg *a, int from, int to)
{
	static const int vers[] = {PQ_ZV_TLSv13, PQ_ZV_TLSv12, PQ_ZV_UNSET, PQ_ZV_TLSv13};
	for (int i = from; i < to; i++) {
		pq_zeek_rec r = rec(i % 5 ? "10.0.0.1" : "10.0.0.2", vers[i % 4], i % 3 == 0 ? 1 : i % 3 == 1 ? 0 : -1,
				    i % 2, i % 7 ? DAY0 * 86400 + 86400 * (i % 3) : -1);
		assert_int_equal(pq_zeek_agg_add(a, &r), 0);
	}
}

static void counts(void **state)
{
	(void)state;
	pq_zeek_agg a;
	pq_zeek_agg_init(&a, NULL); /* no classifier: every server Unknown */
	feed(&a, 0, 120);
	const pq_zeek_cnt *c = &a.cat[PQ_ZCAT_UNKNOWN];
	assert_int_equal(a.rows, 120);
	assert_int_equal(c->rows, 120);
	assert_int_equal(c->ver[PQ_ZV_UNSET], 30);
	assert_int_equal(c->method[PQ_ZM_NONE], 120);
	/* Rows with a version (90) split by resumed: the three outcomes add up. */
	uint64_t all = c->res[PQ_ZS_ALL][0] + c->res[PQ_ZS_ALL][1] + c->res[PQ_ZS_ALL][2];
	assert_int_equal(all, 90);
	assert_int_equal(c->res[PQ_ZS_TLS13][0] + c->res[PQ_ZS_TLS13][1] + c->res[PQ_ZS_TLS13][2], 60);
	/* Counted by hand from the generator: i%4 in {0,1,3}, i%3==0. */
	uint64_t want = 0;
	for (int i = 0; i < 120; i++)
		want += i % 4 != 2 && i % 3 == 0;
	assert_int_equal(c->res[PQ_ZS_ALL][PQ_ZR_YES], want);
	assert_int_equal(a.servers.len, 2);
	assert_int_equal(a.names.len, 1);
	assert_int_equal(a.days.len, 3);
	assert_int_equal(a.ts_implausible, 0);
	pq_zeek_agg_dispose(&a);
}

/* A broken clock (ts 0, negative, far future) neither grows the days nor goes
 * uncounted: each such row is in ts_implausible, the window's edges exactly. */
static void implausible_times(void **state)
{
	(void)state;
	pq_zeek_agg a;
	pq_zeek_agg_init(&a, NULL);
	const int64_t ts[] = {0, -86400, 1, PQ_ZEEK_TS_MIN - 1, PQ_ZEEK_TS_MAX, INT64_MAX / 2, PQ_ZEEK_TS_MIN,
			      PQ_ZEEK_TS_MAX - 1};
	for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
		pq_zeek_rec r = rec("10.0.0.1", PQ_ZV_TLSv13, 1, 1, 0);
		r.ts = ts[i];
		r.has_ts = 1;
		assert_int_equal(pq_zeek_agg_add(&a, &r), 0);
	}
	assert_int_equal(a.rows, 8);
	assert_int_equal(a.ts_implausible, 6);
	assert_int_equal(a.days.len, 2); /* 1995-01-01 and 2099-12-31 */
	assert_true(pq_zeek_ts_plausible(PQ_ZEEK_TS_MIN) && !pq_zeek_ts_plausible(PQ_ZEEK_TS_MAX));
	pq_zeek_agg_dispose(&a);
}

static void merge_equals_one_pass(void **state)
{
	(void)state;
	pq_zeek_agg one, p1, p2, m;
	pq_zeek_agg_init(&one, NULL);
	pq_zeek_agg_init(&p1, NULL);
	pq_zeek_agg_init(&p2, NULL);
	pq_zeek_agg_init(&m, NULL);
	feed(&one, 0, 200);
	feed(&p1, 0, 77);
	feed(&p2, 77, 200);
	assert_int_equal(pq_zeek_agg_merge(&m, &p2), 0);
	assert_int_equal(pq_zeek_agg_merge(&m, &p1), 0);
	assert_memory_equal(one.cat, m.cat, sizeof one.cat);
	assert_int_equal(one.rows, m.rows);
	assert_int_equal(one.no_ts, m.no_ts);
	int64_t day = DAY0 + 1;
	const pq_zeek_day *x = pq_zeek_map_find(&one.days, &day, sizeof day), *y = pq_zeek_map_find(&m.days, &day, sizeof day);
	assert_memory_equal(x, y, sizeof(pq_zeek_day) * PQ_ZCAT_N);
	const uint64_t *n1 = pq_zeek_map_find(&one.names, "s.example", 9), *n2 = pq_zeek_map_find(&m.names, "s.example", 9);
	assert_int_equal(*n1, *n2);
	pq_zeek_agg_dispose(&one);
	pq_zeek_agg_dispose(&p1);
	pq_zeek_agg_dispose(&p2);
	pq_zeek_agg_dispose(&m);
}

/* Hashes taken (and slots prefetched) for a whole batch before any row of it is counted,
 * while the rows' inserts grow the table: the same counts as one row at a time. */
static void two_steps_equal_one(void **state)
{
	(void)state;
	enum { N = 600 };
	static pq_zeek_rec r[N];
	static uint64_t h[N];
	pq_zeek_agg one, two;
	pq_zeek_agg_init(&one, NULL);
	pq_zeek_agg_init(&two, NULL);
	for (int i = 0; i < N; i++) {
		char ip[32];
		snprintf(ip, sizeof ip, "10.0.%d.%d", i % 300 / 100, i % 100);
		r[i] = rec(ip, PQ_ZV_TLSv13, i % 2, 1, 86400L * (i % 5));
		assert_int_equal(pq_zeek_agg_add(&one, &r[i]), 0);
	}
	for (int i = 0; i < N; i++)
		h[i] = pq_zeek_agg_prefetch(&two, &r[i]);
	for (int i = 0; i < N; i++)
		assert_int_equal(pq_zeek_agg_add_hashed(&two, &r[i], h[i]), 0);
	assert_int_equal(two.servers.len, 300);
	assert_memory_equal(one.cat, two.cat, sizeof one.cat);
	const pq_zeek_server *x = pq_zeek_map_find(&one.servers, &r[7].resp, sizeof r[7].resp),
			     *y = pq_zeek_map_find(&two.servers, &r[7].resp, sizeof r[7].resp);
	assert_non_null(y);
	assert_int_equal(y->rows, 2);
	assert_int_equal(x->res_yes, y->res_yes);
	pq_zeek_agg_dispose(&one);
	pq_zeek_agg_dispose(&two);
}

static void samples(void **state)
{
	(void)state;
	pq_zeek_agg a, b;
	pq_zeek_agg_init(&a, NULL);
	pq_zeek_agg_init(&b, NULL);
	for (int i = 40; i > 0; i--)
		pq_zeek_agg_bad(i % 2 ? &a : &b, i < 20 ? "b.log" : "a.log", 0, (uint64_t)i, PQ_ZB_FIELDS, "x");
	assert_int_equal(pq_zeek_agg_merge(&a, &b), 0);
	assert_int_equal(a.bad[PQ_ZB_FIELDS], 40);
	assert_int_equal(a.nsamples, PQ_ZEEK_SAMPLES);
	/* Sorted by file, then line: a.log 20..39 is first. */
	assert_string_equal(a.samples[0].file, "a.log");
	assert_int_equal(a.samples[0].line, 20);
	assert_int_equal(a.samples[PQ_ZEEK_SAMPLES - 1].line, 39);
	pq_zeek_agg_dispose(&a);
	pq_zeek_agg_dispose(&b);
}

static void wilson(void **state)
{
	(void)state;
	double lo, hi;
	pq_zeek_wilson95(0, 0, &lo, &hi);
	assert_true(lo == 0 && hi == 0);
	/* Reference values from the closed form (Wilson 1927), computed by hand. */
	pq_zeek_wilson95(50, 100, &lo, &hi);
	assert_true(lo > 0.4038 && lo < 0.4039 && hi > 0.5961 && hi < 0.5962);
	pq_zeek_wilson95(0, 10, &lo, &hi);
	assert_true(lo == 0 && hi > 0.2775 && hi < 0.2776);
	pq_zeek_wilson95(10, 10, &lo, &hi);
	assert_true(hi > 0.9999999 && hi <= 1 && lo > 0.7224 && lo < 0.7225);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counts),
		cmocka_unit_test(implausible_times),
		cmocka_unit_test(merge_equals_one_pass),
		cmocka_unit_test(two_steps_equal_one),
		cmocka_unit_test(samples),
		cmocka_unit_test(wilson),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
