#include "report/charts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/svg.h"

#define SERIES 48 /* per figure, drawn as small multiples; further figures follow */
#define PER_PANEL 4 /* series a panel holds: more would not read apart */

void pq_chart_ids_add(pq_chart_ids *ids, const char *id)
{
	if (ids->n < PQ_CHARTS_MAX_IDS)
		snprintf(ids->id[ids->n++], sizeof ids->id[0], "%s", id);
}

/* "at 35 ms RTT (profile aws-fast, host vm)": the profile only where every series drawn
 * shares it (`one_profile`); otherwise each series' label names its own. */
static void link_words(const pq_agg *a, const pq_agg_group *g, int one_profile, char *buf, size_t n)
{
	const char *prof = one_profile ? pq_agg_dim_text(g->cell, "profile") : NULL;
	snprintf(buf, n, "at %g ms RTT (%s%s%shost ", pq_agg_dim_num(g->cell, "rtt") / 1e3, prof && *prof ? "profile " : "",
		 prof && *prof ? prof : "", prof && *prof ? ", " : "");
	size_t len = strlen(buf);
	snprintf(buf + len, n - len, "%.95s)", a->hosts[g->host]);
}

void pq_charts_loss(pq_out *o, const pq_agg *a, int host, int rtt, pq_chart_ids *ids)
{
	pq_svg_series s[SERIES];
	char names[SERIES][320];
	size_t ns = 0, left = 0;
	const pq_agg_curve *any = NULL;
	int one_profile = 1;
	for (size_t i = 0; i < a->ncurves; i++) {
		const pq_agg_curve *c = &a->curves[i];
		if (c->kind != PQ_AGG_VS_LOSS || c->host != host || c->rtt != rtt)
			continue;
		if (ns + 2 > SERIES) { /* said in the caption, never dropped silently */
			left++;
			continue;
		}
		if (any) {
			const char *p0 = pq_agg_dim_text(any->first->cell, "profile"),
				   *p1 = pq_agg_dim_text(c->first->cell, "profile");
			one_profile &= strcmp(p0 ? p0 : "", p1 ? p1 : "") == 0;
		}
		any = c;
		char label[256];
		pq_agg_point_label(a, c->first, "loss", label, sizeof label);
		for (int k = 0; k < 2; k++) {
			snprintf(names[ns], sizeof names[0], "%.250s: %s", label, k ? "p95" : "median");
			s[ns] = (pq_svg_series){names[ns], c->x, c->y[k ? 3 : 1], c->n, NULL, NULL, PQ_SVG_LINE,
						(int)(ns / 2 * 2 + (size_t)k)};
			ns++;
		}
	}
	if (!any)
		return;
	char id[48], cap[600], at[200];
	link_words(a, any->first, one_profile, at, sizeof at);
	snprintf(id, sizeof id, "fig-loss-h%d-r%d", host, rtt);
	snprintf(cap, sizeof cap, "Handshake time, median and 95th percentile, against the link's loss (each way) %s; "
		 "each line holds every other dimension fixed (trials pooled).", at);
	if (left) {
		size_t len = strlen(cap);
		snprintf(cap + len, sizeof cap - len, " %zu more curves at this RTT are not drawn (key.csv has them).", left);
	}
	pq_svg_chart c = {.id = id, .caption = cap, .x = {"loss each way (%)", 0, 0, 0}, .y = {"handshake (ms)", 0, 0, 0},
			  .s = s, .ns = ns};
	pq_svg_panels_write(o, &c, PER_PANEL, 2);
	pq_chart_ids_add(ids, id);
}

