/* pqtls's client beside Chromium (report/clients.h) as HTML: formatting only. */
#include <math.h>
#include <stdio.h>

#include "report/clients.h"
#include "report/findings.h"
#include "report/keyhtml.h"
#include "report/out.h"
#include "report/verdict.h"

/* A bootstrap difference, with `extra` after it; marked when `bad`. */
static void boot_cell(pq_out *o, int has, const pq_boot_result *r, const char *extra, int bad)
{
	char b[200];
	if (!has) {
		pq_out_printf(o, "<td class=\"na\">too few values</td>");
		return;
	}
	pq_boot_verdict(r, 1, "ms", b, sizeof b);
	pq_out_printf(o, "<td class=\"l%s\">", bad ? " bad" : "");
	pq_out_text(o, b);
	pq_out_text(o, extra);
	pq_out_printf(o, "</td>");
}

static void ms_cell(pq_out *o, double v)
{
	if (isfinite(v))
		pq_out_printf(o, "<td>%.1f</td>", v);
	else
		pq_out_printf(o, "<td class=\"na\">not stored</td>");
}

static void row(pq_out *o, const pq_agg *a, size_t i)
{
	const pq_agg_pair *p = &a->pairs[i];
	char label[400], id[40], extra[64], model[200];
	pq_agg_point_label(a, p->pq, "client", label, sizeof label);
	pq_findings_group_id(a, p->pq, id, sizeof id);
	pq_out_printf(o, "<tr id=\"pair-%zu\"><td class=\"l\"><a href=\"#%s\">", i, id);
	pq_out_text(o, label);
	pq_out_printf(o, "</a></td>");
	pq_keyhtml_ms_ci(o, &p->pq->desc[PQ_AGG_TTFB]);
	pq_keyhtml_ms_ci(o, &p->br->desc[PQ_AGG_TTFB]);
	boot_cell(o, p->has_fb, &p->fb, "", 0);
	extra[0] = '\0';
	if (isfinite(p->net_rtts))
		snprintf(extra, sizeof extra, "; %+.2f RTT", p->net_rtts);
	boot_cell(o, p->has_net, &p->net, extra, pq_verdict_pair_judged(p) && !p->within);
	ms_cell(o, p->verify_ms);
	ms_cell(o, p->dispatch_ms);
	ms_cell(o, p->rest_ms);
	pq_clients_model_text(p, model, sizeof model);
	pq_out_printf(o, "<td class=\"l\">");
	pq_out_text(o, model);
	pq_out_printf(o, "</td></tr>");
}

/* A warm browser's verification, post-quantum chain against classical. */
static void warm_table(pq_out *o, const pq_agg *a)
{
	char sum[1600];
	pq_clients_warm_text(a, sum, sizeof sum);
	pq_out_printf(o, "<h3 id=\"clients-warm\">What a post-quantum chain costs a warm browser</h3><p>");
	pq_out_text(o, sum);
	pq_out_printf(o, ".</p><p class=\"note\">Chromium with <code>browser-state = warm</code>: a navigation to "
			 "another origin first, so the measured connection is new but the browser is not (its first "
			 "certificate verification is behind it). Each post-quantum grid point beside the classical one "
			 "(ECDSA, RSA or EdDSA at every level) that differs from it in the chain only. Medians of the "
			 "certificate verification (CERT_VERIFIER_REQUEST in the browser's NetLog, 1 ms steps); the "
			 "difference is post-quantum minus classical by bootstrap (1,000 resamples, seed %llu).</p>"
			 "<div class=\"scroll\"><table class=\"sort\"><thead><tr><th class=\"l\">arm</th>"
			 "<th class=\"l\">classical arm</th><th>RTT ms</th><th>verify ms</th><th>classical verify ms</th>"
			 "<th class=\"l\">post-quantum minus classical</th></tr></thead><tbody>",
		      (unsigned long long)a->seed);
	for (size_t i = 0; i < a->nwarm; i++) {
		const pq_agg_warm *w = &a->warm[i];
		pq_out_printf(o, "<tr><td class=\"l\">");
		pq_out_text(o, w->pq->cell->arm);
		pq_out_printf(o, "</td><td class=\"l\">");
		pq_out_text(o, w->cl->cell->arm);
		pq_out_printf(o, "</td><td>%.0f</td>", (double)w->pq->cell->rtt_us / 1e3);
		ms_cell(o, w->pq_ms);
		ms_cell(o, w->cl_ms);
		boot_cell(o, w->has, &w->verify, "", 0);
		pq_out_printf(o, "</tr>");
	}
	pq_out_printf(o, "</tbody></table></div>");
}

void pq_clients_html(pq_out *o, const pq_agg *a)
{
	char sum[1200];
	if (!a->npairs && !a->nwarm)
		return;
	if (!a->npairs) {
		pq_out_printf(o, "<h2 id=\"clients\">Chromium</h2>");
		warm_table(o, a);
		return;
	}
	pq_clients_summary_text(a, sum, sizeof sum);
	pq_out_printf(o, "<h2 id=\"clients\">pqtls's client beside Chromium</h2><p>");
	pq_out_text(o, sum);
	pq_out_printf(o, ".</p><p class=\"note\">One row per grid point both clients measured (the two differ in "
			 "<code>client</code> only). Medians of the first byte with 95 %% intervals; differences are "
			 "Chromium minus pqtls by bootstrap (" PQ_AGG_BOOT_REPS_WORDS " resamples, seed %llu): of Chromium's whole first byte, "
			 "and of its network-only one (the server's first flight received, then one request's round trip: "
			 "what the link and TCP take, without Chromium's own work) against pqtls's, whose client's own "
			 "work is microseconds. The whole difference is split into Chromium's certificate verification "
			 "and its request's dispatch (medians of its connections) and the rest. Round trips are over "
			 "pqtls's median min RTT on the same link (Chromium's tcp_info is not read); a WAN grid point "
			 "whose network-only difference is over %.2f round trips is marked. The flight model's round trips "
			 "to the first byte are for each client's own ClientHello (Chromium's as it sent it, median).</p>"
			 "<div class=\"scroll\"><table class=\"sort\"><thead><tr><th class=\"l\">grid point</th>"
			 "<th>pqtls TTFB ms</th><th>Chromium TTFB ms</th><th class=\"l\">Chromium minus pqtls</th>"
			 "<th class=\"l\">network-only minus pqtls</th><th>verify ms</th><th>dispatch ms</th>"
			 "<th>rest ms</th><th class=\"l\">TTFB round trips, pqtls / Chromium</th></tr></thead><tbody>",
		      (unsigned long long)a->seed, PQ_MODEL_AGREE_RTT);
	for (size_t i = 0; i < a->npairs; i++)
		row(o, a, i);
	pq_out_printf(o, "</tbody></table></div>");
	if (a->nwarm)
		warm_table(o, a);
}
