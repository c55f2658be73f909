#include "zeek/tsv.h"

#include <stdio.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

static const char *const ssl_cols[PQ_ZC_N] = {
	[PQ_ZC_TS] = "ts",
	[PQ_ZC_RESP_H] = "id.resp_h",
	[PQ_ZC_VERSION] = "version",
	[PQ_ZC_RESUMED] = "resumed",
	[PQ_ZC_ESTABLISHED] = "established",
	[PQ_ZC_SERVER_NAME] = "server_name",
	[PQ_ZC_CURVE] = "curve",
	[PQ_ZC_CHAIN_FPS] = "cert_chain_fps",
	[PQ_ZC_CHAIN_FUIDS] = "cert_chain_fuids",
};

typedef pq_zeek_span span;

/* Bits set in a 16-bit mask, inline (the baseline x86-64 has no popcnt instruction and
 * __builtin_popcount would call libgcc). */
static int pop16(unsigned x)
{
	x = x - ((x >> 1) & 0x5555u);
	x = (x & 0x3333u) + ((x >> 2) & 0x3333u);
	x = (x + (x >> 4)) & 0x0f0fu;
	return (int)((x + (x >> 8)) & 0x1fu);
}

static void reset_block(pq_zeek_tsv *t)
{
	t->nfields = 0;
	t->ntypes = -1;
	t->bad = 0;
	t->bad_detail[0] = '\0';
	for (int i = 0; i < PQ_ZEEK_TSV_MAXCOLS; i++)
		t->col[i] = -1;
}

void pq_zeek_tsv_init(pq_zeek_tsv *t)
{
	pq_zeek_tsv_init_cols(t, ssl_cols, PQ_ZC_N, PQ_ZC_RESP_H);
}

void pq_zeek_tsv_init_cols(pq_zeek_tsv *t, const char *const *names, int n, int required)
{
	memset(t, 0, sizeof *t);
	t->names = names;
	t->nnames = n < PQ_ZEEK_TSV_MAXCOLS ? n : PQ_ZEEK_TSV_MAXCOLS;
	t->required = required;
	t->sep = '\t';
	t->set_sep = ',';
	memcpy(t->empty, "(empty)", t->empty_len = 7);
	memcpy(t->unset, "-", t->unset_len = 1);
	reset_block(t);
}

static int header_bad(pq_zeek_tsv *t, const char *what)
{
	t->bad = 1;
	snprintf(t->bad_detail, sizeof t->bad_detail, "%s", what);
	return PQ_EPARSE;
}

/* One value of a header line: exactly one byte after unescaping, or a short string. */
static int header_value(pq_zeek_tsv *t, char *v, size_t len, char *out, size_t cap, size_t *olen,
			const char *what)
{
	long n = pq_zeek_unescape(v, len);
	if (n < 0 || (size_t)n >= cap)
		return header_bad(t, what);
	memcpy(out, v, (size_t)n);
	*olen = (size_t)n;
	return 0;
}

static int set_fields(pq_zeek_tsv *t, char *p, size_t len)
{
	reset_block(t);
	t->blocks++;
	if (t->sep_bad[0]) /* its fields would be split at a separator the block did not declare */
		return header_bad(t, t->sep_bad);
	int n = 0;
	for (size_t i = 0, start = 0; i <= len; i++) {
		if (i < len && p[i] != t->sep)
			continue;
		if (n >= PQ_ZEEK_TSV_MAXF)
			return header_bad(t, "#fields has more columns than pqtls reads (512)");
		for (int c = 0; c < t->nnames; c++) {
			if (strlen(t->names[c]) == i - start && !memcmp(t->names[c], p + start, i - start)) {
				if (t->col[c] >= 0)
					return header_bad(t, "#fields names a column twice");
				t->col[c] = n;
			}
		}
		n++;
		start = i + 1;
	}
	t->nfields = n;
	if (t->required >= 0 && t->col[t->required] < 0) {
		char d[96];
		snprintf(d, sizeof d, "#fields has no %s column", t->names[t->required]);
		return header_bad(t, d);
	}
	return 0;
}

