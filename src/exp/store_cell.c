/* One cell and its connections into the database, in one transaction. */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "core/sched.h"
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
	r->host_steal_pct = -1;
	r->host_runq_before = r->host_runq_after = -1;
	r->host_load1_before = r->host_load1_after = -1;
	r->link_ok = r->host_ok = -1;
	r->host_nice = r->host_group_nice = PQ_SCHED_NICE_KEEP;
	r->host_client_wait_p50_us = r->host_client_wait_max_us = -1;
	r->host_server_wait_p50_us = r->host_server_wait_max_us = -1;
}

static void opt_int(pq_sql_stmt *st, const char *name, long long v)
{
	if (v < 0)
		pq_sql_null(st, name);
	else
		pq_sql_int(st, name, v);
}

static void opt_double(pq_sql_stmt *st, const char *name, double v)
{
	if (v < 0)
		pq_sql_null(st, name);
	else
		pq_sql_double(st, name, v);
}

static void opt_nice(pq_sql_stmt *st, const char *name, int v)
{
	if (v == PQ_SCHED_NICE_KEEP)
		pq_sql_null(st, name);
	else
		pq_sql_int(st, name, v);
}

/* A dimension's stored value under its column's parameter name. */
static void bind_dimval(pq_sql_stmt *st, const char *column, const pq_dimval *v)
{
	char name[80];
	snprintf(name, sizeof name, ":%s", column);
	switch (v->kind) {
	case PQ_DV_NULL:
		pq_sql_null(st, name);
		break;
	case PQ_DV_INT:
		pq_sql_int(st, name, v->i);
		break;
	case PQ_DV_REAL:
		pq_sql_double(st, name, v->f);
		break;
	case PQ_DV_TEXT:
		pq_sql_text(st, name, v->s);
		break;
	}
}

/* The cell's identity, then the effective value of every stored dimension. */
static void bind_params(pq_sql_stmt *st, const pq_exp_cell *c, const pq_exp_eff *e)
{
	const pq_exp_point *p = &c->p;
	pq_sql_text(st, ":cell_key", c->key);
	pq_sql_text(st, ":point_key", c->point_key);
	pq_sql_int(st, ":cell_index", (long long)c->index);
	pq_sql_text(st, ":link_key", c->link_key);
	pq_sql_int(st, ":trial", p->trial);
	pq_sql_text(st, ":arm", p->arm);
	for (int i = 0; i < PQ_DIM_COUNT; i++) {
		if (!pq_dims[i].column)
			continue;
		pq_dimval v;
		pq_dims[i].effective(p, e, &v);
		bind_dimval(st, pq_dims[i].column, &v);
	}
	/* N of GET /bytes/N, beside request_path (the response dimension's column) for
	 * queries by size; -1 for '/' and 'none'. */
	pq_sql_int(st, ":response_bytes", p->response_bytes);
	opt_int(st, ":mss_bytes", e->mss);
}

static void bind_row(pq_sql_stmt *st, const pq_store_cell_row *r)
{
	if (r->link_check_id > 0)
		pq_sql_int(st, ":link_check_id", r->link_check_id);
	pq_sql_text(st, ":chain_desc", r->chain_desc[0] ? r->chain_desc : NULL);
	opt_int(st, ":chain_der_bytes", r->chain_der_bytes);
	opt_int(st, ":cert_msg_bytes", r->cert_msg_bytes);
	opt_int(st, ":first_flight_bytes", r->first_flight_bytes);
	opt_int(st, ":first_flight_segs", r->first_flight_segs);
	opt_int(st, ":chain_cached", r->chain_cached);
	pq_sql_int(st, ":server_hs_timeout_us", r->server_hs_timeout_ns / 1000);
	pq_sql_int(st, ":server_idle_timeout_us", r->server_idle_timeout_ns / 1000);
	opt_int(st, ":link_check_ok", r->link_check_ok);
	pq_sql_text(st, ":status", r->status);
	pq_sql_text(st, ":failure_reason", r->failure_reason[0] ? r->failure_reason : NULL);
	opt_int(st, ":server_handshakes", r->server_handshakes);
	opt_int(st, ":server_errors", r->server_errors);
	pq_sql_text(st, ":server_error_detail", r->server_error_detail[0] ? r->server_error_detail : NULL);
	opt_int(st, ":client_cpu_us", r->client_cpu_ns < 0 ? -1 : r->client_cpu_ns / 1000);
	opt_int(st, ":server_link_cpu_us", r->server_link_cpu_ns < 0 ? -1 : r->server_link_cpu_ns / 1000);
	opt_double(st, ":host_steal_pct", r->host_steal_pct);
	opt_int(st, ":host_runq_before", r->host_runq_before);
	opt_int(st, ":host_runq_after", r->host_runq_after);
	opt_double(st, ":host_load1_before", r->host_load1_before);
	opt_double(st, ":host_load1_after", r->host_load1_after);
	opt_nice(st, ":host_nice", r->host_nice);
	opt_nice(st, ":host_group_nice", r->host_group_nice);
	opt_double(st, ":host_client_wait_p50_us", r->host_client_wait_p50_us);
	opt_double(st, ":host_client_wait_max_us", r->host_client_wait_max_us);
	opt_double(st, ":host_server_wait_p50_us", r->host_server_wait_p50_us);
	opt_double(st, ":host_server_wait_max_us", r->host_server_wait_max_us);
	pq_store_bind_window(st, &r->link, r->link_ok);
	opt_int(st, ":host_ok", r->host_ok);
	pq_sql_text(st, ":started_at", r->started_at);
	pq_sql_int(st, ":wall_us", r->wall_ns / 1000);
}

