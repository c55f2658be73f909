/* exp/rdb.c: the one reader of results databases. Every refusal names the file and the
 * right reason (not a regular file, not SQLite, damaged, a hot journal, not pqtls, a
 * version that is not a number, older or newer); numbers stored as text are refused, not
 * read as 0; cells whose connections are gone are said; a NUL in a host name keeps two
 * hosts apart; export, merge and zeek savings give the same reasons. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testdir.h"
#include "teststore.h"
#include "exp/export.h"
#include "exp/merge.h"
#include "exp/rdb.h"
#include "zeek/savings.h"

/* A real database of `n` cells with 8 connections each, at dir/name. */
static const char *real_db(const char *name, size_t n)
{
	static char path[300];
	char spec[128];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	snprintf(spec, sizeof spec, "rtt = 1ms..%zums step 1ms\nsig = ecdsa-p256\n", n);
	ts_db(path, spec, 8);
	return path;
}

/* Opening path fails with a message holding `want`; the same through the other readers. */
static void refused(const char *path, const char *want)
{
	pq_rdb db;
	pq_diag d = {0};
	sqlite3 *h = NULL;
	char out[400];
	assert_true(pq_rdb_open(path, &db, &d) < 0);
	if (!strstr(d.msg, want))
		fail_msg("report: '%s' lacks '%s'", d.msg, want);
	assert_true(pq_rdb_open_db(path, &h, &d) < 0);
	assert_null(h);
	if (!strstr(d.msg, want))
		fail_msg("open_db: '%s' lacks '%s'", d.msg, want);
	snprintf(out, sizeof out, "%s/export.jsonl", dir);
	assert_true(pq_exp_export_jsonl(path, out, NULL, &d) < 0);
	if (!strstr(d.msg, want))
		fail_msg("export: '%s' lacks '%s'", d.msg, want);
	snprintf(out, sizeof out, "%s/merged.db", dir);
	const char *in[] = {path};
	assert_true(pq_exp_merge(in, 1, out, NULL, &d) < 0);
	if (!strstr(d.msg, want))
		fail_msg("merge: '%s' lacks '%s'", d.msg, want);
	assert_int_equal(access(out, F_OK), -1);
	pq_zeek_savings s;
	assert_true(pq_zeek_savings_load(&s, path, &d) < 0);
	if (!strstr(d.msg, want))
		fail_msg("zeek savings: '%s' lacks '%s'", d.msg, want);
}

