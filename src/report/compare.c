#include "report/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/out.h"

const pq_agg *pq_compare_agg_of(const pq_compare *c, const pq_compare_point *p)
{
	return p->ga ? c->a : c->b;
}

const pq_agg_group *pq_compare_group_of(const pq_compare_point *p)
{
	return p->ga ? p->ga : p->gb;
}

static int is_aside(const pq_compare *c, size_t i);

/* Whether a grid point of arm `arm` in y holds another value of dimension i than g's. */
static int arm_differs(const pq_agg *y, const char *arm, const pq_agg_group *g, size_t i)
{
	for (size_t k = 0; k < y->n; k++)
		if (strcmp(y->arms[y->g[k].arm], arm) == 0 && !pq_dimval_equal(&y->g[k].cell->dim[i], &g->cell->dim[i]))
			return 1;
	return 0;
}

void pq_compare_label(const pq_compare *c, const pq_compare_point *p, char *buf, size_t n)
{
	const pq_agg *x = pq_compare_agg_of(c, p);
	const pq_agg_group *g = pq_compare_group_of(p);
	const char *arm = x->arms[g->arm];
	buf[0] = '\0';
	pq_out_cat(buf, n, "%s", arm);
	for (size_t i = 0; i < PQ_DIM_COUNT; i++) {
		/* shown as the key table shows them; the timeout is derived from the RTT */
		if (!pq_dims[i].column || (pq_dims[i].flags & (PQ_DIM_GLOBAL | PQ_DIM_STORED)) || i == PQ_D_TIMEOUT ||
		    is_aside(c, i) || !(arm_differs(c->a, arm, g, i) || arm_differs(c->b, arm, g, i)))
			continue;
		char v[96];
		pq_agg_dim_show(g->cell, i, v, sizeof v);
		pq_out_cat(buf, n, ", %s %s", pq_dims[i].label, v);
	}
}

/* A dimension the comparison matches on: a stored value of a cell, not a spec-wide setting. */
static int compared(size_t i)
{
	return pq_dims[i].column && !(pq_dims[i].flags & PQ_DIM_GLOBAL);
}

/* Whether every cell of x holds one value of dimension i; *v is then that value. */
static int one_value(const pq_agg *x, size_t i, const pq_dimval **v)
{
	*v = x->n ? &x->g[0].cell->dim[i] : NULL;
	for (size_t k = 1; k < x->n; k++)
		if (!pq_dimval_equal(&x->g[k].cell->dim[i], *v))
			return 0;
	return *v != NULL;
}

/* The dimensions each run holds one value of, different in the two: set aside. */
static void set_aside(pq_compare *c)
{
	for (size_t i = 0; i < PQ_DIM_COUNT; i++) {
		const pq_dimval *va, *vb;
		if (compared(i) && one_value(c->a, i, &va) && one_value(c->b, i, &vb) && !pq_dimval_equal(va, vb))
			c->aside[c->naside++] = i;
	}
	size_t shown = 0;
	for (size_t k = 0; k < c->naside; k++) {
		size_t i = c->aside[k];
		char x[96], y[96];
		/* derived (the timeout) and stored-only values follow a dimension named already */
		if (i == PQ_D_TIMEOUT || (pq_dims[i].flags & PQ_DIM_STORED))
			continue;
		pq_agg_dim_show(c->a->g[0].cell, i, x, sizeof x);
		pq_agg_dim_show(c->b->g[0].cell, i, y, sizeof y);
		pq_out_cat(c->aside_text, sizeof c->aside_text, "%s%s: %s in A, %s in B", shown++ ? "; " : "",
			   pq_dims[i].label, x, y);
	}
}

static int is_aside(const pq_compare *c, size_t i)
{
	for (size_t k = 0; k < c->naside; k++)
		if (c->aside[k] == i)
			return 1;
	return 0;
}

/* Group g of x is the grid point of group h of y: the same host and point_key, or, with
 * dimensions set aside, the same value of every other one. */
