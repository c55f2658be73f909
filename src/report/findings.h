/* The report's findings: the few sentences the page (after its title) and the terminal
 * (before the key table) open with. Each is generated from the analysis (report/agg.h:
 * the groups' bootstrap differences to their baseline, the flight model's predicted and
 * measured round trips and its agreement, the chain-size lines' steps and cliffs, the
 * studies' verdicts), never written by hand, and stated only where its evidence says so:
 *
 *  - an arm that differs from the baseline by whole round trips: the bootstrap interval
 *    of the difference excludes 0, the model predicts that many round trips more (or
 *    fewer) than for the baseline, the measured difference is within PQ_MODEL_AGREE_RTT
 *    round trips of it, and both grid points agree with the model (so never at an RTT
 *    where CPU time is a large share of a round trip); resumption removing such a cost,
 *    and 0-RTT bringing the first byte sooner, by the same rule;
 *  - a size sweep's measured step where the model puts its cliff;
 *  - the arms with no measurable difference anywhere, in one sentence;
 *  - how many grid points the model agrees with, and the others' reasons;
 *  - under loss, how many cells the loss model agrees with, and from which loss the
 *    medians pay their first extra round trip, measured and by the loss model;
 *  - each study's verdicts, counted.
 *
 * Each finding links to its evidence by the page's anchors (below). Texts hold names from
 * the database as they are: every renderer escapes them (report/out.h).
 *
 * Contract: pq_findings_build fills *out from a (pq_agg_build calls it last); pure. */
#ifndef PQ_REPORT_FINDINGS_H
#define PQ_REPORT_FINDINGS_H

#include <stddef.h>

#define PQ_FINDINGS_MAX 16
#define PQ_FINDING_LINKS 4

typedef struct pq_finding_link {
	char id[40];	/* an anchor of the page: "key-g12", "study-3", "fig-size-h0-r1", "agreement" */
	char label[48]; /* "70 ms", "row 4", "figure" */
} pq_finding_link;

typedef struct pq_finding {
	char text[900]; /* one sentence */
	pq_finding_link link[PQ_FINDING_LINKS];
	size_t nlinks;
} pq_finding;

typedef struct pq_findings {
	pq_finding f[PQ_FINDINGS_MAX];
	size_t n;
	size_t more; /* findings that held but did not fit: the renderers say how many */
} pq_findings;

struct pq_agg;
struct pq_agg_group;

void pq_findings_build(const struct pq_agg *a, pq_findings *out);

/* The page's anchors, written by the renderers and linked to by the findings: a group's
 * key-table row, study row i, and part `part` of the chain-size figure of a host and RTT
 * (each holds PQ_FINDINGS_LINES_PER_FIG lines, in a->lines' order: one, so that several
 * lines at one RTT are small multiples, a panel per arm or family on shared axes, never
 * more than four series in one). */
#define PQ_FINDINGS_LINES_PER_FIG 1
void pq_findings_group_id(const struct pq_agg *a, const struct pq_agg_group *g, char *buf, size_t n);
void pq_findings_study_id(size_t i, char *buf, size_t n);
void pq_findings_size_fig_id(int host, int rtt, size_t part, char *buf, size_t n);

#endif
