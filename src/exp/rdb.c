#include "exp/rdb.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/text.h"

/* Long enough for a sweep's commit to finish; a writer holding the file longer is
 * reported as a lock. */
#define BUSY_MS 2000

/* Every reason a database is refused, once: "PATH: [DETAIL: ]REASON" (rdb_fail). */
enum rdb_why {
	W_OPEN, W_NOTREG, W_NOTDB, W_DAMAGED, W_HOTJ, W_LOCKED, W_NOMETA, W_NOVER, W_BADVER, W_NOCELL,
	W_NOTNUM, W_RANGE, W_SQL, W_NOMEM,
};
static const char *const why_text[] = {
	[W_OPEN] = "cannot open it",
	[W_NOTREG] = "not a regular file; give a results database (a pqtls sweep's .db file)",
	[W_NOTDB] = "is not an SQLite database (pqtls sweep writes one with --out)",
	[W_DAMAGED] = "the database is damaged (truncated or overwritten); re-run the sweep, or use a good copy",
	[W_HOTJ] = ("a writer was interrupted mid-transaction and left a hot journal beside the file, so it is not "
		    "consistent until the journal is rolled back; open it once with write access (sqlite3 FILE "
		    "'PRAGMA quick_check' does) and read it again"),
	[W_LOCKED] = "is locked by another process (a sweep or merge writing it?); try again when it has finished",
	[W_NOMETA] = ("is an SQLite database but not a pqtls results database (it has no meta table; pqtls sweep "
		      "writes one)"),
	[W_NOVER] = "its meta table has no schema_version: not a pqtls results database",
	[W_BADVER] = "meta.schema_version is not a whole number from 1: the file was changed by hand or damaged",
	[W_NOCELL] = "holds no measured cell (a sweep stopped before its first cell finished?): nothing to report",
	[W_NOTNUM] = "not a number: the file was changed by hand or damaged (a number is never stored as text)",
	[W_RANGE] = "not a value a measurement can produce: the file was changed by hand or damaged",
	[W_SQL] = "cannot read it",
	[W_NOMEM] = "out of memory",
};

static int rdb_fail(pq_diag *d, int err, const char *path, enum rdb_why w, const char *detail)
{
	if (detail && detail[0])
		return pq_diag_set(d, err, "%s: %s: %s", path, detail, why_text[w]);
	return pq_diag_set(d, err, "%s: %s", path, why_text[w]);
}

/* An SQLite failure, by its extended code. */
static int sql_fail(sqlite3 *db, int rc, const char *path, const char *what, pq_diag *d)
{
	char detail[300];
	const char *msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
	snprintf(detail, sizeof detail, "%s: %s", what, msg);
	switch (rc) {
	case SQLITE_READONLY_ROLLBACK:
		return rdb_fail(d, PQ_EIO, path, W_HOTJ, NULL);
	case SQLITE_NOMEM:
		return rdb_fail(d, PQ_ENOMEM, path, W_NOMEM, NULL);
	}
	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return rdb_fail(d, PQ_EIO, path, W_LOCKED, NULL);
	case SQLITE_NOTADB:
		return rdb_fail(d, PQ_EPARSE, path, W_NOTDB, NULL);
	case SQLITE_CORRUPT:
		return rdb_fail(d, PQ_EPARSE, path, W_DAMAGED, msg);
	case SQLITE_READONLY: {
		/* A hot journal the read-only connection cannot roll back. */
		char j[600];
		snprintf(j, sizeof j, "%s-journal", path);
		if (access(j, F_OK) == 0)
			return rdb_fail(d, PQ_EIO, path, W_HOTJ, NULL);
		break;
	}
	}
	return rdb_fail(d, PQ_EIO, path, W_SQL, detail);
}

/* "1".."99999" only: no sign, no trailing text. */
static int parse_version(const char *v)
{
	if (!v || !*v || strlen(v) > 5)
		return -1;
	for (const char *p = v; *p; p++)
		if (*p < '0' || *p > '9')
			return -1;
	int n = atoi(v);
	return n >= 1 ? n : -1;
}

