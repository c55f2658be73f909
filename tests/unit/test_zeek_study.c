/* zeek/study: the paper's Table III and Figure 7 beside counts made here, and each verdict:
 * CDNs above non-CDN (intervals apart), below, or not to be told (overlap, no rows); the
 * paper's rates times a sweep's gains inside its ranges or not; the ratio of the data's
 * rates with the paper's 2.27 inside or not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "zeek/study.h"

/* Resumption (every scope) and versions in CDN and Other: k of n resumed, t of n TLS 1.3. */
static void counts(pq_zeek_agg *a, uint64_t ck, uint64_t cn, uint64_t ok, uint64_t on)
{
	memset(a, 0, sizeof *a);
	const uint64_t k[2] = {ck, ok}, n[2] = {cn, on};
	const int cat[2] = {PQ_ZCAT_CDN, PQ_ZCAT_OTHER};
	for (int i = 0; i < 2; i++) {
		pq_zeek_cnt *c = &a->cat[cat[i]];
		c->rows = n[i];
		c->ver[PQ_ZV_TLSv13] = k[i];
		c->ver[PQ_ZV_TLSv12] = n[i] - k[i];
		for (int s = 0; s < PQ_ZS_N; s++) {
			c->res[s][PQ_ZR_YES] = k[i];
			c->res[s][PQ_ZR_NO] = n[i] - k[i];
		}
	}
}

static void table3(void **state)
{
	(void)state;
	pq_zeek_agg a;
	pq_zeek_study st[PQ_ZEEK_STUDY_MAX];
	counts(&a, 800, 1000, 350, 1000); /* the paper's shape */
	assert_int_equal(pq_zeek_study_table3(&a, st, PQ_ZEEK_STUDY_MAX), 3);
	assert_non_null(strstr(st[1].what, "resumption, all versions"));
	assert_non_null(strstr(st[1].theirs, "CDN 80.30 %, non-CDN 35.44 %"));
	assert_non_null(strstr(st[1].ours, "CDN 80.00 % ["));
	assert_non_null(strstr(st[1].ours, "(800/1000)"));
	assert_int_equal(st[1].agrees, 1);
	assert_non_null(strstr(st[1].verdict, "agrees: CDNs above"));
	counts(&a, 100, 1000, 350, 1000); /* CDNs below */
	(void)pq_zeek_study_table3(&a, st, PQ_ZEEK_STUDY_MAX);
	assert_int_equal(st[1].agrees, 0);
	assert_non_null(strstr(st[1].verdict, "differs: CDNs below"));
	counts(&a, 4, 10, 3, 10); /* too few to tell */
	(void)pq_zeek_study_table3(&a, st, PQ_ZEEK_STUDY_MAX);
	assert_int_equal(st[1].agrees, -1);
	assert_non_null(strstr(st[1].verdict, "intervals overlap (10 CDN and 10 Other rows with a known outcome)"));
	assert_non_null(strstr(st[0].verdict, "rows with a version"));
	counts(&a, 0, 0, 3, 10); /* no CDN at all */
	(void)pq_zeek_study_table3(&a, st, PQ_ZEEK_STUDY_MAX);
	assert_int_equal(st[1].agrees, -1);
	assert_non_null(strstr(st[1].verdict, "no CDN rows with a known outcome"));
	assert_non_null(strstr(st[1].ours, "CDN n/a"));
	/* only as many rows as asked for */
	assert_int_equal(pq_zeek_study_table3(&a, st, 2), 2);
}

