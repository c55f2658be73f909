/* The page's key section (report/keyhtml.h): arms, pivot and the long key table. */
#include "report/keyhtml.h"

#include <math.h>
#include <stdio.h>

#include "report/findings.h"

void pq_keyhtml_ms_ci(pq_out *o, const pq_ci_desc *d)
{
	if (d->has_ci)
		pq_out_printf(o, "<td>%.2f<br><small>[%.2f, %.2f]</small></td>", d->median, d->median_lo,
			      d->median_hi);
	else
		pq_out_printf(o, "<td>%.2f<br><small>(n&lt;6: no CI)</small></td>", d->median);
}

static void tails(pq_out *o, const pq_ci_desc *d)
{
	pq_out_printf(o, "<td>");
	if (d->has_p90)
		pq_out_printf(o, "%.1f", d->p90);
	else
		pq_out_printf(o, "<small>n&lt;10</small>");
	if (d->has_p99)
		pq_out_printf(o, " / %.1f", d->p99);
	else
		pq_out_printf(o, " / <small>n&lt;100</small>");
	if (d->has_p999)
		pq_out_printf(o, " / %.1f", d->p999);
	pq_out_printf(o, "</td>");
}

/* The difference against the baseline, in the group's diff_phase. */
static void diff_cell(pq_out *o, const pq_agg_group *g)
{
	const enum pq_agg_phase ph = g->diff_phase;
	char buf[160];
	if (g->base != PQ_AGG_BASE_OK) {
		pq_out_printf(o, "<td class=\"l\">%s</td>",
			      g->base == PQ_AGG_BASE_SELF ? "baseline" : "no baseline at this RTT and response");
		return;
	}
	if (!g->has_vs[ph]) {
		pq_out_printf(o, "<td class=\"na\">too few values</td>");
		return;
	}
	pq_boot_verdict(&g->vs[ph], 1, "ms", buf, sizeof buf);
	pq_out_printf(o, "<td class=\"l\">");
	pq_out_text(o, buf);
	pq_out_printf(o, "</td>");
}

static void model_cell(pq_out *o, const pq_agg_group *g)
{
	if (!g->has_model) {
		pq_out_printf(o, "<td class=\"na\">no model</td>");
		return;
	}
	if (!isfinite(g->rounds[PQ_AGG_HS])) /* Chromium's: its tcp_info is not read */
		pq_out_printf(o, "<td>%.2f / %.2f <small>(not measured)</small>", g->model.handshake_t, g->model.ttfb_t);
	else if (g->n[PQ_AGG_TTFB])
		pq_out_printf(o, "<td%s>%.2f / %.2f <small>(%.2f / %.2f)</small>", g->agrees ? "" : " class=\"bad\"",
			      g->model.handshake_t, g->model.ttfb_t, g->rounds[PQ_AGG_HS], g->rounds[PQ_AGG_TTFB]);
	else /* no response asked: the handshake alone */
		pq_out_printf(o, "<td%s>%.2f / none <small>(%.2f / none)</small>", g->agrees ? "" : " class=\"bad\"",
			      g->model.handshake_t, g->rounds[PQ_AGG_HS]);
	if (!g->agrees) {
		pq_out_printf(o, "<br><small title=\"");
		pq_out_text(o, g->agree_why);
		pq_out_printf(o, "\">");
		pq_out_text(o, g->agree_tag);
		pq_out_printf(o, " (see the model section)</small>");
	}
	pq_out_printf(o, "</td>");
}

/* An arm's name, linked to its row of the arms table where there is one. */
static void arm_link(pq_out *o, const pq_agg *a, int arm)
{
	if (a->narm_dims)
		pq_out_printf(o, "<a href=\"#arm-%d\">", arm);
	pq_out_text(o, a->arms[arm]);
	if (a->narm_dims)
		pq_out_printf(o, "</a>");
}

/* A cell's values of the dimensions dims[0..n-1], a <td class="cls"> each. */
static void dim_cells(pq_out *o, const pq_rdb_cell *c, const size_t *dims, size_t n, const char *cls)
{
	char v[160];
	for (size_t k = 0; k < n; k++) {
		pq_agg_dim_show(c, dims[k], v, sizeof v);
		pq_out_printf(o, "<td class=\"%s\">", cls);
		pq_out_text(o, v);
		pq_out_printf(o, "</td>");
	}
}

/* What each arm fixes, once: one row per arm, a column per dimension the arms differ in
 * but none varies within. */