/* The cell columns besides the dimensions' (those come from exp/dim.h's table). */
static const char *const cell_cols[] = {
	"cell_key", "point_key", "host_name", "run_id", "link_check_id", "cell_index", "link_key", "trial", "arm",
	"chain_desc", "chain_der_bytes", "cert_msg_bytes", "first_flight_bytes", "first_flight_segs",
	"chain_cached", "response_bytes", "mss_bytes", "server_hs_timeout_us", "server_idle_timeout_us",
	"link_check_ok", "status", "failure_reason", "conns_ok", "conns_failed", "server_handshakes",
	"server_errors", "server_error_detail", "client_cpu_us", "server_link_cpu_us", "host_steal_pct",
	"host_runq_before", "host_runq_after", "host_load1_before", "host_load1_after", "host_nice", "host_group_nice",
	"host_client_wait_p50_us", "host_client_wait_max_us", "host_server_wait_p50_us", "host_server_wait_max_us",
	/* fidelity */
	"link_late_p50_us", "link_late_p99_us", "link_late_max_us", "link_releases_pkts", "link_drop_loss_pkts",
	"link_drop_queue_pkts", "link_drop_unplanned_pkts", "link_fwd_wait_us", "link_ok", "host_ok",
	"started_at", "wall_us", NULL,
};

static const char *const hs_names[PQ_HS_COUNT] = {
	"client_hello", "server_hello", "new_session_ticket", "end_of_early_data", "encrypted_extensions",
	"certificate", "compressed_certificate", "server_key_exchange", "certificate_request",
	"server_hello_done", "certificate_verify", "client_key_exchange", "finished", "other",
};