static void figure7(void **state)
{
	(void)state;
	pq_zeek_agg a;
	pq_zeek_study st[PQ_ZEEK_STUDY_MAX];
	pq_zeek_ttfb v[] = {
		{.chain = "ecdsa", .rtt_known = 1, .rtt_ms = 50, .fresh_ms = 151, .resumed_ms = 150},
		{.chain = "ml-dsa-65", .rtt_known = 1, .rtt_ms = 50, .fresh_ms = 201, .resumed_ms = 150},
		{.chain = "ecdsa", .rtt_known = 1, .rtt_ms = 100, .fresh_ms = 301, .resumed_ms = 300},
		{.chain = "remote", .rtt_known = 0, .fresh_ms = 900, .resumed_ms = 100},
	};
	pq_zeek_savings s = {v, 4};
	counts(&a, 800, 1000, 350, 1000);
	assert_int_equal(pq_zeek_study_fig7(&s, &a, st, PQ_ZEEK_STUDY_MAX), 3);
	/* 50 ms: the ML-DSA-65 chain pays a round trip (51 ms): 0.803 x 51 = 41.0, inside 40-80;
	 * the ECDSA one saves nothing worth a threshold and is not in the range */
	assert_int_equal(st[0].agrees, 1);
	assert_non_null(strstr(st[0].ours, "1 chain past a threshold: CDN 41.0-41.0 ms, non-CDN 18.1-18.1 ms"));
	assert_non_null(strstr(st[0].theirs, "40-80 ms"));
	/* 100 ms: only a chain that saves 1 ms: nothing to compare */
	assert_int_equal(st[1].agrees, -1);
	assert_non_null(strstr(st[1].ours, "no chain pays half a round trip more"));
	/* the ratio: 0.8 / 0.35 = 2.29, its interval holds 2.27 */
	assert_int_equal(st[2].agrees, 1);
	assert_non_null(strstr(st[2].ours, "x2.29 ["));
	assert_non_null(strstr(st[2].verdict, "agrees"));
	counts(&a, 900, 1000, 100, 1000); /* CDNs save 9 times as much: more, but not about twice */
	(void)pq_zeek_study_fig7(&s, &a, st, PQ_ZEEK_STUDY_MAX);
	assert_int_equal(st[2].agrees, 0);
	assert_non_null(strstr(st[2].verdict, "differs in size"));
	counts(&a, 900, 1000, 0, 1000); /* no Other row resumed: no bound on the ratio */
	(void)pq_zeek_study_fig7(&s, &a, st, PQ_ZEEK_STUDY_MAX);
	assert_int_equal(st[2].agrees, -1);
	assert_non_null(strstr(st[2].verdict, "no Other row resumed"));
	assert_non_null(strstr(st[2].ours, "no ratio"));
	/* a chain that saves three round trips at 50 ms: 0.803 x 150 = 120 ms, over 80 (+10 %) */
	v[1].fresh_ms = 300;
	(void)pq_zeek_study_fig7(&s, &a, st, PQ_ZEEK_STUDY_MAX);
	assert_int_equal(st[0].agrees, 0);
	assert_non_null(strstr(st[0].verdict, "not all inside the paper's 40-80 ms"));
	/* no cell at 50 ms */
	s.n = 0;
	(void)pq_zeek_study_fig7(&s, &a, st, PQ_ZEEK_STUDY_MAX);
	assert_int_equal(st[0].agrees, -1);
	assert_non_null(strstr(st[0].verdict, "no chain fresh and resumed at 50 ms"));
}

static void json(void **state)
{
	(void)state;
	pq_zeek_agg a;
	pq_zeek_study st[PQ_ZEEK_STUDY_MAX];
	counts(&a, 800, 1000, 350, 1000);
	size_t n = pq_zeek_study_table3(&a, st, PQ_ZEEK_STUDY_MAX);
	cJSON *j = pq_zeek_study_json(st, n);
	assert_non_null(j);
	assert_int_equal(cJSON_GetArraySize(j), 3);
	cJSON *r = cJSON_GetArrayItem(j, 1);
	assert_string_equal(cJSON_GetObjectItem(r, "what")->valuestring, st[1].what);
	assert_int_equal(cJSON_GetObjectItem(r, "agrees")->valueint, 1);
	assert_non_null(cJSON_GetObjectItem(r, "here"));
	cJSON_Delete(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table3),
		cmocka_unit_test(figure7),
		cmocka_unit_test(json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
