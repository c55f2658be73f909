/* Input files for `pqtls zeek`: whole small files (lists, ranges), the expansion of
 * directories into the log files under them, and the split of large uncompressed logs
 * into line-aligned chunks so that every core can read one file.
 *
 * Contract: functions take the input's name for messages and return 0 or a negative
 * code with d set. */
#ifndef PQ_ZEEK_INPUT_H
#define PQ_ZEEK_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

/* Reads a whole file, plain or gzip, NUL-terminated; *len excludes the NUL. A file of more
 * than cap bytes (after gunzip) is refused (PQ_ETOOBIG), one of exactly cap is read. */
int pq_zeek_slurp(const char *path, size_t cap, char **out, size_t *len, pq_diag *d) PQ_MUST_USE;

typedef struct pq_zeek_files {
	char **v;
	size_t n;
} pq_zeek_files;

/* Appends path, or, for a directory, every regular file under it whose name starts with
 * "ssl" or holds "_ssl" and ends in .log or .log.gz (sorted, recursively). */
int pq_zeek_files_add(pq_zeek_files *f, const char *path, pq_diag *d) PQ_MUST_USE;
void pq_zeek_files_free(pq_zeek_files *f);

/* Does the file start with the gzip magic? 1 yes, 0 no, negative on error. */
int pq_zeek_is_gzip(const char *path, pq_diag *d);

#endif
