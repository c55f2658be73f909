/* Inside the report page (report/html.h): the state its sections share and the sections
 * html.c writes in order, each from its own file. Not for other modules.
 *
 * Contract: each section appends to p->o (errors sticky there) and adds the id of every
 * figure it draws with pq_html_fig_add, in the order drawn. */
#ifndef PQ_REPORT_HTML_INT_H
#define PQ_REPORT_HTML_INT_H

#include <stdint.h>

#include "exp/rdb.h"
#include "report/agg.h"
#include "report/charts.h"
#include "report/compare.h"
#include "report/out.h"

typedef struct pq_html_page {
	pq_out *o;
	const pq_rdb *db;
	const pq_agg *a;
	uint64_t seed;
	pq_chart_ids figs;
} pq_html_page;

void pq_html_fig_add(pq_html_page *p, const char *id);

/* Two runs side by side (html_compare.c). */
void pq_html_compare(pq_out *o, const pq_compare *c);
/* The figures: chain size, loss, RTT, CDFs, TTLB slowdown (html_figs.c). */
void pq_html_figures(pq_html_page *p);
/* The flight model against the measurement: table and figure (html_model.c). */
void pq_html_agreement(pq_html_page *p);
/* Link and host fidelity per cell; the run manifest and link self-checks (html_run.c). */
void pq_html_fidelity(pq_html_page *p);
void pq_html_manifest(pq_html_page *p);

#endif
