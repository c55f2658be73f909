#include "report/tables.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void med_ci(char *buf, size_t n, const pq_ci_desc *d)
{
	if (d->n == 0)
		snprintf(buf, n, "-");
	else if (d->has_ci)
		snprintf(buf, n, "%.2f [%.2f, %.2f]", d->median, d->median_lo, d->median_hi);
	else
		snprintf(buf, n, "%.2f (no CI, n<6)", d->median);
}

static void vs_base(char *buf, size_t n, const pq_agg_group *g)
{
	if (g->arm == 0)
		snprintf(buf, n, "baseline");
	else if (!g->has_vs[PQ_AGG_TTFB])
		snprintf(buf, n, "too few values");
	else
		pq_boot_verdict(&g->vs[PQ_AGG_TTFB], 1, "ms", buf, n);
}

static void model_txt(char *buf, size_t n, const pq_agg_group *g)
{
	if (!g->has_model)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%u/%u vs %.1f/%.1f%s%s", g->model.handshake, g->model.ttfb,
			 g->rounds[PQ_AGG_HS], g->rounds[PQ_AGG_TTFB], g->agrees ? "" : ": ",
			 g->agrees ? "" : g->agree_tag);
}

/* The widest arm label on the terminal (labels are padded, never cut). */
static size_t arm_width(const pq_agg *a)
{
	size_t w = 3;
	for (size_t i = 0; i < a->narms; i++) {
		size_t k = pq_out_term_width(a->arms[i]);
		w = k > w ? k : w;
	}
	return w;
}

static void key_md(pq_out *o, const pq_agg *a, size_t h)
{
	pq_out_printf(o, "### host ");
	pq_out_md(o, a->hosts[h]);
	pq_out_printf(o, "\n\n| arm | RTT ms | n | handshake ms [95%% CI] | TTFB ms [95%% CI] | TTFB minus ");
	pq_out_md(o, a->arms[0]);
	pq_out_printf(o, " | model RTTs hs/TTFB vs measured |\n|---|--:|--:|--:|--:|---|---|\n");
}

static void key_term(pq_out *o, const pq_agg *a, size_t h, size_t aw)
{
	pq_out_printf(o, "host ");
	pq_out_term(o, a->hosts[h]);
	pq_out_printf(o, ": medians in ms [95%% CI]; TTFB minus ");
	pq_out_term(o, a->arms[0]);
	pq_out_printf(o, " (bootstrap); model round trips handshake/TTFB vs measured\n");
	pq_out_term_pad(o, "arm", aw);
	pq_out_printf(o, " %7s %5s  %-26s %-26s %-44s %s\n", "RTT ms", "n", "handshake", "TTFB",
		      "TTFB minus baseline", "model");
}

/* The studies' rows (report/studies.h) after the key tables. */
static void studies_text(pq_out *o, const pq_agg *a, int md)
{
	if (md)
		pq_out_printf(o, "### The studies beside this database\n\n| study | question | what it reported | here | verdict |\n"
				 "|---|---|---|---|---|\n");
	else
		pq_out_printf(o, "The studies beside this database (their figures quoted from ../shared/seeds):\n");
	for (size_t i = 0; i < a->nstudies; i++) {
		const pq_agg_study *s = &a->studies[i];
		const char *f[5] = {s->study, s->question, s->theirs, s->ours, s->verdict};
		static const char *const tag[5] = {"", ": ", "\n  theirs:  ", "\n  here:    ", "\n  verdict: "};
		for (int k = 0; k < 5; k++) {
			pq_out_printf(o, "%s", md ? "| " : tag[k]);
			if (md)
				pq_out_md(o, f[k]);
			else
				pq_out_term(o, f[k]);
			pq_out_printf(o, "%s", md ? " " : "");
		}
		pq_out_printf(o, "%s\n", md ? "|" : "");
	}
	if (!a->nstudies)
		pq_out_printf(o, "%sno study's question can be answered from this database's cells\n", md ? "\n" : "  ");
	pq_out_printf(o, "\n");
}

