#include "report/out.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	char tmp[4200];
	if (o->err)
		return pq_diag_set(d, o->err, "%s: not written: %s", path, pq_strerror(o->err));
	int n = snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
	if (n < 0 || (size_t)n >= sizeof tmp)
		return pq_diag_set(d, PQ_EINVAL, "%s: the path is too long", path);
	FILE *f = fopen(tmp, "w");
	int rc = 0;
	if (!f)
		return pq_diag_set(d, -errno, "cannot write %s: %s", tmp, strerror(errno));
	if (o->b.len && fwrite(o->b.p, 1, o->b.len, f) != o->b.len)
		rc = pq_diag_set(d, -errno, "cannot write %s: %s", tmp, strerror(errno));
	if (fclose(f) != 0 && !rc)
		rc = pq_diag_set(d, -errno, "cannot write %s: %s", tmp, strerror(errno));
	if (!rc && rename(tmp, path) != 0)
		rc = pq_diag_set(d, -errno, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
	if (rc)
		unlink(tmp);
	return rc;
}
