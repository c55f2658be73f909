/* The studies pqtls reproduces (../shared/seeds), their own figures beside what the
 * database shows for the same question, each with a verdict in words: the blog's
 * certificate cost at 1, 70 and 148 ms and its 1 MB payload percentiles; the paper's
 * Table V (intermediates), Table VI (five RTTs; fresh, resumed, MTC), Figure 5 (the
 * measured steps against ~10 and ~40 kB) and Table VIII (MTC and CDN regions from the
 * measured cliffs); the AWS study's TTLB slowdown per link profile; Paquin et al.'s
 * handshake percentiles against loss.
 *
 * Each study is a row of data in pq_studies[] (report/study.h: its presets, the cells it
 * wants, its rule in report/study_*.c); pq_studies_build walks that table.
 *
 * Cells are found by the dimensions they hold (pq_agg_dim_text/num: leaf, intermediate,
 * mtc, group, resume, RTT, profile, response, loss), never by an arm's label. A row
 * appears when the database holds what the question needs. The studies' numbers are
 * quoted from their text (cited in each row), not measured here.
 *
 * Contract: pq_studies_build fills a->studies (called once by pq_agg_build; 0 or
 * PQ_ENOMEM); pq_report_studies formats them as an HTML section. */
#ifndef PQ_REPORT_STUDIES_H
#define PQ_REPORT_STUDIES_H

#include "core/err.h"
#include "report/agg.h"
#include "report/out.h"

int pq_studies_build(pq_agg *a, pq_diag *d) PQ_MUST_USE;
void pq_report_studies(pq_out *o, const pq_agg *a);

#endif
