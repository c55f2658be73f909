#include "exp/sql.h"

#include <stdio.h>

int pq_sql_prepare(pq_sql_stmt *s, sqlite3 *db, const char *sql, pq_diag *d)
{
	s->db = db;
	s->st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &s->st, NULL) != SQLITE_OK)
		return pq_diag_set(d, PQ_EIO, "database: cannot prepare a statement: %s", sqlite3_errmsg(db));
	return 0;
}

static int idx(pq_sql_stmt *s, const char *name)
{
	return sqlite3_bind_parameter_index(s->st, name);
}

void pq_sql_text(pq_sql_stmt *s, const char *name, const char *v)
{
	int i = idx(s, name);
	if (i > 0)
		(void)(v ? sqlite3_bind_text(s->st, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(s->st, i));
}

void pq_sql_int(pq_sql_stmt *s, const char *name, long long v)
{
	int i = idx(s, name);
	if (i > 0)
		sqlite3_bind_int64(s->st, i, v);
}

void pq_sql_double(pq_sql_stmt *s, const char *name, double v)
{
	int i = idx(s, name);
	if (i > 0)
		sqlite3_bind_double(s->st, i, v);
}

void pq_sql_null(pq_sql_stmt *s, const char *name)
{
	int i = idx(s, name);
	if (i > 0)
		sqlite3_bind_null(s->st, i);
}

void pq_sql_finalize(pq_sql_stmt *s)
{
	sqlite3_finalize(s->st);
	s->st = NULL;
}

int pq_sql_step_reset(pq_sql_stmt *s, const char *what, pq_diag *d)
{
	int rc = sqlite3_step(s->st);
	int out = 0;
	if (rc != SQLITE_DONE)
		out = pq_diag_set(d, PQ_EIO, "database: %s: %s", what, sqlite3_errmsg(s->db));
	sqlite3_reset(s->st);
	sqlite3_clear_bindings(s->st);
	return out;
}

int pq_sql_step_done(pq_sql_stmt *s, const char *what, pq_diag *d)
{
	int rc = pq_sql_step_reset(s, what, d);
	pq_sql_finalize(s);
	return rc;
}

int pq_sql_get_text(sqlite3 *db, const char *sql, char *out, size_t n)
{
	sqlite3_stmt *st = NULL;
	out[0] = '\0';
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return PQ_EIO;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(out, n, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : PQ_EIO;
}

int pq_sql_exec_text2(sqlite3 *db, const char *sql, const char *a, const char *b)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return PQ_EIO;
	sqlite3_bind_text(st, 1, a, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, b, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : PQ_EIO;
}

int pq_sql_exec(sqlite3 *db, const char *sql, const char *what, pq_diag *d)
{
	char *err = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		int rc = pq_diag_set(d, PQ_EIO, "database: %s: %s", what, err ? err : sqlite3_errmsg(db));
		sqlite3_free(err);
		return rc;
	}
	return 0;
}
