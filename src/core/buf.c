#include "core/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pq_buf_init(pq_buf *b, size_t cap)
{
	memset(b, 0, sizeof *b);
	b->cap = cap;
}

void pq_buf_dispose(pq_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}

void pq_buf_reset(pq_buf *b)
{
	b->len = 0;
}

static int grow(pq_buf *b, size_t need)
{
	if (need > b->cap)
		return PQ_ETOOBIG;
	if (need + 1 <= b->alloc)
		return 0;
	size_t a = b->alloc ? b->alloc : 256;
	while (a < need + 1)
		a *= 2;
	char *p = realloc(b->p, a);
	if (!p)
		return PQ_ENOMEM;
	b->p = p;
	b->alloc = a;
	return 0;
}

int pq_buf_append(pq_buf *b, const void *data, size_t n)
{
	int rc = grow(b, b->len + n);
	if (rc)
		return rc;
	if (n)
		memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

int pq_buf_printf(pq_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return PQ_EINVAL;
	int rc = grow(b, b->len + (size_t)n);
	if (rc)
		return rc;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void pq_buf_consume(pq_buf *b, size_t n)
{
	if (n >= b->len) {
		b->len = 0;
	} else {
		memmove(b->p, b->p + n, b->len - n);
		b->len -= n;
	}
	if (b->p)
		b->p[b->len] = '\0';
}

const char *pq_buf_str(pq_buf *b)
{
	return b->p ? b->p : "";
}
