/* The report's CSV files (report/tables.h: pq_report_csv, pq_report_compare_csv): the
 * key table, the model's agreement, the CDFs, the loss cells, the clients side by side and
 * two runs compared, each from the analysis (report/agg.h) and only formatted here. */
#include "report/tables.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/clients.h"

static int save(pq_out *o, const char *dir, const char *name, pq_diag *d)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return pq_out_save(o, path, d);
}

static void csv_str(pq_out *o, const char *s)
{
	pq_out_printf(o, "\"");
	for (; *s; s++)
		pq_out_printf(o, *s == '"' ? "\"\"" : "%c", *s);
	pq_out_printf(o, "\"");
}

/* key.csv: the key table's rows (one per grid point) and dimension columns, with every
 * phase's figures side by side. */
static void key_csv(pq_out *o, const pq_agg *a)
{
	static const char *const stat[] = {"n", "median_ms", "ci_lo_ms", "ci_hi_ms", "mean_ms", "sd_ms", "p90_ms",
					   "p95_ms", "p99_ms", "p999_ms", "diff_vs_baseline_ms", "diff_lo_ms",
					   "diff_hi_ms", "measurable"};
	char v[160];
	pq_out_printf(o, "host,point_key,arm");
	for (size_t k = 0; k < a->nvary; k++)
		pq_out_printf(o, ",%s", pq_dims[a->vary[k]].column);
	pq_out_printf(o, ",failed");
	for (int p = 0; p < PQ_AGG_PHASES; p++)
		for (size_t k = 0; k < sizeof stat / sizeof stat[0]; k++)
			pq_out_printf(o, ",%s_%s", p == PQ_AGG_HS ? "handshake" : p == PQ_AGG_TTFB ? "ttfb" : "ttlb", stat[k]);
	pq_out_printf(o, "\n");
	for (size_t i = 0; i < a->n; i++) {
		const pq_agg_group *g = &a->g[i];
		csv_str(o, a->hosts[g->host]);
		pq_out_printf(o, ",");
		csv_str(o, g->cell->point_key);
		pq_out_printf(o, ",");
		csv_str(o, a->arms[g->arm]);
		for (size_t k = 0; k < a->nvary; k++) {
			pq_agg_dim_raw(g->cell, a->vary[k], v, sizeof v);
			pq_out_printf(o, ",");
			csv_str(o, v);
		}
		pq_out_printf(o, ",%zu", g->failed);
		for (int p = 0; p < PQ_AGG_PHASES; p++) {
			const pq_ci_desc *d = &g->desc[p];
			pq_out_printf(o, ",%zu", g->n[p]);
			if (!g->n[p]) {
				pq_out_printf(o, ",,,,,,,,,,,,,");
				continue;
			}
			pq_out_printf(o, ",%.3f", d->median);
			d->has_ci ? pq_out_printf(o, ",%.3f,%.3f", d->median_lo, d->median_hi) : pq_out_printf(o, ",,");
			pq_out_printf(o, ",%.3f,", d->mean);
			isfinite(d->sd) ? pq_out_printf(o, "%.3f", d->sd) : pq_out_printf(o, "%s", "");
			d->has_p90 ? pq_out_printf(o, ",%.3f", d->p90) : pq_out_printf(o, ",");
			d->has_p95 ? pq_out_printf(o, ",%.3f", d->p95) : pq_out_printf(o, ",");
			d->has_p99 ? pq_out_printf(o, ",%.3f", d->p99) : pq_out_printf(o, ",");
			d->has_p999 ? pq_out_printf(o, ",%.3f", d->p999) : pq_out_printf(o, ",");
			const pq_boot_result *r = &g->vs[p];
			if (g->has_vs[p])
				pq_out_printf(o, ",%.3f,%.3f,%.3f,%d", r->diff, r->diff_lo, r->diff_hi, r->measurable);
			else
				pq_out_printf(o, ",,,,");
		}
		pq_out_printf(o, "\n");
	}
}

/* One walk over a CSV's columns writes both its heading (head: each column's name) and
 * each of its rows (each column's value), so a column's name and its value stand in one
 * place, as load/writers.c writes a connection's record; the heading walks a zeroed row. */
typedef struct csv_cols {
	pq_out *o;
	int head;
	size_t n; /* columns written on this line */
} csv_cols;