int pq_zeek_tsv_header(pq_zeek_tsv *t, char *line, size_t len)
{
	/* "#separator \x09" is the one header line whose key ends at a space. */
	if (len >= 11 && !memcmp(line, "#separator ", 11)) {
		char c[4];
		size_t n;
		reset_block(t);
		const char *why = NULL;
		if (header_value(t, line + 11, len - 11, c, sizeof c, &n, "#separator is not one byte") || n != 1)
			why = "#separator is not one byte (pqtls reads single-byte separators)";
		else if (c[0] == '\n')
			why = "#separator is a newline (\\x0a); give one byte other than newline (Zeek writes \\x09)";
		snprintf(t->sep_bad, sizeof t->sep_bad, "%s", why ? why : "");
		if (why)
			return header_bad(t, why);
		t->sep = c[0];
		return 0;
	}
	char *val = memchr(line, t->sep, len);
	size_t klen = val ? (size_t)(val - line) : len;
	size_t vlen = val ? len - klen - 1 : 0;
	val = val ? val + 1 : line + len;
#define KEY(s) (klen == sizeof(s) - 1 && !memcmp(line, s, klen))
	if (KEY("#set_separator")) {
		char c[4];
		size_t n;
		if (header_value(t, val, vlen, c, sizeof c, &n, "#set_separator is not one byte") || n != 1)
			return header_bad(t, "#set_separator is not one byte");
		t->set_sep = c[0];
	} else if (KEY("#empty_field")) {
		return header_value(t, val, vlen, t->empty, sizeof t->empty, &t->empty_len,
				    "#empty_field is longer than 31 bytes");
	} else if (KEY("#unset_field")) {
		return header_value(t, val, vlen, t->unset, sizeof t->unset, &t->unset_len,
				    "#unset_field is longer than 31 bytes");
	} else if (KEY("#fields")) {
		return set_fields(t, val, vlen);
	} else if (KEY("#types")) {
		int n = 1;
		for (size_t i = 0; i < vlen; i++)
			n += val[i] == t->sep;
		t->ntypes = n;
		if (t->nfields && n != t->nfields)
			return header_bad(t, "#types and #fields differ in length");
	}
#undef KEY
	/* #path, #open, #close and comments carry nothing pqtls needs. */
	return 0;
}

static int bad(pq_zeek_rec *r, int why, const char *detail)
{
	r->bad = why;
	snprintf(r->bad_detail, sizeof r->bad_detail, "%s", detail);
	return PQ_EPARSE;
}

#ifdef __SSE2__
/* Which of the 32 bytes x, y equal v's, as bits. */
static unsigned eq32(__m128i x, __m128i y, __m128i v)
{
	return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, v)) |
	       (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(y, v)) << 16;
}

/* Which are control bytes (below 0x20; the separator is one too). */
static unsigned ctl32(__m128i x, __m128i y)
{
	const __m128i v1f = _mm_set1_epi8(0x1f);
	return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(x, v1f), v1f)) |
	       (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(y, v1f), v1f)) << 16;
}
#endif

/* The wanted columns of a row whose separators are at tab[0..nf-1] and which ends at
 * len: out[c] for t->names[c], left alone for columns the row does not have. */
static void pick(const pq_zeek_tsv *t, char *line, const size_t *tab, int nf, size_t len, span *out)
{
	for (int c = 0; c < t->nnames; c++) {
		int k = t->col[c];
		if (k < 0 || k > nf)
			continue;
		size_t from = k ? tab[k - 1] + 1 : 0, to = k < nf ? tab[k] : len;
		out[c] = (span){line + from, to - from};
	}
}

/* Splits a row at the separator, keeping the columns pqtls reads. With to_nl the row
 * ends at the first newline of line[0..avail) (one pass finds fields and the end);
 * without, it is all of line[0..avail). Returns the field count, -1 when a control byte
 * other than the separator appears, -2 (to_nl only) when there is no newline; sets
 * *linelen except for -2.
 *
 * The scan only notes where each separator is (a store per field, no test of whether
 * pqtls wants that column); the wanted columns are cut out once at the end. */
