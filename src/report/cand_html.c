/* The candidates table (report/cand.h) as HTML: formatting only. */
#include <math.h>
#include <stdio.h>

#include "report/cand.h"
#include "report/out.h"
#include "report/verdict.h"

static void cell(pq_out *o, const pq_agg_group *g)
{
	char v[48];
	if (!g) {
		pq_out_printf(o, "<td class=\"na\">not run</td>");
		return;
	}
	pq_cand_verdict(g, v, sizeof v);
	const pq_verdict_model m = pq_verdict_model_of(g);
	pq_out_printf(o, "<td class=\"l%s\">", m.agrees ? "" : " bad");
	if (m.judged)
		pq_out_printf(o, "%.0f / %.2f, ", m.predicted, m.measured);
	pq_out_text(o, v);
	if (!m.agrees)
		pq_out_printf(o, " (measured: %s)", g->agree_tag);
	pq_out_printf(o, "</td>");
}

void pq_cand_html(pq_out *o, const pq_agg *a)
{
	char lab[64];
	size_t total = 0, agree = 0;
	if (!a->ncands)
		return;
	pq_out_printf(o, "<h2 id=\"candidates\">Each candidate by its bytes</h2>"
			 "<p>One row per arm, by its TCP first flight (the flight model, bytes). Each cell: the "
			 "model's round trips to the first byte / the measured ones (median over min RTT), and the "
			 "model's verdict on the server's first flight: <b>fits</b> (one round: the initial window, "
			 "or QUIC's 3x amplification budget) or <b>costs N round trips</b>. TCP needs 3 round trips "
			 "to the first byte when it fits (connect, TLS, request), QUIC 2. Cells that do not agree "
			 "with the model are marked with the reason in short; <a href=\"#agreement\">the agreement "
			 "table</a> has it in full. Size-emulated schemes (emu-*) are measured by their bytes: their "
			 "CPU time is Ed25519's.</p><div class=\"scroll\"><table class=\"sort\"><thead><tr>"
			 "<th class=\"l\">candidate</th><th>chain B</th><th>first flight B</th>");
	for (size_t k = 0; k < a->ncand_cols; k++) {
		pq_cand_col_label(&a->cand_cols[k], lab, sizeof lab);
		pq_out_printf(o, "<th class=\"l\">");
		pq_out_text(o, lab);
		pq_out_printf(o, "</th>");
	}
	pq_out_printf(o, "</tr></thead><tbody>");
	for (size_t i = 0; i < a->ncands; i++) {
		const pq_agg_cand *c = &a->cands[i];
		pq_out_printf(o, "<tr><td class=\"l\">");
		pq_out_text(o, c->arm);
		pq_out_printf(o, "</td><td>%lld</td><td>%lld</td>", c->chain_bytes, c->flight_bytes);
		for (size_t k = 0; k < a->ncand_cols; k++) {
			cell(o, c->g[k]);
			if (c->g[k] && c->g[k]->has_model) {
				total++;
				agree += (size_t)c->g[k]->agrees;
			}
		}
		pq_out_printf(o, "</tr>");
	}
	pq_out_printf(o, "</tbody></table></div><p>%zu of %zu cells measured where the model puts them "
			 "(within %.2f RTT in every phase).</p>",
		      agree, total, PQ_MODEL_AGREE_RTT);
}
