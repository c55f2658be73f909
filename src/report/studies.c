#include "report/studies.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report/study_rows.h"
#include "stats/boot.h"

pq_agg_study *pq_study_add(rows *r, const char *study)
{
	pq_agg *a = r->a;
	if (r->err)
		return NULL;
	if (a->nstudies == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		pq_agg_study *v = realloc(a->studies, cap * sizeof *v);
		if (!v) {
			r->err = PQ_ENOMEM;
			return NULL;
		}
		a->studies = v;
		r->cap = cap;
	}
	pq_agg_study *s = &a->studies[a->nstudies++];
	memset(s, 0, sizeof *s);
	snprintf(s->study, sizeof s->study, "%s", study);
	s->agrees = PQ_VERDICT_UNJUDGED;
	return s;
}

/* A text dimension is `want` (any when want is NULL); `dflt` stands for a value the
 * database does not hold (mtc "none", compression "off"). */
static int text_is(const pq_rdb_cell *c, const char *key, const char *w, const char *dflt)
{
	const char *v = pq_agg_dim_text(c, key);
	if (!w)
		return 1;
	if (!v || !*v)
		v = dflt;
	return v && strcasecmp(v, w) == 0;
}

/* A number dimension is IS(w) (any when 0). */
static int num_is(const pq_rdb_cell *c, const char *key, double w)
{
	double v = pq_agg_dim_num(c, key);
	w -= 1;
	return w == -1 || (isfinite(v) && fabs(v - w) <= 1e-9 * fmax(1, fabs(w)));
}

int pq_study_matches(const pq_rdb_cell *c, const want *w)
{
	double resume = pq_agg_dim_num(c, "resume"), pad = pq_agg_dim_num(c, "pad-chain-to");
	return text_is(c, "leaf", w->leaf, NULL) && text_is(c, "intermediate", w->inter, NULL) &&
	       text_is(c, "mtc", w->mtc, "none") && text_is(c, "cert-compression", w->comp, "off") &&
	       text_is(c, "group", w->group, NULL) && text_is(c, "profile", w->profile, NULL) &&
	       num_is(c, "intermediates", w->inter_n) && num_is(c, "early-data", w->early) &&
	       num_is(c, "rtt", (double)w->rtt_us) && num_is(c, "response", (double)w->resp) &&
	       num_is(c, "loss", w->loss) &&
	       (!w->resumed || (w->resumed - 1 ? resume >= 100 : resume == 0)) &&
	       (!w->padded || (w->padded - 1 ? pad > 0 : !(pad > 0)));
}

/* The first group of host 0 holding what `w` asks, with measured connections. */
const pq_agg_group *pq_study_pick(const pq_agg *a, const want *w)
{
	for (size_t i = 0; i < a->n; i++) {
		const pq_agg_group *g = &a->g[i];
		/* The papers measured TCP: a QUIC cell of the same arm is not theirs. */
		if (g->host == 0 && !g->cell->quic && g->n[PQ_AGG_HS] > 0 && pq_study_matches(g->cell, w))
			return g;
	}
	return NULL;
}

/* "211.85 ms [211.30, 212.20]" (median, 95 % CI) or with "n = 4: no CI". */
void pq_study_med(char *b, size_t n, const pq_agg_group *g, enum pq_agg_phase p)
{
	const pq_ci_desc *c = &g->desc[p];
	if (!g->n[p])
		cat(b, n, "no value");
	else if (c->has_ci)
		cat(b, n, "%.2f ms [%.2f, %.2f]", c->median, c->median_lo, c->median_hi);
	else
		cat(b, n, "%.2f ms (n = %zu: no CI)", c->median, c->n);
}

int pq_study_diff(const pq_agg *a, const pq_agg_group *x, const pq_agg_group *y, enum pq_agg_phase p,
		pq_boot_result *r)
{
	return pq_boot_diff(x->v[p], x->n[p], y->v[p], y->n[p], PQ_AGG_BOOT_REPS, a->seed, r, NULL) == 0;
}

double pq_study_rtt_ms(const pq_agg_group *g)
{
	return pq_agg_dim_num(g->cell, "rtt") / 1e3;
}

/* In the order the page lists them. */
const pq_study *const pq_studies[] = {
    &pq_study_blog_certsize,
    &pq_study_blog_payload,
    &pq_study_paper_table5,
    &pq_study_paper_table6,
    &pq_study_paper_figure5,
    &pq_study_paper_table8,
    &pq_study_paper_table8_measured,
    &pq_study_aws_ttlb,
    &pq_study_paquin_loss,
    NULL,
};

int pq_studies_build(pq_agg *a, pq_diag *d)
{
	rows rs = {.a = a};
	for (const pq_study *const *st = pq_studies; *st && !rs.err; st++)
		(*st)->rows(&rs, *st);
	return rs.err ? pq_diag_set(d, rs.err, "report: out of memory for the studies") : 0;
}

void pq_report_studies(pq_out *o, const pq_agg *a)
{
	pq_out_printf(o, "<h2 id=\"studies\">The studies beside this database</h2><div class=\"scroll\">"
			 "<table class=\"studies\"><thead><tr><th class=\"l\">study</th><th class=\"l\">question</th>"
			 "<th class=\"l\">what it reported</th><th class=\"l\">here</th><th class=\"l\">verdict</th>"
			 "</tr></thead><tbody>");
	for (size_t i = 0; i < a->nstudies; i++) {
		const pq_agg_study *s = &a->studies[i];
		const char *f[4] = {s->study, s->question, s->theirs, s->ours};
		char id[40];
		pq_findings_study_id(i, id, sizeof id);
		pq_out_printf(o, "<tr id=\"%s\">", id);
		for (int k = 0; k < 4; k++) {
			pq_out_printf(o, "<td class=\"l\">");
			pq_out_text(o, f[k]);
			pq_out_printf(o, "</td>");
		}
		pq_out_printf(o, "<td class=\"l%s\">", s->agrees == 0 ? " bad" : "");
		pq_out_text(o, s->verdict);
		pq_out_printf(o, "</td></tr>");
	}
	if (!a->nstudies)
		pq_out_printf(o, "<tr><td class=\"na\" colspan=\"5\">no study's question can be answered from this database's "
				 "cells (pqtls sweep --presets lists the studies' presets)</td></tr>");
	pq_out_printf(o, "</tbody></table></div><p class=\"note\">The studies' figures are quoted from their text (see "
			 "../shared/seeds/README.md), not re-measured. A row appears when this database holds the cells "
			 "its question needs, found by their dimensions (algorithm, intermediates, MTC, group, resumption, "
			 "RTT, profile, response size, loss), not by arm labels.</p>");
}
