#include "net/late.h"

#include <math.h>
#include <string.h>

void pq_late_win_init(pq_late_win *w)
{
	pq_stats_init(&w->s);
	w->n = 0;
	w->max = NAN;
}

void pq_late_init(pq_late *l, size_t cap)
{
	l->cap = cap ? cap : PQ_LATE_DEFAULT_CAP;
	pq_stats_init(&l->life);
	l->life_n = 0;
	l->life_max = NAN;
	pq_late_win_init(&l->win);
}

void pq_late_win_dispose(pq_late_win *w)
{
	pq_stats_dispose(&w->s);
	pq_late_win_init(w);
}

void pq_late_dispose(pq_late *l)
{
	pq_stats_dispose(&l->life);
	pq_late_win_dispose(&l->win);
}

void pq_late_note(pq_late *l, int64_t due_ns, int64_t at_ns)
{
	double x = (double)(at_ns - due_ns);
	if (l->life.n < l->cap && pq_stats_add(&l->life, x))
		l->cap = l->life.n; /* out of memory: sample no further */
	if (l->win.s.n < l->cap && pq_stats_add(&l->win.s, x)) {
		/* out of memory: this window misses the sample; its count and maximum do not */
	}
	l->life_n++;
	l->win.n++;
	if (isnan(l->life_max) || x > l->life_max)
		l->life_max = x;
	if (isnan(l->win.max) || x > l->win.max)
		l->win.max = x;
}

/* The summary of a sampled set with its true count and maximum. */
static void summary_of(pq_stats *s, uint64_t n, double max, pq_summary *out)
{
	pq_stats_summary(s, out);
	if (n) {
		out->n = (size_t)n;
		out->max = max;
	}
}

void pq_late_life(pq_late *l, pq_summary *out)
{
	summary_of(&l->life, l->life_n, l->life_max, out);
}

void pq_late_take(pq_late *l, pq_late_win *next, pq_late_win *out)
{
	*out = l->win;
	if (next)
		l->win = *next;
	else
		pq_late_win_init(&l->win);
}

void pq_late_win_prepare(pq_late_win *w, size_t n)
{
	pq_late_win_init(w);
	if (n && pq_stats_reserve(&w->s, n) == 0)
		memset(w->s.v, 0, w->s.cap * sizeof *w->s.v);
}

void pq_late_win_summary(pq_late_win *w, pq_summary *out)
{
	summary_of(&w->s, w->n, w->max, out);
}
