/* The report page: one self-contained HTML file (inline CSS, inline SVG from
 * report/svg.h, a few lines of inline script that only sort tables), readable on a
 * phone's width and when printed. Sections appear for whatever the database holds: the
 * key tables with confidence intervals, differences against the baseline arm and the
 * flight model's prediction; the studies' own figures beside pqtls's; time against
 * chain size as a step plot with the model and its cliffs; CDFs per arm; TTLB slowdown
 * against response size; the model's agreement; the run manifest and link self-checks.
 * A database of several hosts shows them side by side.
 *
 * Contract: appends the page to *o (errors sticky in *o); `source` names the database
 * in the page; `cmp` (NULL: none) adds the section of two runs side by side
 * (report/compare.h) after the findings. The ids of the figures written are listed
 * in the page's <meta name="pqtls-figures">, for tests. */
#ifndef PQ_REPORT_HTML_H
#define PQ_REPORT_HTML_H

#include <stdint.h>

#include "report/agg.h"
#include "report/compare.h"
#include "report/out.h"
#include "exp/rdb.h"

void pq_report_html(pq_out *o, const pq_rdb *db, const pq_agg *a, const char *source, const pq_compare *cmp);

#endif
