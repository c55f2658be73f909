#include "report/rdb.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Long enough for a sweep's commit to finish; a writer holding the file longer is
 * reported as a lock. */
#define BUSY_MS 2000

/* Room for one more element of `size` bytes in *p (of *cap), doubling. 0 or -1. */
static int grow(void **p, size_t *cap, size_t n, size_t size, size_t first)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : first;
	void *v = realloc(*p, c * size);
	if (!v)
		return -1;
	*p = v;
	*cap = c;
	return 0;
}

static int sql_fail(sqlite3 *db, int rc, const char *path, const char *what, pq_diag *d)
{
	if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
		return pq_diag_set(d, PQ_EIO,
				   "%s is locked by another process (a sweep or merge writing "
				   "it?); try again when it has finished",
				   path);
	if (rc == SQLITE_NOTADB)
		return pq_diag_set(d, PQ_EPARSE, "%s is not an SQLite database (pqtls sweep writes one with --out)",
				   path);
	return pq_diag_set(d, PQ_EIO, "%s: %s: %s", path, what, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
}

static void table_free(pq_rdb_table *t)
{
	for (size_t i = 0; i < t->ncols; i++)
		free(t->cols ? t->cols[i] : NULL);
	for (size_t i = 0; t->vals && i < t->nrows * t->ncols; i++)
		free(t->vals[i]);
	free(t->cols);
	free(t->vals);
	memset(t, 0, sizeof *t);
}

static char *dup_text(const unsigned char *s)
{
	return s ? strdup((const char *)s) : NULL;
}

static int load_table(sqlite3 *db, const char *sql, const char *path, pq_rdb_table *t, pq_diag *d)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sql_fail(db, rc, path, sql, d);
	t->ncols = (size_t)sqlite3_column_count(st);
	t->cols = calloc(t->ncols, sizeof *t->cols);
	int err = !t->cols;
	for (size_t i = 0; !err && i < t->ncols; i++)
		err = !(t->cols[i] = strdup(sqlite3_column_name(st, (int)i)));
	size_t cap = 0;
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (t->nrows == cap) {
			cap = cap ? cap * 2 : 8;
			char **v = realloc(t->vals, cap * t->ncols * sizeof *v);
			if (!v) {
				err = 1;
				break;
			}
			t->vals = v;
		}
		for (size_t i = 0; i < t->ncols; i++)
			t->vals[t->nrows * t->ncols + i] = dup_text(sqlite3_column_text(st, (int)i));
		t->nrows++;
	}
	sqlite3_finalize(st);
	if (err)
		return pq_diag_set(d, PQ_ENOMEM, "%s: out of memory", path);
	return rc == SQLITE_DONE ? 0 : sql_fail(db, rc, path, "reading", d);
}

const char *pq_rdb_get(const pq_rdb_table *t, size_t r, const char *name)
{
	for (size_t i = 0; r < t->nrows && i < t->ncols; i++)
		if (strcmp(t->cols[i], name) == 0)
			return t->vals[r * t->ncols + i];
	return NULL;
}

static int check_meta(sqlite3 *db, const char *path, pq_rdb *out, pq_diag *d)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, "SELECT key, value FROM meta", -1, &st, NULL);
	if (rc == SQLITE_ERROR)
		return pq_diag_set(d, PQ_EPARSE,
				   "%s is an SQLite database but not a pqtls results database (it "
				   "has no meta table; pqtls sweep writes one)",
				   path);
	if (rc != SQLITE_OK)
		return sql_fail(db, rc, path, "reading meta", d);
	out->schema = -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		const char *v = (const char *)sqlite3_column_text(st, 1);
		if (k && v && strcmp(k, "schema_version") == 0)
			out->schema = atoi(v);
		else if (k && v && strcmp(k, "spec_name") == 0)
			snprintf(out->spec_name, sizeof out->spec_name, "%s", v);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sql_fail(db, rc, path, "reading meta", d);
	if (out->schema < 1)
		return pq_diag_set(d, PQ_EPARSE, "%s: its meta table has no schema_version: not a pqtls results database",
				   path);
	if (out->schema > PQ_RDB_SCHEMA)
		return pq_diag_set(d, PQ_EUNSUPPORTED,
				   "%s has schema version %d; this pqtls reads up to %d (a newer "
				   "pqtls wrote it: use that one)",
				   path, out->schema, PQ_RDB_SCHEMA);
	return 0;
}

