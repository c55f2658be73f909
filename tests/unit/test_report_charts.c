/* The report's figures chosen from what varies (report/charts.h), on a real-schema
 * database (testreport.h): a CDF names the profile only when every series drawn shares
 * it; more series than a figure holds continue in a further figure with its own id;
 * nothing is written where no group is; the id list
 * keeps what it can hold and drops the rest, never past its end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* cmocka needs the headers above. */
#include <cmocka.h>

#include "testreport.h"
#include "report/charts.h"

/* n cells at 35 ms, responses 1 KiB apart, profile p(i). */
static void cells_at_35(fx_cell *c, size_t n, const char *(*p)(size_t))
{
	for (size_t i = 0; i < n; i++)
		c[i] = (fx_cell){"ecdsa-p256 X25519", "ecdsa-p256", "X25519", 35000, (long long)(i + 1) * 1024, 1500, 3000,
				 1, 0, 0, 75, 110 + (double)i, p(i), NULL};
}

static const char *fast(size_t i)
{
	(void)i;
	return "aws-fast";
}

static const char *two_links(size_t i)
{
	return i % 2 ? "aws-lowbw" : "aws-fast";
}

/* The figures of the CDF at RTT index 0 of host 0, as text; free() it. */
static char *cdf_of(const pq_agg *a, pq_chart_ids *ids)
{
	pq_out o;
	pq_out_init(&o, 1 << 22);
	memset(ids, 0, sizeof *ids);
	pq_charts_cdf(&o, a, 0, 0, ids);
	assert_int_equal(o.err, 0);
	char *t = strdup(pq_buf_str(&o.b));
	pq_out_dispose(&o);
	assert_non_null(t);
	return t;
}

static void cdf_names_a_shared_profile(void **state)
{
	(void)state;
	fx_cell c[3];
	cells_at_35(c, 3, fast);
	pq_rdb db;
	pq_agg a;
	agg_of(c, 3, NULL, &db, &a);
	pq_chart_ids ids;
	char *t = cdf_of(&a, &ids);
	assert_non_null(strstr(t, "Distribution of handshake times per grid point at 35 ms RTT (profile aws-fast, host h)"));
	assert_int_equal(ids.n, 1);
	assert_string_equal(ids.id[0], "fig-cdf-h0-r0");
	free(t);
	pq_agg_free(&a);
	pq_rdb_close(&db);
}

/* Four links' worth of series in one figure said "profile aws-lowbw" for all: the caption
 * names none when they differ, each series' label names its own. */
static void cdf_names_no_profile_when_they_differ(void **state)
{
	(void)state;
	fx_cell c[4];
	cells_at_35(c, 4, two_links);
	pq_rdb db;
	pq_agg a;
	agg_of(c, 4, NULL, &db, &a);
	pq_chart_ids ids;
	char *t = cdf_of(&a, &ids);
	assert_non_null(strstr(t, "Distribution of handshake times per grid point at 35 ms RTT (host h)"));
	assert_null(strstr(t, "(profile aws-"));
	assert_non_null(strstr(t, "aws-lowbw"));
	assert_non_null(strstr(t, "aws-fast"));
	free(t);
	pq_agg_free(&a);
	pq_rdb_close(&db);
}

/* 50 grid points at one RTT: 48 in the first figure, the rest in a second one with an id
 * of its own ("-f1") and "continued" in its caption. */
static void cdf_continues_past_a_figure(void **state)
{
	(void)state;
	enum { N = 50 };
	fx_cell c[N];
	cells_at_35(c, N, fast);
	pq_rdb db;
	pq_agg a;
	agg_of(c, N, NULL, &db, &a);
	pq_chart_ids ids;
	char *t = cdf_of(&a, &ids);
	assert_int_equal(ids.n, 2);
	assert_string_equal(ids.id[0], "fig-cdf-h0-r0");
	assert_string_equal(ids.id[1], "fig-cdf-h0-r0-f1");
	assert_non_null(strstr(t, "(profile aws-fast, host h), continued"));
	free(t);
	pq_agg_free(&a);
	pq_rdb_close(&db);
}

/* No group of that host or at that RTT: nothing written, no id. */
static void nothing_where_no_group_is(void **state)
{
	(void)state;
	fx_cell c[2];
	cells_at_35(c, 2, fast);
	pq_rdb db;
	pq_agg a;
	agg_of(c, 2, NULL, &db, &a);
	pq_out o;
	pq_out_init(&o, 1 << 16);
	pq_chart_ids ids = {0};
	pq_charts_cdf(&o, &a, 1, 0, &ids);
	pq_charts_cdf(&o, &a, 0, 7, &ids);
	assert_int_equal(o.err, 0);
	assert_int_equal(o.b.len, 0);
	assert_int_equal(ids.n, 0);
	pq_out_dispose(&o);
	pq_agg_free(&a);
	pq_rdb_close(&db);
}

static void ids_stop_at_their_end(void **state)
{
	(void)state;
	static pq_chart_ids ids;
	for (size_t i = 0; i < PQ_CHARTS_MAX_IDS + 5; i++) {
		char id[48];
		snprintf(id, sizeof id, "fig-%zu", i);
		pq_chart_ids_add(&ids, id);
	}
	assert_int_equal(ids.n, PQ_CHARTS_MAX_IDS);
	assert_string_equal(ids.id[PQ_CHARTS_MAX_IDS - 1], "fig-127");
	/* an id longer than a slot is cut, not run into the next */
	ids.n = 0;
	pq_chart_ids_add(&ids, "fig-a-very-long-identifier-that-does-not-fit-its-slot-at-all");
	assert_int_equal(strlen(ids.id[0]), sizeof ids.id[0] - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(cdf_names_a_shared_profile),
	    cmocka_unit_test(cdf_names_no_profile_when_they_differ),
	    cmocka_unit_test(cdf_continues_past_a_figure),
	    cmocka_unit_test(nothing_where_no_group_is),
	    cmocka_unit_test(ids_stop_at_their_end),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
