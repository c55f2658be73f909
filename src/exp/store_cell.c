/* One cell and its connections into the database, in one transaction. */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "core/sched.h"
#include "exp/colsql.h"
#include "exp/dim.h"
#include "exp/sql.h"
#include "exp/store.h"

void pq_store_cell_row_init(pq_store_cell_row *r)
{
	memset(r, 0, sizeof *r);
	r->link_check_ok = -1;
	r->chain_der_bytes = r->cert_msg_bytes = r->first_flight_bytes = r->first_flight_segs = -1;
	r->chain_cached = -1;
	r->status = "ok";
	r->server_handshakes = r->server_errors = -1;
	r->client_cpu_ns = r->server_link_cpu_ns = -1;
	r->host_steal_pct = r->host_throttled_us = -1;
	r->host_runq_before = r->host_runq_after = -1;
	r->host_cells_at_once = -1;
	r->host_load1_before = r->host_load1_after = -1;
	r->link_ok = r->host_ok = -1;
	r->host_nice = r->host_group_nice = PQ_SCHED_NICE_KEEP;
	r->host_client_wait_p50_us = r->host_client_wait_max_us = -1;
	r->host_server_wait_p50_us = r->host_server_wait_max_us = -1;
}

/* A value under its column's parameter name. */
static void bind_value(pq_sql_stmt *st, const char *column, const pq_colval *v)
{
	char name[80];
	snprintf(name, sizeof name, ":%s", column);
	switch (v->kind) {
	case PQ_CV_NULL:
		pq_sql_null(st, name);
		break;
	case PQ_CV_INT:
		pq_sql_int(st, name, v->i);
		break;
	case PQ_CV_REAL:
		pq_sql_double(st, name, v->f);
		break;
	case PQ_CV_TEXT:
		pq_sql_text(st, name, v->s);
		break;
	}
}

void pq_store_bind_rec(pq_sql_stmt *st, enum pq_table_id t, const void *rec)
{
	pq_col c;
	pq_colval v;
	for (size_t k = 0; pq_table_col(t, k, &c) == 0; k++) {
		if (!c.get)
			continue;
		c.get(rec, &v);
		bind_value(st, c.name, &v);
	}
}

/* The effective value of every stored dimension (exp/dim.h). */
static void bind_dims(pq_sql_stmt *st, const pq_exp_cell *c, const pq_exp_eff *e)
{
	for (int i = 0; i < PQ_DIM_COUNT; i++) {
		if (!pq_dims[i].column)
			continue;
		pq_dimval d;
		pq_dims[i].effective(&c->p, e, &d);
		pq_colval v = {.kind = PQ_CV_NULL};
		if (d.kind == PQ_DV_INT)
			v = (pq_colval){.kind = PQ_CV_INT, .i = d.i};
		else if (d.kind == PQ_DV_REAL)
			v = (pq_colval){.kind = PQ_CV_REAL, .f = d.f};
		else if (d.kind == PQ_DV_TEXT)
			v = (pq_colval){.kind = PQ_CV_TEXT, .s = d.s};
		bind_value(st, pq_dims[i].column, &v);
	}
}

/* Table t's INSERT (exp/colsql.h), prepared. */
static int insert(sqlite3 *db, enum pq_table_id t, pq_sql_stmt *st, pq_diag *d)
{
	char sql[8192];
	int rc = pq_cols_insert_sql(t, sql, sizeof sql);
	if (rc < 0)
		return pq_diag_set(d, rc, "the %s INSERT is too long", pq_tables[t].name);
	return pq_sql_prepare(st, db, sql, d);
}

int pq_store_cell(pq_store *s, const pq_exp_cell *c, const pq_exp_eff *e, const pq_store_cell_row *row,
		  const pq_load_record *recs, size_t n, pq_diag *d)
{
	sqlite3 *db = pq_store_db(s);
	pq_sql_stmt st = {0};
	size_t ok = 0;
	int rc = pq_sql_exec(db, "BEGIN IMMEDIATE", "starting a cell", d);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < n; i++)
		ok += recs[i].err == PQ_LERR_NONE;
	if ((rc = insert(db, PQ_T_CELL, &st, d)) < 0)
		goto out;
	pq_store_cell_rec rec = {c, e, row, pq_store_host(s), pq_store_run_id(s), (long long)ok, (long long)(n - ok)};
	pq_store_bind_rec(&st, PQ_T_CELL, &rec);
	bind_dims(&st, c, e);
	pq_store_bind_window(&st, &row->link, row->link_ok);
	if ((rc = pq_sql_step_done(&st, "storing a cell", d)) < 0)
		goto out;
	int64_t cell_id = sqlite3_last_insert_rowid(db);
	if ((rc = insert(db, PQ_T_CONN, &st, d)) < 0)
		goto out;
	for (size_t i = 0; i < n && rc == 0; i++) {
		pq_sql_int(&st, ":cell_id", cell_id);
		pq_sql_int(&st, ":conn_index", (long long)i);
		pq_store_bind_rec(&st, PQ_T_CONN, &recs[i]);
		rc = pq_sql_step_reset(&st, "storing a connection", d);
	}
	pq_sql_finalize(&st);
	if (rc == 0)
		rc = pq_sql_exec(db, "COMMIT", "committing a cell", d);
out:
	if (rc < 0)
		(void)sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}