#define CELL_SQL \
    "SELECT %s, cell_id, host_name, arm, chain_leaf, tls_group, link_key, status, rtt_us, " \
    "response_bytes, COALESCE(chain_der_bytes, -1), chain_pad_to_bytes, " \
    "COALESCE(first_flight_bytes, -1), COALESCE(first_flight_segs, -1), chain_intermediates, " \
    "initcwnd_segs, mtu_bytes, early_data, trial, resume_pct, loss_pct, jitter_us, rate_bps, %s, " \
    "%s FROM cell ORDER BY host_name, cell_index, trial"

static void text_col(sqlite3_stmt *st, int i, char *buf, size_t n)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	snprintf(buf, n, "%s", t ? (const char *)t : "");
}

/* Columns in CELL_SQL's order. */
static void read_cell(sqlite3_stmt *st, pq_rdb_cell *c)
{
	int i = 0;
	memset(c, 0, sizeof *c);
	text_col(st, i++, c->point_key, sizeof c->point_key);
	c->id = sqlite3_column_int64(st, i++);
	text_col(st, i++, c->host, sizeof c->host);
	text_col(st, i++, c->arm, sizeof c->arm);
	text_col(st, i++, c->leaf, sizeof c->leaf);
	text_col(st, i++, c->group, sizeof c->group);
	text_col(st, i++, c->link_key, sizeof c->link_key);
	text_col(st, i++, c->status, sizeof c->status);
	c->rtt_us = sqlite3_column_int64(st, i++);
	c->response_bytes = sqlite3_column_int64(st, i++);
	c->chain_der_bytes = sqlite3_column_int64(st, i++);
	c->pad_to_bytes = sqlite3_column_int64(st, i++);
	c->flight_bytes = sqlite3_column_int64(st, i++);
	c->flight_segs = sqlite3_column_int64(st, i++);
	c->intermediates = sqlite3_column_int(st, i++);
	c->initcwnd = sqlite3_column_int(st, i++);
	c->mtu = sqlite3_column_int(st, i++);
	c->early_data = sqlite3_column_int(st, i++);
	c->trial = sqlite3_column_int(st, i++);
	c->resume_pct = sqlite3_column_double(st, i++);
	c->loss_pct = sqlite3_column_double(st, i++);
	c->jitter_us = sqlite3_column_double(st, i++);
	c->rate_bps = sqlite3_column_double(st, i++);
	text_col(st, i++, c->cc, sizeof c->cc);
	c->one_write = sqlite3_column_int(st, i);
}

