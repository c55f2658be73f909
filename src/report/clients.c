/* pqtls's client beside Chromium, per grid point (report/clients.h). */
#include "report/clients.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/curve.h"
#include "report/out.h"
#include "report/verdict.h"
#include "stats/sample.h"

#define WAN_US 10000 /* below, the handshake's CPU time is a large share of a round trip */

/* A cold browser's group (NULL: a database from before the browser's state was stored). */
static int cold(const pq_agg_group *g)
{
	const pq_dimval *v = &g->cell->dim[PQ_D_BROWSER_STATE];
	return v->kind == PQ_DV_NULL || (v->kind == PQ_DV_TEXT && strcmp(v->s, "cold") == 0);
}

/* pqtls's group at a cold Chromium's grid point: the one that differs in `client` only. */
static const pq_agg_group *pqtls_of(const pq_agg *a, const pq_agg_group *br)
{
	if (!cold(br))
		return NULL; /* a warm or resuming browser is not what pqtls's client measures */
	for (size_t i = 0; i < a->n; i++) {
		const pq_agg_group *g = &a->g[i];
		if (!g->browser && g->host == br->host && pq_curve_same_but(g->cell, br->cell, "client"))
			return g;
	}
	return NULL;
}

static int fill_pair(const pq_agg *a, pq_agg_pair *p)
{
	const pq_agg_group *q = p->pq, *b = p->br;
	pq_diag e = {0};
	int rc = pq_boot_diff(q->v[PQ_AGG_TTFB], q->n[PQ_AGG_TTFB], b->v[PQ_AGG_TTFB], b->n[PQ_AGG_TTFB], PQ_AGG_BOOT_REPS,
			      a->seed, &p->fb, &e);
	if (rc == PQ_ENOMEM)
		return rc;
	p->has_fb = rc == 0;
	rc = pq_boot_diff(q->v[PQ_AGG_TTFB], q->n[PQ_AGG_TTFB], b->br[PQ_AGG_BR_NET], b->nbr[PQ_AGG_BR_NET], PQ_AGG_BOOT_REPS,
			  a->seed, &p->net, &e);
	if (rc == PQ_ENOMEM)
		return rc;
	p->has_net = rc == 0;
	p->verify_ms = pq_stats_quantile(b->br[PQ_AGG_BR_VERIFY], b->nbr[PQ_AGG_BR_VERIFY], PQ_STATS_MEDIAN);
	p->dispatch_ms = pq_stats_quantile(b->br[PQ_AGG_BR_DISPATCH], b->nbr[PQ_AGG_BR_DISPATCH], PQ_STATS_MEDIAN);
	p->rest_ms = p->has_fb ? p->fb.diff - p->verify_ms - p->dispatch_ms : NAN;
	p->net_ms = pq_stats_quantile(b->br[PQ_AGG_BR_NET], b->nbr[PQ_AGG_BR_NET], PQ_STATS_MEDIAN);
	/* Chromium's tcp_info is not read: both are said over pqtls's round trip on the link */
	p->rtt_ms = isfinite(q->min_rtt_ms) && q->min_rtt_ms > 0 ? q->min_rtt_ms : (double)q->cell->rtt_us / 1e3;
	p->rounds_pq = q->n[PQ_AGG_TTFB] && p->rtt_ms > 0 ? q->desc[PQ_AGG_TTFB].median / p->rtt_ms : NAN;
	p->rounds_net = p->rtt_ms > 0 ? p->net_ms / p->rtt_ms : NAN;
	p->net_rtts = p->has_net && p->rtt_ms > 0 ? p->net.diff / p->rtt_ms : NAN;
	p->wan = q->cell->rtt_us >= WAN_US;
	p->within = pq_model_agrees(0, p->net_rtts); /* the model's tolerance: 0 means no difference */
	return 0;
}

static void widen(double *lo, double *hi, double v)
{
	if (!isfinite(v))
		return;
	if (isnan(*lo) || v < *lo)
		*lo = v;
	if (isnan(*hi) || v > *hi)
		*hi = v;
}

/* Chromium's line beside pqtls's size sweep l (the same arm, host and RTT), or NULL. */
static const pq_agg_line *browser_line(const pq_agg *a, const pq_agg_line *l)
{
	for (size_t i = 0; i < a->nlines; i++) {
		const pq_agg_line *m = &a->lines[i];
		if (m->browser && m->arm >= 0 && m->arm == l->arm && m->host == l->host && m->rtt == l->rtt)
			return m;
	}
	return NULL;
}

