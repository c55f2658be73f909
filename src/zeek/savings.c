#include "zeek/savings.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exp/rdb.h"
#include "stats/sample.h"

typedef struct sample {
	char chain[160];
	long long rtt_us;
	int resumed;
	double ttfb_us;
} sample;

static int sample_cmp(const void *x, const void *y)
{
	const sample *a = x, *b = y;
	int c = strcmp(a->chain, b->chain);
	if (c)
		return c;
	if (a->rtt_us != b->rtt_us)
		return a->rtt_us < b->rtt_us ? -1 : 1;
	if (a->resumed != b->resumed)
		return a->resumed - b->resumed;
	return a->ttfb_us < b->ttfb_us ? -1 : a->ttfb_us > b->ttfb_us;
}

/* The median of v[0..n) (sorted), pqtls's one definition (stats/sample.h), as the views. */
static double median(const sample *v, size_t n)
{
	size_t lo;
	double frac;
	pq_stats_rank(n, PQ_STATS_MEDIAN, &lo, &frac);
	return frac == 0 ? v[lo].ttfb_us : v[lo].ttfb_us + frac * (v[lo + 1].ttfb_us - v[lo].ttfb_us);
}

/* Successful connections without emulated loss and without 0-RTT: fresh (resumed = 0)
 * against plain resumption (resumed = 1). A remote server's path stores no loss and no RTT
 * (NULL: not ours to know); its cells count as the network's own, at RTT 0 here. */
static const char query[] =
	"SELECT chain_desc, COALESCE(rtt_us, 0), resumed, ttfb_us FROM conn_cell "
	"WHERE error_kind = 'ok' AND ttfb_us IS NOT NULL AND COALESCE(loss_pct, 0) = 0 AND early_sent = 0 "
	"AND resumed IN (0, 1)";

static int read_samples(sqlite3 *db, const char *path, sample **out, size_t *n, pq_diag *d)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc = 0, e;
	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db, query, -1, &st, NULL) != SQLITE_OK) {
		rc = pq_diag_set(d, PQ_EPARSE, "%s: cannot read conn_cell (%s)", path, sqlite3_errmsg(db));
		goto out;
	}
	while ((e = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 1024;
			sample *nv = realloc(*out, cap * sizeof *nv);
			if (!nv) {
				rc = PQ_ENOMEM;
				goto out;
			}
			*out = nv;
		}
		sample *s = &(*out)[(*n)++];
		const unsigned char *c = sqlite3_column_text(st, 0);
		snprintf(s->chain, sizeof s->chain, "%s", c ? (const char *)c : "?");
		s->rtt_us = sqlite3_column_int64(st, 1);
		s->resumed = sqlite3_column_int(st, 2);
		s->ttfb_us = sqlite3_column_double(st, 3);
	}
	if (e != SQLITE_DONE)
		rc = pq_diag_set(d, PQ_EIO, "%s: %s", path, sqlite3_errmsg(db));
out:
	sqlite3_finalize(st);
	return rc;
}

/* Groups sorted samples by (chain, RTT) and keeps groups measured both ways. */
static int group(pq_zeek_savings *s, sample *v, size_t n)
{
	if (n)
		qsort(v, n, sizeof *v, sample_cmp);
	for (size_t i = 0; i < n;) {
		size_t j = i, k;
		while (j < n && !strcmp(v[j].chain, v[i].chain) && v[j].rtt_us == v[i].rtt_us)
			j++;
		for (k = i; k < j && !v[k].resumed; k++)
			;
		if (k > i && k < j) {
			pq_zeek_ttfb *nv = realloc(s->v, (s->n + 1) * sizeof *nv);
			if (!nv)
				return PQ_ENOMEM;
			s->v = nv;
			pq_zeek_ttfb *t = &s->v[s->n++];
			snprintf(t->chain, sizeof t->chain, "%s", v[i].chain);
			t->rtt_ms = (double)v[i].rtt_us / 1000;
			t->fresh_ms = median(v + i, k - i) / 1000;
			t->resumed_ms = median(v + k, j - k) / 1000;
			t->fresh_n = (long)(k - i);
			t->resumed_n = (long)(j - k);
		}
		i = j;
	}
	return 0;
}

