/* A gzip log read member after member, as zlib's gzread reads it, but never dropping
 * what follows: zlib ends a file in silence at bytes after a member that do not start
 * another one (rows appended uncompressed to a rotated .gz log, a second file
 * concatenated by hand), so a count would miss them with exit 0. Here such bytes end the
 * reading with a reason naming the file and the byte offset where they start, as a cut
 * or damaged stream does. A file that does not start with the gzip magic is read as it is.
 *
 * Contract: pq_zeek_gz_open returns 0 with a reader in *out (free with pq_zeek_gz_free),
 * or a negative error naming the file. pq_zeek_gz_read returns the bytes written (0: the
 * end), or a negative error with d set (the file could not be read); at an end that came
 * early pq_zeek_gz_trouble says why, "" after a clean end. */
#ifndef PQ_ZEEK_GZ_H
#define PQ_ZEEK_GZ_H

#include <stddef.h>

#include "core/err.h"

/* What ended the stream early, for pq_zeek_gz_trouble_kind. */
enum pq_zeek_gz_end { PQ_ZGZ_OK, PQ_ZGZ_DAMAGED, PQ_ZGZ_TAIL };

typedef struct pq_zeek_gz pq_zeek_gz;

int pq_zeek_gz_open(const char *path, pq_zeek_gz **out, pq_diag *d) PQ_MUST_USE;
long pq_zeek_gz_read(pq_zeek_gz *g, char *buf, size_t n, pq_diag *d);
/* "" after a clean end; else "at byte N: ..." (damaged or cut short) or "from byte N:
 * not gzip after a whole gzip stream ...", under 96 bytes. */
const char *pq_zeek_gz_trouble(const pq_zeek_gz *g);
enum pq_zeek_gz_end pq_zeek_gz_trouble_kind(const pq_zeek_gz *g);
void pq_zeek_gz_free(pq_zeek_gz *g);

#endif
