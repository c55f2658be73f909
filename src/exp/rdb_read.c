/* The results reader's typed reading (exp/rdb.h): every column by name from the column
 * table (exp/cols.h), a column an older file lacks as its default, each number within its
 * column's range. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/text.h"
#include "exp/colsql.h"
#include "exp/rdb_int.h"
#include "stats/sample.h"

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

/* "SELECT <names of table t> FROM t [tail]" for the file as it is (exp/colsql.h), prepared;
 * names NULL: every column of t. */
static int select_cols(sqlite3 *db, const char *path, enum pq_table_id t, const char *const *names,
		       const char *tail, sqlite3_stmt **st, pq_diag *d)
{
	pq_buf b;
	pq_buf_init(&b, 1 << 16);
	int rc = pq_buf_printf(&b, "SELECT ");
	rc = rc ? rc : pq_cols_select_sql(db, "main", t, names, &b);
	rc = rc ? rc : pq_buf_printf(&b, " FROM %s %s", pq_tables[t].name, tail);
	if (rc == PQ_EIO) /* the table is not there */
		rc = pq_diag_set(d, PQ_EPARSE, "%s: has no %s table: not a pqtls results database", path,
				 pq_tables[t].name);
	else if (rc < 0)
		rc = pq_diag_set(d, rc, "%s: cannot read %s: %s", path, pq_tables[t].name, pq_strerror(rc));
	else if (sqlite3_prepare_v2(db, pq_buf_str(&b), -1, st, NULL) != SQLITE_OK)
		rc = pq_rdb_sql_fail(db, sqlite3_extended_errcode(db), path, pq_tables[t].name, d);
	pq_buf_dispose(&b);
	return rc;
}

/* Every column of table t, in the table's order, as text. */
static int load_table(sqlite3 *db, enum pq_table_id tid, const char *order, const char *path, pq_rdb_table *t,
		      pq_diag *d)
{
	sqlite3_stmt *st = NULL;
	int rc = select_cols(db, path, tid, NULL, order, &st, d);
	if (rc < 0)
		return rc;
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
		return pq_rdb_fail(d, PQ_ENOMEM, path, PQ_RDB_W_NOMEM, NULL);
	return rc == SQLITE_DONE ? 0 : pq_rdb_sql_fail(db, ext, path, "reading", d);
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
		return pq_rdb_fail(d, PQ_ERANGE, path, PQ_RDB_W_RANGE, detail);
	default:
		break;
	}
	/* a blob's bytes as escapes: never raw on the terminal the message goes to */
	pq_text_shown((const char *)sqlite3_column_text(st, i), (size_t)sqlite3_column_bytes(st, i), shown,
		      sizeof shown);
	snprintf(detail, sizeof detail, "%s: %s holds '%s'", row, sqlite3_column_name(st, i), shown);
	return pq_rdb_fail(d, PQ_EPARSE, path, PQ_RDB_W_NOTNUM, detail);
}

/* Ends a statement's rows: rc (a row's own refusal) first, else how the steps ended. */
static int finish(sqlite3 *db, sqlite3_stmt *st, int rc, int src, const char *path, const char *what, pq_diag *d)
{
	int ext = sqlite3_extended_errcode(db);
	sqlite3_finalize(st);
	if (rc < 0)
		return rc;
	return src == SQLITE_DONE ? 0 : pq_rdb_sql_fail(db, ext, path, what, d);
}

/* The bound of a column's range (exp/cols.h). */
static const bound *bound_of(enum pq_table_id t, const char *name)
{
	static const bound *const by_range[] = {
		[PQ_CR_ANY] = &ANY, [PQ_CR_DUR] = &DURATION, [PQ_CR_LATE] = &LATENESS,
		[PQ_CR_PCT] = &PERCENT, [PQ_CR_COUNT] = &COUNT,
	};
	pq_col c;
	int i = pq_table_find(t, name);
	return i >= 0 && pq_table_col(t, (size_t)i, &c) == 0 ? by_range[c.range] : &ANY;
}