static int split(const pq_zeek_tsv *t, char *line, size_t avail, int to_nl, span *out, int *esc,
		 size_t *linelen)
{
	size_t tab[PQ_ZEEK_TSV_MAXF + 32]; /* separators of the first PQ_ZEEK_TSV_MAXF fields */
	int f = 0;                         /* separators seen */
	unsigned bs = 0;
	size_t i = 0, len = avail;
	unsigned char sep = (unsigned char)t->sep;
#ifdef __SSE2__
	/* 32 bytes a step (two SSE2 loads): rows are ~200 bytes, and the tests per step
	 * (newline, control byte, room) cost as much as the compares. */
	const __m128i vsep = _mm_set1_epi8((char)sep), vbs = _mm_set1_epi8('\\'), vnl = _mm_set1_epi8('\n');
	for (; i + 32 <= avail; i += 32) {
		__m128i x = _mm_loadu_si128((const __m128i *)(line + i));
		__m128i y = _mm_loadu_si128((const __m128i *)(line + i + 16));
		unsigned m = eq32(x, y, vsep);
		unsigned ctl = ctl32(x, y);
		unsigned b = eq32(x, y, vbs);
		unsigned nl = to_nl ? eq32(x, y, vnl) : 0;
		if (nl) { /* only what is before the newline belongs to this row */
			unsigned below = (nl & -nl) - 1;
			m &= below;
			ctl &= below;
			b &= below;
			len = i + (size_t)__builtin_ctz(nl);
		}
		if (ctl & ~m)
			goto binary;
		bs |= b;
		if (f <= PQ_ZEEK_TSV_MAXF) { /* room for this step's up to 32 */
			for (; m; m &= m - 1)
				tab[f++] = i + (size_t)__builtin_ctz(m);
		} else {
			f += pop16(m & 0xffff) + pop16(m >> 16);
		}
		if (nl)
			goto done;
	}
#endif
	for (; i < avail; i++) {
		unsigned char c = (unsigned char)line[i];
		if (c == sep) {
			if (f < PQ_ZEEK_TSV_MAXF)
				tab[f] = i;
			f++;
		} else if (c == '\n' && to_nl) {
			len = i;
			goto done;
		} else if (c < 0x20) {
			goto binary;
		}
		bs |= c == '\\';
	}
	if (to_nl)
		return -2;
done:
	*esc = bs != 0;
	*linelen = len;
	pick(t, line, tab, f, len, out);
	return f + 1;
binary:
	if (to_nl) {
		const char *e = memchr(line + i, '\n', avail - i);
		if (!e)
			return -2;
		*linelen = (size_t)(e - line);
	} else {
		*linelen = avail;
	}
	return -1;
}

static int is_unset(const pq_zeek_tsv *t, span s)
{
	/* The first byte first: most values are not "-", and memcmp is a call. */
	return !s.p || (s.n == t->unset_len && (!s.n || s.p[0] == t->unset[0]) && !memcmp(s.p, t->unset, s.n));
}

static int is_empty(const pq_zeek_tsv *t, span s)
{
	return s.n == t->empty_len && !memcmp(s.p, t->empty, s.n);
}

/* A string column: NULL when unset or empty, else decoded in place (esc: the line has
 * a backslash somewhere). */
static int text(const pq_zeek_tsv *t, span s, int esc, pq_zeek_rec *r, const char *name, const char **out,
		size_t *olen)
{
	if (is_unset(t, s) || is_empty(t, s))
		return 0;
	long n = esc ? pq_zeek_unescape(s.p, s.n) : (long)s.n;
	if (n < 0)
		return bad(r, PQ_ZB_ESCAPE, name);
	*out = s.p;
	*olen = (size_t)n;
	return 0;
}

static int tribool(const pq_zeek_tsv *t, span s, pq_zeek_rec *r, const char *name, int *out)
{
	if (is_unset(t, s))
		return 0;
	int v = pq_zeek_bool(s.p, s.n);
	if (v < 0)
		return bad(r, PQ_ZB_VALUE, name);
	*out = v;
	return 0;
}