int pq_rdb_check_version(sqlite3 *db, const char *path, pq_diag *d)
{
	sqlite3_stmt *st = NULL;
	char v[64] = "";
	int have = 0;
	int rc = sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &st, NULL);
	if (rc != SQLITE_OK) {
		/* no meta table, or a damaged or locked file */
		int ext = sqlite3_extended_errcode(db);
		if (rc == SQLITE_ERROR && strstr(sqlite3_errmsg(db), "no such table"))
			return rdb_fail(d, PQ_EPARSE, path, W_NOMETA, NULL);
		return sql_fail(db, ext, path, "reading meta", d);
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		have = 1; /* shown escaped in the message, and then no version */
		pq_text_shown((const char *)sqlite3_column_text(st, 0), (size_t)sqlite3_column_bytes(st, 0), v, sizeof v);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return sql_fail(db, sqlite3_extended_errcode(db), path, "reading meta", d);
	if (!have)
		return rdb_fail(d, PQ_EPARSE, path, W_NOVER, NULL);
	int n = parse_version(v);
	if (n < 0) {
		char detail[96];
		snprintf(detail, sizeof detail, "meta.schema_version is '%.40s'", v);
		return rdb_fail(d, PQ_EPARSE, path, W_BADVER, detail);
	}
	if (n > PQ_SCHEMA_VERSION)
		return pq_diag_set(d, PQ_EUNSUPPORTED,
				   "%s has schema version %d; this pqtls reads version %d (a newer pqtls wrote it: use "
				   "that one)",
				   path, n, PQ_SCHEMA_VERSION);
	if (n < PQ_SCHEMA_VERSION)
		return pq_diag_set(d, PQ_EUNSUPPORTED,
				   "%s has schema version %d; this pqtls reads version %d (an older pqtls wrote it; "
				   "version 3 stores every dimension's effective value under new cell keys: re-run the "
				   "sweep with this pqtls, or read the file with the pqtls that wrote it)",
				   path, n, PQ_SCHEMA_VERSION);
	return 0;
}

/* A regular file that exists and can be read, before SQLite opens it (a FIFO would
 * block the open for ever). */
static int check_file(const char *path, pq_diag *d)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		char detail[200];
		snprintf(detail, sizeof detail, "%s", strerror(errno));
		return pq_diag_set(d, -errno, "%s: %s: %s", path, why_text[W_OPEN], detail);
	}
	if (S_ISDIR(st.st_mode))
		return pq_diag_set(d, -EISDIR, "%s: is a directory; give a results database (a pqtls sweep's .db file)",
				   path);
	if (!S_ISREG(st.st_mode)) {
		const char *kind = S_ISFIFO(st.st_mode)	 ? "a FIFO"
				   : S_ISCHR(st.st_mode) ? "a character device"
				   : S_ISBLK(st.st_mode) ? "a block device"
				   : S_ISSOCK(st.st_mode) ? "a socket"
							  : "not a file";
		return rdb_fail(d, PQ_EINVAL, path, W_NOTREG, kind);
	}
	if (access(path, R_OK) < 0)
		return pq_diag_set(d, -errno, "%s: %s: %s", path, why_text[W_OPEN], strerror(errno));
	return 0;
}

/* The whole file is checked once (PRAGMA quick_check reads every page): a truncated or
 * overwritten file is named as damaged before anything is read from it. */
static int check_intact(sqlite3 *db, const char *path, pq_diag *d)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sql_fail(db, sqlite3_extended_errcode(db), path, "checking", d);
	char first[200] = "";
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(st, 0);
		snprintf(first, sizeof first, "%s", t ? (const char *)t : "");
	}
	int ext = sqlite3_extended_errcode(db);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return sql_fail(db, ext, path, "checking", d);
	if (strcmp(first, "ok") != 0)
		return rdb_fail(d, PQ_EPARSE, path, W_DAMAGED, first);
	return 0;
}

int pq_rdb_open_db(const char *path, sqlite3 **out, pq_diag *d)
{
	sqlite3 *db = NULL;
	*out = NULL;
	int rc = check_file(path, d);
	if (rc < 0)
		return rc;
	int src = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
	if (src != SQLITE_OK) {
		rc = sql_fail(db, db ? sqlite3_extended_errcode(db) : src, path, "opening", d);
		goto out;
	}
	sqlite3_extended_result_codes(db, 1);
	sqlite3_busy_timeout(db, BUSY_MS);
	if ((rc = check_intact(db, path, d)) < 0 || (rc = pq_rdb_check_version(db, path, d)) < 0)
		goto out;
	*out = db;
	db = NULL;
out:
	sqlite3_close(db);
	return rc;
}

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

