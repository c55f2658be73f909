/* A file written whole or not at all: the text goes to a temporary file beside PATH
 * (PATH.tmp.PID), and pq_wfile_close checks every write (the stream's error flag), the
 * flush, fsync and close, then renames it into place. On any failure, or on
 * pq_wfile_abort, the temporary file is removed and PATH is left as it was: a full disk
 * never leaves a truncated file looking complete. "-" is standard output (flushed and
 * checked, nothing renamed). `what` (may be NULL) names the input in messages, e.g.
 * "--jsonl". */
#ifndef PQ_CORE_WFILE_H
#define PQ_CORE_WFILE_H

#include <stdio.h>

#include "core/err.h"

typedef struct pq_wfile {
	FILE *f;
	const char *what;
	char path[4096], tmp[4120];
} pq_wfile;

int pq_wfile_open(pq_wfile *w, const char *path, const char *what, pq_diag *d) PQ_MUST_USE;
/* 0 when every byte reached the file and it is in place; else an error naming PATH. */
int pq_wfile_close(pq_wfile *w, pq_diag *d) PQ_MUST_USE;
/* Closes and removes the temporary file (nothing when not open). */
void pq_wfile_abort(pq_wfile *w);
/* The same checks for standard output (also used when PATH is "-"). */
int pq_wfile_stdout_check(const char *what, pq_diag *d) PQ_MUST_USE;

#endif
