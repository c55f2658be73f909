/* How many cells at once (exp/jobs.h): the value asked for (a count or auto, named by
 * the caller), the time-scale rule, the choice for a grid and a machine, and the
 * dispatcher's back-off; pure functions of their inputs, so test_exp_jobs can check
 * them by hand. The dispatcher that acts on them is exp/jobs.c. */
#include "exp/jobs.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/wire.h"
#include "net/linkcfg.h"

int pq_exp_jobs_parse(const char *s, const char *what, unsigned *jobs, pq_diag *d)
{
	char *end = NULL;
	if (s && strcmp(s, "auto") == 0) {
		*jobs = PQ_EXP_JOBS_AUTO;
		return 0;
	}
	errno = 0;
	long v = s && *s >= '0' && *s <= '9' ? strtol(s, &end, 10) : 0;
	if (!v || errno || *end || v < 1 || v > PQ_EXP_JOBS_MAX)
		return pq_diag_set(d, PQ_EINVAL, "%s: '%s' is not a number of cells at once; use auto or 1 to %d", what,
				   s ? s : "", PQ_EXP_JOBS_MAX);
	*jobs = (unsigned)v;
	return 0;
}

size_t pq_exp_jobs_limit(int64_t scale_ns, size_t cap)
{
	if (cap < 1)
		cap = 1;
	if (scale_ns < PQ_EXP_JOBS_SOLO_RTT_NS)
		return 1;
	int64_t k = scale_ns / PQ_EXP_JOBS_RTT_PER_JOB_NS;
	return k < 1 ? 1 : (uint64_t)k > cap ? cap : (size_t)k;
}

int64_t pq_exp_jobs_iw_wire_ns(double rate_bps, unsigned mtu)
{
	double bits = 8.0 * PQ_WIRE_IW_DEFAULT * (mtu ? mtu : PQ_WIRE_MTU_DEFAULT);
	return rate_bps > 0 ? (int64_t)(bits / rate_bps * 1e9) : 0;
}

int64_t pq_exp_jobs_scale_ns(const pq_link_config *lc)
{
	uint64_t slowest = 0;
	for (int i = 0; i < 2; i++)
		if (lc->dir[i].rate_bps && (!slowest || lc->dir[i].rate_bps < slowest))
			slowest = lc->dir[i].rate_bps;
	return pq_link_config_rtt_ns(lc) + pq_exp_jobs_iw_wire_ns((double)slowest, lc->mtu);
}

unsigned pq_exp_jobs_choose(const pq_exp_grid *g, unsigned asked, const char *what, unsigned ncpu, size_t ncells,
			    unsigned *base, char *why, size_t n)
{
	unsigned j = asked;
	if (ncpu < 1)
		ncpu = 1;
	*base = 1;
	if (asked == PQ_EXP_JOBS_AUTO && g->server[0]) {
		snprintf(why, n, "one cell at a time: the server is remote, its path and host are shared by every cell "
				 "(%s N measures N at once anyway)", what);
		return 1;
	}
	if (asked == PQ_EXP_JOBS_AUTO) {
		unsigned b = PQ_EXP_JOBS_PER_CPU * ncpu > PQ_EXP_JOBS_MAX ? PQ_EXP_JOBS_MAX : PQ_EXP_JOBS_PER_CPU * ncpu;
		j = b;
		for (size_t i = 0; i < g->n; i++) { /* the stalling cells' own counts beyond it */
			size_t l = pq_exp_cell_limit(g, &g->cells[i], PQ_EXP_JOBS_MAX, b, NULL);
			j = l > j ? (unsigned)l : j;
		}
		*base = b;
		snprintf(why, n, "auto: %u per CPU on %u CPU%s; fewer at small RTTs", PQ_EXP_JOBS_PER_CPU, ncpu, ncpu == 1 ? "" : "s");
		size_t len = strlen(why);
		if (j > b && len < n)
			snprintf(why + len, n - len, ", up to %u for cells that wait out lost packets", j);
	} else {
		snprintf(why, n, "%s %u", what, asked);
		*base = j;
	}
	if (ncells < j) {
		j = ncells ? (unsigned)ncells : 1;
		size_t len = strlen(why);
		if (len < n)
			snprintf(why + len, n - len, "; %zu cell%s to measure", ncells, ncells == 1 ? "" : "s");
	}
	*base = *base < j ? *base : j;
	return j;
}

