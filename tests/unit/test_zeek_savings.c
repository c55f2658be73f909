/* zeek/savings: medians per chain and RTT from a results database (the store's own
 * schema, read through exp/rdb), groups without both arms left out, loss in either
 * direction left out, a remote server's cells (RTT unknown) grouped apart from RTT 0 and
 * shown as such; refused: a newer schema, a non-database, a number stored as text, a
 * database without its conn table; the CSV's saving. */
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

/* The CSV of s (and the table after it when `table`) for CDN connections `yes` of them
 * resumed and `no` not; malloc'd. */
static char *printed(const pq_zeek_savings *s, uint64_t yes, uint64_t no, int table)
{
	pq_zeek_agg a;
	pq_zeek_agg_init(&a, NULL);
	a.cat[PQ_ZCAT_CDN].res[PQ_ZS_ALL][PQ_ZR_YES] = yes;
	a.cat[PQ_ZCAT_CDN].res[PQ_ZS_ALL][PQ_ZR_NO] = no;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	pq_zeek_savings_print(f, s, &a, 1);
	if (table)
		pq_zeek_savings_print(f, s, &a, 0);
	fclose(f);
	pq_zeek_agg_dispose(&a);
	return buf;
}

static void load_ok(const char *path, pq_zeek_savings *s)
{
	pq_diag d = {0};
	if (pq_zeek_savings_load(s, path, &d) != 0)
		fail_msg("%s: %s", path, d.msg);
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
	load_ok(p, &s);
	assert_int_equal(s.n, 1); /* 'b' has no resumed arm */
	assert_string_equal(s.v[0].chain, "a");
	assert_true(s.v[0].fresh_ms == 160.0);  /* 150, 160, 400: lossy, failed left out */
	assert_true(s.v[0].resumed_ms == 105.0); /* mean of the two middle values; 0-RTT left out */
	assert_int_equal(s.v[0].fresh_n, 3);
	char *buf = printed(&s, 3, 1, 0);
	assert_non_null(strstr(buf, "\"a\",50.000,160.000,105.000,CDN,0.750000,41.250,")); /* 0.75 x 55 */
	assert_null(strstr(buf, ",Cloud,")); /* no rows: no line */
	free(buf);
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
	ts_exec(p, "DROP TABLE conn");
	assert_true(pq_zeek_savings_load(&s, p, &d) < 0);
	assert_non_null(strstr(d.msg, "noconn.db"));
	assert_non_null(strstr(d.msg, "conn"));
	/* a number stored as text is refused, naming the row and column, never read as 0 */
	static const struct {
		const char *name, *change, *msg;
	} bad[] = {
		{"text.db", "UPDATE conn SET ttfb_us = 'abc' WHERE cell_id = 2 AND conn_index = 1",
		 "conn (cell_id 2, conn_index 1): ttfb_us holds 'abc'"},
		{"textrtt.db", "UPDATE cell SET rtt_us = '50ms' WHERE cell_id = 1", "rtt_us holds '50ms'"},
		{"textres.db", "UPDATE conn SET resumed = 'yes' WHERE cell_id = 1 AND conn_index = 0",
		 "resumed holds 'yes'"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		p = real_db(bad[i].name);
		ts_exec(p, bad[i].change);
		assert_int_equal(pq_zeek_savings_load(&s, p, &d), PQ_EPARSE);
		if (!strstr(d.msg, bad[i].msg))
			fail_msg("%s: '%s', want '%s'", bad[i].name, d.msg, bad[i].msg);
	}
	p = real_db("empty.db");
	ts_exec(p, "DELETE FROM conn");
	assert_int_equal(pq_zeek_savings_load(&s, p, &d), PQ_EINVAL);
	assert_int_not_equal(pq_zeek_savings_load(&s, "/nonexistent/r.db", &d), 0);
	assert_non_null(strstr(d.msg, "/nonexistent/r.db"));
}

/* Fresh 300/310/320 and resumed 200/210 in cell `id` (the other three connections
 * left failed). */
static const char fresh_resumed[] =
	"UPDATE conn SET error_kind = CASE WHEN conn_index < 5 THEN 'ok' ELSE 'reset' END, early_sent = 0, "
	"resumed = conn_index IN (3, 4), ttfb_us = CASE conn_index WHEN 0 THEN 300000 WHEN 1 THEN 310000 "
	"WHEN 2 THEN 320000 WHEN 3 THEN 200000 WHEN 4 THEN 210000 ELSE NULL END WHERE cell_id = %d;";

static void remote_and_loss(void **state)
{
	(void)state;
	/* cell 1 measured a remote server (RTT and loss NULL, no chain described); cell 2 the
	 * same chain text at an emulated RTT of 0; cell 3 lost 1 % client to server only */
	const char *p = real_db("remote.db");
	char sql[1200];
	for (int id = 1; id <= 3; id++) {
		snprintf(sql, sizeof sql, fresh_resumed, id);
		ts_exec(p, sql);
	}
	ts_exec(p, "UPDATE cell SET chain_desc = NULL, chain_leaf = 'remote', rtt_us = NULL, loss_pct = NULL, "
		   "c2s_loss_pct = NULL WHERE cell_id = 1;"
		   "UPDATE cell SET chain_desc = 'a', rtt_us = 0, loss_pct = 0, c2s_loss_pct = 0 WHERE cell_id = 2;"
		   "UPDATE cell SET chain_desc = 'a', rtt_us = 0, loss_pct = 0, c2s_loss_pct = 1 WHERE cell_id = 3;"
		   "UPDATE conn SET ttfb_us = ttfb_us * 2 WHERE cell_id = 3;");
	pq_zeek_savings s;
	load_ok(p, &s);
	assert_int_equal(s.n, 2);
	const pq_zeek_ttfb *remote = NULL, *zero = NULL;
	for (size_t i = 0; i < s.n; i++) {
		if (s.v[i].rtt_known)
			zero = &s.v[i];
		else
			remote = &s.v[i];
	}
	assert_non_null(remote);
	assert_non_null(zero);
	assert_string_equal(remote->chain, "the remote server's chain");
	assert_true(remote->fresh_ms == 310.0 && remote->resumed_ms == 205.0);
	/* the lossy cell (doubled times) is not pooled into RTT 0's */
	assert_string_equal(zero->chain, "a");
	assert_true(zero->rtt_ms == 0 && zero->fresh_ms == 310.0 && zero->fresh_n == 3);
	char *buf = printed(&s, 1, 1, 1);
	/* the CSV's RTT is empty, the table says remote; never 0 */
	assert_non_null(strstr(buf, "\"the remote server's chain\",,310.000,205.000,CDN,0.500000,52.500,"));
	assert_non_null(strstr(buf, "\"a\",0.000,310.000,205.000,CDN,"));
	assert_non_null(strstr(buf, "the remote server's chain                     remote"));
	free(buf);
	pq_zeek_savings_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(medians),
		cmocka_unit_test(refused),
		cmocka_unit_test(remote_and_loss),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
