/* exp/cols.c and exp/colsql.c: the column table. Every column is named once and well
 * typed; a column added after version 3 can be added to an older file; the schema made
 * from the table has exactly its columns, in its order, which is what the writers' INSERTs
 * name and the readers' SELECTs read; a file that lacks columns reads them as their
 * defaults and is upgraded in place; bad names, short buffers, missing tables and
 * versions out of range are errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exp/cols.h"
#include "exp/colsql.h"
#include "exp/rdb.h"
#include "tls/acct.h"

static void names_once_types_valid(void **state)
{
	(void)state;
	static const char *const units[] = {"", "us", "bytes", "segs", "pkts", "bps", "pct"};
	for (int t = 0; t < PQ_T_COUNT; t++) {
		pq_col c, o;
		size_t n = pq_table_ncols((enum pq_table_id)t);
		assert_true(n >= pq_tables[t].ncols);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(pq_table_col((enum pq_table_id)t, i, &c), 0);
			assert_true(strncmp(c.sql, "TEXT", 4) == 0 || strncmp(c.sql, "INTEGER", 7) == 0 ||
				    strncmp(c.sql, "REAL", 4) == 0);
			int unit_ok = 0;
			for (size_t u = 0; u < sizeof units / sizeof units[0]; u++)
				unit_ok |= strcmp(c.unit, units[u]) == 0;
			assert_true(unit_ok);
			assert_true(c.range <= PQ_CR_COUNT);
			assert_true(c.since >= PQ_SCHEMA_OLDEST && c.since <= PQ_SCHEMA_VERSION);
			assert_true(c.fill && c.fill[0] && !strchr(c.fill, '\n'));
			assert_int_equal(pq_table_find((enum pq_table_id)t, c.name), (int)i); /* named once */
			for (size_t k = 0; k < i; k++) {
				assert_int_equal(pq_table_col((enum pq_table_id)t, k, &o), 0);
				assert_string_not_equal(o.name, c.name);
			}
			/* a column an older file may lack can be added to it */
			if (c.since > PQ_SCHEMA_OLDEST || strstr(c.sql, "DEFAULT")) {
				assert_null(strstr(c.sql, "PRIMARY KEY"));
				assert_null(strstr(c.sql, "UNIQUE"));
				assert_true(!strstr(c.sql, "NOT NULL") || strstr(c.sql, "DEFAULT"));
			}
		}
		assert_int_equal(pq_table_col((enum pq_table_id)t, n, &c), -1);
	}
	assert_int_equal(pq_table_find(PQ_T_CONN, "no_such_column"), -1);
	/* the handshake message columns are tls/acct.h's names */
	for (int h = 0; h < PQ_HS_COUNT; h++) {
		char name[64];
		snprintf(name, sizeof name, "rx_%s_bytes", pq_tls_hs_name((enum pq_hs)h));
		assert_true(pq_table_find(PQ_T_CONN, name) >= 0);
		snprintf(name, sizeof name, "tx_%s_bytes", pq_tls_hs_name((enum pq_hs)h));
		assert_true(pq_table_find(PQ_T_CONN, name) >= 0);
	}
	/* every dimension column is the cell's */
	for (int k = 0; k < PQ_DIM_COUNT; k++)
		if (pq_dims[k].column)
			assert_true(pq_table_find(PQ_T_CELL, pq_dims[k].column) >= 0);
}

static void defaults(void **state)
{
	(void)state;
	char b[64];
	pq_col c;
	assert_int_equal(pq_table_col(PQ_T_CELL, (size_t)pq_table_find(PQ_T_CELL, "transport"), &c), 0);
	assert_string_equal(pq_col_default(&c, b, sizeof b), "'tcp'");
	assert_int_equal(pq_table_col(PQ_T_CONN, (size_t)pq_table_find(PQ_T_CONN, "client_wait_us"), &c), 0);
	assert_string_equal(pq_col_default(&c, b, sizeof b), "NULL");
	pq_col n = {"x", "INTEGER NOT NULL DEFAULT 0", "", PQ_CR_ANY, 3, 0, "x", NULL};
	assert_string_equal(pq_col_default(&n, b, sizeof b), "0");
}

