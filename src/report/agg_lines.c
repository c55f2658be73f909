/* The report's lines and series (report/agg.h): each size-sweeping arm's (or family's)
 * TTFB against the chain's size per host and RTT, with its measured steps, the model's
 * cliff and the CPU time that bounds what a step may claim; and the TTLB slowdown of each
 * arm against its baseline per link, by response size. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/wire.h"
#include "model/base.h"
#include "model/cliff.h"
#include "report/agg.h"
#include "report/curve.h"
#include "stats/boot.h"
#include "stats/sample.h"
#include "stats/step.h"

/* A point a key arms' line may hold: a key arm's full handshakes. */
static int key_point(const pq_agg *a, const pq_agg_group *g)
{
	return a->kind[g->arm] == PQ_AGG_KEY && g->cell->resume_pct == 0;
}

/* How many different sizes a line's points (ascending) have. */
static size_t distinct_sizes(const pq_agg_line *l)
{
	size_t n = l->n > 0;
	for (size_t i = 1; i < l->n; i++)
		n += l->x[i] != l->x[i - 1];
	return n;
}

/* The points of one line (see pq_agg_line), by chain size. */
static void line_points(const pq_agg *a, pq_agg_line *l, const pq_rdb_cell **ref)
{
	double rt = (double)a->rtts[l->rtt] / 1e3;
	*ref = NULL;
	l->cpu_ms = NAN;
	for (size_t i = 0; i < a->n && l->n < PQ_AGG_LINE_PTS; i++) {
		const pq_agg_group *g = &a->g[i];
		int mine = l->arm >= 0 ? g->arm == l->arm : key_point(a, g) && pq_curve_same_but_chain(g->cell, l->fam->cell);
		int hs_only = !g->n[PQ_AGG_TTFB];
		if (!mine || g->browser != l->browser || g->rtt != l->rtt || g->host != l->host ||
		    (l->browser && !g->nbr[PQ_AGG_BR_NET]) ||
		    !g->n[hs_only ? PQ_AGG_HS : PQ_AGG_TTFB] || g->cell->response_bytes > 65536 ||
		    g->cell->chain_der_bytes <= 0)
			continue;
		l->hs_only = hs_only;
		l->padded |= pq_agg_dim_num(g->cell, "pad-chain-to") > 0;
		size_t k = l->n++;
		double x = (double)g->cell->chain_der_bytes / 1e3;
		while (k > 0 && l->x[k - 1] > x) { /* insertion by chain size */
			l->x[k] = l->x[k - 1], l->hs[k] = l->hs[k - 1], l->fb[k] = l->fb[k - 1];
			l->mfb[k] = l->mfb[k - 1], l->fbw[k] = l->fbw[k - 1];
			k--;
		}
		l->x[k] = x;
		l->hs[k] = g->desc[PQ_AGG_HS].median;
		l->fbw[k] = g->desc[hs_only ? PQ_AGG_HS : PQ_AGG_TTFB].median;
		l->fb[k] = l->browser ? pq_stats_quantile(g->br[PQ_AGG_BR_NET], g->nbr[PQ_AGG_BR_NET], PQ_STATS_MEDIAN)
				      : l->fbw[k];
		l->mfb[k] = g->has_model ? (hs_only ? g->model.handshake_t : g->model.ttfb_t) * rt : NAN;
		/* time the round trips do not explain: Chromium's network-only first byte has
		 * none of its own CPU time, its handshake its verification */
		if (g->has_model && l->browser)
			l->cpu_ms = fmin(l->cpu_ms, l->fb[k] - g->model.ttfb_t * rt);
		else if (g->has_model && g->n[PQ_AGG_HS])
			l->cpu_ms = fmin(l->cpu_ms, g->desc[PQ_AGG_HS].median - g->model.handshake_t * rt);
		if (!*ref || g->cell->chain_der_bytes > (*ref)->chain_der_bytes)
			*ref = g->cell;
		if (!l->first)
			l->first = g;
	}
}