/* Decodes the split columns of a row of n fields. */
static int decode(const pq_zeek_tsv *t, span *s, int n, int esc, pq_zeek_rec *r)
{
	if (n == -1)
		return bad(r, PQ_ZB_BINARY, "control byte");
	if (n != t->nfields) {
		char d[64];
		snprintf(d, sizeof d, "%d fields, header has %d", n, t->nfields);
		return bad(r, PQ_ZB_FIELDS, d);
	}
	span a = s[PQ_ZC_RESP_H];
	if (is_unset(t, a) || pq_zeek_addr_parse(a.p, a.n, &r->resp))
		return bad(r, PQ_ZB_ADDR, "id.resp_h");
	if (!is_unset(t, s[PQ_ZC_TS]))
		r->has_ts = !pq_zeek_time_parse(s[PQ_ZC_TS].p, s[PQ_ZC_TS].n, &r->ts);
	const char *v = NULL;
	size_t vn = 0;
	if (text(t, s[PQ_ZC_VERSION], esc, r, "version", &v, &vn) ||
	    text(t, s[PQ_ZC_SERVER_NAME], esc, r, "server_name", &r->server_name, &r->server_name_len) ||
	    text(t, s[PQ_ZC_CURVE], esc, r, "curve", &r->curve, &r->curve_len) ||
	    tribool(t, s[PQ_ZC_RESUMED], r, "resumed", &r->resumed) ||
	    tribool(t, s[PQ_ZC_ESTABLISHED], r, "established", &r->established))
		return PQ_EPARSE;
	r->version = v ? pq_zeek_version(v, vn) : PQ_ZV_UNSET;
	/* The chain stays raw (escaped ids joined by the set separator): only `zeek certs`
	 * reads it, through pq_zeek_chain_ids. */
	span c = s[PQ_ZC_CHAIN_FPS].p ? s[PQ_ZC_CHAIN_FPS] : s[PQ_ZC_CHAIN_FUIDS];
	if (!is_unset(t, c) && !is_empty(t, c)) {
		r->chain = c.p;
		r->chain_len = c.n;
		r->chain_sep = t->set_sep;
		r->chain_escaped = 1;
	}
	return 0;
}

/* Rows under no usable header: why. */
static int no_header(const pq_zeek_tsv *t, pq_zeek_rec *r)
{
	/* an unusable header (also one that ended before its #fields) comes first */
	if (t->bad)
		return bad(r, PQ_ZB_HEADER, t->bad_detail);
	return bad(r, PQ_ZB_NOHEADER, "no #fields line before this row");
}

int pq_zeek_tsv_row(const pq_zeek_tsv *t, char *line, size_t len, pq_zeek_rec *r)
{
	pq_zeek_rec_clear(r);
	if (!t->nfields || t->bad)
		return no_header(t, r);
	span s[PQ_ZEEK_TSV_MAXCOLS] = {{0}};
	int esc = 0;
	size_t ll;
	int n = split(t, line, len, 0, s, &esc, &ll);
	return decode(t, s, n, esc, r);
}

int pq_zeek_tsv_row_next(const pq_zeek_tsv *t, char *buf, size_t avail, pq_zeek_rec *r, size_t *linelen)
{
	pq_zeek_rec_clear(r);
	if (!t->nfields || t->bad) {
		const char *e = memchr(buf, '\n', avail);
		if (!e)
			return 1;
		*linelen = (size_t)(e - buf);
		return no_header(t, r);
	}
	span s[PQ_ZEEK_TSV_MAXCOLS] = {{0}};
	int esc = 0;
	int n = split(t, buf, avail, 1, s, &esc, linelen);
	return n == -2 ? 1 : decode(t, s, n, esc, r);
}

int pq_zeek_tsv_split(const pq_zeek_tsv *t, char *line, size_t len, pq_zeek_span *out, int *why)
{
	int esc;
	size_t ll;
	for (int i = 0; i < t->nnames; i++)
		out[i] = (span){NULL, 0};
	*why = t->bad ? PQ_ZB_HEADER : !t->nfields ? PQ_ZB_NOHEADER : PQ_ZB_NONE;
	if (*why)
		return PQ_EPARSE;
	int n = split(t, line, len, 0, out, &esc, &ll);
	*why = n < 0 ? PQ_ZB_BINARY : n != t->nfields ? PQ_ZB_FIELDS : PQ_ZB_NONE;
	return *why ? PQ_EPARSE : n;
}

int pq_zeek_tsv_value(const pq_zeek_tsv *t, pq_zeek_span s, const char **out, size_t *n)
{
	if (is_unset(t, s) || is_empty(t, s))
		return 0;
	long k = pq_zeek_unescape(s.p, s.n);
	if (k < 0)
		return -1;
	*out = s.p;
	*n = (size_t)k;
	return 1;
}