static int same_point(const pq_compare *c, const pq_agg *x, const pq_agg_group *g, const pq_agg *y,
		      const pq_agg_group *h)
{
	if (strcmp(x->hosts[g->host], y->hosts[h->host]) != 0)
		return 0;
	if (!c->naside)
		return g->cell->point_key[0] && strcmp(g->cell->point_key, h->cell->point_key) == 0;
	for (size_t i = 0; i < PQ_DIM_COUNT; i++)
		if (compared(i) && !is_aside(c, i) && !pq_dimval_equal(&g->cell->dim[i], &h->cell->dim[i]))
			return 0;
	return 1;
}

/* y's grid point of x's group g: of the same arm's name where several match. */
static const pq_agg_group *find(const pq_compare *c, const pq_agg *x, const pq_agg_group *g, const pq_agg *y)
{
	const pq_agg_group *any = NULL;
	for (size_t i = 0; i < y->n; i++) {
		if (!same_point(c, x, g, y, &y->g[i]))
			continue;
		if (strcmp(x->arms[g->arm], y->arms[y->g[i].arm]) == 0)
			return &y->g[i];
		any = any ? any : &y->g[i];
	}
	return any;
}

/* The distinct values of a run-table column, joined with ", " ("" when none is stored). */
static void run_values(const pq_rdb *db, const char *col, char *buf, size_t n)
{
	buf[0] = '\0';
	for (size_t r = 0; r < db->run.nrows; r++) {
		const char *v = pq_rdb_get(&db->run, r, col);
		int seen = !v || !*v;
		for (size_t k = 0; k < r && !seen; k++) {
			const char *w = pq_rdb_get(&db->run, k, col);
			seen = w && strcmp(v, w) == 0;
		}
		if (!seen)
			pq_out_cat(buf, n, "%s%s", buf[0] ? ", " : "", v);
	}
}

static void grid_sentence(pq_compare *c, const pq_rdb *da, const pq_rdb *db)
{
	char ha[200], hb[200], ua[200], ub[200];
	run_values(da, "spec_hash", ha, sizeof ha);
	run_values(db, "spec_hash", hb, sizeof hb);
	run_values(da, "run_uuid", ua, sizeof ua);
	run_values(db, "run_uuid", ub, sizeof ub);
	c->same_grid = !ha[0] || !hb[0] ? -1 : strcmp(ha, hb) == 0;
	c->same_run = ua[0] && strcmp(ua, ub) == 0;
	if (c->same_run)
		snprintf(c->grid, sizeof c->grid, "%s and %s hold the same run (run_uuid %.40s): one is a copy of the other, "
			 "so no difference can show", c->name_a, c->name_b, ua);
	else if (c->same_grid == 1)
		snprintf(c->grid, sizeof c->grid, "%s and %s are runs of one grid (spec hash %.16s)", c->name_a, c->name_b, ha);
	else if (c->same_grid == 0)
		snprintf(c->grid, sizeof c->grid, "%s and %s are of different grids (spec hash %.16s against %.16s): only the "
			 "grid points both hold are compared", c->name_a, c->name_b, ha, hb);
	else
		snprintf(c->grid, sizeof c->grid, "%s or %s stores no spec hash: whether they are of one grid is not known; "
			 "grid points are matched by host and point_key", c->name_a, c->name_b);
}

static int shared_point(pq_compare_point *p, uint64_t seed, pq_diag *d)
{
	const pq_agg_group *x = p->ga, *y = p->gb;
	p->phase = x->n[PQ_AGG_TTFB] && y->n[PQ_AGG_TTFB] ? PQ_AGG_TTFB : PQ_AGG_HS;
	pq_diag e = {0};
	int rc = pq_boot_diff(x->v[p->phase], x->n[p->phase], y->v[p->phase], y->n[p->phase], PQ_AGG_BOOT_REPS, seed, &p->diff, &e);
	if (rc == PQ_ENOMEM)
		return pq_diag_set(d, rc, "report: %s", pq_diag_msg(&e));
	p->has_diff = rc == 0;
	p->waits_ms = fmax(x->wait_ms, y->wait_ms); /* fmax: the known one where one is NaN */
	double near = fmin(fabs(p->diff.diff_lo), fabs(p->diff.diff_hi));
	p->within_waits = p->has_diff && p->diff.measurable && isfinite(p->waits_ms) && near <= p->waits_ms;
	p->measurable = p->has_diff && p->diff.measurable && !p->within_waits;
	return 0;
}