/* "INSERT INTO t (a, b) VALUES (:a, :b)" from a column list. */
static void insert_sql(char *buf, size_t n, const char *table, const char *const *cols, size_t ncols)
{
	size_t len = (size_t)snprintf(buf, n, "INSERT INTO %s (", table);
	for (size_t i = 0; i < ncols; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", cols[i]);
	len += (size_t)snprintf(buf + len, n - len, ") VALUES (");
	for (size_t i = 0; i < ncols; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s:%s", i ? ", " : "", cols[i]);
	snprintf(buf + len, n - len, ")");
}

static void us_or_null(pq_sql_stmt *st, const char *name, int64_t ns)
{
	if (ns < 0)
		pq_sql_null(st, name);
	else
		pq_sql_double(st, name, (double)ns / 1e3);
}

static const char *const phase_cols[PQ_PH_COUNT] = {
	":connect_us", ":client_hello_us", ":server_hello_us", ":handshake_us",
	":request_us", ":ttfb_us", ":ttlb_us", ":end_us",
};

static void bind_conn(pq_sql_stmt *st, int64_t cell_id, size_t i, const pq_load_record *r)
{
	char name[64];
	pq_sql_int(st, ":cell_id", cell_id);
	pq_sql_int(st, ":conn_index", (long long)i);
	pq_sql_double(st, ":intended_us", (double)r->intended_ns / 1e3);
	pq_sql_double(st, ":start_us", (double)r->start_ns / 1e3);
	for (int p = 0; p < PQ_PH_COUNT; p++)
		us_or_null(st, phase_cols[p], r->t[p]);
	us_or_null(st, ":latency_us", pq_load_latency_ns(r));
	double rtts = pq_load_handshake_rtts(r);
	if (rtts >= 0)
		pq_sql_double(st, ":handshake_rtts", rtts);
	pq_sql_text(st, ":tls_version", r->version[0] ? r->version : NULL);
	pq_sql_text(st, ":tls_group", r->group[0] ? r->group : NULL);
	pq_sql_text(st, ":sigalg", r->sigalg[0] ? r->sigalg : NULL);
	pq_sql_text(st, ":cipher", r->cipher[0] ? r->cipher : NULL);
	pq_sql_int(st, ":resume_offered", r->resume_offered);
	pq_sql_int(st, ":resumed", r->resumed);
	pq_sql_int(st, ":hrr", r->hrr);
	pq_sql_int(st, ":ch1_bytes", r->ch_bytes[0]);
	pq_sql_int(st, ":ch1_segs", r->ch_segs[0]);
	pq_sql_int(st, ":ch2_bytes", r->ch_bytes[1]);
	pq_sql_int(st, ":ch2_segs", r->ch_segs[1]);
	pq_sql_int(st, ":early_sent", r->early_sent);
	pq_sql_int(st, ":early_accepted", r->early_accepted);
	pq_sql_int(st, ":cert_compressed", r->cert_compressed);
	for (int h = 0; h < PQ_HS_COUNT; h++) {
		snprintf(name, sizeof name, ":rx_%s_bytes", hs_names[h]);
		pq_sql_int(st, name, r->hs_bytes[PQ_RX][h]);
		snprintf(name, sizeof name, ":tx_%s_bytes", hs_names[h]);
		pq_sql_int(st, name, r->hs_bytes[PQ_TX][h]);
	}
	pq_sql_int(st, ":tls_tx_bytes", (long long)r->tls_bytes[PQ_TX]);
	pq_sql_int(st, ":tls_rx_bytes", (long long)r->tls_bytes[PQ_RX]);
	pq_sql_int(st, ":tcp_tx_bytes", (long long)r->tcp_bytes[PQ_TX]);
	pq_sql_int(st, ":tcp_rx_bytes", (long long)r->tcp_bytes[PQ_RX]);
	pq_sql_int(st, ":tcp_tx_segs", r->tcp_segs[PQ_TX]);
	pq_sql_int(st, ":tcp_rx_segs", r->tcp_segs[PQ_RX]);
	pq_sql_int(st, ":srtt_us", r->srtt_us);
	pq_sql_int(st, ":rttvar_us", r->rttvar_us);
	pq_sql_int(st, ":min_rtt_us", r->min_rtt_us);
	pq_sql_int(st, ":retrans_segs", r->retrans);
	pq_sql_int(st, ":cwnd_segs", r->cwnd);
	pq_sql_int(st, ":mss_bytes", r->mss);
	pq_sql_int(st, ":requests", r->requests);
	pq_sql_int(st, ":http_status", r->status);
	pq_sql_int(st, ":body_bytes", (long long)r->body_bytes);
	if (r->quic) { /* over TCP they stay NULL */
		pq_sql_int(st, ":quic_tx_dgrams", r->quic_dgrams[PQ_TX]);
		pq_sql_int(st, ":quic_rx_dgrams", r->quic_dgrams[PQ_RX]);
		pq_sql_int(st, ":quic_tx_bytes", (long long)r->quic_bytes[PQ_TX]);
		pq_sql_int(st, ":quic_rx_bytes", (long long)r->quic_bytes[PQ_RX]);
		pq_sql_int(st, ":quic_first_dgrams", r->quic_first_dgrams);
		pq_sql_int(st, ":quic_first_bytes", r->quic_first_bytes);
		pq_sql_int(st, ":quic_retry", r->quic_retry);
		pq_sql_int(st, ":quic_amp_held", r->quic_amp_held);
	}
	if (r->browser) { /* pqtls's client leaves them NULL */
		us_or_null(st, ":browser_flight_us", r->br_flight_ns);
		us_or_null(st, ":browser_verify_us", r->br_verify_ns);
		us_or_null(st, ":browser_request_net_us", r->br_req_net_ns);
		us_or_null(st, ":browser_ttfb_net_us", r->br_ttfb_net_ns);
		pq_sql_int(st, ":browser_conns", r->br_conns);
	}
	if (r->wait_ns >= 0)
		pq_sql_double(st, ":client_wait_us", (double)r->wait_ns / 1e3);
	else
		pq_sql_null(st, ":client_wait_us");
	pq_sql_text(st, ":error_kind", pq_load_err_short(r->err));
	pq_sql_text(st, ":error_detail", r->err == PQ_LERR_NONE ? NULL : r->err_detail);
}

static int conn_sql(char *buf, size_t n)
{
	static const char *const fixed[] = {
		"cell_id", "conn_index", "intended_us", "start_us", "connect_us", "client_hello_us",
		"server_hello_us", "handshake_us", "request_us", "ttfb_us", "ttlb_us", "end_us", "latency_us",
		"handshake_rtts", "tls_version", "tls_group", "sigalg", "cipher", "resume_offered", "resumed",
		"hrr", "ch1_bytes", "ch1_segs", "ch2_bytes", "ch2_segs", "early_sent", "early_accepted",
		"cert_compressed", "tls_tx_bytes", "tls_rx_bytes",
		"tcp_tx_bytes", "tcp_rx_bytes", "tcp_tx_segs", "tcp_rx_segs", "srtt_us", "rttvar_us",
		"min_rtt_us", "retrans_segs", "cwnd_segs", "mss_bytes", "requests", "http_status",
		"body_bytes", "error_kind", "error_detail", "quic_tx_dgrams", "quic_rx_dgrams", "quic_tx_bytes",
		"quic_rx_bytes", "quic_first_dgrams", "quic_first_bytes", "quic_retry", "quic_amp_held",
		"client_wait_us", "browser_flight_us", "browser_verify_us", "browser_request_net_us",
		"browser_ttfb_net_us", "browser_conns",
	};
	enum { NF = sizeof fixed / sizeof fixed[0] };
	char names[2 * PQ_HS_COUNT][48];
	const char *cols[NF + 2 * PQ_HS_COUNT];
	for (size_t i = 0; i < NF; i++)
		cols[i] = fixed[i];
	for (int h = 0; h < PQ_HS_COUNT; h++) {
		snprintf(names[2 * h], sizeof names[0], "rx_%s_bytes", hs_names[h]);
		snprintf(names[2 * h + 1], sizeof names[0], "tx_%s_bytes", hs_names[h]);
		cols[NF + 2 * h] = names[2 * h];
		cols[NF + 2 * h + 1] = names[2 * h + 1];
	}
	insert_sql(buf, n, "conn", cols, NF + 2 * PQ_HS_COUNT);
	return 0;
}

int pq_store_cell(pq_store *s, const pq_exp_cell *c, const pq_exp_eff *e, const pq_store_cell_row *row,
		  const pq_load_record *recs, size_t n, pq_diag *d)
{
	sqlite3 *db = pq_store_db(s);
	char sql[8192];
	pq_sql_stmt st = {0};
	size_t ok = 0;
	int rc = pq_sql_exec(db, "BEGIN IMMEDIATE", "starting a cell", d);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < n; i++)
		ok += recs[i].err == PQ_LERR_NONE;
	const char *cols[sizeof cell_cols / sizeof cell_cols[0] + PQ_DIM_COUNT];
	size_t ncols = 0;
	while (cell_cols[ncols]) {
		cols[ncols] = cell_cols[ncols];
		ncols++;
	}
	for (int i = 0; i < PQ_DIM_COUNT; i++)
		if (pq_dims[i].column)
			cols[ncols++] = pq_dims[i].column;
	insert_sql(sql, sizeof sql, "cell", cols, ncols);
	if ((rc = pq_sql_prepare(&st, db, sql, d)) < 0)
		goto out;
	bind_params(&st, c, e);
	bind_row(&st, row);
	pq_sql_text(&st, ":host_name", pq_store_host(s));
	pq_sql_int(&st, ":run_id", pq_store_run_id(s));
	pq_sql_int(&st, ":conns_ok", (long long)ok);
	pq_sql_int(&st, ":conns_failed", (long long)(n - ok));
	if ((rc = pq_sql_step_done(&st, "storing a cell", d)) < 0)
		goto out;
	int64_t cell_id = sqlite3_last_insert_rowid(db);
	conn_sql(sql, sizeof sql);
	if ((rc = pq_sql_prepare(&st, db, sql, d)) < 0)
		goto out;
	for (size_t i = 0; i < n && rc == 0; i++) {
		bind_conn(&st, cell_id, i, &recs[i]);
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