static void not_files(void **state)
{
	(void)state;
	char fifo[300];
	/* a FIFO made every reader block in open() for ever: the alarm fails the test instead */
	alarm(20);
	snprintf(fifo, sizeof fifo, "%s/fifo.db", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	refused(fifo, "fifo.db: a FIFO: not a regular file");
	refused(dir, "is a directory; give a results database");
	refused("/nonexistent/x.db", "/nonexistent/x.db: cannot open it: No such file");
	refused("/dev/null", "/dev/null: a character device: not a regular file");
	alarm(0);
	refused(testdir_write("text.db", "plain text, no database here, just words to fill a page ......"),
		"is not an SQLite database");
}

static void make_db(const char *path, const char *sql)
{
	unlink(path);
	ts_exec(path, sql);
}

static void not_pqtls_or_versions(void **state)
{
	(void)state;
	char path[300];
	snprintf(path, sizeof path, "%s/v.db", dir);
	make_db(path, "CREATE TABLE t (x)");
	refused(path, "not a pqtls results database (it has no meta table");
	make_db(path, "CREATE TABLE meta (key TEXT, value TEXT); INSERT INTO meta VALUES ('spec_name', 'x')");
	refused(path, "no schema_version");
	/* strictly a whole number: '2abc' was read as 2, 'abc' and '-1' as missing */
	static const char *const bad[] = {"2abc", "abc", "-1", "", " 3", "3.0", "0"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char sql[200], want[100];
		snprintf(sql, sizeof sql, "CREATE TABLE meta (key TEXT, value TEXT); INSERT INTO meta VALUES "
					  "('schema_version', '%s')", bad[i]);
		make_db(path, sql);
		snprintf(want, sizeof want, "meta.schema_version is '%s': meta.schema_version is not a whole number",
			 bad[i]);
		refused(path, want);
	}
	/* the stored text is shown escaped, never raw on the terminal */
	make_db(path, "CREATE TABLE meta (key TEXT, value TEXT); INSERT INTO meta VALUES "
		      "('schema_version', '3' || char(27) || '[2J' || char(7))");
	refused(path, "meta.schema_version is '3\\x1b[2J\\x07': meta.schema_version is not a whole number");
	/* older and newer versions are refused by the real file too */
	const char *r = real_db("old.db", 1);
	ts_exec(r, "UPDATE meta SET value = '2' WHERE key = 'schema_version'");
	char want[100];
	snprintf(want, sizeof want, "old.db has schema version 2; this pqtls reads versions %d to %d (an older pqtls wrote it",
		 PQ_SCHEMA_OLDEST, PQ_SCHEMA_VERSION);
	refused(r, want);
	ts_exec(r, "UPDATE meta SET value = '99' WHERE key = 'schema_version'");
	snprintf(want, sizeof want, "old.db has schema version 99; this pqtls reads version %d (a newer pqtls",
		 PQ_SCHEMA_VERSION);
	refused(r, want);
}

static long long file_size(const char *path)
{
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	return (long long)st.st_size;
}

static void copy_file(const char *from, const char *to)
{
	char cmd[700];
	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
	assert_int_equal(system(cmd), 0);
}

static void damaged(void **state)
{
	(void)state;
	char path[300];
	const char *r = real_db("whole.db", 40);
	long long size = file_size(r);
	assert_true(size > 8 * 4096);
	/* truncated: half the pages gone */
	snprintf(path, sizeof path, "%s/trunc.db", dir);
	copy_file(r, path);
	assert_int_equal(truncate(path, size / 2), 0);
	refused(path, "the database is damaged (truncated or overwritten)");
	/* every page's first byte overwritten after the schema's pages */
	snprintf(path, sizeof path, "%s/flip.db", dir);
	copy_file(r, path);
	int fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	for (long long off = 3 * 4096; off < size; off += 4096)
		assert_int_equal(pwrite(fd, "\xff\xff\xff\xff", 4, off), 4);
	close(fd);
	refused(path, "the database is damaged (truncated or overwritten)");
}

/* A copy of the file and its journal taken while a writer is mid-transaction: what a
 * writer killed there leaves behind. */
static void hot_journal(void **state)
{
	(void)state;
	char path[300], j[320], hj[320];
	const char *r = real_db("hot-src.db", 4);
	sqlite3 *w;
	assert_int_equal(sqlite3_open(r, &w), SQLITE_OK);
	assert_int_equal(sqlite3_exec(w, "PRAGMA journal_mode = DELETE; PRAGMA cache_size = 1; BEGIN; "
					 "UPDATE conn SET ttfb_us = ttfb_us + 1; UPDATE cell SET arm = arm || 'x'",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	snprintf(path, sizeof path, "%s/hot.db", dir);
	snprintf(j, sizeof j, "%s-journal", r);
	snprintf(hj, sizeof hj, "%s-journal", path);
	assert_true(file_size(j) > 0);
	copy_file(r, path);
	copy_file(j, hj);
	assert_int_equal(sqlite3_exec(w, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(w);
	refused(path, "hot.db: a writer was interrupted mid-transaction and left a hot journal");
	assert_int_equal(access(hj, F_OK), 0); /* nothing was changed */
}

static void numbers_as_text(void **state)
{
	(void)state;
	static const char *const bad[] = {"'abc'", "'NaN'", "X'00'"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *r = real_db("text-number.db", 2);
		char sql[200];
		snprintf(sql, sizeof sql, "UPDATE conn SET handshake_us = %s WHERE cell_id = 2 AND conn_index = 3", bad[i]);
		ts_exec(r, sql);
		pq_rdb db;
		pq_diag d = {0};
		assert_int_equal(pq_rdb_open(r, &db, &d), PQ_EPARSE);
		assert_non_null(strstr(d.msg, "conn (cell_id 2, conn_index 3): handshake_us holds"));
		assert_non_null(strstr(d.msg, "not a number"));
	}
	/* in a dimension column too */
	const char *r = real_db("text-rtt.db", 2);
	ts_exec(r, "UPDATE cell SET rtt_us = 'fast' WHERE cell_id = 1");
	pq_rdb db;
	pq_diag d = {0};
	assert_int_equal(pq_rdb_open(r, &db, &d), PQ_EPARSE);
	assert_non_null(strstr(d.msg, "cell (cell_id 1): rtt_us holds 'fast': not a number"));
	pq_rdb_close(&db);
	/* a blob's bytes are shown escaped: no ESC, BEL or NUL reaches the terminal */
	r = real_db("blob-number.db", 2);
	ts_exec(r, "UPDATE conn SET ttfb_us = X'1b5b324a0700ff' WHERE cell_id = 1 AND conn_index = 0");
	assert_int_equal(pq_rdb_open(r, &db, &d), PQ_EPARSE);
	if (!strstr(d.msg, "ttfb_us holds '\\x1b[2J\\x07\\x00\\xff': not a number") || strchr(d.msg, '\x1b'))
		fail_msg("blob: '%s'", d.msg);
}

/* Values no measurement produces are refused when read, naming the file, the table, the
 * row and the column (issue 29 item 7: a negative median, a negative RTT and a 300-digit
 * TTFB were shown as measured). */
static void impossible_numbers(void **state)
{
	(void)state;
	static const char *const bad[][2] = {
	    {"UPDATE conn SET handshake_us = -5 WHERE cell_id = 2 AND conn_index = 3",
	     "conn (cell_id 2, conn_index 3): handshake_us holds -5 (a duration is 0 to a day (86400000000 us))"},
	    {"UPDATE conn SET ttfb_us = 1e300 WHERE cell_id = 2 AND conn_index = 3",
	     "conn (cell_id 2, conn_index 3): ttfb_us holds 1e+300 (a duration is 0 to a day"},
	    {"UPDATE conn SET ttfb_us = 9e999 WHERE cell_id = 2 AND conn_index = 3", "ttfb_us holds 'Inf': not a number"},
	    {"UPDATE conn SET min_rtt_us = -1 WHERE cell_id = 1 AND conn_index = 0",
	     "conn (cell_id 1, conn_index 0): min_rtt_us holds -1"},
	    {"UPDATE cell SET rtt_us = -50000 WHERE cell_id = 1", "cell (cell_id 1): rtt_us holds -50000 (a duration"},
	    {"UPDATE cell SET loss_pct = 150 WHERE cell_id = 2", "cell (cell_id 2): loss_pct holds 150 (a percentage is 0 to 100)"},
	    {"UPDATE cell SET mtu_bytes = -1500 WHERE cell_id = 2", "mtu_bytes holds -1500 (a count, size or rate is not negative)"},
	    {"UPDATE cell SET host_client_wait_p50_us = -3 WHERE cell_id = 1", "host_client_wait_p50_us holds -3"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *r = real_db("impossible.db", 2);
		ts_exec(r, bad[i][0]);
		pq_rdb db;
		pq_diag d = {0};
		int rc = pq_rdb_open(r, &db, &d);
		if (rc >= 0 || !strstr(d.msg, bad[i][1]) || !strstr(d.msg, "impossible.db: "))
			fail_msg("%s: rc %d, '%s'", bad[i][0], rc, d.msg);
		if (!strstr(bad[i][1], "not a number") && !strstr(d.msg, "not a value a measurement can produce"))
			fail_msg("%s: '%s'", bad[i][0], d.msg);
	}
	/* the limits themselves are values */
	const char *r = real_db("limits.db", 2);
	ts_exec(r, "UPDATE conn SET handshake_us = 0, ttfb_us = 86400e6 WHERE cell_id = 1;"
		   "UPDATE cell SET loss_pct = 100, link_late_p50_us = -2 WHERE cell_id = 1");
	pq_rdb db;
	pq_diag d = {0};
	assert_int_equal(pq_rdb_open(r, &db, &d), 0);
	pq_rdb_close(&db);
}

static void missing_conns_and_nul_hosts(void **state)
{
	(void)state;
	const char *r = real_db("gone.db", 3);
	pq_rdb db;
	pq_diag d = {0};
	assert_int_equal(pq_rdb_open(r, &db, &d), 0);
	assert_string_equal(db.note, "");
	assert_int_equal(db.nconns, 24);
	pq_rdb_close(&db);
	ts_exec(r, "DELETE FROM conn WHERE cell_id = 2; DELETE FROM conn WHERE cell_id = 3 AND conn_index < 3");
	assert_int_equal(pq_rdb_open(r, &db, &d), 0);
	assert_int_equal(db.cells_short, 2);
	assert_int_equal(db.conns_missing, 11);
	assert_non_null(strstr(db.note, "gone.db: 2 of 3 cells have fewer conn rows than they recorded (11 connections "
					"missing"));
	assert_int_equal(db.cells[1].nc, 0);
	assert_int_equal(db.cells[1].conns_recorded, 8);
	pq_rdb_close(&db);
	/* two hosts alike up to a NUL stay two */
	ts_exec(r, "UPDATE cell SET host_name = 'a' || char(0) || 'x' WHERE cell_id = 1;"
		   "UPDATE cell SET host_name = 'a' || char(0) || 'y' WHERE cell_id = 2");
	assert_int_equal(pq_rdb_open(r, &db, &d), 0);
	assert_string_equal(db.cells[0].host, "a\\0x");
	assert_string_equal(db.cells[1].host, "a\\0y");
	pq_rdb_close(&db);
}

static void empty_and_good(void **state)
{
	(void)state;
	pq_diag d = {0};
	char path[300];
	snprintf(path, sizeof path, "%s/empty.db", dir);
	unlink(path);
	assert_int_equal(pq_store_create(path, "t", "h", &d), 0);
	pq_rdb db;
	assert_int_equal(pq_rdb_open(path, &db, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "holds no measured cell"));
	sqlite3 *h = NULL;
	assert_int_equal(pq_rdb_open_db(path, &h, &d), 0); /* export and merge take an empty one */
	sqlite3_close(h);
}

/* Chromium's first byte split by the reader is the conn_cell view's, to the last bit, NULL
 * parts reading as NaN; a ClientHello of 0 bytes (not known) reads as NaN. */
static void browser_split(void **state)
{
	(void)state;
	const char *r = real_db("browser.db", 1);
	ts_exec(r, "UPDATE conn SET ch1_bytes = 1931 + conn_index, browser_flight_us = 106000.5 + conn_index, "
		   "browser_verify_us = 48000.25, browser_request_net_us = 230000 + 3 * conn_index, "
		   "browser_ttfb_net_us = 280000.125 - conn_index;"
		   "UPDATE conn SET browser_verify_us = NULL, ch1_bytes = 0 WHERE conn_index = 2;"
		   "UPDATE conn SET browser_flight_us = NULL WHERE conn_index = 3");
	pq_diag d = {0};
	pq_rdb db;
	assert_int_equal(pq_rdb_open(r, &db, &d), 0);
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_open_v2(r, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT browser_ttfb_network_us, browser_dispatch_us, ch1_bytes FROM "
					       "conn_cell ORDER BY cell_id, conn_index", -1, &st, NULL),
			 SQLITE_OK);
	size_t k = 0, nulls = 0;
	for (; sqlite3_step(st) == SQLITE_ROW; k++) {
		const pq_rdb_conn *n = &db.conns[k];
		double got[2] = {pq_rdb_conn_br_network_us(n), pq_rdb_conn_br_dispatch_us(n)};
		for (int c = 0; c < 2; c++) {
			if (sqlite3_column_type(st, c) == SQLITE_NULL) {
				assert_true(isnan(got[c]));
				nulls++;
			} else {
				assert_true(got[c] == sqlite3_column_double(st, c));
			}
		}
		if (sqlite3_column_int(st, 2) == 0)
			assert_true(isnan(n->ch1_bytes));
		else
			assert_true(n->ch1_bytes == sqlite3_column_double(st, 2));
	}
	assert_int_equal(k, db.nconns);
	assert_int_equal(nulls, 3); /* conn 2's dispatch, conn 3's network part and dispatch */
	sqlite3_finalize(st);
	sqlite3_close(h);
	pq_rdb_close(&db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(not_files),
		cmocka_unit_test(not_pqtls_or_versions),
		cmocka_unit_test(damaged),
		cmocka_unit_test(hot_journal),
		cmocka_unit_test(numbers_as_text),
		cmocka_unit_test(impossible_numbers),
		cmocka_unit_test(missing_conns_and_nul_hosts),
		cmocka_unit_test(empty_and_good),
		cmocka_unit_test(browser_split),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
