/* zeek/partial and zeek/report: a written partial reads back to the same report; bad
 * partial files are refused whole with the file named; the report's three shapes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testdir.h"

#include "zeek/partial.h"
#include "zeek/report.h"


static void fill(pq_zeek_agg *a)
{
	static const char *ips[] = {"192.0.2.1", "2001:db8::7", "198.51.100.3"};
	for (int i = 0; i < 300; i++) {
		pq_zeek_rec r;
		pq_zeek_rec_clear(&r);
		assert_int_equal(pq_zeek_addr_parse(ips[i % 3], strlen(ips[i % 3]), &r.resp), 0);
		r.version = i % 5 ? PQ_ZV_TLSv13 : PQ_ZV_TLSv12;
		r.resumed = i % 4 == 0;
		r.established = 1;
		r.has_ts = 1;
		r.ts = 1700000000 + i * 40000;
		r.curve = i % 2 ? "X25519MLKEM768" : "x25519";
		r.curve_len = strlen(r.curve);
		r.server_name = i % 3 ? "a.example" : "b \"quoted\"";
		r.server_name_len = strlen(r.server_name);
		assert_int_equal(pq_zeek_agg_add(a, &r), 0);
	}
	pq_zeek_agg_bad(a, "x.log", 0, 7, PQ_ZB_ESCAPE, "server_name");
}

static char *report(const pq_zeek_agg *a, int kind)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	pq_zeek_report_opts o = {10, PQ_ZBY_MONTH, "test"};
	if (kind == 0) {
		pq_zeek_report_text(f, a, &o);
	} else if (kind == 1) {
		pq_zeek_report_csv(f, a, &o);
	} else {
		cJSON *j = pq_zeek_report_json(a, &o);
		char *s = cJSON_PrintUnformatted(j);
		fputs(s, f);
		free(s);
		cJSON_Delete(j);
	}
	fclose(f);
	return buf;
}

static void roundtrip(void **state)
{
	(void)state;
	pq_zeek_agg a, b;
	pq_diag d = {0};
	char p[300];
	snprintf(p, sizeof p, "%s/p.json", dir);
	pq_zeek_agg_init(&a, NULL);
	pq_zeek_agg_init(&b, NULL);
	fill(&a);
	a.files = 2;
	a.bytes = 12345;
	assert_int_equal(pq_zeek_partial_write(&a, "ranges x", p, &d), 0);
	char *cl = NULL;
	assert_int_equal(pq_zeek_partial_read(&b, p, &cl, &d), 0);
	assert_string_equal(cl, "ranges x");
	free(cl);
	for (int k = 0; k < 3; k++) {
		char *x = report(&a, k), *y = report(&b, k);
		assert_string_equal(x, y);
		free(x);
		free(y);
	}
	/* Read twice: every count doubles. */
	assert_int_equal(pq_zeek_partial_read(&b, p, NULL, &d), 0);
	assert_int_equal(b.rows, 2 * a.rows);
	assert_int_equal(b.cat[PQ_ZCAT_UNKNOWN].res[PQ_ZS_ALL][PQ_ZR_YES], 2 * a.cat[PQ_ZCAT_UNKNOWN].res[PQ_ZS_ALL][PQ_ZR_YES]);
	pq_zeek_agg_dispose(&a);
	pq_zeek_agg_dispose(&b);
}

static void bad_files(void **state)
{
	(void)state;
	const char *cases[] = {
		"", "[]", "{\"pqtls_zeek_partial\":2}", "{\"pqtls_zeek_partial\":1}",
		"{\"pqtls_zeek_partial\":1,\"totals\":[1,2,3,4,5],\"bad\":[0,0,0,0,0,0,0,0,0,0,0,0],"
		"\"categories\":[]}",
		"{\"pqtls_zeek_partial\":1,\"totals\":[1,2,3,4,-5]}",
		"{\"pqtls_zeek_partial\":1,\"totals\":[1,2,3,4,1.5]}",
	};
	pq_zeek_agg a;
	pq_zeek_agg_init(&a, NULL);
	fill(&a);
	uint64_t rows = a.rows;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char p[300];
		snprintf(p, sizeof p, "%s/bad%zu.json", dir, i);
		FILE *f = fopen(p, "w");
		fputs(cases[i], f);
		fclose(f);
		pq_diag d = {0};
		assert_int_equal(pq_zeek_partial_read(&a, p, NULL, &d), PQ_EPARSE);
		assert_non_null(strstr(d.msg, p));
		assert_int_equal(a.rows, rows); /* nothing added */
	}
	pq_diag d = {0};
	assert_int_not_equal(pq_zeek_partial_write(&a, "x", "/nonexistent/dir/p.json", &d), 0);
	assert_non_null(strstr(d.msg, "/nonexistent/dir/p.json"));
	pq_zeek_agg_dispose(&a);
}

static void report_shapes(void **state)
{
	(void)state;
	pq_zeek_agg a;
	pq_zeek_agg_init(&a, NULL);
	fill(&a);
	char *t = report(&a, 0), *c = report(&a, 1), *j = report(&a, 2);
	assert_non_null(strstr(t, "TLS 1.3 adoption"));
	assert_non_null(strstr(t, "X25519MLKEM768"));
	assert_non_null(strstr(t, "x.log:7: bad \\x escape (server_name)"));
	assert_non_null(strstr(t, "Trend by month"));
	/* 240 of 300 rows are TLS 1.3; resumed: i%4==0 of rows with a version = 75/300. */
	assert_non_null(strstr(c, "all,All,tls13_adoption,240,300,0.800000,"));
	assert_non_null(strstr(c, "all,All,resumption_all,75,300,0.250000,"));
	assert_non_null(strstr(c, "all,CDN,tls13_adoption,0,0,,,"));
	assert_non_null(strstr(c, "2023-11,Unknown,tls13_adoption,"));
	assert_non_null(strstr(j, "\"resumption_tls13\":{\"k\":"));
	assert_non_null(strstr(j, "\"ESCAPE\":1"));
	assert_int_equal(pq_zeek_report_skipped(&a), 1);
	free(t);
	free(c);
	free(j);
	pq_zeek_agg_dispose(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(roundtrip),
		cmocka_unit_test(bad_files),
		cmocka_unit_test(report_shapes),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
