/* exp/store.c, store_cell.c, merge.c, export.c, hostload.c: a database is created whole
 * or not at all, reopened only for the same grid and a schema it knows, locked against a
 * second writer; a cell and its connections go in together; merge renumbers and refuses
 * overlaps; export writes every table, the whole set or nothing (a signal's flag set mid-way
 * leaves no file, no staging directory and the old files as they were); host load parses
 * /proc texts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testdb.h"
#include "testdir.h"
#include "teststore.h"
#include "exp/export.h"
#include "exp/hostload.h"
#include "exp/merge.h"
#include "exp/rdb.h"
#include "exp/store.h"

static void one_cell(pq_exp_grid *g)
{
	ts_grid("rtt = 10ms, 20ms\nsig = ecdsa-p256\n", g);
}

static void fill(const char *path, const pq_exp_grid *g, size_t first, size_t n, pq_diag *d)
{
	pq_store *st;
	assert_int_equal(pq_store_open(path, "t", g->hash, &st, d), 0);
	pq_store_run r = {.spec_name = "t", .grid_hash = g->hash, .seed = 1, .shard_index = 1, .shard_count = 1};
	assert_int_equal(pq_store_run_begin(st, &r, d), 0);
	pq_load_record recs[3];
	memset(recs, 0, sizeof recs);
	for (int i = 0; i < 3; i++)
		for (int p = 0; p < PQ_PH_COUNT; p++)
			recs[i].t[p] = 1000 * (p + 1);
	recs[2].err = PQ_LERR_RESET;
	recs[2].t[PQ_PH_HANDSHAKE] = -1;
	pq_exp_eff e;
	for (size_t i = first; i < first + n; i++) {
		pq_store_cell_row row;
		pq_store_cell_row_init(&row);
		ts_eff(&g->cells[i], "cubic", &e);
		assert_int_equal(pq_store_cell_done(st, g->cells[i].key, d), 0);
		assert_int_equal(pq_store_cell(st, &g->cells[i], &e, &row, recs, 3, d), 0);
		assert_int_equal(pq_store_cell_done(st, g->cells[i].key, d), 1);
	}
	/* the same cell twice is refused by the key, and leaves nothing behind */
	pq_store_cell_row row;
	pq_store_cell_row_init(&row);
	ts_eff(&g->cells[first], "cubic", &e);
	assert_true(pq_store_cell(st, &g->cells[first], &e, &row, recs, 3, d) < 0);
	assert_int_equal(pq_store_run_end(st, "complete", d), 0);
	pq_store_close(st);
}