int pq_zeek_savings_load(pq_zeek_savings *s, const char *path, pq_diag *d)
{
	sqlite3 *db = NULL;
	sample *v = NULL;
	size_t n = 0;
	int rc;
	memset(s, 0, sizeof *s);
	if ((rc = pq_rdb_open_db(path, &db, d)) || (rc = read_samples(db, path, &v, &n, d)))
		goto out;
	if ((rc = group(s, v, n)))
		goto out;
	if (!s->n)
		rc = pq_diag_set(d, PQ_EINVAL, "%s: no chain was measured both fresh and resumed at one RTT without "
				 "loss (a sweep with resumption arms, e.g. 'ml-dsa-65' and 'ml-dsa-65 resumed')", path);
out:
	if (rc)
		pq_zeek_savings_free(s);
	free(v);
	sqlite3_close(db);
	return rc;
}

void pq_zeek_savings_free(pq_zeek_savings *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

void pq_zeek_savings_print(FILE *f, const pq_zeek_savings *s, const pq_zeek_agg *a, int csv)
{
	static const int cols[] = {PQ_ZCAT_CDN, PQ_ZCAT_CLOUD, PQ_ZCAT_OTHER, PQ_ZCAT_N};
	uint64_t k[4], n[4];
	for (int c = 0; c < 4; c++) {
		k[c] = n[c] = 0;
		for (int x = 0; x < PQ_ZCAT_N; x++) {
			if (cols[c] != PQ_ZCAT_N && cols[c] != x)
				continue;
			k[c] += a->cat[x].res[PQ_ZS_ALL][PQ_ZR_YES];
			n[c] += a->cat[x].res[PQ_ZS_ALL][PQ_ZR_YES] + a->cat[x].res[PQ_ZS_ALL][PQ_ZR_NO];
		}
	}
	const char *names[] = {"CDN", "Cloud", "Other", "All"};
	if (csv)
		fprintf(f, "chain,rtt_ms,ttfb_fresh_ms,ttfb_resumed_ms,category,resumption,saving_ms,saving_lo_ms,"
			   "saving_hi_ms,saving_pct\n");
	else
		fprintf(f, "Expected saving per connection from resumption: rate x (fresh - resumed TTFB)\n"
			   "%-44s %7s %9s %9s  %-28s %-28s %-28s %-28s\n",
			"chain", "RTT ms", "fresh ms", "resumed", "CDN ms (%) [95% CI]", "Cloud", "Other", "All");
	for (size_t i = 0; i < s->n; i++) {
		const pq_zeek_ttfb *t = &s->v[i];
		double gain = t->fresh_ms - t->resumed_ms;
		if (!csv)
			fprintf(f, "%-44.44s %7.1f %9.2f %9.2f ", t->chain, t->rtt_ms, t->fresh_ms, t->resumed_ms);
		for (int c = 0; c < 4; c++) {
			double lo, hi, r = n[c] ? (double)k[c] / (double)n[c] : 0;
			pq_zeek_wilson95(k[c], n[c], &lo, &hi);
			if (csv && n[c])
				fprintf(f, "\"%s\",%.3f,%.3f,%.3f,%s,%.6f,%.3f,%.3f,%.3f,%.2f\n", t->chain, t->rtt_ms,
					t->fresh_ms, t->resumed_ms, names[c], r, r * gain, lo * gain, hi * gain,
					t->fresh_ms > 0 ? 100 * r * gain / t->fresh_ms : 0);
			else if (!csv && n[c])
				fprintf(f, " %7.2f (%4.1f%%) [%.1f,%.1f]   ", r * gain,
					t->fresh_ms > 0 ? 100 * r * gain / t->fresh_ms : 0, lo * gain, hi * gain);
			else if (!csv)
				fprintf(f, " %-28s", "n/a (no resumption data)");
		}
		if (!csv)
			fprintf(f, "\n");
	}
}
