/* Mergeable counts on disk: `pqtls zeek summary --partial FILE` writes an aggregate
 * whole (every count, every server, name, group and day), `pqtls zeek merge` reads any
 * number back and adds them, so N partial runs merged equal one run over all files.
 * Counts are stored as JSON numbers, exact up to 2^53.
 *
 * Contract: write goes to a temporary file renamed into place (nothing half-written
 * is left); read adds the file's counts into a and returns 0 or PQ_EPARSE / -errno
 * with d naming the file and what was wrong. */
#ifndef PQ_ZEEK_PARTIAL_H
#define PQ_ZEEK_PARTIAL_H

#include "core/err.h"
#include "zeek/agg.h"

int pq_zeek_partial_write(const pq_zeek_agg *a, const char *classification, const char *path, pq_diag *d) PQ_MUST_USE;
/* *classification (may be NULL) receives a malloc'd copy of the file's classification line. */
int pq_zeek_partial_read(pq_zeek_agg *a, const char *path, char **classification, pq_diag *d) PQ_MUST_USE;

#endif
