/* The report's section on loss: each loss cell's measured handshake percentiles beside
 * the loss model's with a verdict, the agreement rate, and per arm the loss from which
 * the median pays its first extra round trip (report/agg_loss.c computes all of it; this
 * only formats), beside Paquin et al.'s published shape. Nothing when no cell has loss. */
#ifndef PQ_REPORT_LOSS_H
#define PQ_REPORT_LOSS_H

#include "report/agg.h"
#include "report/out.h"

void pq_report_loss(pq_out *o, const pq_agg *a);

#endif