void pq_compare_verdict(const pq_compare_point *p, char *buf, size_t n)
{
	if (!p->within_waits) {
		pq_boot_verdict(&p->diff, 1, "ms", buf, n);
		return;
	}
	snprintf(buf, n, "within the hosts' waits: %+.2f [%+.2f, %+.2f] ms, the endpoints waited up to %.2f ms",
		 p->diff.diff, p->diff.diff_lo, p->diff.diff_hi, p->waits_ms);
}

static void summary(pq_compare *c)
{
	const pq_compare_point *big = NULL;
	size_t ttfb = 0;
	for (size_t i = 0; i < c->shared; i++) {
		const pq_compare_point *p = &c->p[i];
		ttfb += p->phase == PQ_AGG_TTFB;
		if (p->measurable && (!big || fabs(p->diff.diff) > fabs(big->diff.diff)))
			big = p;
	}
	c->what = ttfb == c->shared ? "TTFB" : ttfb ? "TTFB (or handshake)" : "handshake";
	char *s = c->summary;
	size_t n = sizeof c->summary;
	if (c->aside_text[0])
		pq_out_cat(s, n, "Set aside, as each run holds one value of it and not the other's (grid points are "
				 "matched on every other dimension): %s. ", c->aside_text);
	if (!c->shared)
		pq_out_cat(s, n, "No grid point is in both");
	else if (!c->measurable)
		pq_out_cat(s, n, "%zu grid point%s in both, with no measurable difference in %s at any", c->shared,
			   c->shared == 1 ? "" : "s", c->what);
	else
		pq_out_cat(s, n, "%zu grid point%s in both: %zu with no measurable difference in %s, %zu differ%s", c->shared,
			   c->shared == 1 ? "" : "s", c->shared - c->measurable, c->what, c->measurable,
			   c->measurable == 1 ? "s" : "");
	if (big) {
		char label[300];
		pq_compare_label(c, big, label, sizeof label);
		pq_out_cat(s, n, " (the most: %s, %+.2f ms [%+.2f, %+.2f])", label, big->diff.diff, big->diff.diff_lo,
			   big->diff.diff_hi);
	}
	pq_out_cat(s, n, "; %zu only in %s, %zu only in %s", c->only_a, c->name_a, c->only_b, c->name_b);
}

int pq_compare_build(const pq_rdb *da, const pq_agg *a, const char *name_a, const pq_rdb *db, const pq_agg *b,
		     const char *name_b, pq_compare *out, pq_diag *d)
{
	pq_compare c = {.a = a, .b = b, .name_a = name_a, .name_b = name_b, .spec_a = da->spec_name, .spec_b = db->spec_name};
	int rc = 0;
	c.p = calloc(a->n + b->n + 1, sizeof *c.p);
	/* Runs of one grid (shards, repeats) are compared point for point: a grid sharded by
	 * link holds one RTT per shard, and 20 ms is not to be matched with 30 ms. */
	grid_sentence(&c, da, db);
	if (c.same_grid != 1)
		set_aside(&c);
	if (!c.p)
		return pq_diag_set(d, PQ_ENOMEM, "report: out of memory to compare %s and %s", name_a, name_b);
	for (size_t i = 0; !rc && i < a->n; i++) { /* both */
		const pq_agg_group *y = find(&c, a, &a->g[i], b);
		if (!y)
			continue;
		pq_compare_point *p = &c.p[c.n++];
		*p = (pq_compare_point){.ga = &a->g[i], .gb = y};
		rc = shared_point(p, a->seed, d);
		c.measurable += (size_t)p->measurable;
	}
	c.shared = c.n;
	for (size_t i = 0; i < a->n; i++)
		if (!find(&c, a, &a->g[i], b))
			c.p[c.n++] = (pq_compare_point){.ga = &a->g[i], .phase = a->g[i].diff_phase}, c.only_a++;
	for (size_t i = 0; i < b->n; i++)
		if (!find(&c, b, &b->g[i], a))
			c.p[c.n++] = (pq_compare_point){.gb = &b->g[i], .phase = b->g[i].diff_phase}, c.only_b++;
	if (rc) {
		free(c.p);
		return rc;
	}
	summary(&c);
	*out = c;
	return 0;
}

void pq_compare_free(pq_compare *c)
{
	free(c->p);
	memset(c, 0, sizeof *c);
}
