#include "report/curve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/sample.h"

/* Whether dimension i counts when two cells are compared: not `key` (-1: none), nor one
 * with a flag of `skip`; a profile is a link: a curve against RTT crosses profiles
 * (paper-0 .. paper-200); the browser's state follows the client (pqtls's has none); the
 * client timeout is derived from the RTT and the loss; a stored-only entry follows the
 * spec key that sets it (c2s loss with loss). */
static int compared(size_t i, int key, unsigned skip)
{
	return (int)i != key && !(key == PQ_D_RTT && i == PQ_D_PROFILE) &&
	       !(key == PQ_D_CLIENT && i == PQ_D_BROWSER_STATE) && i != PQ_D_TIMEOUT &&
	       !(pq_dims[i].flags & (PQ_DIM_STORED | skip));
}

static int dims_same_but(const pq_rdb_cell *x, const pq_rdb_cell *y, int key, unsigned skip)
{
	for (size_t i = 0; i < PQ_DIM_COUNT; i++)
		if (compared(i, key, skip) && !pq_dimval_equal(&x->dim[i], &y->dim[i]))
			return 0;
	return 1;
}

int pq_curve_distance(const pq_rdb_cell *x, const pq_rdb_cell *y)
{
	int n = 0;
	for (size_t i = 0; i < PQ_DIM_COUNT; i++)
		n += compared(i, -1, 0) && !pq_dimval_equal(&x->dim[i], &y->dim[i]);
	return n + (x->chain_der_bytes != y->chain_der_bytes) + (x->one_write != y->one_write);
}

int pq_curve_same_but(const pq_rdb_cell *x, const pq_rdb_cell *y, const char *key)
{
	if (strcmp(x->host, y->host) != 0 || strcmp(x->arm, y->arm) != 0 || x->chain_der_bytes != y->chain_der_bytes ||
	    x->one_write != y->one_write)
		return 0;
	return dims_same_but(x, y, pq_dim_find(key), 0);
}

int pq_curve_same_but_chain(const pq_rdb_cell *x, const pq_rdb_cell *y)
{
	return strcmp(x->host, y->host) == 0 && x->one_write == y->one_write && dims_same_but(x, y, -1, PQ_DIM_CHAIN);
}

int pq_curve_same_but_resumption(const pq_rdb_cell *x, const pq_rdb_cell *y)
{
	static const int resumption[] = {PQ_D_TICKETS, PQ_D_RESUME, PQ_D_EARLY, PQ_D_WARMUP};
	if (strcmp(x->host, y->host) != 0 || x->chain_der_bytes != y->chain_der_bytes || x->one_write != y->one_write)
		return 0;
	for (size_t i = 0; i < PQ_DIM_COUNT; i++) {
		int skip = 0;
		for (size_t k = 0; k < sizeof resumption / sizeof resumption[0]; k++)
			skip |= (int)i == resumption[k];
		if (!skip && compared(i, -1, 0) && !pq_dimval_equal(&x->dim[i], &y->dim[i]))
			return 0;
	}
	return 1;
}

static int add_curve(pq_agg *a, size_t *cap, const pq_agg_curve *c)
{
	if (a->ncurves == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		pq_agg_curve *v = realloc(a->curves, nc * sizeof *v);
		if (!v)
			return PQ_ENOMEM;
		a->curves = v;
		*cap = nc;
	}
	a->curves[a->ncurves++] = *c;
	return 0;
}

/* The point of group g on a curve of `kind`. */
static void point(pq_agg_curve *c, size_t k, const pq_agg_group *g)
{
	const pq_rdb_cell *cell = g->cell;
	if (c->kind == PQ_AGG_VS_LOSS) {
		const double *v = g->v[PQ_AGG_HS];
		static const unsigned q[4] = {250, 500, 750, 950};
		c->x[k] = pq_agg_dim_num(cell, "loss");
		for (int i = 0; i < 4; i++)
			c->y[i][k] = pq_stats_quantile(v, g->n[PQ_AGG_HS], q[i]);
	} else {
		const pq_ci_desc *d = &g->desc[PQ_AGG_TTFB];
		c->x[k] = pq_agg_dim_num(cell, "rtt") / 1e3;
		c->y[0][k] = d->median;
		c->y[1][k] = d->has_ci ? d->median_lo : NAN;
		c->y[2][k] = d->has_ci ? d->median_hi : NAN;
		c->y[3][k] = NAN;
	}
}

/* Inserts point k of c where x keeps ascending. */
static void insert_sorted(pq_agg_curve *c)
{
	for (size_t k = c->n - 1; k > 0 && c->x[k - 1] > c->x[k]; k--) {
		double t = c->x[k];
		c->x[k] = c->x[k - 1], c->x[k - 1] = t;
		for (int i = 0; i < 4; i++) {
			t = c->y[i][k];
			c->y[i][k] = c->y[i][k - 1], c->y[i][k - 1] = t;
		}
	}
}

static int build_kind(pq_agg *a, enum pq_agg_curve_kind kind, size_t *cap)
{
	const char *key = kind == PQ_AGG_VS_LOSS ? "loss" : "rtt";
	enum pq_agg_phase ph = kind == PQ_AGG_VS_LOSS ? PQ_AGG_HS : PQ_AGG_TTFB;
	char *done = calloc(a->n ? a->n : 1, 1);
	int rc = done ? 0 : PQ_ENOMEM;
	pq_agg_curve *c = rc ? NULL : malloc(sizeof *c);
	if (!rc && !c)
		rc = PQ_ENOMEM;
	for (size_t i = 0; !rc && i < a->n; i++) {
		const pq_agg_group *g = &a->g[i];
		if (done[i] || g->n[ph] < 2)
			continue;
		*c = (pq_agg_curve){.kind = kind, .host = g->host, .rtt = kind == PQ_AGG_VS_LOSS ? g->rtt : -1, .first = g};
		for (size_t k = i; k < a->n && c->n < PQ_AGG_CURVE_PTS; k++) {
			const pq_agg_group *h = &a->g[k];
			if (done[k] || h->n[ph] < 2 || !pq_curve_same_but(g->cell, h->cell, key))
				continue;
			done[k] = 1;
			point(c, c->n++, h);
			insert_sorted(c);
		}
		if (c->n >= 2)
			rc = add_curve(a, cap, c);
	}
	free(c);
	free(done);
	return rc;
}

int pq_curve_build(pq_agg *a)
{
	size_t cap = 0;
	int rc = build_kind(a, PQ_AGG_VS_LOSS, &cap);
	return rc ? rc : build_kind(a, PQ_AGG_VS_RTT, &cap);
}
