#include "zeek/agg.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "stats/sample.h"

void pq_zeek_agg_init(pq_zeek_agg *a, const pq_zeek_classifier *cls)
{
	memset(a, 0, sizeof *a);
	pq_zeek_map_init_fixed(&a->servers, sizeof(pq_zeek_addr), sizeof(pq_zeek_server));
	pq_zeek_map_init(&a->names, sizeof(uint64_t));
	pq_zeek_map_init(&a->groups, sizeof(uint64_t));
	pq_zeek_map_init_fixed(&a->days, sizeof(int64_t), sizeof(pq_zeek_day) * PQ_ZCAT_N);
	pq_zeek_map_init(&a->chains, sizeof(uint64_t));
	pq_zeek_map_init(&a->inputs, sizeof(uint64_t));
	a->cls = cls;
}

void pq_zeek_agg_dispose(pq_zeek_agg *a)
{
	pq_zeek_map_dispose(&a->servers);
	pq_zeek_map_dispose(&a->names);
	pq_zeek_map_dispose(&a->groups);
	pq_zeek_map_dispose(&a->days);
	pq_zeek_map_dispose(&a->chains);
	pq_zeek_map_dispose(&a->inputs);
}

static int count_str(pq_zeek_map *m, const char *s, size_t n, uint64_t k)
{
	uint64_t *v = pq_zeek_map_get(m, s, n, NULL);
	if (!v)
		return PQ_ENOMEM;
	*v += k;
	return 0;
}

/* The row's chain as its ids (decoded) joined by '\n', counted once more. */
static int count_chain(pq_zeek_agg *a, const pq_zeek_rec *r)
{
	char key[8192];
	size_t k = 0;
	for (size_t i = 0; i < r->chain_len;) {
		const char *e = memchr(r->chain + i, r->chain_sep, r->chain_len - i);
		size_t n = (e ? (size_t)(e - r->chain) : r->chain_len) - i;
		if (k + n + 1 > sizeof key) {
			a->chains_bad++;
			return 0;
		}
		if (k)
			key[k++] = '\n';
		memcpy(key + k, r->chain + i, n);
		long d = r->chain_escaped ? pq_zeek_unescape(key + k, n) : (long)n;
		if (d < 0) {
			a->chains_bad++;
			return 0;
		}
		k += (size_t)d;
		i += n + 1;
	}
	return k ? count_str(&a->chains, key, k, 1) : 0;
}

int pq_zeek_agg_input(pq_zeek_agg *a, const char *path)
{
	struct stat st;
	char real[PATH_MAX], key[PATH_MAX + 64];
	if (stat(path, &st) < 0 || !realpath(path, real))
		return 0; /* read already; nothing to tell it apart by */
	int n = snprintf(key, sizeof key, "%lld %lld.%09ld %s", (long long)st.st_size, (long long)st.st_mtim.tv_sec,
			 (long)st.st_mtim.tv_nsec, real);
	return n > 0 && (size_t)n < sizeof key ? count_str(&a->inputs, key, (size_t)n, 1) : 0;
}

int pq_zeek_ts_plausible(int64_t ts)
{
	return ts >= PQ_ZEEK_TS_MIN && ts < PQ_ZEEK_TS_MAX;
}

static int64_t day_of(int64_t ts)
{
	return ts >= 0 ? ts / 86400 : -((-ts + 86399) / 86400);
}

static pq_zeek_server *server(pq_zeek_agg *a, const pq_zeek_addr *addr, uint64_t hash)
{
	int fresh;
	pq_zeek_server *s = pq_zeek_map_get_hashed(&a->servers, addr, sizeof *addr, hash, &fresh);
	if (s && fresh)
		s->cls = a->cls ? pq_zeek_classify(a->cls, addr)
				: (pq_zeek_class){PQ_ZCAT_UNKNOWN, PQ_ZM_NONE, 0, -1};
	return s;
}

