/* Reads many Zeek ssl logs on every core into one aggregate. Uncompressed files are
 * mapped and split into line-aligned chunks (each chunk learns the TSV header in
 * effect at its start), gzip files are streamed whole by one thread each; each thread
 * counts into its own aggregate and the aggregates are merged at the end, so the
 * result does not depend on the number of threads.
 *
 * Contract: returns 0 when every file could be opened and read (malformed lines are
 * not failures: they are counted in out->bad), else a negative code with d set. */
#ifndef PQ_ZEEK_RUN_H
#define PQ_ZEEK_RUN_H

#include <stddef.h>

#include "core/err.h"
#include "zeek/agg.h"
#include "zeek/input.h"

typedef struct pq_zeek_run_cfg {
	int threads;      /* >= 1 */
	size_t chunk;     /* bytes per chunk of an uncompressed file */
	const pq_zeek_classifier *cls;
	int want_chains;  /* keep certificate chains (pq_zeek_agg.chains) */
} pq_zeek_run_cfg;

int pq_zeek_run(const pq_zeek_files *files, const pq_zeek_run_cfg *cfg, pq_zeek_agg *out, pq_diag *d) PQ_MUST_USE;

#endif
