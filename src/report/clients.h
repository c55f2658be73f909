/* pqtls's client beside Chromium (client = pqtls | chromium, report/agg.h: pq_agg_pair):
 * at each grid point both measured, both medians of the first byte and the bootstrap
 * difference, Chromium minus pqtls, of its whole first byte and of its network-only one,
 * the whole difference split into Chromium's certificate verification, its request's
 * dispatch and the rest, and the flight model beside both, each fed with its own
 * client's ClientHello. Over the pairs: how many WAN grid points have Chromium's
 * network-only first byte within PQ_MODEL_AGREE_RTT round trips of pqtls's, and whether
 * the size sweeps' steps fall at the same chain sizes for both clients. Built once
 * (pq_agg_build); html.c, tables.c and the findings only format it.
 *
 * Contract: pq_clients_build fills a->pairs (in the groups' order) and a->pairs_sum, or
 * leaves npairs 0 where no grid point has both clients; it returns 0 or PQ_ENOMEM. */
#ifndef PQ_REPORT_CLIENTS_H
#define PQ_REPORT_CLIENTS_H

#include "core/err.h"
#include "report/agg.h"

int pq_clients_build(pq_agg *a) PQ_MUST_USE;

/* A warm browser's verification, post-quantum chain against classical (pq_agg_warm): fills
 * a->warm in the groups' order, nwarm 0 where no warm grid point has a classical partner;
 * 0 or PQ_ENOMEM. In report/clients_warm.c. */
int pq_clients_warm_build(pq_agg *a) PQ_MUST_USE;

/* The finding's sentence: "A warm Chromium's certificate verification at 70 ms: ml-dsa-65
 * 9.1 ms against ecdsa-p256's 2.3, +6.8 [5.9, 7.7] ms; ..." (median, bootstrap 95 %
 * interval, PQ minus classical); "" when a->nwarm is 0. */
void pq_clients_warm_text(const pq_agg *a, char *buf, size_t n);

/* The pair's line of the model beside the measurement, in round trips: "model 4.00 / 4.00
 * (ClientHello 1,936 / 1,573 B); measured 4.02 / 4.01" (Chromium's network-only first)
 * or "no model". */
void pq_clients_model_text(const pq_agg_pair *p, char *buf, size_t n);

/* "+66.0 = verification 48.0 + dispatch 21.0 + rest -3.0 ms", or why not. */
void pq_clients_split_text(const pq_agg_pair *p, char *buf, size_t n);

/* What the pairs say over the grid, in sentences: the WAN grid points whose network-only
 * first byte is within PQ_MODEL_AGREE_RTT round trips (the largest difference), the
 * ranges of Chromium's verification and dispatch, and the size sweeps' steps for both
 * clients. "" when a->npairs is 0. */
void pq_clients_summary_text(const pq_agg *a, char *buf, size_t n);

/* The HTML section (id "clients"); nothing when a->npairs is 0. In
 * report/clients_html.c: it only formats. */
struct pq_out;
void pq_clients_html(struct pq_out *o, const pq_agg *a);

#endif