/* Text of column i into buf with every NUL shown as "\0", so two values that differ after
 * a NUL never read alike. */
static void text_col(sqlite3_stmt *st, int i, char *buf, size_t n)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	size_t len = (size_t)sqlite3_column_bytes(st, i), o = 0;
	for (size_t k = 0; t && k < len && o + 3 < n; k++) {
		if (t[k] == '\0') {
			buf[o++] = '\\';
			buf[o++] = '0';
		} else {
			buf[o++] = (char)t[k];
		}
	}
	buf[o] = '\0';
}

static char *dup_col(sqlite3_stmt *st, int i)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return NULL;
	size_t n = (size_t)sqlite3_column_bytes(st, i) * 2 + 1;
	char *s = malloc(n);
	if (s)
		text_col(st, i, s, n);
	return s;
}

static int load_table(sqlite3 *db, const char *sql, const char *path, pq_rdb_table *t, pq_diag *d)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sql_fail(db, sqlite3_extended_errcode(db), path, sql, d);
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
			t->vals[t->nrows * t->ncols + i] = dup_col(st, (int)i);
		t->nrows++;
	}
	int ext = sqlite3_extended_errcode(db);
	sqlite3_finalize(st);
	if (err)
		return rdb_fail(d, PQ_ENOMEM, path, W_NOMEM, NULL);
	return rc == SQLITE_DONE ? 0 : sql_fail(db, ext, path, "reading", d);
}

const char *pq_rdb_get(const pq_rdb_table *t, size_t r, const char *name)
{
	for (size_t i = 0; r < t->nrows && i < t->ncols; i++)
		if (strcmp(t->cols[i], name) == 0)
			return t->vals[r * t->ncols + i];
	return NULL;
}

/* What a stored number can be: a measurement never holds a negative duration, one of
 * more than a day (PQ_RDB_MAX_US), a percentage outside 0..100 or a negative count, so such
 * a value is refused when read rather than shown as measured. */
typedef struct bound {
	double lo, hi;
	const char *what; /* for the message */
} bound;
static const bound ANY = {-INFINITY, INFINITY, ""};
static const bound DURATION = {0, PQ_RDB_MAX_US, "a duration is 0 to a day (86400000000 us)"};
static const bound LATENESS = {-PQ_RDB_MAX_US, PQ_RDB_MAX_US, "a lateness is within a day (86400000000 us)"};
static const bound PERCENT = {0, 100, "a percentage is 0 to 100"};
static const bound COUNT = {0, INFINITY, "a count, size or rate is not negative"};

/* A number column: NaN for NULL; text, a blob, or a value outside b is refused, naming
 * the row and the column. */
static int number(sqlite3_stmt *st, int i, const char *path, const char *row, const bound *b, double *v,
		  pq_diag *d)
{
	char shown[64], detail[300];
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		*v = NAN;
		return 0;
	case SQLITE_INTEGER:
	case SQLITE_FLOAT:
		*v = sqlite3_column_double(st, i);
		if (!isfinite(*v))
			break;
		if (*v >= b->lo && *v <= b->hi)
			return 0;
		snprintf(detail, sizeof detail, "%s: %s holds %.6g (%s)", row, sqlite3_column_name(st, i), *v, b->what);
		return rdb_fail(d, PQ_ERANGE, path, W_RANGE, detail);
	default:
		break;
	}
	/* a blob's bytes as escapes: never raw on the terminal the message goes to */
	pq_text_shown((const char *)sqlite3_column_text(st, i), (size_t)sqlite3_column_bytes(st, i), shown,
		      sizeof shown);
	snprintf(detail, sizeof detail, "%s: %s holds '%s'", row, sqlite3_column_name(st, i), shown);
	return rdb_fail(d, PQ_EPARSE, path, W_NOTNUM, detail);
}

/* Ends a statement's rows: rc (a row's own refusal) first, else how the steps ended. */
static int finish(sqlite3 *db, sqlite3_stmt *st, int rc, int src, const char *path, const char *what, pq_diag *d)
{
	int ext = sqlite3_extended_errcode(db);
	sqlite3_finalize(st);
	if (rc < 0)
		return rc;
	return src == SQLITE_DONE ? 0 : sql_fail(db, ext, path, what, d);
}

