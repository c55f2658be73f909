/* One row per candidate (arm) over the transports, initial windows and RTTs a run
 * crossed: the chain's first flight, and for each column the flight model's round trips
 * to the first byte beside the measured ones and the model's verdict ("fits": the flight
 * takes one round; else the round trips it costs). The webpki preset's question: which
 * signature scheme keeps the handshake at two round trips. Built once (pq_agg_build),
 * when the run has TCP and QUIC cells of arms that vary only the link; renderers format.
 *
 * Contract: pq_cand_build fills a->cands (sorted by first-flight bytes, then arm) and
 * a->cand_cols, or leaves ncands 0; it returns a negative error only when out of memory. */
#ifndef PQ_REPORT_CAND_H
#define PQ_REPORT_CAND_H

#include "report/agg.h"

int pq_cand_build(pq_agg *a) PQ_MUST_USE;

/* The column's heading: "TCP IW10 50 ms", "QUIC 100 ms" (QUIC: no initcwnd). */
void pq_cand_col_label(const pq_agg_cand_col *c, char *buf, size_t n);

/* The model's verdict for a group: "fits", "costs 1 round trip", "costs 3 round trips". */
void pq_cand_verdict(const pq_agg_group *g, char *buf, size_t n);

/* The table as an HTML section (id "candidates"); nothing when a->ncands is 0. In
 * report/cand_html.c: it only formats. */
struct pq_out;
void pq_cand_html(struct pq_out *o, const pq_agg *a);

#endif
