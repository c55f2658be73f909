/* zeek/savings: medians per chain and RTT from a results database, groups without both
 * arms left out, a newer schema and a non-database refused; the CSV's saving. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <cmocka.h>

#include "testdir.h"
#include "zeek/savings.h"

static const char *make_db(const char *name, const char *sql)
{
	static char path[300];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	return path;
}

#define SCHEMA                                                                                   \
	"CREATE TABLE meta(key TEXT, value TEXT); INSERT INTO meta VALUES('schema_version','2');"  \
	"CREATE TABLE conn_cell(chain_desc TEXT, rtt_us INTEGER, resumed INTEGER, early_sent INTEGER," \
	" error_kind TEXT, loss_pct REAL, ttfb_us REAL);"

static void medians(void **state)
{
	(void)state;
	const char *p = make_db("ok.db", SCHEMA
		"INSERT INTO conn_cell VALUES('a',50000,0,0,'ok',0,150000),('a',50000,0,0,'ok',0,160000),"
		"('a',50000,0,0,'ok',0,400000),('a',50000,1,0,'ok',0,100000),('a',50000,1,0,'ok',0,110000),"
		"('a',50000,1,1,'ok',0,50000),('a',50000,0,0,'timeout_handshake',0,NULL),"
		"('a',50000,0,0,'ok',1,999999),('b',50000,0,0,'ok',0,150000);");
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
	assert_non_null(strstr(d.msg, "not a pqtls sweep results database"));
	p = make_db("noconn.db", "CREATE TABLE meta(key TEXT, value TEXT); INSERT INTO meta VALUES('schema_version','1');");
	assert_int_equal(pq_zeek_savings_load(&s, p, &d), PQ_EPARSE);
	assert_non_null(strstr(d.msg, "conn_cell"));
	p = make_db("empty.db", SCHEMA);
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
