#include "load/writers.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "core/wfile.h"
#include "load/fields.h"

/* One visitor walks a record's columns (load/fields.h, the results database's names), so
 * the CSV header, CSV rows and JSON agree: first the record's number, then every column,
 * then what bench keeps beside them (the QUIC flag, the first Initial's size). */
typedef struct sink {
	void (*num)(struct sink *s, const char *name, long long v);
	void (*val)(struct sink *s, const pq_col *c, const pq_colval *v);
	FILE *f;
	int first;
} sink;

static void visit(const pq_load_record *r, sink *s)
{
	pq_colval v;
	s->num(s, "id", (long long)r->id);
	for (size_t i = 0; i < pq_load_nfields; i++) {
		pq_load_fields[i].get(r, &v);
		s->val(s, &pq_load_fields[i], &v);
	}
	s->num(s, "quic", r->quic);
	s->num(s, "quic_first_dgram_bytes", r->quic_first_dgram_bytes);
}

static void sep(sink *s, char c)
{
	if (!s->first)
		fputc(c, s->f);
	s->first = 0;
}

static void head_num(sink *s, const char *name, long long v)
{
	(void)v;
	sep(s, ',');
	fputs(name, s->f);
}

static void head_val(sink *s, const pq_col *c, const pq_colval *v)
{
	(void)v;
	head_num(s, c->name, 0);
}

static void csv_num(sink *s, const char *name, long long v)
{
	(void)name;
	sep(s, ',');
	fprintf(s->f, "%lld", v);
}

/* RFC 4180 quoting when needed (details are OpenSSL's words, commas possible). */
static void csv_str(sink *s, const char *v)
{
	if (!strpbrk(v, ",\"\r\n")) {
		fputs(v, s->f);
		return;
	}
	fputc('"', s->f);
	for (const char *p = v; *p; p++) {
		if (*p == '"')
			fputc('"', s->f);
		fputc(*p, s->f);
	}
	fputc('"', s->f);
}

/* A real: microseconds to 0.1, anything else to 0.001. */
static void real(FILE *f, const pq_col *c, double v)
{
	fprintf(f, strcmp(c->unit, "us") == 0 ? "%.1f" : "%.3f", v);
}

/* A value in the format's words: NULL as `null`, a text through `text`. */
static void put(sink *s, const pq_col *c, const pq_colval *v, const char *null, void (*text)(sink *, const char *))
{
	switch (v->kind) {
	case PQ_CV_NULL:
		fputs(null, s->f);
		break;
	case PQ_CV_INT:
		fprintf(s->f, "%lld", v->i);
		break;
	case PQ_CV_REAL:
		real(s->f, c, v->f);
		break;
	case PQ_CV_TEXT:
		text(s, v->s);
		break;
	}
}

/* NULL is -1 for a number, empty for a text. */
static void csv_val(sink *s, const pq_col *c, const pq_colval *v)
{
	sep(s, ',');
	put(s, c, v, strncmp(c->sql, "TEXT", 4) == 0 ? "" : "-1", csv_str);
}

static void json_key(sink *s, const char *name)
{
	sep(s, ',');
	fprintf(s->f, "\"%s\":", name);
}

static void json_num(sink *s, const char *name, long long v)
{
	json_key(s, name);
	fprintf(s->f, "%lld", v);
}

static void json_str(sink *s, const char *v)
{
	fputc('"', s->f);
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(s->f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(s->f, "\\u%04x", *p);
		else
			fputc(*p, s->f);
	}
	fputc('"', s->f);
}

static void json_val(sink *s, const pq_col *c, const pq_colval *v)
{
	json_key(s, c->name);
	put(s, c, v, "null", json_str);
}

void pq_load_csv_header(FILE *f)
{
	pq_load_record zero;
	memset(&zero, 0, sizeof zero);
	sink h = {head_num, head_val, f, 1};
	visit(&zero, &h);
	fputc('\n', f);
}

void pq_load_csv_row(FILE *f, const pq_load_record *r)
{
	sink s = {csv_num, csv_val, f, 1};
	visit(r, &s);
	fputc('\n', f);
}

void pq_load_jsonl_row(FILE *f, const pq_load_record *r)
{
	sink s = {json_num, json_val, f, 1};
	fputc('{', f);
	visit(r, &s);
	fputs("}\n", f);
}

void pq_load_csv_stream(FILE *f, const pq_load_record *recs, size_t n)
{
	pq_load_csv_header(f);
	for (size_t i = 0; i < n; i++)
		pq_load_csv_row(f, &recs[i]);
}

void pq_load_jsonl_stream(FILE *f, const pq_load_record *recs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pq_load_jsonl_row(f, &recs[i]);
}

int pq_load_out_check(const pq_load_out *o, pq_diag *d)
{
	if (!o->f || !ferror(o->f))
		return 0;
	int e = errno ? errno : EIO;
	return pq_diag_set(d, -e, "%s: cannot write %s: %s", o->what,
			   o->f == stdout ? "stdout" : o->path, strerror(e));
}

int pq_load_out_open(pq_load_out *o, const char *path, const char *what, pq_diag *d)
{
	/* A directory is refused now (core/wfile.h), not after the whole run. */
	return pq_wfile_open(o, path, what, d);
}

void pq_load_out_abort(pq_load_out *o)
{
	pq_wfile_abort(o);
}

int pq_load_out_commit(pq_load_out *o, pq_load_stream_fn fn, const pq_load_record *recs, size_t n,
		       pq_diag *d)
{
	if (o->f && fn)
		fn(o->f, recs, n);
	return pq_wfile_close(o, d);
}

static int write_file(const char *path, pq_load_stream_fn fn, const pq_load_record *recs, size_t n,
		      const char *what, pq_diag *d)
{
	pq_load_out o;
	int rc = pq_load_out_open(&o, path, what, d);
	return rc < 0 ? rc : pq_load_out_commit(&o, fn, recs, n, d);
}

int pq_load_write_csv(const char *path, const char *what, const pq_load_record *recs, size_t n,
		      pq_diag *d)
{
	return write_file(path, pq_load_csv_stream, recs, n, what, d);
}

int pq_load_write_jsonl(const char *path, const char *what, const pq_load_record *recs, size_t n,
			pq_diag *d)
{
	return write_file(path, pq_load_jsonl_stream, recs, n, what, d);
}