void pq_report_key_text(pq_out *o, const pq_agg *a, int md)
{
	size_t aw = arm_width(a);
	for (size_t h = 0; h < a->nhosts; h++) {
		if (md)
			key_md(o, a, h);
		else
			key_term(o, a, h, aw);
		for (size_t r = 0; r < a->nrtts; r++)
			for (size_t arm = 0; arm < a->narms; arm++) {
				const pq_agg_group *g = pq_agg_find(a, (int)h, (int)arm, (int)r, -2);
				if (!g || a->kind[arm] != PQ_AGG_KEY)
					continue;
				char hs[64], fb[64], dv[160], m[320];
				med_ci(hs, sizeof hs, &g->desc[PQ_AGG_HS]);
				med_ci(fb, sizeof fb, &g->desc[PQ_AGG_TTFB]);
				vs_base(dv, sizeof dv, g);
				model_txt(m, sizeof m, g);
				if (md) {
					pq_out_printf(o, "| ");
					pq_out_md(o, a->arms[arm]);
					pq_out_printf(o, " | %g | %zu | %s | %s | %s | %s |\n", (double)a->rtts[r] / 1e3,
						      g->n[PQ_AGG_HS], hs, fb, dv, m);
				} else {
					pq_out_term_pad(o, a->arms[arm], aw);
					pq_out_printf(o, " %7g %5zu  %-26s %-26s %-44s %s\n", (double)a->rtts[r] / 1e3,
						      g->n[PQ_AGG_HS], hs, fb, dv, m);
				}
			}
		pq_out_printf(o, "\n");
	}
	studies_text(o, a, md);
}

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

static void key_csv(pq_out *o, const pq_agg *a)
{
	pq_out_printf(o, "host,point_key,arm,rtt_us,chain_der_bytes,response_bytes,phase,n,failed,median_ms,ci_lo_ms,ci_hi_ms,"
			 "mean_ms,sd_ms,p90_ms,p95_ms,p99_ms,p999_ms,diff_vs_baseline_ms,diff_lo_ms,diff_hi_ms,measurable\n");
	for (size_t i = 0; i < a->n; i++) {
		const pq_agg_group *g = &a->g[i];
		for (int p = 0; p < PQ_AGG_PHASES; p++) {
			const pq_ci_desc *d = &g->desc[p];
			if (!g->n[p])
				continue;
			csv_str(o, a->hosts[g->host]);
			pq_out_printf(o, ",");
			csv_str(o, g->cell->point_key);
			pq_out_printf(o, ",");
			csv_str(o, a->arms[g->arm]);
			pq_out_printf(o, ",%lld,%lld,%lld,%s,%zu,%zu,%.3f,", g->cell->rtt_us, g->cell->chain_der_bytes,
				      g->cell->response_bytes, pq_agg_phase_name[p], g->n[p], g->failed, d->median);
			if (d->has_ci)
				pq_out_printf(o, "%.3f,%.3f", d->median_lo, d->median_hi);
			else
				pq_out_printf(o, ",");
			pq_out_printf(o, ",%.3f,%.3f,", d->mean, d->sd);
			d->has_p90 ? pq_out_printf(o, "%.3f,", d->p90) : pq_out_printf(o, ",");
			d->has_p95 ? pq_out_printf(o, "%.3f,", d->p95) : pq_out_printf(o, ",");
			d->has_p99 ? pq_out_printf(o, "%.3f,", d->p99) : pq_out_printf(o, ",");
			d->has_p999 ? pq_out_printf(o, "%.3f,", d->p999) : pq_out_printf(o, ",");
			const pq_boot_result *r = &g->vs[p];
			if (g->has_vs[p])
				pq_out_printf(o, "%.3f,%.3f,%.3f,%d\n", r->diff, r->diff_lo, r->diff_hi, r->measurable);
			else
				pq_out_printf(o, ",,,\n");
		}
	}
}

static void agreement_csv(pq_out *o, const pq_agg *a)
{
	pq_out_printf(o, "host,arm,rtt_us,chain_der_bytes,response_bytes,pred_handshake_rtts,meas_handshake_rtts,"
			 "pred_ttfb_rtts,meas_ttfb_rtts,pred_ttlb_rtts,meas_ttlb_rtts,agrees,reason\n");
	for (size_t i = 0; i < a->n; i++) {
		const pq_agg_group *g = &a->g[i];
		if (!g->has_model)
			continue;
		csv_str(o, a->hosts[g->host]);
		pq_out_printf(o, ",");
		csv_str(o, a->arms[g->arm]);
		pq_out_printf(o, ",%lld,%lld,%lld,%u,%.3f,%u,%.3f,%u,%.3f,%d,", g->cell->rtt_us,
			      g->cell->chain_der_bytes, g->cell->response_bytes, g->model.handshake,
			      g->rounds[PQ_AGG_HS], g->model.ttfb, g->rounds[PQ_AGG_TTFB], g->model.ttlb,
			      g->rounds[PQ_AGG_TTLB], g->agrees);
		csv_str(o, g->agree_why);
		pq_out_printf(o, "\n");
	}
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

int pq_report_csv(const pq_agg *a, const char *dir, pq_diag *d)
{
	static void (*const writers[])(pq_out *, const pq_agg *) = {agreement_csv, cdf_csv};
	static const char *const names[] = {"agreement.csv", "cdf.csv"};
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
