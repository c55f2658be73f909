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

/* The group of `arm` on host 0 at `rtt_us` (-1: any) with `inter` intermediates (-1:
 * any), response `resp` (-2: any), on a link `link` accepts (NULL: any); NULL if none. */
static const pq_agg_group *pick(const pq_agg *a, const char *arm, long long rtt_us, int inter,
				long long resp, int (*link)(const pq_rdb_cell *))
{
	for (size_t i = 0; i < a->n; i++) {
		const pq_agg_group *g = &a->g[i];
		const pq_rdb_cell *c = g->cell;
		if (g->host == 0 && strcmp(c->arm, arm) == 0 && (rtt_us < 0 || c->rtt_us == rtt_us) &&
		    (inter < 0 || c->intermediates == inter) && (resp == -2 || c->response_bytes == resp) &&
		    (!link || link(c)) && g->n[PQ_AGG_TTFB] > 0)
			return g;
	}
	return NULL;
}

static double med(const pq_agg_group *g, enum pq_agg_phase p)
{
	return g->desc[p].median;
}

/* Table V: TTFB growth of an ML-DSA-44 chain from the leaf alone to leaf + 2 intermediates. */
static int table5(const pq_agg *a, char *buf, size_t n)
{
	for (size_t r = 0; r < a->nrtts; r++) {
		const pq_agg_group *g0 = pick(a, "ml-dsa-44", a->rtts[r], 0, -2, NULL);
		const pq_agg_group *g2 = pick(a, "ml-dsa-44", a->rtts[r], 2, -2, NULL);
		if (!g0 || !g2)
			continue;
		snprintf(buf, n, "ml-dsa-44 at %.0f ms RTT, leaf (%.1f kB) to leaf + 2 intermediates (%.1f kB): TTFB median %.2f to %.2f ms (%+.2f ms)",
			 (double)a->rtts[r] / 1e3, (double)g0->cell->chain_der_bytes / 1e3,
			 (double)g2->cell->chain_der_bytes / 1e3, med(g0, PQ_AGG_TTFB), med(g2, PQ_AGG_TTFB),
			 med(g2, PQ_AGG_TTFB) - med(g0, PQ_AGG_TTFB));
		return 1;
	}
	return 0;
}

static int median_ci(const pq_agg_group *g, enum pq_agg_phase p, char *buf, size_t n)
{
	const pq_ci_desc *c = &g->desc[p];
	if (c->has_ci)
		return snprintf(buf, n, "%.2f ms [%.2f, %.2f] (median, 95 %% CI, n = %zu)", c->median,
				c->median_lo, c->median_hi, c->n);
	return snprintf(buf, n, "%.2f ms (median, n = %zu: too few for a CI)", c->median, c->n);
}

/* Table VI at 50 ms (the paper's ECDSA-based simulation): arm here, the paper's column, its figure. */
static const struct {
	const char *arm, *theirs;
	int inter; /* the paper used 1 intermediate; MTC has none */
} table6[] = {
    {"ecdsa-p256", "ECDSA X.509: 109.00 ± 1.18 ms (mean ± sd)", 1},
    {"ml-dsa-44", "ML-DSA: 108.77 ± 0.19 ms", 1},
    {"slh-192s CA + ml-dsa-44", "SLH-DSA: 159.41 ± 0.32 ms (one RTT more)", 1},
    {"mtc landmark ml-dsa-44", "MTC + ML-DSA: 108.96 ± 0.95 ms", 0},
    {"ecdsa-p256 resumed", "session resumption: 107.49 ± 0.15 ms", 1},
};

/* Table VIII: today's chain against MTC-sized and compressed ones, in round trips. */
static const char *const table8[] = {"ml-dsa-44 today", "ml-dsa-44 mtc landmark", "ml-dsa-44 mtc standalone",
				     "ml-dsa-44 compressed"};

static int table8_row(const pq_agg *a, char *buf, size_t n)
{
	size_t len = 0;
	int found = 0;
	for (size_t r = 0; r < a->nrtts && !found; r++) {
		len = 0;
		found = 0;
		if (!pick(a, table8[0], a->rtts[r], -1, -2, NULL))
			continue;
		for (size_t i = 0; i < sizeof table8 / sizeof table8[0] && len < n; i++) {
			const pq_agg_group *g = pick(a, table8[i], a->rtts[r], -1, -2, NULL);
			if (!g || !(g->min_rtt_ms > 0))
				continue;
			const pq_rdb_cell *c = g->cell;
			len += (size_t)snprintf(buf + len, n - len, "%s%s: %s %.1f kB, TTFB %.1f ms = %.1f RTT",
						found ? "; " : "", table8[i],
						c->flight_bytes > 0 ? "first flight" : "chain",
						(double)(c->flight_bytes > 0 ? c->flight_bytes : c->chain_der_bytes) / 1e3,
						med(g, PQ_AGG_TTFB), g->rounds[PQ_AGG_TTFB]);
			found++;
		}
		found = found >= 2;
	}
	return found;
}

