/* The studies pqtls reproduces, as data: one row each in pq_studies[], naming the study as
 * the page shows it, where its figures are quoted from, the presets whose grids answer it,
 * the cells its rows need (each a pq_study_want: dimensions by value, never an arm's label)
 * and the rule that turns a database's cells into its rows and verdicts (report/studies.c).
 *
 * The report walks the table (pq_studies_build); so does a unit test that expands every
 * preset a study names and checks its grid holds every cell the study wants, so a preset
 * cannot lose a study's cells unnoticed. A new study is a row here, its rule, its preset and
 * that test's expectations.
 *
 * Contract: pq_study_matches is pure; pq_studies[] ends with NULL. */
#ifndef PQ_REPORT_STUDY_H
#define PQ_REPORT_STUDY_H

#include <stddef.h>

#include "exp/rdb.h"

/* A number a want asks for is given as PQ_IS(value), so 0 stays free for "any". */
#define PQ_IS(v) ((v) + 1)

/* What one of a study's cells must hold. A NULL text or a 0 number means "any" (resumed:
 * PQ_IS(0) none offered, PQ_IS(1) all; padded: PQ_IS(0) natural size, PQ_IS(1) padded).
 * `what` names the cell in the study's rows ("ECDSA X.509"), or NULL. */
typedef struct pq_study_want {
	const char *what;
	const char *leaf, *inter, *mtc, *comp, *group, *profile;
	int inter_n, resumed, early, padded;
	long long rtt_us, resp;
	double loss; /* percent */
} pq_study_want;

/* Does the cell hold what w asks? Text by its stored value (mtc "none" and compression "off"
 * where the database holds none), numbers within 1e-9. */
int pq_study_matches(const pq_rdb_cell *c, const pq_study_want *w);

struct pq_study_rows; /* the report's rows being built (report/studies.c) */

typedef struct pq_study {
	const char *id;      /* "blog-certsize" */
	const char *name;    /* the page's study column: "blog (seeds/000)" */
	const char *source;  /* where its quoted figures come from */
	const char *presets; /* the presets whose grids answer it, ", "-separated */
	/* The cells its rows need; each at every RTT of rtts_us when nrtts > 0 (a want's own
	 * RTT otherwise). */
	const pq_study_want *wants;
	size_t nwants;
	const long long *rtts_us;
	size_t nrtts;
	void (*rows)(struct pq_study_rows *rs, const struct pq_study *s);
} pq_study;

extern const pq_study *const pq_studies[]; /* in the page's order, ends with NULL */

#endif