void pq_charts_rtt(pq_out *o, const pq_agg *a, int host, pq_chart_ids *ids)
{
	pq_svg_series s[SERIES];
	char names[SERIES][256];
	size_t ns = 0, part = 0;
	for (size_t i = 0; i <= a->ncurves; i++) {
		const pq_agg_curve *c = i < a->ncurves ? &a->curves[i] : NULL;
		int mine = c && c->kind == PQ_AGG_VS_RTT && c->host == host;
		if (mine) {
			pq_agg_point_label(a, c->first, "rtt", names[ns], sizeof names[0]);
			s[ns] = (pq_svg_series){names[ns], c->x, c->y[0], c->n, c->y[1], c->y[2], PQ_SVG_LINE, (int)ns};
			ns++;
		}
		if (!ns || (c && ns < SERIES))
			continue;
		char id[48], cap[400];
		snprintf(id, sizeof id, part ? "fig-rtt-h%d-f%zu" : "fig-rtt-h%d", host, part);
		snprintf(cap, sizeof cap, "Median time to first byte against the RTT (host %.95s%s), one line per grid point "
			 "family (every other dimension fixed, trials pooled); bands are the medians' 95 %% intervals.",
			 a->hosts[host], part ? ", continued" : "");
		pq_svg_chart ch = {.id = id, .caption = cap, .x = {"RTT (ms)", 0, 0, 0}, .y = {"TTFB (ms)", 0, 0, 0},
				   .s = s, .ns = ns};
		pq_svg_panels_write(o, &ch, PER_PANEL, 1);
		pq_chart_ids_add(ids, id);
		ns = 0;
		part++;
	}
}

void pq_charts_cdf(pq_out *o, const pq_agg *a, int host, int rtt, pq_chart_ids *ids)
{
	pq_svg_series s[SERIES];
	char names[SERIES][256];
	double *ys[SERIES];
	size_t ns = 0, part = 0;
	const pq_agg_group *ref = NULL;
	int one_profile = 1;
	for (size_t i = 0; i <= a->n && !o->err; i++) {
		const pq_agg_group *g = i < a->n ? &a->g[i] : NULL;
		if (g && g->host == host && g->rtt == rtt && g->n[PQ_AGG_HS] >= 2) {
			const char *p0 = ref ? pq_agg_dim_text(ref->cell, "profile") : NULL,
				   *p1 = pq_agg_dim_text(g->cell, "profile");
			if (ref && strcmp(p0 ? p0 : "", p1 ? p1 : "") != 0)
				one_profile = 0;
			size_t n = g->n[PQ_AGG_HS];
			if (!(ys[ns] = malloc(n * sizeof(double)))) {
				o->err = PQ_ENOMEM;
				break;
			}
			for (size_t k = 0; k < n; k++)
				ys[ns][k] = (double)(k + 1) / (double)n;
			pq_agg_point_label(a, g, "rtt", names[ns], sizeof names[0]);
			s[ns] = (pq_svg_series){names[ns], g->v[PQ_AGG_HS], ys[ns], n, NULL, NULL, PQ_SVG_STEP, (int)ns};
			ns++;
			ref = g;
		}
		if (!ns || (g && ns < SERIES))
			continue;
		char id[48], cap[600], at[200];
		double hi = 0, lo = INFINITY;
		for (size_t k = 0; k < ns; k++) {
			hi = fmax(hi, s[k].x[s[k].n - 1]);
			lo = fmin(lo, s[k].x[0]);
		}
		link_words(a, ref, one_profile, at, sizeof at);
		snprintf(id, sizeof id, part ? "fig-cdf-h%d-r%d-f%zu" : "fig-cdf-h%d-r%d", host, rtt, part);
		snprintf(cap, sizeof cap, "Distribution of handshake times per grid point %s%s: the share of connections "
			 "done by each time (trials pooled).", at, part ? ", continued" : "");
		pq_svg_chart c = {.id = id, .caption = cap, .x = {"handshake time (ms)", 0, 0, lo > 0 && hi / lo > 20},
				  .y = {"share of connections", 0, 1, 0}, .s = s, .ns = ns};
		pq_svg_panels_write(o, &c, PER_PANEL, 1);
		pq_chart_ids_add(ids, id);
		for (size_t k = 0; k < ns; k++)
			free(ys[k]);
		ns = 0;
		part++;
	}
	for (size_t k = 0; k < ns; k++)
		free(ys[k]);
}
