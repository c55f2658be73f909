/* The page's key section (report/html.h): the arms table (what each arm fixes, once), the
 * pivot of the arms against the dimension that varies within them (report/pivot.h), and
 * the long key table, one row per grid point, its columns what varies within an arm and
 * the results, each arm's name linking to its row of the arms table. All fit a 1280 px
 * window without a sideways scroll (tests/integration/report_fit.sh).
 *
 * Contract: each writer appends to *o (errors sticky in *o); nothing is computed here. */
#ifndef PQ_REPORT_KEYHTML_H
#define PQ_REPORT_KEYHTML_H

#include <stdint.h>

#include "report/agg.h"
#include "report/out.h"
#include "stats/ci.h"

void pq_keyhtml_section(pq_out *o, const pq_agg *a);
/* One median with its 95 % interval in a <td>, or the words where it has none. */
void pq_keyhtml_ms_ci(pq_out *o, const pq_ci_desc *d);

#endif