/* The separator, and the column's name in the heading; 1 where its value is to follow. */
static int col_at(csv_cols *w, const char *name)
{
	if (w->n++)
		pq_out_printf(w->o, ",");
	if (w->head)
		pq_out_printf(w->o, "%s", name);
	return !w->head;
}

static void col_str(csv_cols *w, const char *name, const char *s)
{
	if (col_at(w, name))
		csv_str(w->o, s);
}

/* A whole number; empty where the row has none (has 0). */
static void col_int(csv_cols *w, const char *name, int has, long long v)
{
	if (col_at(w, name) && has)
		pq_out_printf(w->o, "%lld", v);
}

/* A real to 0.001, as printf writes it; empty where the row has none (has 0). */
static void col_real(csv_cols *w, const char *name, int has, double v)
{
	if (col_at(w, name) && has)
		pq_out_printf(w->o, "%.3f", v);
}

/* A real to 0.001, empty where it was not measured. */
static void col_num(csv_cols *w, const char *name, double v)
{
	col_real(w, name, isfinite(v), v);
}

static void col_end(csv_cols *w)
{
	pq_out_printf(w->o, "\n");
	w->n = 0;
}

static const pq_rdb_cell zero_cell;
static const pq_agg_group zero_group = {.cell = &zero_cell};

/* agreement.csv: a row per group with the flight model's prediction. */
static void agreement_cols(csv_cols *w, const pq_agg *a, const pq_agg_group *g)
{
	col_str(w, "host", a->hosts[g->host]);
	col_str(w, "arm", a->arms[g->arm]);
	col_int(w, "rtt_us", 1, g->cell->rtt_us);
	col_int(w, "chain_der_bytes", 1, g->cell->chain_der_bytes);
	col_int(w, "response_bytes", 1, g->cell->response_bytes);
	col_real(w, "pred_handshake_rtts", 1, g->model.handshake_t);
	col_real(w, "meas_handshake_rtts", 1, g->rounds[PQ_AGG_HS]);
	col_real(w, "pred_ttfb_rtts", 1, g->model.ttfb_t);
	col_real(w, "meas_ttfb_rtts", 1, g->rounds[PQ_AGG_TTFB]);
	col_real(w, "pred_ttlb_rtts", 1, g->model.ttlb_t);
	col_real(w, "meas_ttlb_rtts", 1, g->rounds[PQ_AGG_TTLB]);
	col_int(w, "agrees", 1, g->agrees);
	col_str(w, "reason", g->agree_why);
	col_int(w, "pred_hrr_rtts", 1, g->model.hrr_rounds);
	col_int(w, "hrr_conns", 1, (long long)g->hrr);
	col_int(w, "conns", 1, (long long)g->total);
	col_end(w);
}

static void agreement_csv(pq_out *o, const pq_agg *a)
{
	csv_cols w = {.o = o, .head = 1};
	agreement_cols(&w, a, &zero_group);
	w.head = 0;
	for (size_t i = 0; i < a->n; i++)
		if (a->g[i].has_model)
			agreement_cols(&w, a, &a->g[i]);
}

static void cdf_csv(pq_out *o, const pq_agg *a)
{
	pq_out_printf(o, "host,arm,rtt_us,chain_der_bytes,response_bytes,handshake_ms,share\n");
	for (size_t i = 0; i < a->n && !o->err; i++) {
		const pq_agg_group *g = &a->g[i];
		size_t n = g->n[PQ_AGG_HS];
		const double *v = g->v[PQ_AGG_HS]; /* sorted by the agg */
		for (size_t k = 0; k < n; k++) {
			csv_str(o, a->hosts[g->host]);
			pq_out_printf(o, ",");
			csv_str(o, a->arms[g->arm]);
			pq_out_printf(o, ",%lld,%lld,%lld,%.3f,%.6f\n", g->cell->rtt_us, g->cell->chain_der_bytes,
				      g->cell->response_bytes, v[k], (double)(k + 1) / (double)n);
		}
	}
}

