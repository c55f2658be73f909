/* The key tables without a browser: on the terminal (aligned text), as Markdown, and
 * the tables behind each figure as CSV files.
 *
 * Contract: the text writers append to *o (errors sticky); pq_report_csv writes, into
 * an existing directory and each atomically: key.csv (every group and phase: n,
 * median and its interval, tails, the difference against the baseline; the size and
 * TTLB figures plot its rows), cdf.csv (every handshake time with its cumulative
 * share) and agreement.csv (predicted and measured round trips, and the reason when
 * they differ). Returns 0 or a negative error naming the file. */
#ifndef PQ_REPORT_TABLES_H
#define PQ_REPORT_TABLES_H

#include <stdint.h>

#include "core/err.h"
#include "report/agg.h"
#include "report/compare.h"
#include "report/out.h"

/* Labels (arms, hosts) are escaped (report/out.h) and padded to the widest, never cut. */
void pq_report_key_text(pq_out *o, const pq_agg *a, int markdown);
int pq_report_csv(const pq_agg *a, const char *dir, pq_diag *d) PQ_MUST_USE;
/* Two runs side by side (report/compare.h): which two, whether of one grid, a summary,
 * then the grid points in both (each run's median and interval, the bootstrap difference
 * B - A) and those only one of them holds. compare.csv has the same rows, one per point:
 * host, point_key, arm, in (both, A, B), phase, each run's n, median and interval, and the
 * difference with its interval and whether it is measurable. */
void pq_report_compare_text(pq_out *o, const pq_compare *c, int markdown);
int pq_report_compare_csv(const pq_compare *c, const char *dir, pq_diag *d) PQ_MUST_USE;

#endif
