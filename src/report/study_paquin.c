/* Paquin, Stebila and Tamvada as a study (report/study.h): handshake percentiles against loss
 * for a key-exchange pair and a signature pair, a row per family of cells varying in loss alone. */
#include "report/study_rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/curve.h"
#include "stats/sample.h"

/* The PQ group beside classical group c: what wq asks at c's loss, and of those the one
 * that differs from c in the fewest dimensions (c's loss unit, burst, response). */
static const pq_agg_group *paquin_partner(const pq_agg *a, const pq_agg_group *c, long long rtt, const want *wq)
{
	want q = *wq;
	q.rtt_us = IS(rtt);
	q.loss = IS(pq_agg_dim_num(c->cell, "loss"));
	const pq_agg_group *best = NULL;
	int bd = 0;
	for (size_t i = 0; i < a->n; i++) {
		const pq_agg_group *g = &a->g[i];
		if (g->host != 0 || g->cell->quic || g->n[PQ_AGG_HS] < 2 || !pq_study_matches(g->cell, &q))
			continue;
		int d = pq_curve_distance(c->cell, g->cell);
		if (!best || d < bd)
			best = g, bd = d;
	}
	return best;
}

/* One row for the classical groups that differ from `fam` in their loss only (Paquin et
 * al. varied loss and nothing else), each beside its PQ partner; none when one loss level. */
static void paquin_family(rows *rs, const pq_study *st, long long rtt, const pq_rdb_cell *fam, const want *wc,
			  const want *wq, int say_unit)
{
	const pq_agg *a = rs->a;
	pq_agg_study *s = NULL;
	double first[2][2] = {{NAN, NAN}, {NAN, NAN}}, last[2][2] = {{NAN, NAN}, {NAN, NAN}}, lmin = -1, lmax = -1;
	for (size_t i = 0; i < a->n; i++) {
		want c = *wc;
		c.rtt_us = IS(rtt);
		if (a->g[i].host != 0 || a->g[i].cell->quic || !pq_study_matches(a->g[i].cell, &c) || a->g[i].n[PQ_AGG_HS] < 2 ||
		    !pq_curve_same_but(fam, a->g[i].cell, "loss"))
			continue;
		const pq_agg_group *g[2] = {&a->g[i], paquin_partner(a, &a->g[i], rtt, wq)};
		if (!g[1])
			continue;
		if (!s && !(s = calloc(1, sizeof *s))) {
			rs->err = PQ_ENOMEM;
			return;
		}
		double loss = pq_agg_dim_num(g[0]->cell, "loss");
		cat(s->ours, sizeof s->ours, "%sloss %g %%:", lmin < 0 ? "" : "; ", loss);
		for (int k = 0; k < 2; k++) {
			double p50 = pq_stats_quantile(g[k]->v[PQ_AGG_HS], g[k]->n[PQ_AGG_HS], 500),
			       p95 = pq_stats_quantile(g[k]->v[PQ_AGG_HS], g[k]->n[PQ_AGG_HS], 950);
			cat(s->ours, sizeof s->ours, " %s p25 %.1f p50 %.1f p75 %.1f p95 %.1f", k ? "/ PQ" : "classical",
			    pq_stats_quantile(g[k]->v[PQ_AGG_HS], g[k]->n[PQ_AGG_HS], 250), p50,
			    pq_stats_quantile(g[k]->v[PQ_AGG_HS], g[k]->n[PQ_AGG_HS], 750), p95);
			if (lmin < 0 || loss < lmin)
				first[k][0] = p50, first[k][1] = p95;
			if (loss > lmax)
				last[k][0] = p50, last[k][1] = p95;
		}
		if (lmin < 0 || loss < lmin)
			lmin = loss;
		if (loss > lmax)
			lmax = loss;
	}
	if (!s)
		return;
	if (!(lmax > lmin)) { /* one loss level: nothing to say about loss */
		free(s);
		return;
	}
	pq_agg_study *row = pq_study_add(rs, st->name);
	if (!row) {
		free(s);
		return;
	}
	snprintf(row->ours, sizeof row->ours, "%s", s->ours);
	free(s);
	s = row;
	cat(s->ours, sizeof s->ours, " (handshake ms)");
	const char *unit = pq_agg_dim_text(fam, "loss-unit");
	snprintf(s->question, sizeof s->question, "handshake percentiles against loss, %s, %g ms RTT%s%s", wq->what,
		 (double)rtt / 1e3, say_unit ? ", loss per " : "", say_unit ? (unit && *unit ? unit : "segment") : "");
	snprintf(s->theirs, sizeof s->theirs, "p25-p95 of handshake time against 0-20 %% loss: the tail grows first and "
		 "larger handshakes suffer more (their finding as the reference summarises it; no figure of theirs is in "
		 "../shared/seeds to quote)");
	double g50 = last[1][0] / first[1][0], g95 = last[1][1] / first[1][1];
	double d0 = first[1][1] - first[0][1], d1 = last[1][1] - last[0][1];
	s->agrees = g95 > g50 && d1 >= d0;
	snprintf(s->verdict, sizeof s->verdict,
		 "%s: from %g %% to %g %% loss the PQ median grows x%.2f and its p95 x%.2f; PQ minus classical at p95 goes from "
		 "%+.1f to %+.1f ms%s", s->agrees ? "agrees" : "differs", lmin, lmax, g50, g95, d0, d1,
		 s->agrees ? "" : " (with few connections per level the p95 is noisy; run more connections)");
}

