/* What resumption saves (the paper's Figure 7): the fresh and resumed time to first byte
 * a sweep measured (a `pqtls sweep` results database, read through the one reader,
 * exp/rdb.h: its typed cells and connections), per chain and RTT, combined with the
 * resumption rate of each category from Zeek logs into the expected saving per connection:
 *     saving = r * (TTFB_fresh - TTFB_resumed),   in ms and in % of TTFB_fresh,
 * with r's 95 % Wilson interval carried through (the TTFB medians' own spread is not).
 * Cells with emulated loss in either direction and 0-RTT connections are left out; a
 * remote server's cells (RTT and loss not ours to know: stored NULL) are kept, grouped
 * apart with the RTT unknown, shown as "remote" (an empty rtt_ms in the CSV).
 *
 * Contract: pq_zeek_savings_load reads the database (read-only) and returns 0 or a
 * negative code with d naming the file and what is wrong (exp/rdb.h's reasons: not a
 * database, another schema version, a number stored as text, no measured cell; or no
 * chain measured both fresh and resumed). */
#ifndef PQ_ZEEK_SAVINGS_H
#define PQ_ZEEK_SAVINGS_H

#include <stdio.h>

#include "core/err.h"
#include "zeek/agg.h"

typedef struct pq_zeek_ttfb {
	char chain[160];   /* the sweep's chain_desc */
	int rtt_known;     /* 0: a remote server's path (rtt_ms NaN) */
	double rtt_ms;
	double fresh_ms, resumed_ms; /* medians over successful connections */
	long fresh_n, resumed_n;
} pq_zeek_ttfb;

typedef struct pq_zeek_savings {
	pq_zeek_ttfb *v;
	size_t n;
} pq_zeek_savings;

int pq_zeek_savings_load(pq_zeek_savings *s, const char *path, pq_diag *d) PQ_MUST_USE;
void pq_zeek_savings_free(pq_zeek_savings *s);

/* Table (csv = 0) or CSV of the expected saving per chain, RTT and category. */
void pq_zeek_savings_print(FILE *f, const pq_zeek_savings *s, const pq_zeek_agg *a, int csv);

#endif