static int same_steps(const pq_agg_line *l, const pq_agg_line *m)
{
	if (l->nsteps != m->nsteps)
		return 0;
	for (size_t k = 0; k < l->nsteps && k < PQ_AGG_LINE_STEPS; k++)
		if (l->steps[k].x_before != m->steps[k].x_before || l->steps[k].x_after != m->steps[k].x_after ||
		    (l->steps[k].jump > 0) != (m->steps[k].jump > 0))
			return 0;
	return 1;
}

static void summarize(pq_agg *a)
{
	pq_agg_pairs_sum *s = &a->pairs_sum;
	*s = (pq_agg_pairs_sum){.worst_rtts = NAN, .verify_lo = NAN, .verify_hi = NAN, .dispatch_lo = NAN,
				.dispatch_hi = NAN};
	for (size_t i = 0; i < a->npairs; i++) {
		const pq_agg_pair *p = &a->pairs[i];
		widen(&s->verify_lo, &s->verify_hi, p->verify_ms);
		widen(&s->dispatch_lo, &s->dispatch_hi, p->dispatch_ms);
		if (!pq_verdict_pair_judged(p))
			continue;
		s->wan++;
		s->within += (size_t)p->within;
		if (isnan(s->worst_rtts) || fabs(p->net_rtts) > fabs(s->worst_rtts))
			s->worst_rtts = p->net_rtts;
	}
	for (size_t i = 0; i < a->nlines; i++) {
		const pq_agg_line *l = &a->lines[i], *m = l->browser || l->arm < 0 ? NULL : browser_line(a, l);
		if (!m || l->cpu_bound || m->cpu_bound)
			continue;
		s->lines_both++;
		s->steps_same += (size_t)same_steps(l, m);
	}
}

int pq_clients_build(pq_agg *a)
{
	/* at most one pair per Chromium group */
	for (size_t i = 0; i < a->n; i++) {
		const pq_agg_group *b = &a->g[i], *q = b->browser ? pqtls_of(a, b) : NULL;
		if (!q)
			continue;
		if (!a->pairs && !(a->pairs = calloc(a->n, sizeof *a->pairs)))
			return PQ_ENOMEM;
		pq_agg_pair *p = &a->pairs[a->npairs++];
		*p = (pq_agg_pair){.pq = q, .br = b};
		if (fill_pair(a, p) < 0)
			return PQ_ENOMEM;
	}
	summarize(a);
	return 0;
}

void pq_clients_model_text(const pq_agg_pair *p, char *buf, size_t n)
{
	if (!p->pq->has_model || !p->br->has_model) {
		snprintf(buf, n, "no model");
		return;
	}
	snprintf(buf, n, "model %.2f / %.2f (ClientHello %zu / %zu B); measured ", p->pq->model.ttfb_t,
		 p->br->model.ttfb_t, p->pq->model_ch, p->br->model_ch);
	if (isfinite(p->rounds_pq) && isfinite(p->rounds_net))
		pq_out_cat(buf, n, "%.2f / %.2f", p->rounds_pq, p->rounds_net);
	else
		pq_out_cat(buf, n, "not known");
}

void pq_clients_split_text(const pq_agg_pair *p, char *buf, size_t n)
{
	if (!p->has_fb)
		snprintf(buf, n, "too few values");
	else if (!isfinite(p->rest_ms))
		snprintf(buf, n, "%+.1f ms (its parts not stored)", p->fb.diff);
	else
		snprintf(buf, n, "%+.1f = verification %.1f + dispatch %.1f + rest %+.1f ms", p->fb.diff, p->verify_ms,
			 p->dispatch_ms, p->rest_ms);
}

void pq_clients_summary_text(const pq_agg *a, char *buf, size_t n)
{
	const pq_agg_pairs_sum *s = &a->pairs_sum;
	buf[0] = '\0';
	if (!a->npairs)
		return;
	if (s->wan)
		pq_out_cat(buf, n,
			   "Chromium's network-only first byte is within %.2f round trips of pqtls's client's at %zu of "
			   "%zu WAN grid points (the largest difference %+.2f round trips)",
			   PQ_MODEL_AGREE_RTT, s->within, s->wan, s->worst_rtts);
	else
		pq_out_cat(buf, n, "No WAN grid point (10 ms or more) has both clients' first bytes");
	if (isfinite(s->verify_lo))
		pq_out_cat(buf, n, "; its certificate verification took %.1f to %.1f ms (medians per grid point)",
			   s->verify_lo, s->verify_hi);
	if (isfinite(s->dispatch_lo))
		pq_out_cat(buf, n, " and its request's dispatch %.1f to %.1f ms", s->dispatch_lo, s->dispatch_hi);
	if (s->lines_both)
		pq_out_cat(buf, n, "; the size sweeps step at the same chain sizes for both clients in %zu of %zu",
			   s->steps_same, s->lines_both);
}
