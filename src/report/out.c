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

enum esc_mode { ESC_HTML, ESC_TERM, ESC_MD };

/* The code point at s (UTF-8, at most 4 bytes) into *cp, its length in bytes, or 0
 * for a byte that does not start a valid, shortest-form sequence. */
static size_t utf8_next(const unsigned char *s, unsigned *cp)
{
	static const unsigned min[5] = {0, 0, 0x80, 0x800, 0x10000};
	size_t len = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	if (!len)
		return 0;
	unsigned c = len == 1 ? s[0] : s[0] & (0x7fu >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3fu);
	}
	if (c < min[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/* Control characters and the bidirectional formatting characters. */
static int deceptive(unsigned c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x61c || c == 0x200e || c == 0x200f ||
	       (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

static void put(pq_out *o, const char *p, size_t n)
{
	if (o && !o->err)
		o->err = pq_buf_append(&o->b, p, n);
}

/* Writes s escaped for `mode` into o (NULL: only counts); returns the columns. */
static size_t escape(pq_out *o, const char *str, enum esc_mode mode)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t cols = 0;
	while (s && *s) {
		unsigned c = 0;
		size_t len = utf8_next(s, &c);
		char tmp[16];
		const char *rep = NULL;
		if (!len) {
			snprintf(tmp, sizeof tmp, "\\x%02x", *s);
			rep = tmp;
			len = 1;
		} else if (deceptive(c) && !(mode == ESC_HTML && (c == '\n' || c == '\t'))) {
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
