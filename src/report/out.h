/* A text sink for writers that print a lot (HTML, SVG, Markdown): appends to a capped
 * buffer and remembers the first error, so a writer checks once at the end instead of
 * after every line. HTML text goes through pq_out_text, which escapes it. */
#ifndef PQ_REPORT_OUT_H
#define PQ_REPORT_OUT_H

#include <stddef.h>

#include "core/buf.h"
#include "core/err.h"

typedef struct pq_out {
	pq_buf b;
	int err; /* first failure (PQ_ETOOBIG, PQ_ENOMEM), 0 while all went well */
} pq_out;

void pq_out_init(pq_out *o, size_t cap);
void pq_out_dispose(pq_out *o);
void pq_out_printf(pq_out *o, const char *fmt, ...) PQ_PRINTF(2, 3);
/* Text with &, <, >, " and ' escaped for HTML (and SVG). NULL prints nothing. */
void pq_out_text(pq_out *o, const char *s);
/* Writes the whole buffer to `path` through a temporary file in the same directory,
 * renamed into place: a reader never sees half a file. Fails with the sticky error if
 * there was one, naming `path`. */
int pq_out_save(pq_out *o, const char *path, pq_diag *d) PQ_MUST_USE;

#endif