/* loss.csv: the loss section's cells (report/loss.h): measured handshake percentiles with
 * their intervals beside the loss model's (model_*: with the endpoints' delays its
 * loss-free cell measured, what the verdicts judge; net_*: the packets and timers alone),
 * the verdicts, how many connections would make the p95's interval narrower than a round
 * trip by the model (0: more than PQ_MODEL_LOSS_MAX_CONNS), and the delays' sample size
 * (0: no loss-free cell) and median. */
static void loss_csv(pq_out *o, const pq_agg *a)
{
	static const char *const q[3] = {"p25", "median", "p95"};
	pq_out_printf(o, "host,point_key,arm,rtt_us,loss_pct,loss_unit,n,marked");
	for (int k = 0; k < 3; k++)
		pq_out_printf(o, ",%s_ms,%s_lo_ms,%s_hi_ms,model_%s_ms,net_%s_ms", q[k], q[k], q[k], q[k], q[k]);
	pq_out_printf(o, ",median_agrees,p95_agrees,p95_wide,p95_conns,delays_n,delay_median_ms\n");
	for (size_t i = 0; i < a->n; i++) {
		const pq_agg_group *g = &a->g[i];
		if (!g->has_loss)
			continue;
		csv_str(o, a->hosts[g->host]);
		pq_out_printf(o, ",");
		csv_str(o, g->cell->point_key);
		pq_out_printf(o, ",");
		csv_str(o, a->arms[g->arm]);
		const char *unit = pq_agg_dim_text(g->cell, "loss-unit");
		pq_out_printf(o, ",%lld,%g,%s,%zu,%zu", g->cell->rtt_us, pq_agg_dim_num(g->cell, "loss"),
			      unit ? unit : "segment", g->n[PQ_AGG_HS], g->marked);
		for (int k = 0; k < 3; k++) {
			pq_out_printf(o, ",%.3f", g->loss_meas[k]);
			isfinite(g->loss_lo[k]) ? pq_out_printf(o, ",%.3f,%.3f", g->loss_lo[k], g->loss_hi[k])
						: pq_out_printf(o, ",,");
			pq_out_printf(o, ",%.3f,%.3f", g->loss.hs_ms[k], g->loss_net.hs_ms[k]);
		}
		pq_out_printf(o, ",%d,%d,%d,%u,%zu,%.3f\n", g->loss_agree[1], g->loss_agree[2], g->loss_wide,
			      g->loss.p95_conns, g->loss_delays, g->loss.delay_ms[1]);
	}
}

static void csv_desc(pq_out *o, const pq_agg_group *g, enum pq_agg_phase p)
{
	const pq_ci_desc *d = g ? &g->desc[p] : NULL;
	if (!g || !g->n[p])
		pq_out_printf(o, ",%zu,,,", g ? g->n[p] : 0);
	else if (d->has_ci)
		pq_out_printf(o, ",%zu,%.3f,%.3f,%.3f", g->n[p], d->median, d->median_lo, d->median_hi);
	else
		pq_out_printf(o, ",%zu,%.3f,,", g->n[p], d->median);
}

int pq_report_compare_csv(const pq_compare *c, const char *dir, pq_diag *d)
{
	static const char *const in[3] = {"both", "A", "B"};
	pq_out o;
	pq_out_init(&o, 256u << 20);
	pq_out_printf(&o, "host,point_key,arm,in,phase,a_n,a_median_ms,a_ci_lo_ms,a_ci_hi_ms,b_n,b_median_ms,b_ci_lo_ms,"
			  "b_ci_hi_ms,diff_ms,diff_lo_ms,diff_hi_ms,measurable\n");
	for (size_t i = 0; i < c->n; i++) {
		const pq_compare_point *p = &c->p[i];
		const pq_agg *a = pq_compare_agg_of(c, p);
		const pq_agg_group *g = pq_compare_group_of(p);
		csv_str(&o, a->hosts[g->host]);
		pq_out_printf(&o, ",");
		csv_str(&o, g->cell->point_key);
		pq_out_printf(&o, ",");
		csv_str(&o, a->arms[g->arm]);
		pq_out_printf(&o, ",%s,%s", in[i < c->shared ? 0 : i < c->shared + c->only_a ? 1 : 2], pq_agg_phase_name[p->phase]);
		csv_desc(&o, p->ga, p->phase);
		csv_desc(&o, p->gb, p->phase);
		if (p->has_diff)
			pq_out_printf(&o, ",%.3f,%.3f,%.3f,%d\n", p->diff.diff, p->diff.diff_lo, p->diff.diff_hi, p->measurable);
		else
			pq_out_printf(&o, ",,,,\n");
	}
	int rc = save(&o, dir, "compare.csv", d);
	pq_out_dispose(&o);
	return rc;
}

