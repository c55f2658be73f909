/* A cell's stored row, filled once it is measured (exp/runner_int.h): its failures in
 * words, its server's counts, its chain, the endpoints' waits for a CPU and the host's
 * verdict, and the fidelity it adds to the sweep's summary. */
#include "exp/runner_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched.h"
#include "core/units.h"
#include "core/wire.h"
#include "exp/hostload.h"
#include "stats/sample.h"

/* "12 x timeout_handshake (timed out ...); 3 x reset" */
void pq_exp_row_failures(const pq_load_result *res, char *buf, size_t n)
{
	size_t cnt[PQ_LERR_COUNT] = {0};
	const char *detail[PQ_LERR_COUNT] = {0};
	for (size_t i = 0; i < res->n; i++) {
		cnt[res->recs[i].err]++;
		if (!detail[res->recs[i].err] && res->recs[i].err_detail[0])
			detail[res->recs[i].err] = res->recs[i].err_detail;
	}
	size_t len = 0;
	buf[0] = '\0';
	for (int k = 1; k < PQ_LERR_COUNT && len < n; k++)
		if (cnt[k])
			len += (size_t)snprintf(buf + len, n - len, "%s%zu x %s%s%s%s", len ? "; " : "", cnt[k],
						pq_load_err_short((enum pq_load_err)k), detail[k] ? " (" : "",
						detail[k] ? detail[k] : "", detail[k] ? ")" : "");
}

void pq_exp_row_server(cellrun *r, const pq_server_stats *st)
{
	uint64_t errs = 0;
	size_t len = 0;
	for (int k = 0; k < PQ_SRV_ERR_COUNT; k++) {
		errs += st->err[k];
		if (st->err[k] && len < sizeof r->row.server_error_detail)
			len += (size_t)snprintf(r->row.server_error_detail + len, sizeof r->row.server_error_detail - len,
						"%s%s %llu", len ? "; " : "", pq_server_err_name((enum pq_server_err)k),
						(unsigned long long)st->err[k]);
	}
	r->row.server_handshakes = (long long)st->handshakes;
	r->row.server_errors = (long long)errs;
}

void pq_exp_row_chain(cellrun *r)
{
	if (!r->chain)
		return;
	pq_exp_chain_describe(r->chain, r->row.chain_desc, sizeof r->row.chain_desc);
	r->row.chain_der_bytes = (long long)r->chain->info.chain_der;
	r->row.cert_msg_bytes = (long long)r->chain->info.cert_msg;
	pq_exp_chain_flight(r->chain, r->c->p.group, r->c->p.mtu, &r->row.first_flight_bytes,
			    &r->row.first_flight_segs);
	/* One write: no short segment per OpenSSL piece, the flight's bytes over the MSS. */
	if (r->c->p.flight_one_write && r->row.first_flight_bytes > 0) {
		long long mss = pq_wire_mss(r->c->p.mtu) ? (long long)pq_wire_mss(r->c->p.mtu) : PQ_WIRE_MSS_DEFAULT;
		r->row.first_flight_segs = (r->row.first_flight_bytes + mss - 1) / mss;
	}
	r->row.chain_cached = r->chain->cached;
	if (r->c->p.pad_like)
		r->eff.pad_bytes = (long long)r->chain->info.chain_der;
	r->eff.ocsp_bytes = (long long)r->chain->info.ocsp_bytes;
}

/* The median and the largest of n waits (us, sorted here); both -1 without any. */
static void wait_summary(double *v, size_t n, double *p50, double *max)
{
	*p50 = *max = -1;
	if (!n)
		return;
	*p50 = pq_stats_median(v, n);
	*max = v[n - 1];
}

static double endpoint_wait_us(const pq_store_cell_row *w)
{
	return pq_hostload_endpoint_wait_us(w->host_client_wait_p50_us, w->host_server_wait_p50_us);
}

/* What the host's wait budget is a share of: the link's RTT (a remote path's is not ours:
 * 0) and the median connection's time. */
static pq_hostload_span budget_span(const cellrun *r)
{
	return (pq_hostload_span){r->link ? (double)pq_link_config_rtt_ns(&r->lc) / 1e3 : 0, r->conn_p50_us};
}

/* The endpoints' nice and waits for a CPU into the row (st: the server's statistics, NULL
 * when it has none), then the host's verdict on them and the steal. */
