#include "report/out.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/text.h"
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

enum esc_mode { ESC_HTML, ESC_TERM, ESC_MD };

static void put(pq_out *o, const char *p, size_t n)
{
	if (o && !o->err)
		o->err = pq_buf_append(&o->b, p, n);
}

/* Writes s escaped for `mode` into o (NULL: only counts); returns the columns. */
static size_t escape(pq_out *o, const char *str, enum esc_mode mode)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t cols = 0, left = str ? strlen(str) : 0;
	while (s && *s) {
		unsigned c = 0;
		size_t len = pq_text_utf8_next(s, left, &c);
		char tmp[16];
		const char *rep = NULL;
		if (!len) {
			snprintf(tmp, sizeof tmp, "\\x%02x", *s);
			rep = tmp;
			len = 1;
		} else if (pq_text_deceptive(c) && !(mode == ESC_HTML && (c == '\n' || c == '\t'))) {
			/* (a line break or tab in HTML text is white space, not a control) */
			snprintf(tmp, sizeof tmp, c < 0x80 ? "\\x%02x" : "\\u%04x", c);
			rep = tmp;
		} else if (c == '\\') {
			rep = "\\\\";
		} else if (mode == ESC_HTML) {
			rep = c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '"' ? "&quot;"
			    : c == '\'' ? "&#39;" : NULL;
		} else if (mode == ESC_MD && c < 0x80 && strchr("`*_[]<>|&~", (int)c)) {
			tmp[0] = '\\';
			tmp[1] = (char)c;
			tmp[2] = 0;
			rep = tmp;
		}
		if (rep) {
			put(o, rep, strlen(rep));
			cols += mode == ESC_HTML && rep[0] == '&' ? 1 : strlen(rep);
		} else {
			put(o, (const char *)s, len);
			cols++;
		}
		s += len;
		left -= len;
	}
	return cols;
}

void pq_out_text(pq_out *o, const char *s)
{
	escape(o, s, ESC_HTML);
}

size_t pq_out_term(pq_out *o, const char *s)
{
	return escape(o, s, ESC_TERM);
}

size_t pq_out_term_width(const char *s)
{
	return escape(NULL, s, ESC_TERM);
}

void pq_out_cat(char *b, size_t n, const char *fmt, ...)
{
	size_t len = strlen(b);
	va_list ap;
	if (len + 1 >= n)
		return;
	va_start(ap, fmt);
	vsnprintf(b + len, n - len, fmt, ap);
	va_end(ap);
}

void pq_out_term_pad(pq_out *o, const char *s, size_t width)
{
	for (size_t w = pq_out_term(o, s); w < width; w++)
		put(o, " ", 1);
}

void pq_out_md(pq_out *o, const char *s)
{
	escape(o, s, ESC_MD);
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
