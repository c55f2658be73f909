/* The key table's pivot (report/agg.h, pq_agg_pivot): where a dimension varies within the
 * arms (RTT, loss, chain size, response size), the arms against its values, one grid point
 * per cell, like the studies' own tables.
 *
 * Contract: pq_pivot_build fills a->pivots (one per host that has such a dimension) from
 * a->g and a->point_dims (called once by pq_agg_build, after pq_agg_split); the dimension
 * is the one of RTT, loss, padded size, response, rate (in that order on a tie) with the
 * most values; a dimension that only follows it (a profile that sets the RTT) is not part
 * of a row's identity. Returns 0 or PQ_ENOMEM. */
#ifndef PQ_REPORT_PIVOT_H
#define PQ_REPORT_PIVOT_H

#include "core/err.h"
#include "report/agg.h"

int pq_pivot_build(pq_agg *a) PQ_MUST_USE;

#endif
