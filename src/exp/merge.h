/* `pqtls merge`: several results databases of one grid (shards, or the same spec measured
 * from several client hosts) into one new file. Row ids are renumbered; cells keep their
 * keys and host names, so cells of different hosts stay apart and a cell that two inputs
 * both hold for one host is refused (merging a file twice, or overlapping shards). The
 * output is built under a temporary name and renamed at the end, never over a file: when
 * another process (a second merge to the same new file) created out meanwhile, out is left
 * as it is and this merge fails (PQ_EEXIST) naming it, its own result removed. A name
 * that is taken at the start is refused at once (PQ_EEXIST): a file, or a symbolic link,
 * named as dangling when what it points to is missing. Names and keys read from the inputs
 * are shown escaped (core/text.h). */
#ifndef PQ_EXP_MERGE_H
#define PQ_EXP_MERGE_H

#include <stddef.h>

#include "core/err.h"

typedef struct pq_exp_merge_stats {
	size_t runs, cells, conns, hosts;
} pq_exp_merge_stats;

int pq_exp_merge(const char *const *inputs, size_t n, const char *out, pq_exp_merge_stats *st,
		 pq_diag *d) PQ_MUST_USE;

#endif