/* The cell columns the report reads, by name (R_* their places), then every stored
 * dimension's. */
static const char *const cell_read[] = {
	"cell_id", "point_key", "host_name", "arm", "link_key", "status", "trial", "response_bytes",
	"chain_der_bytes", "first_flight_bytes", "first_flight_segs", "conns_ok", "conns_failed", "chain_desc",
	/* fidelity (R_FID on): lateness x3, steal, counts x4, verdicts x3, waits x3, nice x2 */
	"link_late_p50_us", "link_late_p99_us", "link_late_max_us", "host_steal_pct", "link_releases_pkts",
	"link_drop_loss_pkts", "link_drop_queue_pkts", "link_drop_unplanned_pkts", "link_ok", "host_ok",
	"link_check_ok", "link_fwd_wait_us", "host_client_wait_p50_us", "host_server_wait_p50_us", "host_nice",
	"host_group_nice",
};
enum {
	R_ID, R_POINT, R_HOST, R_ARM, R_LINK, R_STATUS, R_TRIAL, R_RESPONSE, R_CHAIN, R_FLIGHT, R_SEGS, R_OK,
	R_FAILED, R_DESC, R_FID, NFID = 16,
	NREAD = sizeof cell_read / sizeof cell_read[0],
};
_Static_assert(NREAD == R_FID + NFID, "the fidelity columns close cell_read");

/* cell_read and the dimensions' columns (NULL-terminated); col_of[k]: dimension k's place. */
static void cell_names(const char **names, int *col_of)
{
	int col = 0;
	for (; col < NREAD; col++)
		names[col] = cell_read[col];
	for (int k = 0; k < PQ_DIM_COUNT; k++) {
		col_of[k] = pq_dims[k].column ? col : -1;
		if (pq_dims[k].column)
			names[col++] = pq_dims[k].column;
	}
	names[col] = NULL;
}

static int read_dim(sqlite3_stmt *st, int col, const pq_dim *k, const bound *b, const char *path, long long id,
		    pq_dimval *v, pq_diag *d)
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

