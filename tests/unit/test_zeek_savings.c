/* zeek/savings: medians per chain and RTT from a results database (the store's own
 * schema), groups without both arms left out, a newer schema and a non-database refused
 * (exp/rdb's reasons); the CSV's saving. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <cmocka.h>

#include <unistd.h>

#include "testdir.h"
#include "teststore.h"
#include "zeek/savings.h"

static const char *make_db(const char *name, const char *sql)
{
	static char path[300];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	unlink(path);
	ts_exec(path, sql);
	return path;
}

/* A real database (the store's schema) of three cells with 8 connections each. */
static const char *real_db(const char *name)
{
	static char path[300];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	ts_db(path, "rtt = 1ms..3ms step 1ms\nsig = ecdsa-p256\n", 8);
	return path;
}

static void medians(void **state)
{
	(void)state;
	const char *p = real_db("ok.db");
	/* cell 1: chain a at 50 ms without loss: fresh 150, 160, 400, resumed 100, 110, a 0-RTT
	 * one, two failures; cell 2: a with loss; cell 3: b, fresh only */
	ts_exec(p, "UPDATE cell SET chain_desc = 'a', rtt_us = 50000, loss_pct = 0 WHERE cell_id = 1;"
		   "UPDATE cell SET chain_desc = 'a', rtt_us = 50000, loss_pct = 1 WHERE cell_id = 2;"
		   "UPDATE cell SET chain_desc = 'b', rtt_us = 50000, loss_pct = 0 WHERE cell_id = 3;"
		   "UPDATE conn SET resumed = 0, early_sent = 0, error_kind = 'ok';"
		   "UPDATE conn SET ttfb_us = 999999 WHERE cell_id = 2;"
		   "UPDATE conn SET ttfb_us = 150000 WHERE cell_id = 3;"
		   "UPDATE conn SET ttfb_us = CASE conn_index WHEN 0 THEN 150000 WHEN 1 THEN 160000 WHEN 2 THEN 400000 "
		   "WHEN 3 THEN 100000 WHEN 4 THEN 110000 WHEN 5 THEN 50000 ELSE NULL END, "
		   "resumed = conn_index IN (3, 4, 5), early_sent = conn_index = 5, "
		   "error_kind = CASE WHEN conn_index >= 6 THEN 'timeout_handshake' ELSE 'ok' END WHERE cell_id = 1;");
	pq_zeek_savings s;
	pq_diag d = {0};
	assert_int_equal(pq_zeek_savings_load(&s, p, &d), 0);
	assert_int_equal(s.n, 1); /* 'b' has no resumed arm */
	assert_string_equal(s.v[0].chain, "a");
	assert_true(s.v[0].fresh_ms == 160.0);  /* 150, 160, 400: lossy, failed left out */
	assert_true(s.v[0].resumed_ms == 105.0); /* mean of the two middle values; 0-RTT left out */
	assert_int_equal(s.v[0].fresh_n, 3);
	pq_zeek_agg a;
	pq_zeek_agg_init(&a, NULL);
	a.cat[PQ_ZCAT_CDN].res[PQ_ZS_ALL][PQ_ZR_YES] = 3;
	a.cat[PQ_ZCAT_CDN].res[PQ_ZS_ALL][PQ_ZR_NO] = 1;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	pq_zeek_savings_print(f, &s, &a, 1);
	fclose(f);
	assert_non_null(strstr(buf, "\"a\",50.000,160.000,105.000,CDN,0.750000,41.250,")); /* 0.75 x 55 */
	assert_null(strstr(buf, ",Cloud,")); /* no rows: no line */
	free(buf);
	pq_zeek_agg_dispose(&a);
	pq_zeek_savings_free(&s);
}

static void refused(void **state)
{
	(void)state;
	pq_zeek_savings s;
	pq_diag d = {0};
	const char *p = make_db("v9.db", "CREATE TABLE meta(key TEXT, value TEXT); INSERT INTO meta VALUES('schema_version','9');");
	assert_int_equal(pq_zeek_savings_load(&s, p, &d), PQ_EUNSUPPORTED);
	assert_non_null(strstr(d.msg, "schema version 9"));
	p = make_db("nometa.db", "CREATE TABLE x(y);");
	assert_int_equal(pq_zeek_savings_load(&s, p, &d), PQ_EPARSE);
	assert_non_null(strstr(d.msg, "not a pqtls results database"));
	p = real_db("noconn.db");
	ts_exec(p, "DROP VIEW conn_cell");
	assert_int_equal(pq_zeek_savings_load(&s, p, &d), PQ_EPARSE);
	assert_non_null(strstr(d.msg, "conn_cell"));
	p = real_db("empty.db");
	ts_exec(p, "DELETE FROM conn");
	assert_int_equal(pq_zeek_savings_load(&s, p, &d), PQ_EINVAL);
	assert_int_not_equal(pq_zeek_savings_load(&s, "/nonexistent/r.db", &d), 0);
	assert_non_null(strstr(d.msg, "/nonexistent/r.db"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(medians),
		cmocka_unit_test(refused),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
