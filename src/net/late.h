/* Release lateness: how late the forwarder wrote each packet against the time its path
 * scheduled it for (actual - due, both passed in: no clock is read here, so a test drives
 * it with made-up times). Every sample is kept, so percentiles are exact (core/stats):
 * over the link's life, for its stats line, and over the current window (a cell, a
 * self-check), which the caller takes and so starts the next one.
 *
 * Memory is bounded: past `cap` samples a set keeps counting and keeps its maximum, but
 * its percentiles describe the first `cap` releases only (pq_late_win.n says how many
 * there were in all). Not thread-safe: the forwarder's lock guards it. */
#ifndef PQ_NET_LATE_H
#define PQ_NET_LATE_H

#include <stddef.h>
#include <stdint.h>

#include "stats/sample.h"

#define PQ_LATE_DEFAULT_CAP ((size_t)4 << 20)

/* One window's samples, moved out of the forwarder: summarise and dispose of it outside
 * the forwarder's lock. */
typedef struct pq_late_win {
	pq_stats s;   /* lateness in ns, up to the cap */
	uint64_t n;   /* releases in the window, sampled or not */
	double max;   /* the largest lateness of all of them (NaN: none) */
} pq_late_win;

typedef struct pq_late {
	size_t cap;
	pq_stats life;          /* the first `cap` releases of the link's life */
	uint64_t life_n;
	double life_max;
	pq_late_win win;        /* the current window */
} pq_late;

void pq_late_init(pq_late *l, size_t cap); /* cap 0: PQ_LATE_DEFAULT_CAP */
void pq_late_dispose(pq_late *l);

/* A packet due at due_ns was written at at_ns. Out of memory only stops sampling (the
 * counts and the maximum go on). */
void pq_late_note(pq_late *l, int64_t due_ns, int64_t at_ns);

/* The link's life so far: exact percentiles of its sampled releases, n and max over all. */
void pq_late_life(pq_late *l, pq_summary *out);

/* Moves the current window into *out (O(1): no copy, no sort) and makes *next (empty;
 * NULL: a fresh one) the current one: a caller that reserves room in it beforehand keeps
 * the forwarder out of the allocator while it releases packets. */
void pq_late_take(pq_late *l, pq_late_win *next, pq_late_win *out);
/* An empty window with room for `n` samples, its pages touched (so the forwarder takes no
 * page fault filling them); without the memory, an empty window that grows as it goes. */
void pq_late_win_prepare(pq_late_win *w, size_t n);

/* A taken window's summary (all NaN, n = 0, when it saw no release); sorts its samples. */
void pq_late_win_init(pq_late_win *w); /* empty */
void pq_late_win_summary(pq_late_win *w, pq_summary *out);
void pq_late_win_dispose(pq_late_win *w);

#endif