/* The fixed cell columns read, then every stored dimension's. */
static const char *const cell_fixed[] = {
	"cell_id", "point_key", "host_name", "arm", "link_key", "status", "trial", "response_bytes",
	"chain_der_bytes", "first_flight_bytes", "first_flight_segs", "conns_ok + conns_failed", "chain_desc",
	/* fidelity (FID0 on) */
	"link_late_p50_us", "link_late_p99_us", "link_late_max_us", "host_steal_pct", "link_releases_pkts",
	"link_drop_loss_pkts", "link_drop_queue_pkts", "link_drop_unplanned_pkts", "link_ok", "host_ok",
	"link_check_ok", "link_fwd_wait_us", "host_client_wait_p50_us", "host_server_wait_p50_us", "host_nice",
	"host_group_nice",
};
enum { FID0 = 13, NFID = 16 };
enum { NFIXED = sizeof cell_fixed / sizeof cell_fixed[0] };
_Static_assert(NFIXED == FID0 + NFID, "the fidelity columns close cell_fixed");

static int cell_sql(char *buf, size_t n, int *col_of)
{
	size_t len = (size_t)snprintf(buf, n, "SELECT ");
	int col = 0;
	for (int i = 0; i < NFIXED; i++, col++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", col ? ", " : "", cell_fixed[i]);
	for (int k = 0; k < PQ_DIM_COUNT; k++) {
		col_of[k] = -1;
		if (!pq_dims[k].column)
			continue;
		col_of[k] = col++;
		len += (size_t)snprintf(buf + len, n - len, ", %s", pq_dims[k].column);
	}
	len += (size_t)snprintf(buf + len, n - len, " FROM cell ORDER BY host_name, cell_index, trial");
	return len < n ? 0 : PQ_ETOOBIG;
}

static int read_dim(sqlite3_stmt *st, int col, const pq_dim *k, const char *path, long long id, pq_dimval *v,
		    pq_diag *d)
{
	memset(v, 0, sizeof *v);
	int text = strncmp(k->sql, "TEXT", 4) == 0, real = strncmp(k->sql, "REAL", 4) == 0;
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return 0;
	if (text) {
		v->kind = PQ_DV_TEXT;
		text_col(st, col, v->s, sizeof v->s);
		return 0;
	}
	double x;
	char row[48];
	snprintf(row, sizeof row, "cell (cell_id %lld)", id);
	const bound *b = k->type == PQ_DT_DUR ? &DURATION : k->type == PQ_DT_FRAC ? &PERCENT : &COUNT;
	int rc = number(st, col, path, row, b, &x, d);
	if (rc < 0)
		return rc;
	if (real) {
		v->kind = PQ_DV_REAL;
		v->f = x;
	} else {
		v->kind = PQ_DV_INT;
		v->i = sqlite3_column_int64(st, col);
	}
	return 0;
}

static long long dim_int(const pq_rdb_cell *c, enum pq_dim_id k)
{
	return c->dim[k].kind == PQ_DV_INT ? c->dim[k].i : 0;
}

static double dim_real(const pq_rdb_cell *c, enum pq_dim_id k)
{
	return c->dim[k].kind == PQ_DV_REAL ? c->dim[k].f : c->dim[k].kind == PQ_DV_INT ? (double)c->dim[k].i : 0;
}

static long long int_or(sqlite3_stmt *st, int i, long long dflt)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? dflt : sqlite3_column_int64(st, i);
}

/* The cell's fidelity columns (FID0 on): numbers or NULL, anything else refused. */
static int read_fidelity(sqlite3_stmt *st, const char *path, long long id, pq_rdb_fidelity *f, pq_diag *d)
{
	/* in cell_fixed's order: lateness x3, steal, counts x4, verdicts x3, waits x3, nice x2 */
	static const bound *const fid_bound[NFID] = {
		&LATENESS, &LATENESS, &LATENESS, &PERCENT, &COUNT, &COUNT, &COUNT, &COUNT,
		&ANY,	   &ANY,      &ANY,	 &DURATION, &DURATION, &DURATION, &ANY, &ANY,
	};
	double v[NFID];
	char row[48];
	snprintf(row, sizeof row, "cell (cell_id %lld)", id);
	for (int k = 0; k < NFID; k++) {
		int rc = number(st, FID0 + k, path, row, fid_bound[k], &v[k], d);
		if (rc < 0)
			return rc;
	}
	f->late_p50_us = v[0];
	f->late_p99_us = v[1];
	f->late_max_us = v[2];
	f->steal_pct = v[3];
	long long *counts[4] = {&f->releases, &f->drop_loss, &f->drop_queue, &f->drop_unplanned};
	for (int k = 0; k < 4; k++)
		*counts[k] = isnan(v[4 + k]) ? -1 : (long long)v[4 + k];
	int *verdicts[3] = {&f->link_ok, &f->host_ok, &f->check_ok};
	for (int k = 0; k < 3; k++)
		*verdicts[k] = isnan(v[8 + k]) ? -1 : v[8 + k] != 0;
	f->fwd_wait_us = v[11];
	f->client_wait_p50_us = v[12];
	f->server_wait_p50_us = v[13];
	f->nice = isnan(v[14]) ? PQ_RDB_NICE_NONE : (int)v[14];
	f->group_nice = isnan(v[15]) ? PQ_RDB_NICE_NONE : (int)v[15];
	return 0;
}

