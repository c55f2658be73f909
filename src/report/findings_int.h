/* Inside the findings (report/findings.h): the builder the kinds of finding share
 * (findings.c) and the arms' round-trip findings (findings_rtts.c). Not for other modules.
 *
 * Contract: pq_findings_add returns the next finding, zeroed, or NULL when
 * PQ_FINDINGS_MAX are said (counted in out->more); pq_findings_link_to adds a link while
 * there is room; the three kinds below add their findings in a->lines' and a->g's order
 * and mark in said[][] every arm they name. */
#ifndef PQ_REPORT_FINDINGS_INT_H
#define PQ_REPORT_FINDINGS_INT_H

#include "report/agg.h"
#include "report/findings.h"

typedef struct pq_findings_builder {
	const pq_agg *a;
	pq_findings *out;
	unsigned char said[PQ_AGG_MAX_HOSTS][PQ_AGG_MAX_ARMS]; /* an arm a finding named */
} pq_findings_builder;

pq_finding *pq_findings_add(pq_findings_builder *b);
void pq_findings_link_to(pq_finding *f, const char *id, const char *label);

/* The arms that differ from the baseline by whole round trips (resumption and 0-RTT too). */
void pq_findings_arms(pq_findings_builder *b);
/* A size sweep's measured step where the model puts its cliff, per arm over its RTTs. */
void pq_findings_steps(pq_findings_builder *b);
/* The arms no finding named whose every difference from the baseline is not measurable. */
void pq_findings_no_difference(pq_findings_builder *b);

#endif
