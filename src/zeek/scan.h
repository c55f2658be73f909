/* Lines to counts: feeds each line of one piece of input to the TSV or JSON reader and
 * the result to an aggregate; every skipped line is counted there with its file, line
 * and reason, and the rest is still read.
 *
 * Contract: pq_zeek_scan_buf consumes the complete lines of buf (modifying them in
 * place) and returns how many bytes it consumed; with final set, a last line without a
 * newline is counted as truncated and consumed too. A negative return is PQ_ENOMEM.
 * Rows are counted in batches; pq_zeek_scan_line leaves its row in the batch until
 * pq_zeek_scan_flush (pq_zeek_scan_buf flushes before it returns). */
#ifndef PQ_ZEEK_SCAN_H
#define PQ_ZEEK_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "zeek/agg.h"
#include "zeek/tsv.h"

typedef struct pq_zeek_scan {
	pq_zeek_agg *agg;
	const char *file;
	uint32_t unit;
	uint64_t line;   /* lines read so far in this unit */
	int json;        /* the file is JSON lines (its first byte is '{'); in a TSV file too,
			  * a line starting with '{' is read as JSON (a log whose first line is
			  * damaged, or TSV and JSON concatenated) */
	pq_zeek_tsv tsv;
	unsigned blocks0; /* tsv.blocks inherited from earlier units */
	pq_zeek_rec batch[32]; /* parsed rows not yet counted (they point into the buffer) */
	uint64_t hash[32];     /* their servers' hashes, slots prefetched as each was parsed */
	size_t nbatch;
} pq_zeek_scan;

void pq_zeek_scan_init(pq_zeek_scan *s, pq_zeek_agg *agg, const char *file, uint32_t unit, int json);
/* Feeds header lines written before this unit (a copy, so they are not modified). */
void pq_zeek_scan_inherit(pq_zeek_scan *s, const char *hdr, size_t len);
int pq_zeek_scan_line(pq_zeek_scan *s, char *line, size_t len) PQ_MUST_USE;
int pq_zeek_scan_flush(pq_zeek_scan *s) PQ_MUST_USE;
long pq_zeek_scan_buf(pq_zeek_scan *s, char *buf, size_t len, int final) PQ_MUST_USE;
/* Counts this unit's header blocks into the aggregate. */
void pq_zeek_scan_finish(pq_zeek_scan *s);

#endif