static int add(pq_zeek_agg *a, const pq_zeek_rec *r, uint64_t hash)
{
	pq_zeek_server *s = server(a, &r->resp, hash);
	if (!s)
		return PQ_ENOMEM;
	int cat = s->cls.cat;
	pq_zeek_cnt *c = &a->cat[cat];
	s->rows++;
	s->res_yes += r->resumed == 1;
	a->rows++;
	c->rows++;
	c->method[s->cls.method]++;
	c->ver[r->version]++;
	if (r->server_name && count_str(&a->names, r->server_name, r->server_name_len, 1))
		return PQ_ENOMEM;
	if (r->curve && count_str(&a->groups, r->curve, r->curve_len, 1))
		return PQ_ENOMEM;
	if (a->want_chains && r->chain && count_chain(a, r))
		return PQ_ENOMEM;
	if (r->version == PQ_ZV_UNSET)
		return 0; /* no ServerHello: counted apart, in no resumption denominator */
	int res = r->resumed == 1 ? PQ_ZR_YES : r->resumed == 0 ? PQ_ZR_NO : PQ_ZR_UNKNOWN;
	c->res[PQ_ZS_ALL][res]++;
	if (r->version == PQ_ZV_TLSv13)
		c->res[PQ_ZS_TLS13][res]++;
	if (r->established == 1)
		c->res[PQ_ZS_ESTABLISHED][res]++;
	if (!r->has_ts) {
		a->no_ts++;
		return 0;
	}
	if (!pq_zeek_ts_plausible(r->ts)) {
		a->ts_implausible++;
		return 0;
	}
	int64_t day = day_of(r->ts);
	pq_zeek_day *d = pq_zeek_map_get(&a->days, &day, sizeof day, NULL);
	if (!d)
		return PQ_ENOMEM;
	d[cat].rows++;
	d[cat].tls13 += r->version == PQ_ZV_TLSv13;
	d[cat].res_yes += res == PQ_ZR_YES;
	d[cat].res_known += res != PQ_ZR_UNKNOWN;
	return 0;
}

int pq_zeek_agg_add(pq_zeek_agg *a, const pq_zeek_rec *r)
{
	return add(a, r, pq_zeek_map_hash(&r->resp, sizeof r->resp));
}

uint64_t pq_zeek_agg_prefetch(const pq_zeek_agg *a, const pq_zeek_rec *r)
{
	return pq_zeek_map_prefetch(&a->servers, &r->resp, sizeof r->resp);
}

int pq_zeek_agg_add_hashed(pq_zeek_agg *a, const pq_zeek_rec *r, uint64_t hash)
{
	return add(a, r, hash);
}