static sqlite3 *fresh(void)
{
	sqlite3 *db = NULL;
	char *schema = pq_cols_schema_sql();
	assert_non_null(schema);
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, schema, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "INSERT INTO meta VALUES ('schema_version', '4')", NULL, NULL, NULL),
			 SQLITE_OK);
	free(schema);
	return db;
}

/* The file's columns of t, in its order, one ", "-separated text. */
static void file_cols(sqlite3 *db, const char *t, char *buf, size_t n)
{
	char sql[96];
	sqlite3_stmt *st;
	size_t len = 0;
	buf[0] = '\0';
	snprintf(sql, sizeof sql, "PRAGMA table_info(%s)", t);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", sqlite3_column_text(st, 1));
	sqlite3_finalize(st);
}

/* The table's columns (skip_db: those a writer fills), the same way. */
static void table_cols(enum pq_table_id t, int skip_db, const char *prefix, char *buf, size_t n)
{
	pq_col c;
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; pq_table_col(t, i, &c) == 0; i++)
		if (!skip_db || !(c.flags & PQ_COL_DB))
			len += (size_t)snprintf(buf + len, n - len, "%s%s%s", len ? ", " : "", prefix, c.name);
}

static void schema_binding_reader_agree(void **state)
{
	(void)state;
	sqlite3 *db = fresh();
	static char want[16384], have[16448], sql[16448];
	for (int t = 0; t < PQ_T_COUNT; t++) {
		enum pq_table_id id = (enum pq_table_id)t;
		table_cols(id, 0, "", want, sizeof want);
		file_cols(db, pq_tables[t].name, have, sizeof have);
		assert_string_equal(have, want); /* the schema is the table */
		pq_buf b;
		pq_buf_init(&b, 1 << 20);
		assert_int_equal(pq_cols_select_sql(db, "main", id, NULL, &b), 0);
		assert_string_equal(pq_buf_str(&b), want); /* the reader reads it, by name */
		pq_buf_dispose(&b);
		table_cols(id, 1, "", want, sizeof want);
		assert_true(pq_cols_insert_sql(id, sql, sizeof sql) > 0);
		snprintf(have, sizeof have, "INSERT INTO %s (%s) VALUES (", pq_tables[t].name, want);
		assert_memory_equal(sql, have, strlen(have)); /* the writer writes it */
		table_cols(id, 1, ":", want, sizeof want);
		assert_non_null(strstr(sql, want));
		sqlite3_stmt *st;
		assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
}

static void bad_inputs(void **state)
{
	(void)state;
	sqlite3 *db = fresh();
	char small[32];
	pq_buf b;
	unsigned char present[8];
	pq_buf_init(&b, 1 << 20);
	static const char *const bad[] = {"cell_id", "no_such_column", NULL};
	assert_int_equal(pq_cols_select_sql(db, "main", PQ_T_CONN, bad, &b), PQ_EINVAL);
	assert_int_equal(pq_cols_insert_sql(PQ_T_CONN, small, sizeof small), PQ_ETOOBIG);
	assert_int_equal(sqlite3_exec(db, "DROP TABLE link_check", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(pq_cols_present(db, "main", PQ_T_LINK_CHECK, present, sizeof present), PQ_EIO);
	pq_buf_reset(&b);
	assert_true(pq_cols_select_sql(db, "main", PQ_T_LINK_CHECK, NULL, &b) < 0);
	pq_diag d = {0};
	assert_true(pq_cols_migrate(db, "x.db", &d) < 0); /* current but no link_check to complete */
	assert_non_null(strstr(d.msg, "link_check"));
	assert_int_equal(sqlite3_exec(db, "UPDATE meta SET value = '3'", NULL, NULL, NULL), SQLITE_OK);
	assert_true(pq_cols_migrate(db, "x.db", &d) < 0); /* no link_check to upgrade */
	assert_non_null(strstr(d.msg, "x.db"));
	assert_non_null(strstr(d.msg, "link_check"));
	static const char *const versions[] = {"2", "5", "abc"};
	for (size_t i = 0; i < 3; i++) {
		char sql[80];
		snprintf(sql, sizeof sql, "UPDATE meta SET value = '%s'", versions[i]);
		assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
		assert_true(pq_cols_migrate(db, "x.db", &d) < 0);
		assert_non_null(strstr(d.msg, "x.db"));
	}
	pq_buf_dispose(&b);
	sqlite3_close(db);
}

/* A file as version 3 left it (the later columns dropped), read with their defaults and
 * upgraded in place: then it has every column, the views again, version 4. */
static void older_file(void **state)
{
	(void)state;
	sqlite3 *db = fresh();
	static char want[16384], have[16384];
	char sql[256];
	pq_col c;
	assert_int_equal(sqlite3_exec(db, "DROP VIEW conn_cell; DROP VIEW cell_stats; DROP VIEW arm_stats; "
					  "UPDATE meta SET value = '3'",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	for (int t = 0; t < PQ_T_COUNT; t++)
		for (size_t i = 0; pq_table_col((enum pq_table_id)t, i, &c) == 0; i++)
			if (c.since > 3 || strstr(c.sql, "DEFAULT '")) {
				snprintf(sql, sizeof sql, "ALTER TABLE %s DROP COLUMN %s", pq_tables[t].name, c.name);
				assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
			}
	pq_buf b;
	pq_buf_init(&b, 1 << 20);
	static const char *const names[] = {"transport", "host_nice", "arm", NULL};
	assert_int_equal(pq_cols_select_sql(db, "main", PQ_T_CELL, names, &b), 0);
	assert_string_equal(pq_buf_str(&b), "'tcp' AS transport, NULL AS host_nice, arm");
	pq_buf_dispose(&b);
	pq_diag d = {0};
	assert_int_equal(pq_cols_migrate(db, "old.db", &d), 0);
	for (int t = 0; t < PQ_T_COUNT; t++) {
		table_cols((enum pq_table_id)t, 0, "", want, sizeof want);
		file_cols(db, pq_tables[t].name, have, sizeof have);
		/* every column there (those added at the end) */
		for (size_t i = 0; pq_table_col((enum pq_table_id)t, i, &c) == 0; i++)
			assert_non_null(strstr(have, c.name));
		assert_int_equal(strlen(have), strlen(want));
	}
	int v = 0;
	assert_int_equal(pq_rdb_read_version(db, "old.db", &v, &d), 0);
	assert_int_equal(v, PQ_SCHEMA_VERSION);
	assert_int_equal(pq_rdb_check_version(db, "old.db", &d), 0);
	assert_int_equal(sqlite3_exec(db, "SELECT * FROM conn_cell; SELECT * FROM arm_stats", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
}

/* A version 4 file written before a column was added: completed, its version kept. */
static void current_but_short(void **state)
{
	(void)state;
	sqlite3 *db = fresh();
	pq_diag d = {0};
	assert_int_equal(pq_cols_migrate(db, "new.db", &d), 0); /* whole: nothing done */
	assert_int_equal(sqlite3_exec(db, "DROP VIEW conn_cell; ALTER TABLE conn DROP COLUMN browser_conns", NULL, NULL,
				      NULL),
			 SQLITE_OK);
	assert_int_equal(pq_cols_migrate(db, "v4.db", &d), 0);
	assert_int_equal(sqlite3_exec(db, "SELECT browser_conns, browser_ttfb_network_us FROM conn_cell", NULL, NULL,
				      NULL),
			 SQLITE_OK);
	int v = 0;
	assert_int_equal(pq_rdb_read_version(db, "v4.db", &v, &d), 0);
	assert_int_equal(v, PQ_SCHEMA_VERSION);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_once_types_valid), cmocka_unit_test(defaults),
		cmocka_unit_test(schema_binding_reader_agree), cmocka_unit_test(bad_inputs),
		cmocka_unit_test(older_file), cmocka_unit_test(current_but_short),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