/* The named fields from the row and its dimensions. */
static void legacy_fields(sqlite3_stmt *st, pq_rdb_cell *c)
{
	c->id = sqlite3_column_int64(st, 0);
	text_col(st, 1, c->point_key, sizeof c->point_key);
	text_col(st, 2, c->host, sizeof c->host);
	text_col(st, 3, c->arm, sizeof c->arm);
	text_col(st, 4, c->link_key, sizeof c->link_key);
	text_col(st, 5, c->status, sizeof c->status);
	c->trial = (int)sqlite3_column_int64(st, 6);
	c->response_bytes = int_or(st, 7, -1);
	c->chain_der_bytes = int_or(st, 8, -1);
	c->flight_bytes = int_or(st, 9, -1);
	c->flight_segs = int_or(st, 10, -1);
	c->conns_recorded = sqlite3_column_int64(st, 11);
	text_col(st, 12, c->chain_desc, sizeof c->chain_desc);
	snprintf(c->leaf, sizeof c->leaf, "%.47s", c->dim[PQ_D_LEAF].s);
	snprintf(c->group, sizeof c->group, "%.47s", c->dim[PQ_D_GROUP].s);
	c->rtt_us = dim_int(c, PQ_D_RTT);
	c->pad_to_bytes = dim_int(c, PQ_D_PAD);
	c->intermediates = (int)dim_int(c, PQ_D_INTERMEDIATES);
	c->initcwnd = (int)dim_int(c, PQ_D_INITCWND);
	c->mtu = (int)dim_int(c, PQ_D_MTU);
	c->early_data = (int)dim_int(c, PQ_D_EARLY);
	c->one_write = (int)dim_int(c, PQ_D_ONE_WRITE);
	c->quic = strncmp(c->dim[PQ_D_TRANSPORT].s, "quic", 4) == 0;
	c->quic_retry = strcmp(c->dim[PQ_D_TRANSPORT].s, "quic-retry") == 0;
	c->resume_pct = dim_real(c, PQ_D_RESUME);
	c->loss_pct = dim_real(c, PQ_D_LOSS);
	c->jitter_us = dim_real(c, PQ_D_JITTER);
	c->rate_bps = dim_real(c, PQ_D_RATE);
}

static int load_cells(sqlite3 *db, const char *path, pq_rdb *out, pq_diag *d)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	char sql[4096];
	int col_of[PQ_DIM_COUNT];
	int rc = cell_sql(sql, sizeof sql, col_of);
	if (rc < 0)
		return pq_diag_set(d, rc, "%s: the cell query is too long", path);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return sql_fail(db, sqlite3_extended_errcode(db), path, "reading cell", d);
	int src = SQLITE_DONE;
	while (rc == 0 && (src = sqlite3_step(st)) == SQLITE_ROW) {
		if (grow((void **)&out->cells, &cap, out->ncells, sizeof *out->cells, 64) < 0) {
			rc = rdb_fail(d, PQ_ENOMEM, path, W_NOMEM, NULL);
			break;
		}
		pq_rdb_cell *c = &out->cells[out->ncells];
		memset(c, 0, sizeof *c);
		long long id = sqlite3_column_int64(st, 0);
		for (int k = 0; k < PQ_DIM_COUNT && rc == 0; k++)
			if (col_of[k] >= 0)
				rc = read_dim(st, col_of[k], &pq_dims[k], path, id, &c->dim[k], d);
		if (rc == 0)
			rc = read_fidelity(st, path, id, &c->fid, d);
		if (rc == 0) {
			legacy_fields(st, c);
			out->ncells++;
		}
	}
	if ((rc = finish(db, st, rc, src, path, "reading cell", d)) < 0)
		return rc;
	if (!out->ncells)
		return rdb_fail(d, PQ_EINVAL, path, W_NOCELL, NULL);
	return 0;
}

