/* The report's curves across one dimension (report/agg.h, pq_agg_curve): every set of
 * grid points that differ only in their loss (at one RTT), or only in their RTT, becomes
 * one curve, so a figure never joins points that differ in anything else.
 *
 * Contract: pq_curve_build fills a->curves from a->g (called once by pq_agg_build);
 * returns 0 or PQ_ENOMEM. */
#ifndef PQ_REPORT_CURVE_H
#define PQ_REPORT_CURVE_H

#include "core/err.h"
#include "report/agg.h"

int pq_curve_build(pq_agg *a) PQ_MUST_USE;

/* Whether two cells hold the same value of every dimension but `key` (and the trial). */
int pq_curve_same_but(const pq_rdb_cell *x, const pq_rdb_cell *y, const char *key);
/* In how many dimensions two cells differ (derived and stored-only entries not counted). */
int pq_curve_distance(const pq_rdb_cell *x, const pq_rdb_cell *y);
/* Whether two cells (of any arms) differ in their chain only (PQ_DIM_CHAIN: algorithms,
 * intermediates, padding, MTC): the points one line against the chain's size may join. */
int pq_curve_same_but_chain(const pq_rdb_cell *x, const pq_rdb_cell *y);
/* Whether two cells differ only in how the client resumes (tickets, resume share, 0-RTT,
 * warm-up connections): a resumed arm's full-handshake counterpart. */
int pq_curve_same_but_resumption(const pq_rdb_cell *x, const pq_rdb_cell *y);

#endif