static int sample_cmp(const pq_zeek_sample *x, const pq_zeek_sample *y)
{
	int c = strcmp(x->file, y->file);
	if (c)
		return c;
	if (x->unit != y->unit)
		return x->unit < y->unit ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Keeps the PQ_ZEEK_SAMPLES smallest by (file, unit, line), sorted. */
static void keep_sample(pq_zeek_agg *a, const pq_zeek_sample *s)
{
	int n = a->nsamples;
	if (n == PQ_ZEEK_SAMPLES && sample_cmp(s, &a->samples[n - 1]) >= 0)
		return;
	int i = n < PQ_ZEEK_SAMPLES ? n : n - 1;
	while (i > 0 && sample_cmp(s, &a->samples[i - 1]) < 0) {
		a->samples[i] = a->samples[i - 1];
		i--;
	}
	a->samples[i] = *s;
	if (n < PQ_ZEEK_SAMPLES)
		a->nsamples++;
}

void pq_zeek_agg_bad(pq_zeek_agg *a, const char *file, uint32_t unit, uint64_t line, int why, const char *detail)
{
	a->bad[why]++;
	pq_zeek_sample s;
	memset(&s, 0, sizeof s);
	snprintf(s.file, sizeof s.file, "%s", file);
	snprintf(s.detail, sizeof s.detail, "%s", detail ? detail : "");
	s.unit = unit;
	s.line = line;
	s.why = why;
	keep_sample(a, &s);
}

void pq_zeek_cnt_add(pq_zeek_cnt *x, const pq_zeek_cnt *y)
{
	x->rows += y->rows;
	for (int v = 0; v < PQ_ZV_COUNT; v++)
		x->ver[v] += y->ver[v];
	for (int s = 0; s < PQ_ZS_N; s++)
		for (int r = 0; r < PQ_ZR_N; r++)
			x->res[s][r] += y->res[s][r];
	for (int m = 0; m < PQ_ZM_N; m++)
		x->method[m] += y->method[m];
}

static int merge_counts(pq_zeek_map *into, const pq_zeek_map *from)
{
	size_t it = 0, kl;
	const void *k;
	uint64_t *v;
	while ((v = pq_zeek_map_next(from, &it, &k, &kl)))
		if (count_str(into, k, kl, *v))
			return PQ_ENOMEM;
	return 0;
}

int pq_zeek_agg_merge(pq_zeek_agg *into, const pq_zeek_agg *from)
{
	for (int c = 0; c < PQ_ZCAT_N; c++)
		pq_zeek_cnt_add(&into->cat[c], &from->cat[c]);
	for (int b = 0; b < PQ_ZB_COUNT; b++)
		into->bad[b] += from->bad[b];
	into->rows += from->rows;
	into->no_ts += from->no_ts;
	into->ts_implausible += from->ts_implausible;
	into->files += from->files;
	into->bytes += from->bytes;
	into->header_blocks += from->header_blocks;
	for (int i = 0; i < from->nsamples; i++)
		keep_sample(into, &from->samples[i]);
	into->chains_bad += from->chains_bad;
	if (merge_counts(&into->names, &from->names) || merge_counts(&into->groups, &from->groups) ||
	    merge_counts(&into->chains, &from->chains) || merge_counts(&into->inputs, &from->inputs))
		return PQ_ENOMEM;
	size_t it = 0, kl;
	const void *k;
	const pq_zeek_server *s;
	while ((s = pq_zeek_map_next(&from->servers, &it, &k, &kl))) {
		int fresh;
		pq_zeek_server *t = pq_zeek_map_get(&into->servers, k, kl, &fresh);
		if (!t)
			return PQ_ENOMEM;
		if (fresh)
			t->cls = s->cls;
		t->rows += s->rows;
		t->res_yes += s->res_yes;
	}
	it = 0;
	const pq_zeek_day *d;
	while ((d = pq_zeek_map_next(&from->days, &it, &k, &kl))) {
		pq_zeek_day *t = pq_zeek_map_get(&into->days, k, kl, NULL);
		if (!t)
			return PQ_ENOMEM;
		for (int c = 0; c < PQ_ZCAT_N; c++) {
			t[c].rows += d[c].rows;
			t[c].tls13 += d[c].tls13;
			t[c].res_yes += d[c].res_yes;
			t[c].res_known += d[c].res_known;
		}
	}
	return 0;
}

const char *const pq_zeek_metric_name[PQ_ZMT_N] = {"tls13_adoption", "resumption_all", "resumption_tls13",
						   "resumption_established"};
const char *const pq_zeek_metric_label[PQ_ZMT_N] = {"TLS 1.3 adoption", "resumption, all", "resumption, TLS 1.3",
						    "resumption, established"};

void pq_zeek_metric_kn(const pq_zeek_cnt *c, enum pq_zeek_metric m, uint64_t *k, uint64_t *n)
{
	if (m == PQ_ZMT_TLS13) {
		*k = c->ver[PQ_ZV_TLSv13];
		*n = c->rows - c->ver[PQ_ZV_UNSET];
		return;
	}
	int s = m == PQ_ZMT_RES_ALL ? PQ_ZS_ALL : m == PQ_ZMT_RES_13 ? PQ_ZS_TLS13 : PQ_ZS_ESTABLISHED;
	*k = c->res[s][PQ_ZR_YES];
	*n = c->res[s][PQ_ZR_YES] + c->res[s][PQ_ZR_NO];
}

void pq_zeek_cnt_of(const pq_zeek_agg *a, int cat, pq_zeek_cnt *out)
{
	memset(out, 0, sizeof *out);
	for (int x = 0; x < PQ_ZCAT_N; x++)
		if (cat == PQ_ZCAT_N || cat == x)
			pq_zeek_cnt_add(out, &a->cat[x]);
}

void pq_zeek_rate_of(const pq_zeek_agg *a, int cat, enum pq_zeek_metric m, pq_zeek_rate *out)
{
	pq_zeek_cnt c;
	pq_zeek_cnt_of(a, cat, &c);
	*out = (pq_zeek_rate){0};
	pq_zeek_metric_kn(&c, m, &out->k, &out->n);
	out->r = out->n ? (double)out->k / (double)out->n : 0;
	pq_zeek_wilson95(out->k, out->n, &out->lo, &out->hi);
}

void pq_zeek_wilson95(uint64_t k, uint64_t n, double *lo, double *hi)
{
	if (!n) { /* the report prints n/a; zeros keep partial files and JSON simple */
		*lo = *hi = 0;
		return;
	}
	pq_stats_wilson((double)k, (double)n, 1.959963984540054, lo, hi);
}
