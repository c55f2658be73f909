/* Arms against one dimension that varies within them (report/pivot.h). */
#include "report/pivot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t CANDIDATES[] = {PQ_D_RTT, PQ_D_LOSS, PQ_D_PAD, PQ_D_RESPONSE, PQ_D_RATE};

static int is_point_dim(const pq_agg *a, size_t d)
{
	for (size_t k = 0; k < a->npoint_dims; k++)
		if (a->point_dims[k] == d)
			return 1;
	return 0;
}

/* A cell's value of pq_dims[d] as a number to sort by (the response by its size); NaN for text. */
static double num(const pq_rdb_cell *c, size_t d)
{
	const pq_dimval *v = &c->dim[d];
	if (d == PQ_D_RESPONSE)
		return (double)c->response_bytes;
	return v->kind == PQ_DV_INT ? (double)v->i : v->kind == PQ_DV_REAL ? v->f : NAN;
}

static int same(const pq_rdb_cell *x, const pq_rdb_cell *y, size_t d)
{
	return d == PQ_D_RESPONSE ? x->response_bytes == y->response_bytes && pq_dimval_equal(&x->dim[d], &y->dim[d])
				  : pq_dimval_equal(&x->dim[d], &y->dim[d]);
}

static int before(const pq_rdb_cell *x, const pq_rdb_cell *y, size_t d)
{
	double a = num(x, d), b = num(y, d);
	if (isfinite(a) && isfinite(b))
		return a < b;
	return strcmp(x->dim[d].s, y->dim[d].s) < 0;
}

/* The distinct values of pq_dims[d] among the host's groups, ascending, into v (at most max). */
static size_t values(const pq_agg *a, int host, size_t d, const pq_rdb_cell **v, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < a->n; i++) {
		const pq_rdb_cell *c = a->g[i].cell;
		int seen = 0;
		for (size_t k = 0; k < n && !seen; k++)
			seen = same(v[k], c, d);
		if (a->g[i].host != host || seen)
			continue;
		if (n == max)
			return max + 1;
		size_t k = n++;
		for (; k > 0 && before(c, v[k - 1], d); k--)
			v[k] = v[k - 1];
		v[k] = c;
	}
	return n;
}

/* Whether pq_dims[e] follows pq_dims[d] at the host: equal wherever d is equal. */
static int follows(const pq_agg *a, int host, size_t d, size_t e)
{
	for (size_t i = 0; i < a->n; i++)
		for (size_t k = 0; k < i; k++)
			if (a->g[i].host == host && a->g[k].host == host && same(a->g[i].cell, a->g[k].cell, d) &&
			    !same(a->g[i].cell, a->g[k].cell, e))
				return 0;
	return 1;
}

/* The dimensions that tell one row from another: the point dimensions but d and those
 * that follow it. */
static size_t row_dims(const pq_agg *a, int host, size_t d, size_t *out)
{
	size_t n = 0;
	for (size_t k = 0; k < a->npoint_dims; k++)
		if (a->point_dims[k] != d && !follows(a, host, d, a->point_dims[k]))
			out[n++] = a->point_dims[k];
	return n;
}

static int same_row(const pq_agg_group *x, const pq_agg_group *y, const size_t *rd, size_t nrd)
{
	if (x->arm != y->arm)
		return 0;
	for (size_t k = 0; k < nrd; k++)
		if (!same(x->cell, y->cell, rd[k]))
			return 0;
	return 1;
}

static void fill(const pq_agg *a, pq_agg_pivot *p, const pq_rdb_cell *const *v)
{
	size_t rd[PQ_DIM_COUNT], nrd = row_dims(a, p->host, p->dim, rd);
	const pq_agg_group *first[PQ_AGG_PIVOT_ROWS];
	for (size_t i = 0; i < a->n; i++) {
		const pq_agg_group *g = &a->g[i];
		size_t r = 0, c = 0;
		if (g->host != p->host)
			continue;
		while (r < p->nrows && !same_row(first[r], g, rd, nrd))
			r++;
		if (r == PQ_AGG_PIVOT_ROWS)
			continue;
		if (r == p->nrows) {
			first[p->nrows++] = g;
			p->row_arm[r] = g->arm;
			size_t len = (size_t)snprintf(p->row[r], sizeof p->row[r], "%s", a->arms[g->arm]);
			for (size_t k = 0; k < nrd && len < sizeof p->row[r]; k++) {
				char val[96];
				pq_agg_dim_show(g->cell, rd[k], val, sizeof val);
				len += (size_t)snprintf(p->row[r] + len, sizeof p->row[r] - len, ", %s %s",
							pq_dims[rd[k]].label, val);
			}
		}
		while (c < p->nvals && !same(v[c], g->cell, p->dim))
			c++;
		if (c < p->nvals && !p->g[r][c])
			p->g[r][c] = g;
	}
	for (size_t c = 0; c < p->nvals; c++)
		pq_agg_dim_show(v[c], p->dim, p->val[c], sizeof p->val[c]);
	p->transposed = p->nvals > PQ_AGG_PIVOT_COLS;
}

int pq_pivot_build(pq_agg *a)
{
	const pq_rdb_cell *v[PQ_AGG_PIVOT_VALS + 1], *best_v[PQ_AGG_PIVOT_VALS + 1];
	a->pivots = calloc(a->nhosts ? a->nhosts : 1, sizeof *a->pivots);
	if (!a->pivots)
		return PQ_ENOMEM;
	for (size_t h = 0; h < a->nhosts; h++) {
		size_t best = 0, dim = 0;
		for (size_t k = 0; k < sizeof CANDIDATES / sizeof CANDIDATES[0]; k++) {
			if (!is_point_dim(a, CANDIDATES[k]))
				continue;
			size_t n = values(a, (int)h, CANDIDATES[k], v, PQ_AGG_PIVOT_VALS);
			if (n >= 2 && n <= PQ_AGG_PIVOT_VALS && n > best) {
				best = n;
				dim = CANDIDATES[k];
				memcpy(best_v, v, n * sizeof *v);
			}
		}
		if (!best)
			continue;
		pq_agg_pivot *p = &a->pivots[a->npivots];
		*p = (pq_agg_pivot){.host = (int)h, .dim = dim, .nvals = best};
		fill(a, p, best_v);
		/* too wide either way: the figures and the long table carry it */
		if (p->nvals > PQ_AGG_PIVOT_COLS && p->nrows > PQ_AGG_PIVOT_COLS)
			continue;
		a->npivots++;
	}
	return 0;
}
