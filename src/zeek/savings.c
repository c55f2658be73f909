#include "zeek/savings.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exp/rdb.h"
#include "stats/sample.h"

/* The groups' key: the chain, and the RTT when it is known. */
typedef struct sample {
	const char *chain;
	int rtt_known;
	long long rtt_us;
	int resumed;
	double ttfb_us;
} sample;

static int key_cmp(const sample *a, const sample *b)
{
	int c = strcmp(a->chain, b->chain);
	if (c)
		return c;
	if (a->rtt_known != b->rtt_known)
		return a->rtt_known - b->rtt_known;
	if (a->rtt_us != b->rtt_us)
		return a->rtt_us < b->rtt_us ? -1 : 1;
	return 0;
}

static int sample_cmp(const void *x, const void *y)
{
	const sample *a = x, *b = y;
	int c = key_cmp(a, b);
	return c ? c : a->resumed - b->resumed;
}

/* A cell whose link emulated loss in either direction is left out; a remote server's path
 * stores none (NULL: not ours to know) and is kept as the network's own. */
static int lossless(const pq_rdb_cell *c)
{
	const pq_dimval *l[] = {&c->dim[PQ_D_LOSS], &c->dim[PQ_D_LOSS_C2S]};
	for (size_t i = 0; i < sizeof l / sizeof l[0]; i++)
		if (l[i]->kind != PQ_DV_NULL && !(l[i]->kind == PQ_DV_REAL ? l[i]->f == 0 : l[i]->i == 0))
			return 0;
	return 1;
}

static const char *chain_of(const pq_rdb_cell *c)
{
	if (c->chain_desc[0])
		return c->chain_desc;
	return strcmp(c->leaf, "remote") == 0 ? "the remote server's chain" : "(chain not recorded)";
}

/* Successful connections of lossless cells without 0-RTT: fresh (resumed = 0) against
 * plain resumption (resumed = 1). The RTT is the cell's stored one; a remote server's
 * (NULL) is unknown, and its cells group apart from every emulated RTT. */
static int read_samples(const pq_rdb *db, sample **out, size_t *n)
{
	*n = 0;
	*out = db->nconns ? malloc(db->nconns * sizeof **out) : NULL;
	if (db->nconns && !*out)
		return PQ_ENOMEM;
	for (size_t i = 0; i < db->ncells; i++) {
		const pq_rdb_cell *c = &db->cells[i];
		if (!lossless(c))
			continue;
		for (size_t j = c->c0; j < c->c0 + c->nc; j++) {
			const pq_rdb_conn *k = &db->conns[j];
			if (!k->ok || isnan(k->ttfb_us) || k->early_sent || (k->resumed != 0 && k->resumed != 1))
				continue;
			sample *s = &(*out)[(*n)++];
			s->chain = chain_of(c);
			s->rtt_known = c->dim[PQ_D_RTT].kind == PQ_DV_INT;
			s->rtt_us = s->rtt_known ? c->dim[PQ_D_RTT].i : 0;
			s->resumed = k->resumed;
			s->ttfb_us = k->ttfb_us;
		}
	}
	return 0;
}

/* The median TTFB of v[0..n), in ms (pqtls's one percentile, stats/sample.h: the mean of
 * the two middle values for an even n, as the views). */
static int median_ms(const sample *v, size_t n, double *out)
{
	pq_stats st;
	int rc = 0;
	pq_stats_init(&st);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = pq_stats_add(&st, v[i].ttfb_us);
	*out = pq_stats_percentile(&st, 50) / 1000;
	pq_stats_dispose(&st);
	return rc;
}

/* Groups samples by (chain, RTT) and keeps groups measured both ways. */
static int group(pq_zeek_savings *s, sample *v, size_t n)
{
	if (n)
		qsort(v, n, sizeof *v, sample_cmp);
	for (size_t i = 0; i < n;) {
		size_t j = i, k;
		while (j < n && key_cmp(&v[j], &v[i]) == 0)
			j++;
		for (k = i; k < j && !v[k].resumed; k++)
			;
		if (k > i && k < j) {
			pq_zeek_ttfb *nv = realloc(s->v, (s->n + 1) * sizeof *nv);
			if (!nv)
				return PQ_ENOMEM;
			s->v = nv;
			pq_zeek_ttfb *t = &s->v[s->n++];
			memset(t, 0, sizeof *t);
			snprintf(t->chain, sizeof t->chain, "%s", v[i].chain);
			t->rtt_known = v[i].rtt_known;
			t->rtt_ms = t->rtt_known ? (double)v[i].rtt_us / 1000 : NAN;
			t->fresh_n = (long)(k - i);
			t->resumed_n = (long)(j - k);
			int rc = median_ms(v + i, k - i, &t->fresh_ms);
			if (rc || (rc = median_ms(v + k, j - k, &t->resumed_ms)))
				return rc;
		}
		i = j;
	}
	return 0;
}

int pq_zeek_savings_load(pq_zeek_savings *s, const char *path, pq_diag *d)
{
	pq_rdb db;
	sample *v = NULL;
	size_t n = 0;
	int rc;
	memset(s, 0, sizeof *s);
	if ((rc = pq_rdb_open(path, &db, d)))
		return rc;
	if ((rc = read_samples(&db, &v, &n)) || (rc = group(s, v, n))) {
		rc = pq_diag_set(d, rc, "%s: out of memory", path);
		goto out;
	}
	if (!s->n)
		rc = pq_diag_set(d, PQ_EINVAL, "%s: no chain was measured both fresh and resumed at one RTT without "
				 "loss (a sweep with resumption arms, e.g. 'ml-dsa-65' and 'ml-dsa-65 resumed')", path);
out:
	if (rc)
		pq_zeek_savings_free(s);
	free(v);
	pq_rdb_close(&db);
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
	pq_zeek_rate rate[4];
	for (int c = 0; c < 4; c++)
		pq_zeek_rate_of(a, cols[c], PQ_ZMT_RES_ALL, &rate[c]);
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
		char rtt[16] = "";
		if (t->rtt_known)
			snprintf(rtt, sizeof rtt, csv ? "%.3f" : "%.1f", t->rtt_ms);
		if (!csv)
			fprintf(f, "%-44.44s %7s %9.2f %9.2f ", t->chain, t->rtt_known ? rtt : "remote", t->fresh_ms,
				t->resumed_ms);
		for (int c = 0; c < 4; c++) {
			double r = rate[c].r, lo = rate[c].lo, hi = rate[c].hi;
			if (csv && rate[c].n)
				fprintf(f, "\"%s\",%s,%.3f,%.3f,%s,%.6f,%.3f,%.3f,%.3f,%.2f\n", t->chain, rtt,
					t->fresh_ms, t->resumed_ms, names[c], r, r * gain, lo * gain, hi * gain,
					t->fresh_ms > 0 ? 100 * r * gain / t->fresh_ms : 0);
			else if (!csv && rate[c].n)
				fprintf(f, " %7.2f (%4.1f%%) [%.1f,%.1f]   ", r * gain,
					t->fresh_ms > 0 ? 100 * r * gain / t->fresh_ms : 0, lo * gain, hi * gain);
			else if (!csv)
				fprintf(f, " %-28s", "n/a (no resumption data)");
		}
		if (!csv)
			fprintf(f, "\n");
	}
}