/* The AWS study's links, told apart by their parameters (profiles aws-fast, aws-lowbw). */
static int aws_fast(const pq_rdb_cell *c)
{
	return c->loss_pct == 0 && c->rate_bps >= 1e8 && c->jitter_us < 1000;
}

static int aws_lowbw(const pq_rdb_cell *c)
{
	return c->loss_pct == 0 && c->rate_bps > 0 && c->rate_bps <= 1e7;
}

/* Slowdown (%) of ML-DSA-65 + X25519MLKEM768 over ECDSA + X25519 in phase p at response resp. */
static int aws_slowdown(const pq_agg *a, int (*link)(const pq_rdb_cell *), long long resp,
			enum pq_agg_phase p, double *pct)
{
	const pq_agg_group *b = pick(a, "ecdsa-p256 X25519", -1, -1, resp, link);
	const pq_agg_group *q = pick(a, "ml-dsa-65 X25519MLKEM768", -1, -1, resp, link);
	if (!b || !q || !b->n[p] || !q->n[p] || !(med(b, p) > 0))
		return 0;
	*pct = (med(q, p) / med(b, p) - 1) * 100;
	return 1;
}

static void paper_aws(pq_out *o, const pq_agg *a)
{
	char ours[600], m[160];
	double x, y;
	if (table5(a, ours, sizeof ours))
		row(o, "paper Table V (seeds/003)", "TTFB against intermediates, ML-DSA-44",
		    "leaf (3.9 kB) to leaf + 2 ints (11.9 kB): 5.46 to 6.85 ms simulated, 56.81 to 57.48 ms with OQS", ours);
	for (size_t i = 0; i < sizeof table6 / sizeof table6[0]; i++) {
		const pq_agg_group *g = pick(a, table6[i].arm, 50000, table6[i].inter, -2, NULL);
		if (!g)
			continue;
		median_ci(g, PQ_AGG_TTFB, m, sizeof m);
		snprintf(ours, sizeof ours, "%s: TTFB %s", table6[i].arm, m);
		row(o, "paper Table VI (seeds/003)", "TTFB at 50 ms RTT", table6[i].theirs, ours);
	}
	if (table8_row(a, ours, sizeof ours))
		row(o, "paper Table VIII (seeds/003)", "do MTC or compression bring a chain under a cliff?",
		    "MTC (1 int.) avoids the extra RTT for 10-18 kB and 40-78 kB chains; CDN 25 %: 10-13, 40-53 kB; CDN 40 %: 10-17, 40-67 kB",
		    ours);
	if (aws_slowdown(a, aws_fast, 200 * 1024, PQ_AGG_TTLB, &x)) {
		snprintf(ours, sizeof ours, "aws-fast link, 200 KiB: TTLB %+.1f %%", x);
		row(o, "AWS (seeds/004, abstract)", "ML-DSA-65 + ML-KEM vs ECDSA + X25519, fast stable link",
		    "TTLB increase stays below 5 %", ours);
	}
	if (aws_slowdown(a, aws_lowbw, 50 * 1024, PQ_AGG_TTFB, &x) &&
	    aws_slowdown(a, aws_lowbw, 50 * 1024, PQ_AGG_TTLB, &y)) {
		snprintf(ours, sizeof ours, "aws-lowbw link, 50 KiB: TTFB %+.1f %%, TTLB %+.1f %%", x, y);
		row(o, "AWS (seeds/004, abstract)", "the same on a low-bandwidth stable link",
		    "32 % TTFB increase, under 15 % TTLB from 50 KiB", ours);
	}
}

void pq_report_studies(pq_out *o, const pq_agg *a)
{
	uint64_t seed = a->seed;
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
	paper_aws(o, a);
	pq_out_printf(o, "</tbody></table></div><p class=\"note\">The studies' figures are quoted from "
			 "their text (see ../shared/seeds/README.md), not re-measured; a row appears when "
			 "this database has the arms to answer it.</p>");
}