static void arms_table(pq_out *o, const pq_agg *a)
{
	if (!a->narm_dims)
		return;
	pq_out_printf(o, "<h3 id=\"arms\">Arms</h3><p class=\"note\">What each arm fixes, the same in all its grid "
			 "points (the first arm, ");
	pq_out_text(o, a->arms[0]);
	pq_out_printf(o, ", is the baseline of every difference).</p><div class=\"scroll\"><table class=\"arms\"><thead>"
			 "<tr><th class=\"l\">arm</th>");
	for (size_t k = 0; k < a->narm_dims; k++) {
		pq_out_printf(o, "<th class=\"l\">");
		pq_out_text(o, pq_dims[a->arm_dims[k]].label);
		pq_out_printf(o, "</th>");
	}
	pq_out_printf(o, "</tr></thead><tbody>");
	for (size_t arm = 0; arm < a->narms; arm++) {
		const pq_agg_group *g = NULL;
		for (size_t i = 0; i < a->n && !g; i++)
			g = a->g[i].arm == (int)arm ? &a->g[i] : NULL;
		if (!g)
			continue;
		pq_out_printf(o, "<tr id=\"arm-%zu\"><td class=\"l\">", arm);
		pq_out_text(o, a->arms[arm]);
		pq_out_printf(o, "</td>");
		dim_cells(o, g->cell, a->arm_dims, a->narm_dims, "l");
		pq_out_printf(o, "</tr>");
	}
	pq_out_printf(o, "</tbody></table></div>");
}

/* One cell of a pivot: the grid point's median (its diff_phase) with its interval. */
static void pivot_cell(pq_out *o, const pq_agg_group *g)
{
	if (!g) {
		pq_out_printf(o, "<td class=\"na\">not in the grid</td>");
		return;
	}
	const pq_ci_desc *d = &g->desc[g->diff_phase];
	if (!g->n[g->diff_phase])
		pq_out_printf(o, "<td class=\"na\">no successful connection</td>");
	else if (d->has_ci)
		pq_out_printf(o, "<td>%.1f<br><small>[%.1f, %.1f]</small></td>", d->median, d->median_lo, d->median_hi);
	else
		pq_out_printf(o, "<td>%.1f<br><small>n&lt;6: no CI</small></td>", d->median);
}

static void pivot_row_head(pq_out *o, const pq_agg *a, const pq_agg_pivot *p, size_t r)
{
	pq_out_printf(o, "<th class=\"l\">");
	if (a->narm_dims)
		pq_out_printf(o, "<a href=\"#arm-%d\">", p->row_arm[r]);
	pq_out_text(o, p->row[r]);
	pq_out_printf(o, "%s</th>", a->narm_dims ? "</a>" : "");
}

static void pivot_table(pq_out *o, const pq_agg *a, const pq_agg_pivot *p)
{
	const char *dim = pq_dims[p->dim].label;
	pq_out_printf(o, "<h3 id=\"pivot-h%d\">", p->host);
	pq_out_text(o, a->diff_what);
	pq_out_printf(o, " medians: the arms against ");
	pq_out_text(o, dim);
	if (a->nhosts > 1) {
		pq_out_printf(o, ", host ");
		pq_out_text(o, a->hosts[p->host]);
	}
	pq_out_printf(o, "</h3><p class=\"note\">Median in ms and its 95 %% interval, one grid point per cell (trials "
			 "pooled); the long table below has each point's tails, difference and model.</p>"
			 "<div class=\"scroll\"><table class=\"pivot\"><thead><tr><th class=\"l\">");
	if (p->transposed) {
		pq_out_text(o, dim);
		pq_out_printf(o, "</th>");
		for (size_t r = 0; r < p->nrows; r++)
			pivot_row_head(o, a, p, r);
		pq_out_printf(o, "</tr></thead><tbody>");
		for (size_t c = 0; c < p->nvals; c++) {
			pq_out_printf(o, "<tr><th class=\"l\">");
			pq_out_text(o, p->val[c]);
			pq_out_printf(o, "</th>");
			for (size_t r = 0; r < p->nrows; r++)
				pivot_cell(o, p->g[r][c]);
			pq_out_printf(o, "</tr>");
		}
	} else {
		pq_out_printf(o, "arm</th>");
		for (size_t c = 0; c < p->nvals; c++) {
			pq_out_printf(o, "<th>");
			pq_out_text(o, dim);
			pq_out_printf(o, " ");
			pq_out_text(o, p->val[c]);
			pq_out_printf(o, "</th>");
		}
		pq_out_printf(o, "</tr></thead><tbody>");
		for (size_t r = 0; r < p->nrows; r++) {
			pq_out_printf(o, "<tr>");
			pivot_row_head(o, a, p, r);
			for (size_t c = 0; c < p->nvals; c++)
				pivot_cell(o, p->g[r][c]);
			pq_out_printf(o, "</tr>");
		}
	}
	pq_out_printf(o, "</tbody></table></div>");
}