void pq_exp_jobs_ctl_init(pq_exp_jobs_ctl *c, size_t max)
{
	*c = (pq_exp_jobs_ctl){.cap = max ? max : 1, .max = max ? max : 1};
}

int pq_exp_jobs_ours(uint64_t ours_ticks, uint64_t busy_ticks)
{
	return busy_ticks < PQ_EXP_JOBS_OURS_MIN_TICKS || (double)ours_ticks >= PQ_EXP_JOBS_OURS_SHARE * (double)busy_ticks;
}

int pq_exp_jobs_ctl_done(pq_exp_jobs_ctl *c, int marked, int ours)
{
	c->since_change++;
	if (marked) {
		c->clean_run = 0;
		if (ours && c->cap > 1 && c->since_change >= c->cap) {
			c->cap--;
			c->since_change = 0;
			return -1;
		}
		return 0;
	}
	if (++c->clean_run >= 2 * c->cap && c->cap < c->max) {
		c->cap++;
		c->clean_run = c->since_change = 0;
		return 1;
	}
	return 0;
}

static size_t class_of(const pq_exp_jobs_caps *k, size_t lim)
{
	return lim < 1 ? 1 : lim > k->max ? k->max : lim;
}

void pq_exp_jobs_caps_init(pq_exp_jobs_caps *k, size_t max)
{
	k->max = max < 1 ? 1 : max > PQ_EXP_JOBS_MAX ? PQ_EXP_JOBS_MAX : max;
	for (size_t i = 0; i <= PQ_EXP_JOBS_MAX; i++)
		pq_exp_jobs_ctl_init(&k->cls[i], i < 1 ? 1 : i > k->max ? k->max : i);
}

size_t pq_exp_jobs_caps_of(const pq_exp_jobs_caps *k, size_t lim)
{
	return k->cls[class_of(k, lim)].cap;
}

int pq_exp_jobs_caps_done(pq_exp_jobs_caps *k, size_t lim, int marked, int ours)
{
	return pq_exp_jobs_ctl_done(&k->cls[class_of(k, lim)], marked, ours);
}

void pq_exp_jobs_caps_lower_max(pq_exp_jobs_caps *k)
{
	if (k->max > 1)
		k->max--;
	for (size_t i = 0; i <= PQ_EXP_JOBS_MAX; i++) {
		pq_exp_jobs_ctl *c = &k->cls[i];
		if (c->max > k->max)
			c->max = k->max;
		if (c->cap > c->max)
			c->cap = c->max;
	}
}

int pq_exp_jobs_cpu_fits(double used, size_t inflight, double next, double budget)
{
	return inflight == 0 || used + next <= budget;
}

double pq_exp_jobs_share_guess(double cpu_per_conn_s, size_t conns, double est_s, double budget)
{
	if (cpu_per_conn_s < 0)
		return budget / 2;
	return cpu_per_conn_s * (double)conns / (est_s > 0.05 ? est_s : 0.05);
}

void pq_exp_jobs_conn_cpu_learn(pq_exp_jobs_conn_cpu *seen, size_t *n, size_t cap, long long resp,
				double per_conn_s)
{
	if (per_conn_s < 0 || cap == 0)
		return;
	resp = resp > 0 ? resp : 0;
	size_t at = *n, below = SIZE_MAX;
	for (size_t i = 0; i < *n; i++) {
		if (seen[i].resp == resp)
			at = i;
		if (seen[i].resp < resp && (below == SIZE_MAX || seen[i].resp > seen[below].resp))
			below = i;
	}
	if (at == *n) {
		if (*n == cap) {
			if (below == SIZE_MAX) /* smaller than all: the smallest entry holds it */
				for (size_t i = below = 0; i < *n; i++)
					below = seen[i].resp < seen[below].resp ? i : below;
			at = below;
		} else {
			seen[(*n)++] = (pq_exp_jobs_conn_cpu){.resp = resp, .per_conn_s = per_conn_s};
			return;
		}
	}
	if (per_conn_s > seen[at].per_conn_s)
		seen[at].per_conn_s = per_conn_s;
}

