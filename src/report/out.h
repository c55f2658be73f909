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
/* Text from a database (arm and host names, error details) is never trusted. Each
 * writer below shows it as it is, but makes visible what could deceive the reader, by
 * core/text.h's one rule: control characters (C0, DEL, C1: ESC, BEL, CR, LF ...),
 * Unicode's bidirectional overrides and isolates (U+061C, U+200E-200F, U+202A-202E,
 * U+2066-2069), and bytes that are not UTF-8 are written as the escapes \x1b, \u202e,
 * \xff, and a backslash as \\, so no two different names print alike and none can move
 * the cursor, clear the screen, forge a line or reverse the text around it.
 *
 * pq_out_text: HTML (and SVG) text: the above (but LF and TAB, white space in HTML, pass),
 * and &, <, >, " and ' as entities.
 * NULL prints nothing. */
void pq_out_text(pq_out *o, const char *s);
/* Terminal text: the above; returns the columns written (one per code point). */
size_t pq_out_term(pq_out *o, const char *s);
/* The columns pq_out_term would write for s. */
size_t pq_out_term_width(const char *s);
/* Terminal text padded with spaces to `width` columns (never cut). */
void pq_out_term_pad(pq_out *o, const char *s, size_t width);
/* Markdown table-cell text: the above, and \ ` * _ [ ] < > | & ~ backslash-escaped
 * (CommonMark escapes any ASCII punctuation so), so a name can neither end a cell nor
 * start a link, an emphasis or an HTML tag. */
void pq_out_md(pq_out *o, const char *s);
/* Appends printf text to the string in b[0..n-1], cut where it would not fit: sentences
 * an analysis builds piece by piece (studies, findings) before a writer escapes them. */
void pq_out_cat(char *b, size_t n, const char *fmt, ...) PQ_PRINTF(3, 4);
/* Writes the whole buffer to `path` through a temporary file in the same directory,
 * renamed into place: a reader never sees half a file. Fails with the sticky error if
 * there was one, naming `path`. */
int pq_out_save(pq_out *o, const char *path, pq_diag *d) PQ_MUST_USE;

#endif