/* The model's first cliff in the line's size range, for the chain of `c`. */
static void line_cliff(pq_agg_line *l, const pq_rdb_cell *c)
{
	pq_model_base b;
	pq_model_in net;
	pq_model_cliff cl[2];
	size_t nc = 0;
	if (!c || pq_model_base_alg(c->leaf, "chain_leaf", pq_agg_sent_intermediates(c), c->group,
				    c->one_write ? SIZE_MAX : 0, &b, NULL) < 0)
		return;
	pq_model_base_net(&b, pq_wire_mss(c->mtu), c->initcwnd > 0 ? (size_t)c->initcwnd : 0, 0, &net);
	size_t lo = pq_model_min_chain(&b.acct_in), from = (size_t)(l->x[0] * 1e3);
	if (pq_model_cliffs(&b.acct_in, from > lo ? from : lo, (size_t)(l->x[l->n - 1] * 1e3), &net, cl, 2,
			    &nc, NULL) < 0 || !nc)
		return;
	l->has_cliff = 1;
	l->cliff_kb = (double)cl[0].first_over / 1e3;
	snprintf(l->cliff_label, sizeof l->cliff_label, "model: %.24s%s cliff %.2f kB", c->leaf,
		 c->one_write ? " one-write" : "", l->cliff_kb);
}

static int add_line(pq_agg *a, size_t *cap, int host, int rtt, int arm, const pq_agg_group *fam, int browser)
{
	if (a->nlines == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		pq_agg_line *v = realloc(a->lines, nc * sizeof *v);
		if (!v)
			return PQ_ENOMEM;
		a->lines = v;
		*cap = nc;
	}
	pq_agg_line *l = &a->lines[a->nlines];
	const pq_rdb_cell *ref;
	memset(l, 0, sizeof *l);
	*l = (pq_agg_line){.host = host, .rtt = rtt, .arm = arm, .fam = fam, .browser = browser};
	line_points(a, l, &ref);
	if (l->n < 3 || distinct_sizes(l) < 3)
		return 0;
	double rt = (double)a->rtts[rtt] / 1e3;
	/* Round trips explain a jump only where the time they do not explain is less than one. */
	l->cpu_bound = l->cpu_ms >= PQ_AGG_STEP_RTT * rt;
	if (!l->cpu_bound)
		l->nsteps = pq_step_find(l->x, l->fb, l->n, rt, PQ_AGG_STEP_RTT, l->steps, PQ_AGG_LINE_STEPS);
	line_cliff(l, ref);
	a->nlines++;
	return 0;
}

int pq_agg_line_family_differs(const pq_agg *a, const pq_agg_line *l, size_t d)
{
	for (size_t i = 0; i < a->nlines; i++) {
		const pq_agg_line *o = &a->lines[i];
		if (o != l && o->arm < 0 && o->host == l->host && o->rtt == l->rtt &&
		    !pq_dimval_equal(&o->fam->cell->dim[d], &l->fam->cell->dim[d]))
			return 1;
	}
	return 0;
}

/* A line per size-sweeping arm at each host and RTT; where none sweeps the size, one per
 * family of key arms that differ in their chain only (so groups, transports, key shares
 * or links at one RTT are never joined). */
int pq_agg_lines_build(pq_agg *a)
{
	size_t cap = 0;
	int rc = 0;
	for (size_t h = 0; !rc && h < a->nhosts; h++)
		for (size_t r = 0; !rc && r < a->nrtts; r++) {
			size_t before = a->nlines;
			for (size_t k = 0; !rc && k < a->narms; k++)
				for (int br = 0; !rc && br < 2 && a->kind[k] == PQ_AGG_SIZE; br++)
					rc = add_line(a, &cap, (int)h, (int)r, (int)k, NULL, br);
			int key_mode = a->nlines == before;
			for (size_t i = 0; !rc && key_mode && i < a->n; i++) {
				const pq_agg_group *g = &a->g[i];
				int first = g->host == (int)h && g->rtt == (int)r && key_point(a, g);
				for (size_t k = 0; first && k < i; k++)
					first = !(a->g[k].host == (int)h && a->g[k].rtt == (int)r && key_point(a, &a->g[k]) &&
						  pq_curve_same_but_chain(a->g[k].cell, g->cell));
				if (first)
					rc = add_line(a, &cap, (int)h, (int)r, -1, g, g->browser);
			}
		}
	return rc;
}