static double real_or_nan(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static int load_conns(sqlite3 *db, const char *path, pq_rdb *out, pq_diag *d)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc = sqlite3_prepare_v2(db,
				    "SELECT cell_id, connect_us, handshake_us, ttfb_us, ttlb_us, min_rtt_us, "
				    "error_kind = 'ok', resumed, retrans_segs FROM conn ORDER BY cell_id, conn_index",
				    -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sql_fail(db, rc, path, "reading conn", d);
	size_t ci = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(st, 0);
		/* Cells are in (host, index) order, connections in id order: find the cell
		 * (usually the one of the previous connection). */
		if (ci >= out->ncells || out->cells[ci].id != id)
			for (ci = 0; ci < out->ncells && out->cells[ci].id != id; ci++)
				;
		if (ci == out->ncells)
			continue; /* a connection of no cell: ignored */
		if (grow((void **)&out->conns, &cap, out->nconns, sizeof *out->conns, 1024) < 0) {
			sqlite3_finalize(st);
			return pq_diag_set(d, PQ_ENOMEM, "%s: out of memory for connections", path);
		}
		pq_rdb_cell *c = &out->cells[ci];
		if (c->nc == 0)
			c->c0 = out->nconns;
		pq_rdb_conn *n = &out->conns[out->nconns++];
		n->connect_us = real_or_nan(st, 1);
		n->handshake_us = real_or_nan(st, 2);
		n->ttfb_us = real_or_nan(st, 3);
		n->ttlb_us = real_or_nan(st, 4);
		n->min_rtt_us = real_or_nan(st, 5);
		n->ok = sqlite3_column_int(st, 6);
		n->resumed = sqlite3_column_int(st, 7);
		n->retrans = sqlite3_column_int(st, 8);
		c->nc++;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_fail(db, rc, path, "reading conn", d);
}

/* Does the cell table have this column (added after the schema's first release)? */
static int has_column(sqlite3 *db, const char *col)
{
	sqlite3_stmt *st = NULL;
	int found = 0;
	if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info('cell')", -1, &st, NULL) != SQLITE_OK)
		return 0;
	while (!found && sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *n = sqlite3_column_text(st, 0);
		found = n && strcmp((const char *)n, col) == 0;
	}
	sqlite3_finalize(st);
	return found;
}

static int load_cells(sqlite3 *db, const char *path, pq_rdb *out, pq_diag *d)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	/* Schema 2 names the grid point across trials; schema 1 cells group by parameters. */
	char sql[1024];
	snprintf(sql, sizeof sql, CELL_SQL, out->schema >= 2 ? "point_key" : "''", has_column(db, "cc") ? "cc" : "''",
		 has_column(db, "flight_one_write") ? "flight_one_write" : "0");
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sql_fail(db, rc, path, "reading cell", d);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (grow((void **)&out->cells, &cap, out->ncells, sizeof *out->cells, 64) < 0) {
			sqlite3_finalize(st);
			return pq_diag_set(d, PQ_ENOMEM, "%s: out of memory for cells", path);
		}
		read_cell(st, &out->cells[out->ncells++]);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sql_fail(db, rc, path, "reading cell", d);
	if (!out->ncells)
		return pq_diag_set(d, PQ_EINVAL,
				   "%s holds no measured cell (a sweep stopped before its first "
				   "cell finished?): nothing to report",
				   path);
	return 0;
}

int pq_rdb_open(const char *path, pq_rdb *out, pq_diag *d)
{
	sqlite3 *db = NULL;
	memset(out, 0, sizeof *out);
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK) {
		rc = rc == SQLITE_CANTOPEN ? pq_diag_set(d, PQ_EIO, "cannot open %s: no such file, or not readable", path)
					   : sql_fail(db, rc, path, "opening", d);
		goto out;
	}
	sqlite3_busy_timeout(db, BUSY_MS);
	/* One read transaction: a sweep committing meanwhile cannot tear the picture. */
	if ((rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL)) != SQLITE_OK) {
		rc = sql_fail(db, rc, path, "starting to read", d);
		goto out;
	}
	if ((rc = check_meta(db, path, out, d)) < 0 || (rc = load_cells(db, path, out, d)) < 0 ||
	    (rc = load_conns(db, path, out, d)) < 0 ||
	    (rc = load_table(db, "SELECT * FROM run ORDER BY run_id", path, &out->run, d)) < 0 ||
	    (rc = load_table(db, "SELECT * FROM link_check ORDER BY link_check_id", path, &out->link_check, d)) < 0)
		goto out;
	rc = 0;
out:
	sqlite3_close(db);
	if (rc)
		pq_rdb_close(out);
	return rc;
}

void pq_rdb_close(pq_rdb *db)
{
	free(db->cells);
	free(db->conns);
	table_free(&db->run);
	table_free(&db->link_check);
	memset(db, 0, sizeof *db);
}