void pq_exp_row_endpoints(cellrun *r, const pq_server_stats *st)
{
	pq_store_cell_row *w = &r->row;
	double *v = malloc((r->res.n > PQ_SERVER_MAX_WAITS ? r->res.n : PQ_SERVER_MAX_WAITS) * sizeof *v + 1);
	size_t n = 0;
	if (v) {
		for (size_t i = 0; i < r->res.n; i++)
			if (r->res.recs[i].wait_ns >= 0)
				v[n++] = (double)r->res.recs[i].wait_ns / 1e3;
		wait_summary(v, n, &w->host_client_wait_p50_us, &w->host_client_wait_max_us);
		n = 0;
		for (size_t i = 0; st && i < st->nwaits; i++)
			v[n++] = st->waits_us[i];
		wait_summary(v, n, &w->host_server_wait_p50_us, &w->host_server_wait_max_us);
		if (st && st->waits_total > st->nwaits) /* beyond the kept ones: the largest of all */
			w->host_server_wait_max_us = (double)st->wait_max_us;
		n = 0;
		for (size_t i = 0; i < r->res.n; i++)
			if (r->res.recs[i].t[PQ_PH_TTLB] >= 0)
				v[n++] = (double)r->res.recs[i].t[PQ_PH_TTLB] / 1e3;
		r->conn_p50_us = n ? pq_stats_median(v, n) : -1;
	}
	free(v);
	w->host_group_nice = pq_sched_group_nice();
	w->host_nice = r->res.nice;
	if (st && st->nice != PQ_SCHED_NICE_KEEP && (w->host_nice == PQ_SCHED_NICE_KEEP || st->nice > w->host_nice))
		w->host_nice = st->nice;
	w->host_ok = pq_hostload_verdict(w->host_steal_pct, endpoint_wait_us(w), budget_span(r));
}

/* Adds a stored cell's fidelity to the sweep's; when strict, a cell whose link went over
 * its budget stops the sweep (the cell is stored already). */
int pq_exp_row_fidelity(const pq_exp_run_opts *o, const cellrun *r, pq_exp_run_summary *sum, pq_diag *d)
{
	const pq_store_cell_row *w = &r->row;
	if (w->link_ok >= 0) {
		sum->cells_link_known++;
		sum->cells_link_over += w->link_ok == 0;
		if (w->link.late.n > 0 && w->link.late.p99 > sum->late_p99_max_ns)
			sum->late_p99_max_ns = w->link.late.p99;
	}
	if (w->host_ok >= 0) {
		sum->cells_host_known++;
		sum->cells_host_over += w->host_ok == 0;
	}
	if (w->host_steal_pct >= 0) {
		sum->cells_steal_known++;
		sum->steal_pct_sum += w->host_steal_pct;
		sum->cells_steal_over += w->host_steal_pct > PQ_HOSTLOAD_STEAL_BUDGET_PCT;
		if (w->host_steal_pct > sum->steal_pct_max)
			sum->steal_pct_max = w->host_steal_pct;
	}
	sum->cells_throttled += w->host_throttled_us > 0;
	double ew = endpoint_wait_us(w);
	if (ew >= 0) {
		sum->wait_max_us = ew > sum->wait_max_us ? ew : sum->wait_max_us;
		sum->cells_wait_over += (size_t)pq_hostload_wait_over(ew, budget_span(r));
	}
	if (w->host_nice != PQ_SCHED_NICE_KEEP && (sum->nice == PQ_SCHED_NICE_KEEP || w->host_nice > sum->nice))
		sum->nice = w->host_nice;
	if (w->host_group_nice != PQ_SCHED_NICE_KEEP &&
	    (sum->group_nice == PQ_SCHED_NICE_KEEP || w->host_group_nice > sum->group_nice))
		sum->group_nice = w->host_group_nice;
	if (w->host_runq_after > sum->runq_max)
		sum->runq_max = w->host_runq_after;
	if (w->host_runq_before > sum->runq_max)
		sum->runq_max = w->host_runq_before;
	if (w->link_ok != 0)
		return 0;
	if (o->log) {
		char wait[32] = "unknown";
		if (w->link.fwd_wait_ns >= 0)
			pq_fmt_duration(wait, sizeof wait, w->link.fwd_wait_ns);
		fprintf(o->log, "cell %zu (%s, trial %d): the link went over its budget: %s (the forwarder waited %s for a "
			"CPU in this machine)\n",
			r->c->index, r->c->p.arm, r->c->p.trial, r->link_why, wait);
	}
	if (!o->strict)
		return 0;
	return pq_diag_set(d, PQ_EVERIFY, "cell %zu (%s, trial %d): the link went over its budget: %s (stored; strict: the "
			   "sweep stops)",
			   r->c->index, r->c->p.arm, r->c->p.trial, r->link_why);
}

void pq_exp_row_over_why(const cellrun *r, char *buf, size_t n)
{
	const pq_store_cell_row *w = &r->row;
	size_t len = 0;
	buf[0] = '\0';
	if (w->link_ok == 0)
		len += (size_t)snprintf(buf, n, "link: %s", r->link_why);
	if (w->host_ok == 0 && len < n)
		snprintf(buf + len, n - len, "%shost: steal %.1f %%, the endpoints' median wait for a CPU %.2f ms",
			 len ? "; " : "", w->host_steal_pct, endpoint_wait_us(w) / 1e3);
}
