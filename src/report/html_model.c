/* The page's section of the flight model against the measurement (report/html_int.h):
 * each judged cell's predicted and measured round trips with its verdict or reason, and
 * the figure of measured against predicted. */
#include <math.h>

#include "report/html_int.h"
#include "report/svg.h"
#include "report/verdict.h"

#define MAX_PTS PQ_AGG_LINE_PTS

void pq_html_agreement(pq_html_page *p)
{
	const pq_agg *a = p->a;
	double px[MAX_PTS], py[MAX_PTS], bx[MAX_PTS], by[MAX_PTS];
	char resp[48];
	size_t n = 0, nb = 0, total = 0, agree = 0;
	pq_out *o = p->o;
	pq_out_printf(o, "<h2 id=\"agreement\">The flight model against the measurement</h2>"
			 "<div class=\"scroll\"><table class=\"sort\"><thead><tr><th class=\"l d\">host</th>"
			 "<th class=\"l d\">arm</th><th class=\"l d\">link</th><th>RTT ms</th><th>chain B</th><th>response B</th>"
			 "<th>handshake predicted / measured</th><th>TTFB predicted / measured</th>"
			 "<th>TTLB predicted / measured</th><th class=\"l\">agrees</th></tr></thead><tbody>");
	for (size_t i = 0; i < a->n; i++) {
		const pq_agg_group *g = &a->g[i];
		const pq_verdict_model v = pq_verdict_model_of(g);
		if (!v.judged)
			continue;
		total++;
		agree += (size_t)v.agrees;
		double *X = v.agrees ? px : bx, *Y = v.agrees ? py : by;
		size_t *k = v.agrees ? &n : &nb;
		if (*k < MAX_PTS) {
			X[*k] = v.predicted + 0.04 * (double)(g->arm % 5) - 0.08; /* spread equal points */
			Y[(*k)++] = v.measured;
		}
		pq_out_printf(o, "<tr><td class=\"l d\">"); /* d: on one line */
		pq_out_text(o, a->hosts[g->host]);
		pq_out_printf(o, "</td><td class=\"l d\">");
		pq_out_text(o, a->arms[g->arm]);
		/* the link's profile: two links of one RTT (the AWS study's four at 35 ms) apart */
		const pq_dimval *prof = &g->cell->dim[PQ_D_PROFILE];
		pq_out_printf(o, "</td><td class=\"l d\">");
		pq_out_text(o, prof->kind == PQ_DV_TEXT && prof->s[0] ? prof->s : pq_dims[PQ_D_PROFILE].def);
		pq_agg_response_show(g->cell, resp, sizeof resp);
		pq_out_printf(o, "</td><td>%g</td><td>%lld</td><td%s>%s</td><td>%.2f / %.2f</td>",
			      (double)g->cell->rtt_us / 1e3, g->cell->chain_der_bytes, g->cell->response_bytes < 0 ? " class=\"na\"" : "",
			      resp, g->model.handshake_t, g->rounds[PQ_AGG_HS]);
		if (v.phase == PQ_AGG_TTFB)
			pq_out_printf(o, "<td>%.2f / %.2f</td>", v.predicted, v.measured);
		else
			pq_out_printf(o, "<td class=\"na\">no response asked</td>");
		if (g->model.ttlb_t > 0 && isfinite(g->rounds[PQ_AGG_TTLB]))
			pq_out_printf(o, "<td>%.2f / %.2f</td>", g->model.ttlb_t, g->rounds[PQ_AGG_TTLB]);
		else
			pq_out_printf(o, "<td class=\"na\">%s</td>", v.phase == PQ_AGG_TTFB ? "no last byte" : "no response asked");
		pq_out_printf(o, "<td class=\"l%s\">", v.agrees ? "" : " bad");
		pq_out_text(o, v.agrees ? "yes" : g->agree_why);
		pq_out_printf(o, "</td></tr>");
	}
	pq_out_printf(o, "</tbody></table></div><p>%zu of %zu cells agree (measured median over min RTT, or the link's RTT behind a jitter of %g %% of it or more, within "
			 "%.2f RTT of the prediction, paced where the server's congestion control paces and with "
			 "each packet's time on a rate-limited link's wire, in every phase; where the rate adds "
			 "round trips, %g %% of them more); each other cell names its reason.</p>",
		      agree, total, PQ_AGG_JITTER_SHARE * 100, PQ_MODEL_AGREE_RTT, PQ_MODEL_AGREE_WIRE_SHARE * 100);
	if (!total)
		return;
	pq_svg_series s[2] = {{"agrees", px, py, n, NULL, NULL, PQ_SVG_POINTS, 2},
			      {"differs (reason in the table)", bx, by, nb, NULL, NULL, PQ_SVG_POINTS, 1}};
	pq_svg_chart c = {.id = "fig-agreement",
			  .caption = "Measured TTFB in round trips (median over min RTT; the handshake where no "
				     "response was asked) against the flight model's prediction, one point per "
				     "cell; the dashed line is agreement.",
			  .x = {"predicted TTFB (round trips)", 0, 0, 0},
			  .y = {"measured TTFB (round trips)", 0, 0, 0},
			  .s = s,
			  .ns = 2,
			  .diagonal = 1};
	pq_svg_chart_write(o, &c);
	pq_html_fig_add(p, "fig-agreement");
}
