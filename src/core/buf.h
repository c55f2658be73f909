/* Growable byte buffer with a hard cap (curl's dynbuf idea): appending past `cap`
 * fails with PQ_ETOOBIG instead of growing without bound on hostile input. */
#ifndef PQ_CORE_BUF_H
#define PQ_CORE_BUF_H

#include <stdarg.h>
#include <stddef.h>

#include "core/err.h"

typedef struct pq_buf {
	char *p;
	size_t len, alloc, cap;
} pq_buf;

void pq_buf_init(pq_buf *b, size_t cap);
void pq_buf_dispose(pq_buf *b);
void pq_buf_reset(pq_buf *b); /* len = 0, memory kept */
int pq_buf_append(pq_buf *b, const void *data, size_t n) PQ_MUST_USE;
int pq_buf_printf(pq_buf *b, const char *fmt, ...) PQ_PRINTF(2, 3) PQ_MUST_USE;
/* Drop the first n bytes. */
void pq_buf_consume(pq_buf *b, size_t n);
/* NUL-terminated view (the NUL is not counted in len); "" when empty. */
const char *pq_buf_str(pq_buf *b);

#endif
