/* What the study files (report/study_*.c) share to build their rows: the rows being built,
 * finding a study's cell by what it wants, and the median and bootstrap texts every row
 * uses. Internal to the studies (report/studies.c walks the table of report/study.h).
 *
 * Contract: pq_study_add returns the new row or NULL (then rs->err is PQ_ENOMEM and the
 * caller stops); pq_study_pick returns the first group of host 0 over TCP that holds what
 * w asks and has measured connections, or NULL. */
#ifndef PQ_REPORT_STUDY_ROWS_H
#define PQ_REPORT_STUDY_ROWS_H

#include <stddef.h>

#include "report/agg.h"
#include "report/out.h"
#include "report/study.h"
#include "report/verdict.h"
#include "stats/boot.h"

typedef pq_study_want want;
#define IS PQ_IS
#define cat pq_out_cat

struct pq_study_rows {
	pq_agg *a;
	size_t cap;
	int err;
};
typedef struct pq_study_rows rows;

pq_agg_study *pq_study_add(rows *r, const char *study);
const pq_agg_group *pq_study_pick(const pq_agg *a, const want *w);
/* "211.85 ms [211.30, 212.20]" (median, 95 % CI) or with "n = 4: no CI", appended. */
void pq_study_med(char *b, size_t n, const pq_agg_group *g, enum pq_agg_phase p);
/* The bootstrap difference y - x of phase p; 1 when it could be computed. */
int pq_study_diff(const pq_agg *a, const pq_agg_group *x, const pq_agg_group *y, enum pq_agg_phase p,
		  pq_boot_result *r);
double pq_study_rtt_ms(const pq_agg_group *g);

extern const pq_study pq_study_blog_certsize, pq_study_blog_payload, pq_study_paper_table5, pq_study_paper_table6,
	pq_study_paper_figure5, pq_study_paper_table8, pq_study_paper_table8_measured, pq_study_aws_ttlb,
	pq_study_paquin_loss;

#endif