static int same_link(const pq_agg_group *x, const pq_agg_group *y)
{
	return x->host == y->host && strcmp(x->cell->link_key, y->cell->link_key) == 0;
}

/* The TTLB slowdown of `arm` against `base` on one host and link, by response size. */
static int slow_series(const pq_agg *a, pq_agg_slow *s)
{
	for (size_t i = 0; i < a->n && s->n < PQ_AGG_SLOW_PTS; i++) {
		const pq_agg_group *g = &a->g[i], *b = NULL;
		if (g->arm != s->arm || !same_link(g, s->first) || !g->n[PQ_AGG_TTLB])
			continue;
		for (size_t k = 0; k < a->n && !b; k++)
			if (a->g[k].arm == s->base && same_link(&a->g[k], g) &&
			    a->g[k].cell->response_bytes == g->cell->response_bytes)
				b = &a->g[k];
		pq_boot_result r;
		int rc = b ? pq_boot_diff(b->v[PQ_AGG_TTLB], b->n[PQ_AGG_TTLB], g->v[PQ_AGG_TTLB],
					  g->n[PQ_AGG_TTLB], PQ_AGG_BOOT_REPS, a->seed, &r, NULL)
			   : PQ_EINVAL;
		if (rc == PQ_ENOMEM)
			return rc;
		if (rc < 0)
			continue;
		size_t k = s->n++;
		s->kib[k] = (double)g->cell->response_bytes / 1024.0;
		s->pct[k] = (r.ratio - 1) * 100;
		s->lo[k] = (r.ratio_lo - 1) * 100;
		s->hi[k] = (r.ratio_hi - 1) * 100;
		for (; k > 0 && s->kib[k - 1] > s->kib[k]; k--) { /* by response size */
			double t[4] = {s->kib[k], s->pct[k], s->lo[k], s->hi[k]};
			s->kib[k] = s->kib[k - 1], s->pct[k] = s->pct[k - 1], s->lo[k] = s->lo[k - 1], s->hi[k] = s->hi[k - 1];
			s->kib[k - 1] = t[0], s->pct[k - 1] = t[1], s->lo[k - 1] = t[2], s->hi[k - 1] = t[3];
		}
	}
	return 0;
}

int pq_agg_slow_build(pq_agg *a)
{
	int base = -1;
	for (size_t k = 0; k < a->narms && base < 0; k++)
		if (a->kind[k] == PQ_AGG_RESP)
			base = (int)k;
	size_t cap = 0;
	for (size_t i = 0; base >= 0 && i < a->n; i++) {
		const pq_agg_group *g = &a->g[i];
		int seen = g->arm == base || a->kind[g->arm] != PQ_AGG_RESP;
		for (size_t k = 0; k < a->nslow && !seen; k++)
			seen = a->slow[k].arm == g->arm && same_link(a->slow[k].first, g);
		if (seen)
			continue;
		if (a->nslow == cap) {
			size_t nc = cap ? cap * 2 : 8;
			pq_agg_slow *v = realloc(a->slow, nc * sizeof *v);
			if (!v)
				return PQ_ENOMEM;
			a->slow = v;
			cap = nc;
		}
		pq_agg_slow *s = &a->slow[a->nslow];
		*s = (pq_agg_slow){.host = g->host, .arm = g->arm, .base = base, .first = g};
		if (slow_series(a, s) < 0)
			return PQ_ENOMEM;
		if (s->n >= 2)
			a->nslow++;
	}
	return 0;
}
