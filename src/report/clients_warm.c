/* What a post-quantum chain costs a warm Chromium's certificate verification against a
 * classical one (report/clients.h: pq_clients_warm_build). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pki/alg.h"
#include "report/clients.h"
#include "report/curve.h"
#include "report/out.h"
#include "stats/sample.h"

static int is_warm(const pq_agg_group *g)
{
	const pq_dimval *v = &g->cell->dim[PQ_D_BROWSER_STATE];
	return g->browser && v->kind == PQ_DV_TEXT && strcmp(v->s, "warm") == 0;
}

/* ECDSA, RSA or EdDSA: a key pqtls knows by that name and family. */
static int classical_alg(const pq_dimval *v)
{
	const pq_alg *a = v->kind == PQ_DV_TEXT ? pq_alg_find(v->s) : NULL;
	return a && (a->family == PQ_ALG_ECDSA || a->family == PQ_ALG_RSA || a->family == PQ_ALG_EDDSA);
}

/* Classical at every level, not padded, no MTC. */
static int classical(const pq_rdb_cell *c)
{
	const pq_dimval *pad = &c->dim[PQ_D_PAD], *mtc = &c->dim[PQ_D_MTC];
	return classical_alg(&c->dim[PQ_D_LEAF]) && classical_alg(&c->dim[PQ_D_INTER]) &&
	       classical_alg(&c->dim[PQ_D_ROOT]) && !(pad->kind == PQ_DV_INT && pad->i > 0) &&
	       !(mtc->kind == PQ_DV_TEXT && strcmp(mtc->s, "none") != 0);
}

/* The warm classical grid point beside g: the same host and RTT, the chain alone apart. */
static const pq_agg_group *classical_of(const pq_agg *a, const pq_agg_group *g)
{
	for (size_t i = 0; i < a->n; i++) {
		const pq_agg_group *c = &a->g[i];
		if (c != g && is_warm(c) && c->host == g->host && c->rtt == g->rtt && classical(c->cell) &&
		    pq_curve_same_but_chain(c->cell, g->cell))
			return c;
	}
	return NULL;
}

int pq_clients_warm_build(pq_agg *a)
{
	for (size_t i = 0; i < a->n; i++) {
		const pq_agg_group *g = &a->g[i], *c = is_warm(g) && !classical(g->cell) ? classical_of(a, g) : NULL;
		if (!c)
			continue;
		if (!a->warm && !(a->warm = calloc(a->n, sizeof *a->warm)))
			return PQ_ENOMEM;
		pq_agg_warm *w = &a->warm[a->nwarm++];
		*w = (pq_agg_warm){.pq = g, .cl = c};
		w->pq_ms = pq_stats_quantile(g->br[PQ_AGG_BR_VERIFY], g->nbr[PQ_AGG_BR_VERIFY], PQ_STATS_MEDIAN);
		w->cl_ms = pq_stats_quantile(c->br[PQ_AGG_BR_VERIFY], c->nbr[PQ_AGG_BR_VERIFY], PQ_STATS_MEDIAN);
		pq_diag e = {0};
		int rc = pq_boot_diff(c->br[PQ_AGG_BR_VERIFY], c->nbr[PQ_AGG_BR_VERIFY], g->br[PQ_AGG_BR_VERIFY],
				      g->nbr[PQ_AGG_BR_VERIFY], PQ_AGG_BOOT_REPS, a->seed, &w->verify, &e);
		if (rc == PQ_ENOMEM)
			return rc;
		w->has = rc == 0;
	}
	return 0;
}

void pq_clients_warm_text(const pq_agg *a, char *buf, size_t n)
{
	buf[0] = '\0';
	for (size_t i = 0; i < a->nwarm; i++) {
		const pq_agg_warm *w = &a->warm[i];
		if (i == 0 || w->pq->rtt != a->warm[i - 1].pq->rtt)
			pq_out_cat(buf, n, "%sA warm Chromium's certificate verification (another origin first) at %.0f ms: ",
				   i ? "; " : "", (double)w->pq->cell->rtt_us / 1e3);
		else
			pq_out_cat(buf, n, ", ");
		pq_out_cat(buf, n, "%s %.1f ms against %s's %.1f", w->pq->cell->arm, w->pq_ms, w->cl->cell->arm, w->cl_ms);
		if (w->has)
			pq_out_cat(buf, n, ", %+.1f [%+.1f, %+.1f] ms", w->verify.diff, w->verify.diff_lo, w->verify.diff_hi);
		else
			pq_out_cat(buf, n, " (too few to compare)");
	}
	if (a->nwarm)
		pq_out_cat(buf, n, " (medians; post-quantum minus classical with its 95 %% bootstrap interval)");
}