static int load_conns(sqlite3 *db, const char *path, pq_rdb *out, pq_diag *d)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc = 0, src = SQLITE_DONE;
	if (sqlite3_prepare_v2(db,
			       "SELECT cell_id, connect_us, handshake_us, ttfb_us, ttlb_us, min_rtt_us, resumed, "
			       "early_sent, retrans_segs, error_kind = 'ok', conn_index, hrr FROM conn ORDER BY cell_id, "
			       "conn_index",
			       -1, &st, NULL) != SQLITE_OK)
		return sql_fail(db, sqlite3_extended_errcode(db), path, "reading conn", d);
	size_t ci = 0;
	while (rc == 0 && (src = sqlite3_step(st)) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(st, 0);
		/* Cells are in (host, index) order, connections in id order: find the cell
		 * (usually the one of the previous connection). */
		if (ci >= out->ncells || out->cells[ci].id != id)
			for (ci = 0; ci < out->ncells && out->cells[ci].id != id; ci++)
				;
		if (ci == out->ncells)
			continue; /* a connection of no cell: ignored */
		if (grow((void **)&out->conns, &cap, out->nconns, sizeof *out->conns, 1024) < 0) {
			rc = rdb_fail(d, PQ_ENOMEM, path, W_NOMEM, NULL);
			break;
		}
		pq_rdb_cell *c = &out->cells[ci];
		pq_rdb_conn *n = &out->conns[out->nconns];
		double v[8];
		char row[80];
		snprintf(row, sizeof row, "conn (cell_id %lld, conn_index %lld)", id, sqlite3_column_int64(st, 10));
		/* the phases and min_rtt are durations; resumed, early_sent, retrans_segs counts */
		for (int k = 0; k < 8 && rc == 0; k++)
			rc = number(st, 1 + k, path, row, k < 5 ? &DURATION : &COUNT, &v[k], d);
		if (rc < 0)
			break;
		n->connect_us = v[0];
		n->handshake_us = v[1];
		n->ttfb_us = v[2];
		n->ttlb_us = v[3];
		n->min_rtt_us = v[4];
		n->resumed = sqlite3_column_int(st, 6);
		n->early_sent = sqlite3_column_int(st, 7);
		n->retrans = sqlite3_column_int(st, 8);
		n->ok = sqlite3_column_int(st, 9);
		n->hrr = sqlite3_column_int(st, 11);
		if (c->nc == 0)
			c->c0 = out->nconns;
		out->nconns++;
		c->nc++;
	}
	if ((rc = finish(db, st, rc, src, path, "reading conn", d)) < 0)
		return rc;
	for (size_t i = 0; i < out->ncells; i++) {
		long long missing = out->cells[i].conns_recorded - (long long)out->cells[i].nc;
		if (missing > 0) {
			out->cells_short++;
			out->conns_missing += missing;
		}
	}
	if (out->cells_short)
		snprintf(out->note, sizeof out->note,
			 "%s: %zu of %zu cells have fewer conn rows than they recorded (%lld connections missing: "
			 "deleted or lost); their figures use the rows that are there",
			 path, out->cells_short, out->ncells, out->conns_missing);
	return 0;
}

static int read_spec_name(sqlite3 *db, pq_rdb *out)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'spec_name'", -1, &st, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		text_col(st, 0, out->spec_name, sizeof out->spec_name);
	sqlite3_finalize(st);
	return 0;
}

int pq_rdb_open(const char *path, pq_rdb *out, pq_diag *d)
{
	sqlite3 *db = NULL;
	memset(out, 0, sizeof *out);
	int rc = pq_rdb_open_db(path, &db, d);
	if (rc < 0)
		goto out;
	out->schema = PQ_SCHEMA_VERSION;
	/* One read transaction: a sweep committing meanwhile cannot tear the picture. */
	if ((rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL)) != SQLITE_OK) {
		rc = sql_fail(db, sqlite3_extended_errcode(db), path, "starting to read", d);
		goto out;
	}
	read_spec_name(db, out);
	if ((rc = load_cells(db, path, out, d)) < 0 || (rc = load_conns(db, path, out, d)) < 0 ||
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
