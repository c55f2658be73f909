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
#include "report/out.h"

/* Labels (arms, hosts) are escaped (report/out.h) and padded to the widest, never cut. */
void pq_report_key_text(pq_out *o, const pq_agg *a, int markdown);
int pq_report_csv(const pq_agg *a, const char *dir, pq_diag *d) PQ_MUST_USE;

#endif
