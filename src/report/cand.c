#include "report/cand.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int col_of(pq_agg *a, const pq_rdb_cell *c)
{
	pq_agg_cand_col k = {.quic = c->quic, .initcwnd = c->quic ? 0 : c->initcwnd, .rtt_us = c->rtt_us};
	for (size_t i = 0; i < a->ncand_cols; i++)
		if (a->cand_cols[i].quic == k.quic && a->cand_cols[i].initcwnd == k.initcwnd &&
		    a->cand_cols[i].rtt_us == k.rtt_us)
			return (int)i;
	if (a->ncand_cols == PQ_AGG_CAND_COLS)
		return -1;
	a->cand_cols[a->ncand_cols] = k;
	return (int)a->ncand_cols++;
}

static int col_cmp(const void *x, const void *y)
{
	const pq_agg_cand_col *p = x, *q = y;
	if (p->quic != q->quic)
		return p->quic - q->quic;
	if (p->initcwnd != q->initcwnd)
		return p->initcwnd - q->initcwnd;
	return (p->rtt_us > q->rtt_us) - (p->rtt_us < q->rtt_us);
}

static int cand_cmp(const void *x, const void *y)
{
	const pq_agg_cand *p = x, *q = y;
	if (p->flight_bytes != q->flight_bytes)
		return (p->flight_bytes > q->flight_bytes) - (p->flight_bytes < q->flight_bytes);
	return strcmp(p->arm, q->arm);
}

static pq_agg_cand *cand_of(pq_agg *a, const pq_agg_group *g)
{
	for (size_t i = 0; i < a->ncands; i++)
		if (strcmp(a->cands[i].arm, g->cell->arm) == 0)
			return &a->cands[i];
	pq_agg_cand *c = &a->cands[a->ncands++];
	*c = (pq_agg_cand){.arm = g->cell->arm, .chain_bytes = g->cell->chain_der_bytes, .flight_bytes = -1};
	return c;
}

/* The shape: TCP and QUIC cells, every arm varying only the link (no size or response
 * sweep, no retry, one response size), a model for every group, and arms that differ in
 * their chain: candidates are chains. key-share's arms share one chain (they differ in
 * the key share): no table there. */
static int fits_shape(const pq_agg *a)
{
	int tcp = 0, quic = 0, chains = 0;
	for (size_t i = 0; i < a->n; i++) {
		const pq_rdb_cell *c = a->g[i].cell;
		if (a->kind[a->g[i].arm] != PQ_AGG_KEY || c->quic_retry || c->resume_pct > 0 ||
		    c->response_bytes != a->g[0].cell->response_bytes)
			return 0;
		tcp |= !c->quic;
		quic |= c->quic;
		chains |= c->chain_der_bytes != a->g[0].cell->chain_der_bytes;
	}
	return tcp && quic && chains;
}

int pq_cand_build(pq_agg *a)
{
	a->ncands = a->ncand_cols = 0;
	if (!fits_shape(a))
		return 0;
	a->cands = calloc(a->n, sizeof *a->cands);
	if (!a->cands)
		return -1;
	for (size_t i = 0; i < a->n; i++)
		if (col_of(a, a->g[i].cell) < 0) {
			a->ncand_cols = 0; /* too many columns for one table */
			return 0;
		}
	qsort(a->cand_cols, a->ncand_cols, sizeof a->cand_cols[0], col_cmp);
	for (size_t i = 0; i < a->n; i++) {
		const pq_agg_group *g = &a->g[i];
		pq_agg_cand *c = cand_of(a, g);
		int k = col_of(a, g->cell);
		if (!c->g[k] || g->host < c->g[k]->host)
			c->g[k] = g; /* the first host's */
		if (!g->cell->quic && g->cell->flight_bytes > 0)
			c->flight_bytes = g->cell->flight_bytes;
	}
	qsort(a->cands, a->ncands, sizeof a->cands[0], cand_cmp);
	return 0;
}

void pq_cand_col_label(const pq_agg_cand_col *c, char *buf, size_t n)
{
	if (c->quic)
		snprintf(buf, n, "QUIC %g ms", (double)c->rtt_us / 1e3);
	else
		snprintf(buf, n, "TCP IW%d %g ms", c->initcwnd, (double)c->rtt_us / 1e3);
}

void pq_cand_verdict(const pq_agg_group *g, char *buf, size_t n)
{
	unsigned extra = g->has_model && g->model.flight_rounds > 1 ? g->model.flight_rounds - 1 : 0;
	if (!g->has_model)
		snprintf(buf, n, "no model");
	else if (!extra)
		snprintf(buf, n, "fits");
	else
		snprintf(buf, n, "costs %u round trip%s", extra, extra == 1 ? "" : "s");
}
