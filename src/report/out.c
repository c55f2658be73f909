#include "report/out.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/wfile.h"

void pq_out_init(pq_out *o, size_t cap)
{
	pq_buf_init(&o->b, cap);
	o->err = 0;
}

void pq_out_dispose(pq_out *o)
{
	pq_buf_dispose(&o->b);
}

void pq_out_printf(pq_out *o, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	if (o->err)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0) {
		o->err = PQ_EINVAL;
		return;
	}
	if ((size_t)n < sizeof small) {
		o->err = pq_buf_append(&o->b, small, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big) {
		o->err = PQ_ENOMEM;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	o->err = pq_buf_append(&o->b, big, (size_t)n);
	free(big);
}

void pq_out_text(pq_out *o, const char *s)
{
	for (; s && *s && !o->err; s++) {
		const char *rep = *s == '&'   ? "&amp;"
				  : *s == '<' ? "&lt;"
				  : *s == '>' ? "&gt;"
				  : *s == '"' ? "&quot;"
				  : *s == '\'' ? "&#39;"
					       : NULL;
		o->err = rep ? pq_buf_append(&o->b, rep, strlen(rep)) : pq_buf_append(&o->b, s, 1);
	}
}

int pq_out_save(pq_out *o, const char *path, pq_diag *d)
{
	pq_wfile w;
	if (o->err)
		return pq_diag_set(d, o->err, "%s: not written: %s", path, pq_strerror(o->err));
	int rc = pq_wfile_open(&w, path, NULL, d);
	if (rc < 0)
		return rc;
	if (o->b.len && fwrite(o->b.p, 1, o->b.len, w.f) != o->b.len) {
		int e = errno ? errno : EIO;
		pq_wfile_abort(&w);
		return pq_diag_set(d, -e, "cannot write %s: %s", path, strerror(e));
	}
	return pq_wfile_close(&w, d);
}