/* The cell's fidelity columns (R_FID on): numbers or NULL within their columns' ranges. */
static int read_fidelity(sqlite3_stmt *st, const bound *const *b, const char *path, long long id,
			 pq_rdb_fidelity *f, pq_diag *d)
{
	double v[NFID];
	char row[48];
	snprintf(row, sizeof row, "cell (cell_id %lld)", id);
	for (int k = 0; k < NFID; k++) {
		int rc = number(st, R_FID + k, path, row, b[k], &v[k], d);
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
	f->conn_p50_us = NAN; /* from its connections, once they are read */
	return 0;
}

/* The named fields from the row and its dimensions. */
static void legacy_fields(sqlite3_stmt *st, pq_rdb_cell *c)
{
	c->id = sqlite3_column_int64(st, R_ID);
	text_col(st, R_POINT, c->point_key, sizeof c->point_key);
	text_col(st, R_HOST, c->host, sizeof c->host);
	text_col(st, R_ARM, c->arm, sizeof c->arm);
	text_col(st, R_LINK, c->link_key, sizeof c->link_key);
	text_col(st, R_STATUS, c->status, sizeof c->status);
	c->trial = (int)sqlite3_column_int64(st, R_TRIAL);
	c->response_bytes = int_or(st, R_RESPONSE, -1);
	c->chain_der_bytes = int_or(st, R_CHAIN, -1);
	c->flight_bytes = int_or(st, R_FLIGHT, -1);
	c->flight_segs = int_or(st, R_SEGS, -1);
	c->conns_recorded = sqlite3_column_int64(st, R_OK) + sqlite3_column_int64(st, R_FAILED);
	text_col(st, R_DESC, c->chain_desc, sizeof c->chain_desc);
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
	/* NULL in a database from before the column: the rate both ways */
	c->c2s_rate_bps = c->dim[PQ_D_RATE_C2S].kind == PQ_DV_NULL ? c->rate_bps : dim_real(c, PQ_D_RATE_C2S);
}

static int load_cells(sqlite3 *db, const char *path, pq_rdb *out, pq_diag *d)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	const char *names[NREAD + PQ_DIM_COUNT + 1];
	int col_of[PQ_DIM_COUNT];
	const bound *dim_b[PQ_DIM_COUNT], *fid_b[NFID];
	cell_names(names, col_of);
	for (int k = 0; k < PQ_DIM_COUNT; k++)
		dim_b[k] = pq_dims[k].column ? bound_of(PQ_T_CELL, pq_dims[k].column) : &ANY;
	for (int k = 0; k < NFID; k++)
		fid_b[k] = bound_of(PQ_T_CELL, cell_read[R_FID + k]);
	int rc = select_cols(db, path, PQ_T_CELL, names, "ORDER BY host_name, cell_index, trial", &st, d);
	if (rc < 0)
		return rc;
	int src = SQLITE_DONE;
	while (rc == 0 && (src = sqlite3_step(st)) == SQLITE_ROW) {
		if (grow((void **)&out->cells, &cap, out->ncells, sizeof *out->cells, 64) < 0) {
			rc = pq_rdb_fail(d, PQ_ENOMEM, path, PQ_RDB_W_NOMEM, NULL);
			break;
		}
		pq_rdb_cell *c = &out->cells[out->ncells];
		memset(c, 0, sizeof *c);
		long long id = sqlite3_column_int64(st, R_ID);
		for (int k = 0; k < PQ_DIM_COUNT && rc == 0; k++)
			if (col_of[k] >= 0)
				rc = read_dim(st, col_of[k], &pq_dims[k], dim_b[k], path, id, &c->dim[k], d);
		if (rc == 0)
			rc = read_fidelity(st, fid_b, path, id, &c->fid, d);
		if (rc == 0) {
			legacy_fields(st, c);
			out->ncells++;
		}
	}
	if ((rc = finish(db, st, rc, src, path, "reading cell", d)) < 0)
		return rc;
	if (!out->ncells)
		return pq_rdb_fail(d, PQ_EINVAL, path, PQ_RDB_W_NOCELL, NULL);
	return 0;
}

/* The conn columns the report reads, by name: the numbers first (each read within its
 * column's range), then the rest. */
static const char *const conn_read[] = {
	"connect_us", "handshake_us", "ttfb_us", "ttlb_us", "min_rtt_us", "resumed", "early_sent", "retrans_segs",
	"ch1_bytes", "browser_flight_us", "browser_verify_us", "browser_request_net_us", "browser_ttfb_net_us",
	"cell_id", "conn_index", "hrr", "error_kind", NULL,
};
enum { C_NUMS = 13, C_CELL = 13, C_INDEX, C_HRR, C_ERR };

/* The conn_cell view's browser_ttfb_network_us and browser_dispatch_us (exp/schema.sql). */
double pq_rdb_conn_br_network_us(const pq_rdb_conn *n)
{
	return n->br_flight_us + n->br_ttfb_net_us - n->br_req_net_us;
}

double pq_rdb_conn_br_dispatch_us(const pq_rdb_conn *n)
{
	return n->br_req_net_us - n->br_flight_us - n->br_verify_us;
}

/* The cell of connection rows of cell `id`: usually the previous connection's (cells are in
 * (host, index) order, connections in id order). ncells when none. */
static size_t cell_of(const pq_rdb *out, size_t ci, long long id)
{
	if (ci < out->ncells && out->cells[ci].id == id)
		return ci;
	for (ci = 0; ci < out->ncells && out->cells[ci].id != id; ci++)
		;
	return ci;
}

