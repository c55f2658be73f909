/* The report's figures chosen from what varies (each drawn with report/svg.h from the
 * aggregate's curves and groups, captioned with the real values): handshake percentiles
 * against loss per RTT, TTFB against RTT per grid point family, and the distribution of
 * handshake times per grid point at each RTT.
 *
 * Contract: each writer appends its figures to *o (errors sticky in *o), adds each
 * figure's id to *ids, and writes nothing when the database holds no such curve. */
#ifndef PQ_REPORT_CHARTS_H
#define PQ_REPORT_CHARTS_H

#include <stddef.h>

#include "report/agg.h"
#include "report/out.h"

#define PQ_CHARTS_MAX_IDS 128

typedef struct pq_chart_ids {
	char id[PQ_CHARTS_MAX_IDS][48];
	size_t n;
} pq_chart_ids;

void pq_chart_ids_add(pq_chart_ids *ids, const char *id);

void pq_charts_loss(pq_out *o, const pq_agg *a, int host, int rtt, pq_chart_ids *ids);
void pq_charts_rtt(pq_out *o, const pq_agg *a, int host, pq_chart_ids *ids);
void pq_charts_cdf(pq_out *o, const pq_agg *a, int host, int rtt, pq_chart_ids *ids);

#endif
