/* The studies pqtls reproduces (../shared/seeds), their own figures beside what the
 * database shows for the same question, where the database has the arms to answer it:
 * the blog's ML-DSA-65 cost at 1 ms and at WAN RTTs, the paper's chain-size cliffs, the
 * AWS study's TTLB slowdown at large responses. The studies' numbers are quoted from
 * their text (cited in the table), not measured here. */
#ifndef PQ_REPORT_STUDIES_H
#define PQ_REPORT_STUDIES_H

#include <stdint.h>

#include "report/agg.h"
#include "report/out.h"

void pq_report_studies(pq_out *o, const pq_agg *a);

#endif
