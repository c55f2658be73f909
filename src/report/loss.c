/* The loss section of the HTML page (report/loss.h). */
#include "report/loss.h"

#include <math.h>

static void pct(pq_out *o, double v)
{
	if (v < 0)
		pq_out_printf(o, "<td class=\"na\">none</td>");
	else
		pq_out_printf(o, "<td>%g %%</td>", v);
}

static void cell_row(pq_out *o, const pq_agg *a, const pq_agg_group *g)
{
	char label[256];
	pq_agg_point_label(a, g, NULL, label, sizeof label);
	pq_out_printf(o, "<tr><td class=\"l\">");
	pq_out_text(o, label);
	pq_out_printf(o, "</td><td>%zu</td>", g->n[PQ_AGG_HS]);
	for (int k = 0; k < 3; k++) {
		pq_out_printf(o, "<td>%.0f", g->loss_meas[k]);
		if (isfinite(g->loss_lo[k]))
			pq_out_printf(o, " [%.0f, %.0f]", g->loss_lo[k], g->loss_hi[k]);
		pq_out_printf(o, "</td><td%s>%.0f (%.2f RTT)</td>", g->loss_agree[k] || k == 0 ? "" : " class=\"bad\"",
			      g->loss.hs_ms[k], g->loss.hs_rtt[k]);
	}
	int ok = g->loss_agree[1] && g->loss_agree[2];
	pq_out_printf(o, "<td class=\"l%s\">%s%s</td></tr>", ok ? "" : " bad",
		      ok ? "agrees" : !g->loss_agree[1] ? "median differs" : "p95 differs",
		      g->loss_wide ? "; measured p95 interval wider than a round trip" : "");
}

static void steps(pq_out *o, const pq_agg *a)
{
	pq_out_printf(o, "<div class=\"scroll\"><table class=\"sort\"><thead><tr><th class=\"l\">arm</th><th>RTT</th>"
			 "<th class=\"l\">unit</th><th>first extra RTT, measured</th><th>model</th>"
			 "<th>median as the first arm's up to</th><th class=\"l\">the model's reason</th></tr></thead><tbody>");
	for (size_t i = 0; i < a->nlosssteps; i++) {
		const pq_agg_lossstep *s = &a->losssteps[i];
		pq_out_printf(o, "<tr><td class=\"l\">");
		pq_out_text(o, a->arms[s->arm]);
		pq_out_printf(o, "</td><td>%.1f ms</td><td class=\"l\">%s</td>", (double)a->rtts[s->rtt] / 1e3, s->unit);
		pct(o, s->measured_pct);
		pct(o, s->model_pct);
		if (s->arm == 0)
			pq_out_printf(o, "<td class=\"na\">(the first arm)</td>");
		else
			pct(o, s->same_pct);
		pq_out_printf(o, "<td class=\"l\">");
		pq_out_text(o, s->why[0] ? s->why : "the model's median stays within half a round trip up to 50 %");
		pq_out_printf(o, "</td></tr>");
	}
	pq_out_printf(o, "</tbody></table></div>");
}

void pq_report_loss(pq_out *o, const pq_agg *a)
{
	if (!a->loss_cells)
		return;
	size_t n = a->loss_cells;
	pq_out_printf(o, "<h2 id=\"loss\">Loss against the loss model</h2><p class=\"note\">Each cell with loss: the "
			 "measured handshake p25, median and p95 (ms, with their 95 %% intervals) beside the loss "
			 "model's (docs/model.md, the loss model: Linux's SYN timers, RACK, the tail "
			 "loss probe and the RTO over this cell's packets, %d trials). A percentile agrees within one "
			 "round trip or inside the measured interval. Median and p95 agree at %zu of %zu cells "
			 "(%.0f %%; the median alone at %zu, the p95 at %zu); the measured p95's interval is wider "
			 "than a round trip at %zu of them. The published shape (Paquin, Stebila and Tamvada, "
			 "PQCrypto 2020, netem on veth, loss both ways): a lattice signature's median handshake "
			 "stays the same as ECDSA's up to about 10 %% loss; the table after the cells says up to "
			 "which loss it does here, per unit of loss.</p>",
		      PQ_MODEL_LOSS_TRIALS, a->loss_agree_both, n, 100.0 * (double)a->loss_agree_both / (double)n, a->loss_agree_med,
		      a->loss_agree_p95, a->loss_wide);
	pq_out_printf(o, "<div class=\"scroll\"><table class=\"sort\"><thead><tr><th class=\"l\">cell</th><th>n</th>"
			 "<th>p25</th><th>model</th><th>median</th><th>model</th><th>p95</th><th>model</th>"
			 "<th class=\"l\">verdict</th></tr></thead><tbody>");
	for (size_t i = 0; i < a->n; i++)
		if (a->g[i].has_loss)
			cell_row(o, a, &a->g[i]);
	pq_out_printf(o, "</tbody></table></div>");
	steps(o, a);
}
