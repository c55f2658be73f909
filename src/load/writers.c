#include "load/writers.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "core/wfile.h"

/* One visitor walks a record's fields, so CSV header, CSV rows and JSON agree. */
typedef struct sink {
	void (*num)(struct sink *s, const char *name, long long v);
	void (*us)(struct sink *s, const char *name, int64_t ns); /* ns shown as us, -1 kept */
	void (*str)(struct sink *s, const char *name, const char *v);
	void (*real)(struct sink *s, const char *name, double v); /* negative = unknown */
	FILE *f;
	int first;
} sink;

static void visit(const pq_load_record *r, sink *s)
{
	s->num(s, "id", (long long)r->id);
	s->us(s, "intended_us", r->intended_ns);
	s->us(s, "start_us", r->start_ns);
	for (int p = 0; p < PQ_PH_COUNT; p++) {
		char name[40];
		snprintf(name, sizeof name, "%s_us", pq_phase_name((enum pq_phase)p));
		s->us(s, name, r->t[p]);
	}
	s->us(s, "latency_us", pq_load_latency_ns(r));
	s->str(s, "error", pq_load_err_short(r->err));
	s->str(s, "error_detail", r->err_detail);
	s->str(s, "version", r->version);
	s->str(s, "group", r->group);
	s->str(s, "sigalg", r->sigalg);
	s->str(s, "cipher", r->cipher);
	s->num(s, "resume_offered", r->resume_offered);
	s->num(s, "resumed", r->resumed);
	s->num(s, "hrr", r->hrr);
	s->num(s, "ch1_bytes", r->ch_bytes[0]);
	s->num(s, "ch1_segs", r->ch_segs[0]);
	s->num(s, "ch2_bytes", r->ch_bytes[1]);
	s->num(s, "ch2_segs", r->ch_segs[1]);
	s->num(s, "early_sent", r->early_sent);
	s->num(s, "early_accepted", r->early_accepted);
	s->num(s, "cert_compressed", r->cert_compressed);
	for (int dir = 0; dir < 2; dir++)
		for (int i = 0; i < PQ_HS_COUNT; i++) {
			char name[64];
			snprintf(name, sizeof name, "%s_%s", dir == PQ_TX ? "tx" : "rx",
				 pq_tls_hs_name((enum pq_hs)i));
			s->num(s, name, r->hs_bytes[dir][i]);
		}
	s->num(s, "tls_bytes_tx", (long long)r->tls_bytes[PQ_TX]);
	s->num(s, "tls_bytes_rx", (long long)r->tls_bytes[PQ_RX]);
	s->num(s, "tcp_bytes_tx", (long long)r->tcp_bytes[PQ_TX]);
	s->num(s, "tcp_bytes_rx", (long long)r->tcp_bytes[PQ_RX]);
	s->num(s, "tcp_segs_tx", r->tcp_segs[PQ_TX]);
	s->num(s, "tcp_segs_rx", r->tcp_segs[PQ_RX]);
	s->num(s, "srtt_us", r->srtt_us);
	s->num(s, "rttvar_us", r->rttvar_us);
	s->num(s, "min_rtt_us", r->min_rtt_us);
	s->real(s, "handshake_rtts", pq_load_handshake_rtts(r));
	s->num(s, "retrans", r->retrans);
	s->num(s, "cwnd", r->cwnd);
	s->num(s, "mss", r->mss);
	s->num(s, "requests", r->requests);
	s->num(s, "status", r->status);
	s->num(s, "body_bytes", (long long)r->body_bytes);
	s->num(s, "quic", r->quic);
	s->num(s, "quic_dgrams_tx", r->quic_dgrams[PQ_TX]);
	s->num(s, "quic_dgrams_rx", r->quic_dgrams[PQ_RX]);
	s->num(s, "quic_bytes_tx", (long long)r->quic_bytes[PQ_TX]);
	s->num(s, "quic_bytes_rx", (long long)r->quic_bytes[PQ_RX]);
	s->num(s, "quic_first_dgrams", r->quic_first_dgrams);
	s->num(s, "quic_first_bytes", r->quic_first_bytes);
	s->num(s, "quic_first_dgram_bytes", r->quic_first_dgram_bytes);
	s->num(s, "quic_retry", r->quic_retry);
	s->num(s, "quic_amp_held", r->quic_amp_held);
	s->num(s, "client_wait_us", r->wait_ns < 0 ? -1 : r->wait_ns / 1000);
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

static void head_us(sink *s, const char *name, int64_t v)
{
	head_num(s, name, v);
}

static void head_str(sink *s, const char *name, const char *v)
{
	(void)v;
	head_num(s, name, 0);
}

static void head_real(sink *s, const char *name, double v)
{
	(void)v;
	head_num(s, name, 0);
}

static void csv_real(sink *s, const char *name, double v)
{
	(void)name;
	sep(s, ',');
	if (v < 0)
		fputs("-1", s->f);
	else
		fprintf(s->f, "%.3f", v);
}

static void csv_num(sink *s, const char *name, long long v)
{
	(void)name;
	sep(s, ',');
	fprintf(s->f, "%lld", v);
}

static void csv_us(sink *s, const char *name, int64_t ns)
{
	(void)name;
	sep(s, ',');
	if (ns < 0)
		fputs("-1", s->f);
	else
		fprintf(s->f, "%.1f", (double)ns / 1e3);
}

/* RFC 4180 quoting when needed (details are OpenSSL's words, commas possible). */
static void csv_str(sink *s, const char *name, const char *v)
{
	(void)name;
	sep(s, ',');
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

static void json_us(sink *s, const char *name, int64_t ns)
{
	json_key(s, name);
	if (ns < 0)
		fputs("null", s->f);
	else
		fprintf(s->f, "%.1f", (double)ns / 1e3);
}

static void json_real(sink *s, const char *name, double v)
{
	json_key(s, name);
	if (v < 0)
		fputs("null", s->f);
	else
		fprintf(s->f, "%.3f", v);
}

static void json_str(sink *s, const char *name, const char *v)
{
	json_key(s, name);
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

void pq_load_csv_header(FILE *f)
{
	pq_load_record zero;
	memset(&zero, 0, sizeof zero);
	sink h = {head_num, head_us, head_str, head_real, f, 1};
	visit(&zero, &h);
	fputc('\n', f);
}

void pq_load_csv_row(FILE *f, const pq_load_record *r)
{
	sink s = {csv_num, csv_us, csv_str, csv_real, f, 1};
	visit(r, &s);
	fputc('\n', f);
}

void pq_load_jsonl_row(FILE *f, const pq_load_record *r)
{
	sink s = {json_num, json_us, json_str, json_real, f, 1};
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
