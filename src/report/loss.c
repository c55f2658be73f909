/* The loss section of the HTML page (report/loss.h). */
#include "report/loss.h"

#include <math.h>

#include "report/verdict.h"

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
	static const char *const word[] = {[PQ_VERDICT_LOSS_AGREES] = "agrees",
					   [PQ_VERDICT_LOSS_MEDIAN] = "median differs",
					   [PQ_VERDICT_LOSS_P95] = "p95 differs"};
	pq_verdict_loss v = pq_verdict_loss_of(g);
	pq_out_printf(o, "<td class=\"l%s\">%s%s", v == PQ_VERDICT_LOSS_AGREES ? "" : " bad", word[v],
		      g->marked ? " (over a fidelity budget)" : "");
	if (g->loss_delays)
		pq_out_printf(o, "; with the endpoints' delays its loss-free cell measured (median %.0f ms); the "
				 "packets alone: median %.0f, p95 %.0f ms", g->loss.delay_ms[1], g->loss_net.hs_ms[1],
			      g->loss_net.hs_ms[2]);
	else
		pq_out_printf(o, "; no loss-free cell: the packets alone");
	if (g->loss_wide && g->loss.p95_conns)
		pq_out_printf(o, "; measured p95 interval wider than a round trip (by the model, %u connections "
				 "would narrow it)", g->loss.p95_conns);
	else if (g->loss_wide)
		pq_out_printf(o, "; measured p95 interval wider than a round trip (by the model, even %d "
				 "connections would not narrow it)", PQ_MODEL_LOSS_MAX_CONNS);
	pq_out_printf(o, "</td></tr>");
}

static void steps(pq_out *o, const pq_agg *a)
{
	pq_out_printf(o, "<div class=\"scroll\"><table class=\"sort\"><thead><tr><th class=\"l\">arm</th><th>RTT</th>"
			 "<th class=\"l\">unit</th><th>first extra RTT, measured</th><th>model</th>"
			 "<th>median as the first arm's up to</th></tr></thead><tbody>");
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
		pq_out_printf(o, "</tr>");
	}
	pq_out_printf(o, "</tbody></table></div>");
}

/* Per arm, RTT and unit, in a sentence: from which loss the median pays its first extra
 * round trip, measured and by the model, and the model's reason. */
static void step_sentences(pq_out *o, const pq_agg *a)
{
	char line[1024];
	pq_out_printf(o, "<ul class=\"losssteps\">");
	for (size_t i = 0; i < a->nlosssteps; i++) {
		const pq_agg_lossstep *s = &a->losssteps[i];
		int n = snprintf(line, sizeof line, "%s, %.1f ms, per %s: the median pays its first extra round trip ",
				 a->arms[s->arm], (double)a->rtts[s->rtt] / 1e3, s->unit);
		if (s->measured_pct >= 0)
			n += snprintf(line + n, sizeof line - (size_t)n, "from %g %% loss here", s->measured_pct);
		else
			n += snprintf(line + n, sizeof line - (size_t)n, "at none of the loss rates measured here");
		if (s->model_pct >= 0)
			snprintf(line + n, sizeof line - (size_t)n, "; the loss model puts it at %g %% (%.2f RTT against %.2f), "
				 "because %s.", s->model_pct, s->model_rtts, s->base_rtts, s->why);
		else
			snprintf(line + n, sizeof line - (size_t)n, "; by the loss model it stays within half a round "
				 "trip up to %g %%.", PQ_MODEL_LOSS_MAX * 100);
		pq_out_printf(o, "<li>");
		pq_out_text(o, line);
		pq_out_printf(o, "</li>");
	}
	pq_out_printf(o, "</ul>");
}

void pq_report_loss(pq_out *o, const pq_agg *a)
{
	if (!a->loss_cells)
		return;
	size_t n = a->loss_cells;
	pq_out_printf(o, "<h2 id=\"loss\">Loss against the loss model</h2><p class=\"note\">Each cell with loss: the "
			 "measured handshake p25, median and p95 (ms, with their 95 %% intervals) beside the loss "
			 "model's (docs/model.md, the loss model: Linux's SYN timers, RACK, the tail "
			 "loss probe and the RTO over this cell's packets, %d trials), with the endpoints' own delays "
			 "added as the same arm's loss-free cell measured them (its handshakes over the loss-free "
			 "prediction: waits for a CPU and the handshake's computation, which captures show "
			 "beside every recovery; the packets alone in loss.csv). A percentile agrees within one "
			 "round trip or inside the measured interval. Median and p95 agree at %zu of %zu cells "
			 "(%.0f %%; the median alone at %zu, the p95 at %zu); within their fidelity budgets, at %zu of "
			 "%zu. The measured p95's interval is wider than a round trip at %zu cells (each says how "
			 "many connections would narrow it, by the model). The published shape (Paquin, Stebila and Tamvada, "
			 "PQCrypto 2020, netem on veth, loss both ways): a lattice signature's median handshake "
			 "stays the same as ECDSA's up to about 10 %% loss (their finding as docs/model.md summarises "
			 "it; no figure of theirs is in ../shared/seeds to quote); the table "
			 "after the cells says up to which loss it does here, per unit of loss, and the sentences "
			 "after it from which loss each arm's median pays its first extra round trip, and why.</p>",
		      PQ_MODEL_LOSS_TRIALS, a->loss_agree_both, n, 100.0 * (double)a->loss_agree_both / (double)n, a->loss_agree_med,
		      a->loss_agree_p95, a->loss_clean_both, a->loss_clean, a->loss_wide);
	pq_out_printf(o, "<div class=\"scroll\"><table class=\"sort\"><thead><tr><th class=\"l\">cell</th><th>n</th>"
			 "<th>p25</th><th>model</th><th>median</th><th>model</th><th>p95</th><th>model</th>"
			 "<th class=\"l\">verdict</th></tr></thead><tbody>");
	for (size_t i = 0; i < a->n; i++)
		if (a->g[i].has_loss)
			cell_row(o, a, &a->g[i]);
	pq_out_printf(o, "</tbody></table></div>");
	steps(o, a);
	step_sentences(o, a);
}