double pq_exp_jobs_conn_cpu_for(const pq_exp_jobs_conn_cpu *seen, size_t n, long long resp)
{
	double within = -1, any = -1;
	resp = resp > 0 ? resp : 0;
	for (size_t i = 0; i < n; i++) {
		any = seen[i].per_conn_s > any ? seen[i].per_conn_s : any;
		if (seen[i].resp <= resp && seen[i].per_conn_s > within)
			within = seen[i].per_conn_s;
	}
	return within >= 0 ? within : any;
}

int pq_exp_jobs_may_start(const size_t *limits, size_t inflight, size_t next_limit, size_t cap)
{
	size_t m = cap < next_limit ? cap : next_limit;
	for (size_t i = 0; i < inflight; i++)
		if (limits[i] < m)
			m = limits[i];
	return inflight + 1 <= m;
}

typedef struct link_run {
	size_t at, n; /* where in todo, how many */
	double longest;
	size_t cls; /* the cells its time scale lets run at once (0: not grouped by it) */
} link_run;

/* Most cells at once first (when grouped by class), then the longest cell first, then
 * run order. */
static int cmp_run(const void *a, const void *b)
{
	const link_run *x = a, *y = b;
	if (x->cls != y->cls)
		return x->cls > y->cls ? -1 : 1;
	if (x->longest != y->longest)
		return x->longest > y->longest ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* pq_exp_jobs_order, its links grouped by class first when lim is given. */
static int order_runs(size_t *todo, size_t n, const char *const *link_key, const double *est_s, const size_t *lim)
{
	int rc = 0;
	link_run *runs = calloc(n ? n : 1, sizeof *runs);
	size_t *out = calloc(n ? n : 1, sizeof *out), nruns = 0;
	if (!runs || !out) {
		rc = PQ_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (!nruns || strcmp(link_key[todo[runs[nruns - 1].at]], link_key[todo[i]]) != 0)
			runs[nruns++] = (link_run){.at = i, .longest = est_s[todo[i]], .cls = lim ? lim[todo[i]] : 0};
		link_run *r = &runs[nruns - 1];
		r->n++;
		if (est_s[todo[i]] > r->longest)
			r->longest = est_s[todo[i]];
	}
	/* the scout: the quickest link's first cell (by time alone, whatever its class) */
	size_t quick = 0;
	for (size_t k = 1; k < nruns; k++)
		if (runs[k].longest < runs[quick].longest ||
		    (runs[k].longest == runs[quick].longest && runs[k].at > runs[quick].at))
			quick = k;
	size_t j = 0;
	if (nruns > 1) {
		out[j++] = todo[runs[quick].at++];
		runs[quick].n--;
	}
	qsort(runs, nruns, sizeof *runs, cmp_run);
	for (size_t k = 0; k < nruns; k++)
		for (size_t i = 0; i < runs[k].n; i++)
			out[j++] = todo[runs[k].at + i];
	memcpy(todo, out, n * sizeof *todo);
out:
	free(runs);
	free(out);
	return rc;
}

typedef struct point_cls {
	const char *point_key;
	size_t lim;
} point_cls;

static int cmp_point(const void *a, const void *b)
{
	const point_cls *x = a, *y = b;
	int c = strcmp(x->point_key, y->point_key);
	return c ? c : (x->lim > y->lim) - (x->lim < y->lim);
}

/* Does every grid point of todo[s..e) have one class? by: room for e - s entries. */
static int points_share_class(const size_t *todo, size_t s, size_t e, const char *const *point,
			      const size_t *lim, point_cls *by)
{
	for (size_t i = s; i < e; i++)
		by[i - s] = (point_cls){.point_key = point[todo[i]], .lim = lim[todo[i]]};
	qsort(by, e - s, sizeof *by, cmp_point);
	for (size_t i = 1; i < e - s; i++)
		if (strcmp(by[i].point_key, by[i - 1].point_key) == 0 && by[i].lim != by[i - 1].lim)
			return 0;
	return 1;
}

int pq_exp_jobs_order_classes(size_t *todo, size_t n, const size_t *group, const char *const *point,
			      const size_t *lim)
{
	int moved = 0;
	point_cls *by = malloc((n ? n : 1) * sizeof *by);
	size_t *out = malloc((n ? n : 1) * sizeof *out);
	if (!by || !out) {
		moved = PQ_ENOMEM;
		goto out;
	}
	for (size_t s = 0, e; s < n; s = e) {
		size_t most = 0, least = SIZE_MAX;
		for (e = s; e < n && group[todo[e]] == group[todo[s]]; e++) {
			most = lim[todo[e]] > most ? lim[todo[e]] : most;
			least = lim[todo[e]] < least ? lim[todo[e]] : least;
		}
		if (most == least || !points_share_class(todo, s, e, point, lim, by))
			continue;
		/* each class present, the largest first, a stable pass over the group each */
		size_t j = 0, cls = most;
		for (;;) {
			size_t next = least;
			for (size_t i = s; i < e; i++) {
				size_t l = lim[todo[i]];
				if (l == cls)
					out[j++] = todo[i];
				else if (l < cls && l > next)
					next = l;
			}
			if (cls == least)
				break;
			cls = next;
		}
		memcpy(todo + s, out, (e - s) * sizeof *todo);
		moved++;
	}
out:
	free(by);
	free(out);
	return moved;
}

int pq_exp_jobs_order(size_t *todo, size_t n, const char *const *link_key, const double *est_s)
{
	return order_runs(todo, n, link_key, est_s, NULL);
}

double pq_exp_jobs_play(const size_t *order, size_t n, const double *est_s, const size_t *lim, unsigned jobs)
{
	size_t nf = 0, *fl_lim = calloc(jobs ? jobs : 1, sizeof *fl_lim);
	double *fl_end = calloc(jobs ? jobs : 1, sizeof *fl_end), t = 0, end = -1;
	if (!fl_lim || !fl_end)
		goto out;
	end = 0;
	for (size_t k = 0; k < n; k++) {
		size_t c = order[k], l = lim[c] < 1 ? 1 : lim[c];
		while (nf && !pq_exp_jobs_may_start(fl_lim, nf, l, jobs ? jobs : 1)) {
			size_t e = 0;
			for (size_t i = 1; i < nf; i++)
				if (fl_end[i] < fl_end[e])
					e = i;
			t = fl_end[e];
			fl_end[e] = fl_end[--nf];
			fl_lim[e] = fl_lim[nf];
		}
		fl_end[nf] = t + est_s[c];
		fl_lim[nf] = l;
		end = fl_end[nf] > end ? fl_end[nf] : end;
		nf++;
	}
out:
	free(fl_lim);
	free(fl_end);
	return end;
}

int pq_exp_jobs_order_played(size_t *todo, size_t n, const char *const *link_key, const double *est_s,
			     const size_t *lim, unsigned jobs, double *played)
{
	int rc = 0;
	size_t *by_cls = malloc((n ? n : 1) * sizeof *by_cls);
	if (!by_cls)
		return PQ_ENOMEM;
	memcpy(by_cls, todo, n * sizeof *todo);
	if ((rc = order_runs(todo, n, link_key, est_s, NULL)) == 0 &&
	    (rc = order_runs(by_cls, n, link_key, est_s, lim)) == 0) {
		double a = pq_exp_jobs_play(todo, n, est_s, lim, jobs), b = pq_exp_jobs_play(by_cls, n, est_s, lim, jobs);
		if (a < 0 || b < 0)
			rc = PQ_ENOMEM;
		else if (b < a)
			memcpy(todo, by_cls, n * sizeof *todo);
		if (played)
			*played = a < 0 || b < 0 ? -1 : b < a ? b : a;
	}
	free(by_cls);
	return rc;
}