/* One row per grid point of the host: the arm, what varies within arms, the results. */
static void key_table(pq_out *o, const pq_agg *a, int host)
{
	pq_out_printf(o, "<div class=\"scroll\"><table class=\"sort key\"><thead><tr><th class=\"l\">arm</th>");
	for (size_t k = 0; k < a->npoint_dims; k++) {
		pq_out_printf(o, "<th>");
		pq_out_text(o, pq_dims[a->point_dims[k]].label);
		pq_out_printf(o, "</th>");
	}
	pq_out_printf(o, "<th>n (failed)</th><th>handshake ms, median [95 %% CI]</th>"
			 "<th>TTFB ms, median [95 %% CI]</th><th>TTFB p90 / p99 / p99.9</th><th class=\"l\">");
	pq_out_text(o, a->diff_what);
	pq_out_printf(o, " minus ");
	pq_out_text(o, a->arms[0]);
	pq_out_printf(o, " (bootstrap 95 %% CI)</th><th>model RTTs handshake / TTFB (measured)</th>%s</tr></thead><tbody>",
		      a->any_hrr ? "<th title=\"connections the server answered with a HelloRetryRequest\">HRR</th>" : "");
	for (size_t i = 0; i < a->n; i++) {
		const pq_agg_group *g = &a->g[i];
		if (g->host != host)
			continue;
		char id[40];
		pq_findings_group_id(a, g, id, sizeof id);
		pq_out_printf(o, "<tr id=\"%s\"><td class=\"l\">", id);
		arm_link(o, a, g->arm);
		pq_out_printf(o, "</td>");
		dim_cells(o, g->cell, a->point_dims, a->npoint_dims, "d");
		pq_out_printf(o, "<td%s>%zu (%zu)", g->marked ? " class=\"bad\"" : "", g->n[PQ_AGG_HS], g->failed);
		if (g->marked)
			pq_out_printf(o, "<br><small>%zu cell%s over budget (<a href=\"#fidelity\">fidelity</a>)</small>",
				      g->marked, g->marked == 1 ? "" : "s");
		pq_out_printf(o, "</td>");
		if (!g->n[PQ_AGG_HS]) {
			pq_out_printf(o, "<td class=\"na\" colspan=\"5\">no successful connection</td>");
		} else {
			pq_keyhtml_ms_ci(o, &g->desc[PQ_AGG_HS]);
			if (g->n[PQ_AGG_TTFB]) {
				pq_keyhtml_ms_ci(o, &g->desc[PQ_AGG_TTFB]);
				tails(o, &g->desc[PQ_AGG_TTFB]);
			} else {
				pq_out_printf(o, "<td class=\"na\" colspan=\"2\">no response asked</td>");
			}
			diff_cell(o, g);
			model_cell(o, g);
		}
		if (a->any_hrr)
			pq_out_printf(o, "<td>%zu / %zu</td>", g->hrr, g->total);
		pq_out_printf(o, "</tr>");
	}
	pq_out_printf(o, "</tbody></table></div>");
}

void pq_keyhtml_section(pq_out *o, const pq_agg *a)
{
	pq_out_printf(o, "<h2 id=\"key\">Key tables</h2><p class=\"note\">Medians over every successful "
			 "connection of every trial, with a distribution-free 95 %% interval (order "
			 "statistics). Differences against the first arm are bootstrap intervals "
			 "(" PQ_AGG_BOOT_REPS_WORDS " resamples, seed %llu); an interval that spans 0 reads \"no measurable "
			 "difference\". Model: round trips the flight model predicts, and the measured "
			 "median over tcp_info's min RTT (over the link's RTT behind a jitter of %g %% of it or more, whose min is its luckiest sample, and for QUIC). Click a header of the long table to sort it.</p>",
		      (unsigned long long)a->seed, PQ_AGG_JITTER_SHARE * 100);
	for (size_t i = 0; i < a->nnotes; i++) {
		pq_out_printf(o, "<p class=\"note\">");
		pq_out_text(o, a->notes[i]);
		pq_out_printf(o, "</p>");
	}
	arms_table(o, a);
	for (size_t i = 0; i < a->npivots; i++)
		pivot_table(o, a, &a->pivots[i]);
	pq_out_printf(o, "<h3 id=\"points\">Every grid point</h3><div class=\"hosts\">");
	for (size_t h = 0; h < a->nhosts; h++) {
		pq_out_printf(o, "<section><h3>host ");
		pq_out_text(o, a->hosts[h]);
		pq_out_printf(o, "</h3>");
		key_table(o, a, (int)h);
		pq_out_printf(o, "</section>");
	}
	pq_out_printf(o, "</div>");
}
