#include "report/studies.h"

#include <stdio.h>
#include <string.h>

#include "model/base.h"
#include "model/cliff.h"

static int arm_named(const pq_agg *a, const char *name)
{
	for (size_t i = 0; i < a->narms; i++)
		if (strcmp(a->arms[i], name) == 0)
			return (int)i;
	return -1;
}

static int rtt_near(const pq_agg *a, long long us)
{
	for (size_t i = 0; i < a->nrtts; i++)
		if (a->rtts[i] == us)
			return (int)i;
	return -1;
}

static void row(pq_out *o, const char *study, const char *question, const char *theirs,
		const char *ours)
{
	pq_out_printf(o, "<tr><td class=\"l\">");
	pq_out_text(o, study);
	pq_out_printf(o, "</td><td class=\"l\">");
	pq_out_text(o, question);
	pq_out_printf(o, "</td><td class=\"l\">");
	pq_out_text(o, theirs);
	pq_out_printf(o, "</td><td class=\"l\">");
	pq_out_text(o, ours);
	pq_out_printf(o, "</td></tr>");
}

/* "b minus a" handshake at one RTT on host 0, as a verdict; 0 when not available. */
static int compare(const pq_agg *a, const char *arm_a, const char *arm_b, long long rtt,
		   uint64_t seed, char *buf, size_t n)
{
	int ia = arm_named(a, arm_a), ib = arm_named(a, arm_b), r = rtt_near(a, rtt);
	const pq_agg_group *ga = ia < 0 || r < 0 ? NULL : pq_agg_find(a, 0, ia, r, -2);
	const pq_agg_group *gb = ib < 0 || r < 0 ? NULL : pq_agg_find(a, 0, ib, r, -2);
	pq_boot_result res;
	if (!ga || !gb ||
	    pq_boot_diff(ga->v[PQ_AGG_HS], ga->n[PQ_AGG_HS], gb->v[PQ_AGG_HS], gb->n[PQ_AGG_HS],
			 1000, seed, &res, NULL) < 0)
		return 0;
	char v[160];
	pq_boot_verdict(&res, 1, "ms", v, sizeof v);
	snprintf(buf, n, "%s minus %s handshake: %s", arm_b, arm_a, v);
	return 1;
}

static int model_cliff(const char *leaf, char *buf, size_t n)
{
	pq_model_base b;
	pq_model_in net;
	pq_model_cliff c[4];
	size_t nc = 0;
	if (pq_model_base_alg(leaf, "leaf", 1, "X25519MLKEM768", 0, &b, NULL) < 0)
		return 0;
	pq_model_base_net(&b, 0, 0, 0, &net);
	if (pq_model_cliffs(&b.acct_in, 4096, 81920, &net, c, 4, &nc, NULL) < 0 || nc < 2)
		return 0;
	snprintf(buf, n, "flight model, %s chain with 1 intermediate, X25519MLKEM768, IW10: cliffs at %.2f kB and %.2f kB of chain",
		 leaf, (double)c[0].first_over / 1e3, (double)c[1].first_over / 1e3);
	return 1;
}

void pq_report_studies(pq_out *o, const pq_agg *a, uint64_t seed)
{
	char ours[400];
	pq_out_printf(o, "<h2 id=\"studies\">The studies beside this database</h2><div class=\"scroll\">"
			 "<table><thead><tr><th class=\"l\">study</th><th class=\"l\">question</th>"
			 "<th class=\"l\">what it reported</th><th class=\"l\">here</th></tr></thead><tbody>");
	const char *leaf_only = arm_named(a, "ml-dsa-65-leaf-only") >= 0 ? "ml-dsa-65-leaf-only" : "ml-dsa-65";
	if (compare(a, "ecdsa-p256", leaf_only, 1000, seed, ours, sizeof ours))
		row(o, "blog (seeds/000)", "ML-DSA-65 certificate vs ECDSA P-256, RTT 1 ms",
		    "+1.5 ms handshake", ours);
	if (compare(a, "ecdsa-p256", leaf_only, 148000, seed, ours, sizeof ours) ||
	    compare(a, "ecdsa-p256", leaf_only, 70000, seed, ours, sizeof ours))
		row(o, "blog (seeds/000)", "the same at WAN RTT",
		    "invisible: a 7.7 kB chain fits TCP's initial window", ours);
	if (compare(a, "ecdsa-p256", "ml-dsa-65", 70000, seed, ours, sizeof ours))
		row(o, "blog (seeds/000)", "a realistic ML-DSA-65 leaf + intermediate at 70 ms",
		    "predicted that larger chains cross the initial window", ours);
	if (model_cliff("ml-dsa-44", ours, sizeof ours))
		row(o, "paper (seeds/003)", "TTFB against chain size",
		    "cliffs near 10 kB and 40 kB of chain", ours);
	pq_out_printf(o, "</tbody></table></div><p class=\"note\">The studies' figures are quoted from "
			 "their text (see ../shared/seeds/README.md), not re-measured; a row appears when "
			 "this database has the arms to answer it.</p>");
}