static void create_reopen_lock(void **state)
{
	(void)state;
	pq_exp_grid g;
	pq_diag d;
	char path[128];
	one_cell(&g);
	snprintf(path, sizeof path, "%s/a/b/r.db", dir);
	fill(path, &g, 0, 1, &d);
	assert_int_equal(q(path, "SELECT COUNT(*) FROM cell"), 1);
	assert_int_equal(q(path, "SELECT COUNT(*) FROM conn"), 3);
	assert_int_equal(q(path, "SELECT COUNT(*) FROM conn WHERE handshake_us IS NULL AND error_kind = 'reset'"), 1);
	assert_int_equal(q(path, "SELECT conns_failed FROM cell"), 1);
	assert_int_equal(q(path, "SELECT value FROM meta WHERE key = 'schema_version'"), PQ_SCHEMA_VERSION);
	assert_int_equal(q(path, "PRAGMA user_version"), PQ_SCHEMA_VERSION);
	assert_int_equal(q(path, "SELECT COUNT(*) FROM cell_stats WHERE handshake_p50_us = 4"), 1);
	/* what zeek savings reads from a sweep (src/zeek/savings.c) */
	assert_int_equal(q(path, "SELECT COUNT(*) FROM conn_cell WHERE chain_desc IS NULL AND rtt_us = 10000 AND "
				 "early_sent = 0 AND loss_pct = 0 AND resumed = 0"),
			 3);
	/* resume: the same grid opens and the done cell is known */
	fill(path, &g, 1, 1, &d);
	assert_int_equal(q(path, "SELECT COUNT(*) FROM run"), 2);
	/* another grid is refused */
	pq_store *st = NULL, *st2 = NULL;
	assert_int_equal(pq_store_open(path, "t", "0123", &st, &d), PQ_EMISMATCH);
	assert_non_null(strstr(pq_diag_msg(&d), "holds another grid"));
	/* a second writer is refused while the first holds the file */
	assert_int_equal(pq_store_open(path, "t", g.hash, &st, &d), 0);
	assert_int_equal(pq_store_open(path, "t", g.hash, &st2, &d), PQ_EEXIST);
	assert_non_null(strstr(pq_diag_msg(&d), "another pqtls sweep is writing this file"));
	pq_store_close(st);
	/* the writer leaves a rollback-journal file: readers need no -wal/-shm beside it */
	sqlite3 *db;
	sqlite3_stmt *jm;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &jm, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(jm), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(jm, 0), "delete");
	sqlite3_finalize(jm);
	/* a newer schema is refused by readers */
	assert_int_equal(sqlite3_exec(db, "UPDATE meta SET value = '99' WHERE key = 'schema_version'", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	sqlite3 *rdb = NULL;
	assert_int_equal(pq_rdb_open_db(path, &rdb, &d), PQ_EUNSUPPORTED);
	char want[80];
	snprintf(want, sizeof want, "has schema version 99; this pqtls reads version %d", PQ_SCHEMA_VERSION);
	assert_non_null(strstr(pq_diag_msg(&d), want));
	assert_int_equal(pq_store_open(path, "t", g.hash, &st, &d), PQ_EUNSUPPORTED);
	pq_exp_grid_dispose(&g);
}

static void refuses_bad_paths(void **state)
{
	(void)state;
	sqlite3 *st;
	pq_diag d;
	char path[128];
	assert_true(pq_store_precheck("/proc/pqtls-none/r.db", &d) < 0);
	assert_non_null(strstr(pq_diag_msg(&d), "/proc/pqtls-none/r.db: cannot create directory"));
	assert_true(pq_rdb_open_db("/nonexistent.db", &st, &d) < 0);
	snprintf(path, sizeof path, "%s/not-a-db", dir);
	FILE *f = fopen(path, "w");
	fputs("hello", f);
	fclose(f);
	assert_true(pq_rdb_open_db(path, &st, &d) < 0);
	assert_non_null(strstr(pq_diag_msg(&d), "not-a-db"));
	assert_int_equal(pq_store_precheck(path, &d), 0);
	assert_int_equal(pq_rdb_open_db(dir, &st, &d), -EISDIR);
	assert_non_null(strstr(pq_diag_msg(&d), "is a directory; give a results database"));
}

static void merge_and_export(void **state)
{
	(void)state;
	pq_exp_grid g;
	pq_diag d;
	char a[128], b[128], out[128], csv[128], jl[128];
	one_cell(&g);
	snprintf(a, sizeof a, "%s/m/a.db", dir);
	snprintf(b, sizeof b, "%s/m/b.db", dir);
	snprintf(out, sizeof out, "%s/m/all.db", dir);
	fill(a, &g, 0, 1, &d);
	fill(b, &g, 1, 1, &d);
	pq_exp_merge_stats ms;
	const char *in[] = {a, b};
	assert_int_equal(pq_exp_merge(in, 2, out, &ms, &d), 0);
	assert_int_equal(ms.cells, 2);
	assert_int_equal(ms.conns, 6);
	assert_int_equal(ms.runs, 2);
	assert_int_equal(q(out, "SELECT COUNT(DISTINCT run_id) FROM cell"), 2);
	assert_int_equal(q(out, "SELECT COUNT(*) FROM conn n JOIN cell c USING (cell_id)"), 6);
	assert_int_equal(pq_exp_merge(in, 2, out, &ms, &d), PQ_EEXIST);
	const char *twice[] = {a, a};
	snprintf(out, sizeof out, "%s/m/twice.db", dir);
	assert_int_equal(pq_exp_merge(twice, 2, out, &ms, &d), PQ_EEXIST);
	assert_non_null(strstr(pq_diag_msg(&d), "the inputs overlap"));
	assert_int_equal(access(out, F_OK), -1);
	/* a stored name in the message is escaped: no ESC reaches the terminal */
	ts_exec(a, "UPDATE cell SET host_name = 'h' || char(27) || '[2J'");
	assert_int_equal(pq_exp_merge(twice, 2, out, &ms, &d), PQ_EEXIST);
	if (!strstr(pq_diag_msg(&d), "(host h\\x1b[2J) is also in an earlier input") || strchr(pq_diag_msg(&d), 27))
		fail_msg("%s", pq_diag_msg(&d));
	/* -o onto a dangling symbolic link says so (it blamed another process) */
	snprintf(out, sizeof out, "%s/m/link.db", dir);
	assert_int_equal(symlink("/nonexistent/target.db", out), 0);
	assert_int_equal(pq_exp_merge(in, 2, out, &ms, &d), PQ_EEXIST);
	if (!strstr(pq_diag_msg(&d), "link.db is a dangling symbolic link (to /nonexistent/target.db, which does not exist)") ||
	    strstr(pq_diag_msg(&d), "another process"))
		fail_msg("%s", pq_diag_msg(&d));
	unlink(out);
	assert_int_equal(pq_exp_merge(in, 0, out, &ms, &d), PQ_EINVAL);
	snprintf(csv, sizeof csv, "%s/m/csv", dir);
	assert_int_equal(pq_exp_export_csv(a, csv, NULL, &d), 0);
	snprintf(jl, sizeof jl, "%s/m/csv/conn.csv", dir);
	assert_int_equal(access(jl, R_OK), 0);
	snprintf(jl, sizeof jl, "%s/m/c.jsonl", dir);
	assert_int_equal(pq_exp_export_jsonl(a, jl, NULL, &d), 0);
	assert_true(pq_exp_export_jsonl("/nonexistent.db", jl, NULL, &d) < 0);
	assert_true(pq_exp_export_csv(a, "/proc/pqtls-none/x", NULL, &d) < 0);
	pq_exp_grid_dispose(&g);
}

/* The names in directory p but . and .., sorted, each followed by a space. */
static const char *listing(const char *p)
{
	static char out[512];
	struct dirent **e;
	int n = scandir(p, &e, NULL, alphasort);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (strcmp(e[i]->d_name, ".") && strcmp(e[i]->d_name, ".."))
			snprintf(out + strlen(out), sizeof out - strlen(out), "%s ", e[i]->d_name);
		free(e[i]);
	}
	if (n >= 0)
		free(e);
	return out;
}