/* c's median connection time to its first response's last byte into its fidelity. */
static int conn_median(const pq_rdb *db, pq_rdb_cell *c, const char *path, pq_diag *d)
{
	c->fid.conn_p50_us = NAN;
	if (!c->nc)
		return 0;
	double *v = malloc(c->nc * sizeof *v);
	if (!v)
		return pq_rdb_fail(d, PQ_ENOMEM, path, PQ_RDB_W_NOMEM, NULL);
	size_t n = 0;
	for (size_t k = c->c0; k < c->c0 + c->nc; k++)
		if (isfinite(db->conns[k].ttlb_us))
			v[n++] = db->conns[k].ttlb_us;
	c->fid.conn_p50_us = pq_stats_median(v, n);
	free(v);
	return 0;
}

static int load_conns(sqlite3 *db, const char *path, pq_rdb *out, pq_diag *d)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0, ci = 0;
	const bound *b[C_NUMS];
	int src = SQLITE_DONE, rc = select_cols(db, path, PQ_T_CONN, conn_read, "ORDER BY cell_id, conn_index", &st, d);
	if (rc < 0)
		return rc;
	for (int k = 0; k < C_NUMS; k++)
		b[k] = bound_of(PQ_T_CONN, conn_read[k]);
	while (rc == 0 && (src = sqlite3_step(st)) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(st, C_CELL);
		if ((ci = cell_of(out, ci, id)) == out->ncells)
			continue; /* a connection of no cell: ignored */
		if (grow((void **)&out->conns, &cap, out->nconns, sizeof *out->conns, 1024) < 0) {
			rc = pq_rdb_fail(d, PQ_ENOMEM, path, PQ_RDB_W_NOMEM, NULL);
			break;
		}
		pq_rdb_cell *c = &out->cells[ci];
		pq_rdb_conn *n = &out->conns[out->nconns];
		double v[C_NUMS];
		char row[80];
		snprintf(row, sizeof row, "conn (cell_id %lld, conn_index %lld)", id, sqlite3_column_int64(st, C_INDEX));
		for (int k = 0; k < C_NUMS && rc == 0; k++)
			rc = number(st, k, path, row, b[k], &v[k], d);
		if (rc < 0)
			break;
		n->connect_us = v[0];
		n->handshake_us = v[1];
		n->ttfb_us = v[2];
		n->ttlb_us = v[3];
		n->min_rtt_us = v[4];
		n->resumed = sqlite3_column_int(st, 5);
		n->early_sent = sqlite3_column_int(st, 6);
		n->retrans = sqlite3_column_int(st, 7);
		n->ch1_bytes = v[8] > 0 ? v[8] : NAN; /* 0: not known */
		n->br_flight_us = v[9];
		n->br_verify_us = v[10];
		n->br_req_net_us = v[11];
		n->br_ttfb_net_us = v[12];
		const unsigned char *err = sqlite3_column_text(st, C_ERR);
		n->ok = err && strcmp((const char *)err, "ok") == 0;
		n->hrr = sqlite3_column_int(st, C_HRR);
		if (c->nc == 0)
			c->c0 = out->nconns;
		out->nconns++;
		c->nc++;
	}
	if ((rc = finish(db, st, rc, src, path, "reading conn", d)) < 0)
		return rc;
	for (size_t i = 0; i < out->ncells; i++) {
		if ((rc = conn_median(out, &out->cells[i], path, d)) < 0)
			return rc;
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

void pq_rdb_close(pq_rdb *db)
{
	free(db->cells);
	free(db->conns);
	table_free(&db->run);
	table_free(&db->link_check);
	memset(db, 0, sizeof *db);
}

int pq_rdb_load(sqlite3 *db, const char *path, pq_rdb *out, pq_diag *d)
{
	int rc;
	read_spec_name(db, out);
	if ((rc = load_cells(db, path, out, d)) < 0 || (rc = load_conns(db, path, out, d)) < 0 ||
	    (rc = load_table(db, PQ_T_RUN, "ORDER BY run_id", path, &out->run, d)) < 0 ||
	    (rc = load_table(db, PQ_T_LINK_CHECK, "ORDER BY link_check_id", path, &out->link_check, d)) < 0)
		return rc;
	return 0;
}