/* A row per family of classical groups that vary in loss alone at this RTT (per segment and
 * per burst are two), at most four. */
static void paquin_pair(rows *rs, const pq_study *st, long long rtt, const want *wc, const want *wq)
{
	const pq_agg *a = rs->a;
	const pq_rdb_cell *fams[4];
	size_t nf = 0;
	int units = 0;
	for (size_t i = 0; i < a->n && nf < 4; i++) {
		want c = *wc;
		c.rtt_us = IS(rtt);
		const pq_rdb_cell *x = a->g[i].cell;
		if (a->g[i].host != 0 || x->quic || !pq_study_matches(x, &c) || a->g[i].n[PQ_AGG_HS] < 2)
			continue;
		size_t f = 0;
		while (f < nf && !pq_curve_same_but(fams[f], x, "loss"))
			f++;
		if (f == nf) {
			units |= nf && strcmp(pq_agg_dim_text(fams[0], "loss-unit") ? pq_agg_dim_text(fams[0], "loss-unit") : "",
					      pq_agg_dim_text(x, "loss-unit") ? pq_agg_dim_text(x, "loss-unit") : "") != 0;
			fams[nf++] = x;
		}
	}
	for (size_t f = 0; f < nf && !rs->err; f++)
		paquin_family(rs, st, rtt, fams[f], wc, wq, units);
}

/* The classical pair and its two PQ partners: the key exchange's, the signature's. */
static const long long paquin_rtts[] = {78600, 195600};
static const want paquin_wants[] = {
    {.what = "classical", .leaf = "ecdsa-p256", .group = "X25519", .resumed = IS(0), .padded = IS(0)},
    {.what = "key exchange X25519 vs X25519MLKEM768 (ECDSA)", .leaf = "ecdsa-p256", .group = "X25519MLKEM768",
     .resumed = IS(0), .padded = IS(0)},
    {.what = "signature ECDSA vs ML-DSA-44 (X25519)", .leaf = "ml-dsa-44", .group = "X25519", .resumed = IS(0),
     .padded = IS(0)},
};

static void paquin(rows *rs, const pq_study *st)
{
	const pq_agg *a = rs->a;
	for (size_t r = 0; r < a->nrtts; r++)
		for (size_t k = 1; k < st->nwants && !rs->err; k++)
			paquin_pair(rs, st, a->rtts[r], &st->wants[0], &st->wants[k]);
}

const pq_study pq_study_paquin_loss = {
    .id = "paquin-loss",
    .name = "Paquin et al. (2019)",
    .source = "Paquin, Stebila and Tamvada (PQCrypto 2020), as ../shared/reference/anchors.md summarises it",
    .presets = "loss",
    .wants = paquin_wants,
    .nwants = sizeof paquin_wants / sizeof paquin_wants[0],
    .rtts_us = paquin_rtts,
    .nrtts = sizeof paquin_rtts / sizeof paquin_rtts[0],
    .rows = paquin,
};
