#include "zeek/scan.h"

#include <stdio.h>
#include <string.h>

#include "zeek/json.h"

void pq_zeek_scan_init(pq_zeek_scan *s, pq_zeek_agg *agg, const char *file, uint32_t unit, int json)
{
	memset(s, 0, sizeof *s);
	s->agg = agg;
	s->file = file;
	s->unit = unit;
	s->json = json;
	pq_zeek_tsv_init(&s->tsv);
}

void pq_zeek_scan_inherit(pq_zeek_scan *s, const char *hdr, size_t len)
{
	char line[16384];
	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(hdr + pos, '\n', len - pos);
		size_t n = (nl ? (size_t)(nl - hdr) : len) - pos;
		if (n < sizeof line && hdr[pos] == '#') {
			memcpy(line, hdr + pos, n);
			(void)!pq_zeek_tsv_header(&s->tsv, line, n); /* its errors mark the block bad */
		}
		pos += n + 1;
	}
	s->blocks0 = s->tsv.blocks;
}

int pq_zeek_scan_flush(pq_zeek_scan *s)
{
	int rc = 0;
	for (size_t i = 0; i < s->nbatch && !rc; i++)
		rc = pq_zeek_agg_add_hashed(s->agg, &s->batch[i], s->hash[i]);
	s->nbatch = 0;
	return rc;
}

int pq_zeek_scan_line(pq_zeek_scan *s, char *line, size_t len)
{
	s->line++;
	if (!len)
		return 0;
	if (s->nbatch == sizeof s->batch / sizeof s->batch[0]) {
		int frc = pq_zeek_scan_flush(s);
		if (frc)
			return frc;
	}
	pq_zeek_rec *rp = &s->batch[s->nbatch];
	int rc;
	if (s->json || line[0] == '{') { /* a JSON row where TSV was expected: JSON all the same */
		rc = pq_zeek_json_row(line, len, rp);
	} else if (line[0] == '#') {
		/* A copy: a later chunk of the same file may be reading these bytes now. */
		char h[16384];
		if (len >= sizeof h) {
			pq_zeek_agg_bad(s->agg, s->file, s->unit, s->line, PQ_ZB_HEADER, "header line over 16 KiB");
			s->tsv.bad = 1;
			snprintf(s->tsv.bad_detail, sizeof s->tsv.bad_detail, "header line over 16 KiB");
			return 0;
		}
		memcpy(h, line, len);
		if (pq_zeek_tsv_header(&s->tsv, h, len))
			pq_zeek_agg_bad(s->agg, s->file, s->unit, s->line, PQ_ZB_HEADER, s->tsv.bad_detail);
		return 0;
	} else {
		rc = pq_zeek_tsv_row(&s->tsv, line, len, rp);
	}
	if (rc) {
		pq_zeek_agg_bad(s->agg, s->file, s->unit, s->line, rp->bad, rp->bad_detail);
		return 0;
	}
	s->hash[s->nbatch++] = pq_zeek_agg_prefetch(s->agg, rp);
	return 0;
}

/* A TSV row at buf[0..avail) in one pass (fields and the line's end): its length in
 * *n; 1 when the row is not complete yet. */
static int tsv_next(pq_zeek_scan *s, char *buf, size_t avail, size_t *n)
{
	if (s->nbatch == sizeof s->batch / sizeof s->batch[0]) {
		int rc = pq_zeek_scan_flush(s);
		if (rc)
			return rc;
	}
	pq_zeek_rec *rp = &s->batch[s->nbatch];
	int rc = pq_zeek_tsv_row_next(&s->tsv, buf, avail, rp, n);
	if (rc == 1)
		return 1;
	s->line++;
	if (rc)
		pq_zeek_agg_bad(s->agg, s->file, s->unit, s->line, rp->bad, rp->bad_detail);
	else
		s->hash[s->nbatch++] = pq_zeek_agg_prefetch(s->agg, rp);
	return 0;
}

/* Asks for the bytes a few rows on (a row is ~200 bytes, four cache lines at most),
 * so that reading a mapped file streams instead of waiting at each new line. */
static void prefetch_ahead(const char *buf, size_t pos, size_t len)
{
	enum { AHEAD = 2048 };
	if (pos + AHEAD + 256 <= len)
		for (int k = 0; k < 256; k += 64)
			__builtin_prefetch(buf + pos + AHEAD + k);
}

long pq_zeek_scan_buf(pq_zeek_scan *s, char *buf, size_t len, int final)
{
	size_t pos = 0;
	while (pos < len) {
		char c = buf[pos];
		if (!s->json && c != '#' && c != '{' && c != '\n') {
			prefetch_ahead(buf, pos, len);
			size_t n = 0;
			int rc = tsv_next(s, buf + pos, len - pos, &n);
			if (rc == 1)
				break;
			if (rc)
				return rc;
			pos += n + 1;
			continue;
		}
		char *nl = memchr(buf + pos, '\n', len - pos);
		if (!nl)
			break;
		size_t n = (size_t)(nl - buf) - pos;
		int rc = pq_zeek_scan_line(s, buf + pos, n);
		if (rc)
			return rc;
		pos += n + 1;
	}
	int rc = pq_zeek_scan_flush(s);
	if (rc)
		return rc;
	if (final && pos < len) {
		s->line++;
		pq_zeek_agg_bad(s->agg, s->file, s->unit, s->line, PQ_ZB_TRUNCATED, "no newline at the end");
		pos = len;
	}
	return (long)pos;
}

void pq_zeek_scan_finish(pq_zeek_scan *s)
{
	s->agg->header_blocks += s->tsv.blocks - s->blocks0;
}
