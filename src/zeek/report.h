/* What `pqtls zeek summary` and `merge` print from an aggregate: the paper's Table III
 * layout (TLS 1.3 adoption and resumption in three scopes per category, with counts and
 * 95 % Wilson intervals), versions, key-exchange groups, top server names and ASNs, the
 * daily or monthly trend, and the skipped lines with file and line. As a terminal table,
 * one JSON object, or one long-format CSV.
 *
 * Contract: pq_zeek_report_json returns a new cJSON object (NULL on ENOMEM). */
#ifndef PQ_ZEEK_REPORT_H
#define PQ_ZEEK_REPORT_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "zeek/agg.h"

enum pq_zeek_by { PQ_ZBY_NONE, PQ_ZBY_DAY, PQ_ZBY_MONTH };

typedef struct pq_zeek_report_opts {
	int top;       /* entries in each top list */
	int by;        /* enum pq_zeek_by */
	const char *classification; /* one line saying how servers were classified */
} pq_zeek_report_opts;

void pq_zeek_report_text(FILE *f, const pq_zeek_agg *a, const pq_zeek_report_opts *o);
cJSON *pq_zeek_report_json(const pq_zeek_agg *a, const pq_zeek_report_opts *o);
void pq_zeek_report_csv(FILE *f, const pq_zeek_agg *a, const pq_zeek_report_opts *o);
/* Lines skipped, all reasons. */
uint64_t pq_zeek_report_skipped(const pq_zeek_agg *a);

#endif
