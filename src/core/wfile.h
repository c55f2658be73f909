/* An output file, written so that what is at PATH is never half replaced nor replaced by
 * the wrong kind of thing. The one rule every output of pqtls follows:
 *
 * - PATH absent, or a regular file: written whole or not at all. The text goes to a
 *   temporary file beside it (PATH.tmp.PID, created O_EXCL: a file planted under that
 *   name is removed, never written through), and pq_wfile_close checks every write (the
 *   stream's error flag), the flush, fsync and close, then renames it into place. On any
 *   failure, or on pq_wfile_abort, the temporary file is removed and PATH is left as it
 *   was: a full disk never leaves a truncated file looking complete.
 * - PATH a symbolic link: followed to its target, and the rule applies to the target (a
 *   regular file is replaced whole, beside itself); the link stays a link. A link to
 *   nothing is refused.
 * - PATH a character device or FIFO (/dev/null, /dev/stdout, a pipe): written where it is
 *   (opened O_WRONLY, never created, truncated or renamed over); whole-or-nothing cannot
 *   hold there, and a failed write (/dev/full) is an error naming PATH.
 * - PATH a directory: refused.
 *
 * "-" is standard output (flushed and checked, nothing renamed). `what` (may be NULL)
 * names the input in messages, e.g. "--jsonl". */
#ifndef PQ_CORE_WFILE_H
#define PQ_CORE_WFILE_H

#include <stdio.h>

#include "core/err.h"

typedef struct pq_wfile {
	FILE *f;
	const char *what;
	int in_place;	   /* a device or FIFO: written where it is */
	char path[4096];   /* as the caller gave it, for messages */
	char target[4096]; /* what is replaced: PATH, or the file its link points to */
	char tmp[4120];	   /* TARGET.tmp.PID; empty when in place */
} pq_wfile;

int pq_wfile_open(pq_wfile *w, const char *path, const char *what, pq_diag *d) PQ_MUST_USE;
/* 0 when every byte reached the file and it is in place; else an error naming PATH. */
int pq_wfile_close(pq_wfile *w, pq_diag *d) PQ_MUST_USE;
/* Closes and removes the temporary file (nothing when not open; a device or FIFO is only
 * closed: what was written to it stays written). */
void pq_wfile_abort(pq_wfile *w);
/* The same checks for standard output (also used when PATH is "-"). */
int pq_wfile_stdout_check(const char *what, pq_diag *d) PQ_MUST_USE;

#endif