/* clients.csv: a row per grid point both clients measured (report/clients.h); empty but
 * for its heading where none did. */
static void clients_cols(csv_cols *w, const pq_agg *a, const pq_agg_pair *p)
{
	int m = p->pq->has_model && p->br->has_model;
	col_str(w, "host", a->hosts[p->pq->host]);
	col_str(w, "pqtls_point_key", p->pq->cell->point_key);
	col_str(w, "chromium_point_key", p->br->cell->point_key);
	col_str(w, "arm", a->arms[p->pq->arm]);
	col_int(w, "pqtls_n", 1, (long long)p->pq->n[PQ_AGG_TTFB]);
	col_num(w, "pqtls_ttfb_ms", p->pq->n[PQ_AGG_TTFB] ? p->pq->desc[PQ_AGG_TTFB].median : NAN);
	col_int(w, "chromium_n", 1, (long long)p->br->n[PQ_AGG_TTFB]);
	col_num(w, "chromium_ttfb_ms", p->br->n[PQ_AGG_TTFB] ? p->br->desc[PQ_AGG_TTFB].median : NAN);
	col_num(w, "chromium_network_ttfb_ms", p->net_ms);
	col_real(w, "diff_ms", p->has_fb, p->fb.diff);
	col_real(w, "diff_lo_ms", p->has_fb, p->fb.diff_lo);
	col_real(w, "diff_hi_ms", p->has_fb, p->fb.diff_hi);
	col_real(w, "network_diff_ms", p->has_net, p->net.diff);
	col_real(w, "network_diff_lo_ms", p->has_net, p->net.diff_lo);
	col_real(w, "network_diff_hi_ms", p->has_net, p->net.diff_hi);
	col_num(w, "network_diff_rtts", p->net_rtts);
	col_num(w, "rtt_ms", p->rtt_ms);
	col_int(w, "wan", 1, p->wan);
	col_int(w, "within", 1, p->within);
	col_num(w, "verify_ms", p->verify_ms);
	col_num(w, "dispatch_ms", p->dispatch_ms);
	col_num(w, "rest_ms", p->rest_ms);
	col_int(w, "pqtls_client_hello_bytes", m, (long long)p->pq->model_ch);
	col_int(w, "chromium_client_hello_bytes", m, (long long)p->br->model_ch);
	col_num(w, "model_pqtls_ttfb_rtts", m ? p->pq->model.ttfb_t : NAN);
	col_num(w, "model_chromium_ttfb_rtts", m ? p->br->model.ttfb_t : NAN);
	col_num(w, "pqtls_ttfb_rtts", p->rounds_pq);
	col_num(w, "chromium_network_ttfb_rtts", p->rounds_net);
	col_end(w);
}

static void clients_csv(pq_out *o, const pq_agg *a)
{
	static const pq_agg_pair zero_pair = {.pq = &zero_group, .br = &zero_group};
	csv_cols w = {.o = o, .head = 1};
	clients_cols(&w, a, &zero_pair);
	w.head = 0;
	for (size_t i = 0; i < a->npairs; i++)
		clients_cols(&w, a, &a->pairs[i]);
}

int pq_report_csv(const pq_agg *a, const char *dir, pq_diag *d)
{
	static void (*const writers[])(pq_out *, const pq_agg *) = {agreement_csv, cdf_csv, loss_csv, clients_csv};
	static const char *const names[] = {"agreement.csv", "cdf.csv", "loss.csv", "clients.csv"};
	pq_out o;
	int rc = 0;
	pq_out_init(&o, 256u << 20);
	key_csv(&o, a);
	rc = save(&o, dir, "key.csv", d);
	for (size_t i = 0; !rc && i < sizeof writers / sizeof writers[0]; i++) {
		pq_buf_reset(&o.b);
		writers[i](&o, a);
		rc = save(&o, dir, names[i], d);
	}
	pq_out_dispose(&o);
	return rc;
}