/* An export is the whole set or nothing: into a new directory, into one that holds other
 * files, and when a signal's flag is set (nothing of it is left, not even a staging
 * directory or a temporary file; what was there stays as it was). */
static void export_whole_or_nothing(void **state)
{
	(void)state;
	pq_exp_grid g;
	pq_diag d;
	char db[128], e[128], csv[160];
	volatile sig_atomic_t stop = 0;
	static const char set[] = "arm_stats.csv cell.csv cell_stats.csv conn.csv link_check.csv run.csv ";
	one_cell(&g);
	snprintf(e, sizeof e, "%s/e", dir);
	assert_int_equal(mkdir(e, 0700), 0);
	snprintf(db, sizeof db, "%s/e/r.db", dir);
	fill(db, &g, 0, 1, &d);
	snprintf(csv, sizeof csv, "%s/new", e);
	assert_int_equal(pq_exp_export_csv(db, csv, &stop, &d), 0);
	assert_string_equal(listing(csv), set);
	assert_string_equal(listing(e), "new r.db ");
	/* an existing directory keeps the user's files; the set's files are replaced */
	assert_int_equal(pq_exp_export_csv(db, csv, &stop, &d), 0);
	testdir_write("e/new/keep.txt", "mine");
	assert_int_equal(pq_exp_export_csv(db, csv, &stop, &d), 0);
	assert_string_equal(listing(csv), "arm_stats.csv cell.csv cell_stats.csv conn.csv keep.txt "
					  "link_check.csv run.csv ");
	/* interrupted: nothing new, nothing half-written, nothing replaced */
	stop = SIGTERM;
	testdir_write("e/new/run.csv", "old");
	assert_int_equal(pq_exp_export_csv(db, csv, &stop, &d), PQ_EINTERRUPTED);
	assert_non_null(strstr(d.msg, "interrupted by a signal"));
	assert_string_equal(testdir_read(testdir_path("e/new/run.csv")), "old");
	assert_string_equal(listing(csv), "arm_stats.csv cell.csv cell_stats.csv conn.csv keep.txt "
					  "link_check.csv run.csv ");
	snprintf(csv, sizeof csv, "%s/other", e);
	assert_int_equal(pq_exp_export_csv(db, csv, &stop, &d), PQ_EINTERRUPTED);
	snprintf(csv, sizeof csv, "%s/c.jsonl", e);
	assert_int_equal(pq_exp_export_jsonl(db, csv, &stop, &d), PQ_EINTERRUPTED);
	assert_string_equal(listing(e), "new r.db ");
	/* a file where the directory should be */
	assert_int_equal(pq_exp_export_csv(db, db, NULL, &d), -ENOTDIR);
	assert_non_null(strstr(d.msg, "exists and is not a directory"));
	assert_string_equal(listing(e), "new r.db ");
	pq_exp_grid_dispose(&g);
}

static void hostload_parse(void **state)
{
	(void)state;
	pq_hostload h;
	assert_int_equal(pq_hostload_parse("cpu  1 0 1 8 0 0 0 2 0 0\nintr 5\nprocs_running 3\nprocs_blocked 0\n",
					   "0.52 0.40 0.30 2/300 1234\n", &h),
			 0);
	assert_int_equal(h.runq, 3);
	assert_float_equal(h.load1, 0.52, 1e-9);
	assert_int_equal(h.steal.steal, 2);
	assert_int_equal(pq_hostload_parse("nothing", "", &h), PQ_EPARSE);
	assert_int_equal(h.runq, -1);
	pq_hostload_sample(&h, NULL);
	assert_true(h.runq >= 1); /* this process is running */
	assert_true(h.throttled_ns == -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(create_reopen_lock),
		cmocka_unit_test(refuses_bad_paths),
		cmocka_unit_test(merge_and_export),
		cmocka_unit_test(export_whole_or_nothing),
		cmocka_unit_test(hostload_parse),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
