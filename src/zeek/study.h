/* The paper's Zeek findings (arXiv 2604.24869, ../shared/seeds/003) beside a data set's.
 * Its figures are quoted here once; every row's verdict is decided here, and `zeek
 * summary` and `zeek savings` only print the rows.
 *
 * Table III (NCSA traffic): TLS 1.3 adoption and resumption of CDN against non-CDN
 * servers. Its non-CDN is pqtls's Other (neither CDN nor cloud; Unknown is apart, as the
 * paper's "unidentified"). What a network of one's own can test is the finding, not the
 * NCSA's rates: CDNs above non-CDN. A row agrees when the CDN rate's 95 % interval lies
 * above Other's, differs when below, and cannot be judged when they overlap or a category
 * has no rows; the rates themselves are shown beside the paper's.
 *
 * Figure 7: the expected saving per connection, resumption rate x the TTFB a resumed
 * connection saves, at 50 ms (theirs 40-80 ms) and 100 ms (75-155 ms), "about twice" for
 * CDNs. Two rows per RTT: (1) the paper's rates (Table III, all versions) times the gains
 * a sweep measured for chains that pay at least half a round trip more when fresh (the
 * paper's range is of chains past a threshold): agrees when every such saving is inside
 * the paper's range, read off its figure to 10 %; cannot be judged when the sweep has no
 * such chain at that RTT. (2) The data set's own rates: CDNs save r_CDN / r_Other times
 * what Other saves (the gain is the chain's, the same for both); agrees when the rates'
 * intervals are apart and the ratio's interval [lo_CDN / hi_Other, hi_CDN / lo_Other]
 * holds the paper's 2.27 (80.30 / 35.44); differs in size when it does not; as Table III
 * otherwise. */
#ifndef PQ_ZEEK_STUDY_H
#define PQ_ZEEK_STUDY_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "zeek/agg.h"
#include "zeek/savings.h"

typedef struct pq_zeek_study {
	char what[128];	   /* "Table III: resumption, all versions, CDN against non-CDN" */
	char theirs[160];
	char ours[320];
	char verdict[320];
	int agrees; /* a pq_verdict (report/verdict.h): 1 agrees, 0 differs, -1 cannot be judged */
} pq_zeek_study;

#define PQ_ZEEK_STUDY_MAX 8

/* Table III's rows from a's counts (3: adoption, resumption all and TLS 1.3). */
size_t pq_zeek_study_table3(const pq_zeek_agg *a, pq_zeek_study *out, size_t max);
/* Figure 7's rows from a sweep's gains and a's counts (4: per RTT, the paper's rates and
 * these). */
size_t pq_zeek_study_fig7(const pq_zeek_savings *s, const pq_zeek_agg *a, pq_zeek_study *out, size_t max);

/* The rows as text (a heading, then theirs / here / verdict per row), or as a JSON array
 * (NULL on ENOMEM). */
void pq_zeek_study_print(FILE *f, const pq_zeek_study *v, size_t n);
cJSON *pq_zeek_study_json(const pq_zeek_study *v, size_t n);

#endif
