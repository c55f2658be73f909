#include "zeek/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "zeek/study.h"

#define NCOL (PQ_ZCAT_N + 1) /* the categories and All */

static const char *col_name(int col)
{
	return col == PQ_ZCAT_N ? "All" : pq_zeek_cat_name(col);
}

/* ---- sorted views of the maps ---- */
typedef struct kv {
	char key[256];
	uint64_t n;
	const pq_zeek_server *srv;
} kv;

static int kv_cmp(const void *x, const void *y)
{
	const kv *a = x, *b = y;
	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return strcmp(a->key, b->key);
}

static kv *sorted_counts(const pq_zeek_map *m, size_t *n)
{
	kv *v = calloc(m->len ? m->len : 1, sizeof *v);
	size_t it = 0, kl, i = 0;
	const void *k;
	const uint64_t *c;
	while (v && (c = pq_zeek_map_next(m, &it, &k, &kl))) {
		snprintf(v[i].key, sizeof v[i].key, "%.*s", (int)(kl < 255 ? kl : 255), (const char *)k);
		v[i++].n = *c;
	}
	if (v)
		qsort(v, i, sizeof *v, kv_cmp);
	*n = i;
	return v;
}

static kv *sorted_asns(const pq_zeek_agg *a, size_t *n)
{
	pq_zeek_map asns;
	pq_zeek_map_init(&asns, sizeof(uint64_t));
	size_t it = 0, kl;
	const void *k;
	const pq_zeek_server *s;
	while ((s = pq_zeek_map_next(&a->servers, &it, &k, &kl))) {
		char key[64];
		int len = snprintf(key, sizeof key, "AS%" PRIu32 " %s", s->cls.asn, pq_zeek_cat_name(s->cls.cat));
		uint64_t *c = s->cls.asn ? pq_zeek_map_get(&asns, key, (size_t)len, NULL) : NULL;
		if (c)
			*c += s->rows;
	}
	kv *v = sorted_counts(&asns, n);
	pq_zeek_map_dispose(&asns);
	return v;
}

/* ---- the trend ---- */
static void civil(int64_t day, int *y, int *m, int *d)
{
	int64_t z = day + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

typedef struct period {
	char name[32];
	pq_zeek_day c[PQ_ZCAT_N];
} period;

typedef struct dayref {
	int64_t day;
	const pq_zeek_day *d;
} dayref;

static int dayref_cmp(const void *x, const void *y)
{
	int64_t a = ((const dayref *)x)->day, b = ((const dayref *)y)->day;
	return (a > b) - (a < b);
}

/* The days in order, each added to its period (a day or a month): consecutive days share
 * a month, so one pass over the sorted days groups them. */
static period *trend(const pq_zeek_agg *a, int by, size_t *n)
{
	size_t nd = a->days.len, it = 0, kl, np = 0;
	period *p = calloc(nd ? nd : 1, sizeof *p);
	dayref *days = calloc(nd ? nd : 1, sizeof *days);
	const void *k;
	const pq_zeek_day *d;
	for (size_t i = 0; p && days && i < nd && (d = pq_zeek_map_next(&a->days, &it, &k, &kl)); i++) {
		memcpy(&days[i].day, k, sizeof days[i].day);
		days[i].d = d;
	}
	if (p && days)
		qsort(days, nd, sizeof *days, dayref_cmp);
	for (size_t i = 0; p && days && i < nd; i++) {
		int y, m, dd;
		char name[32];
		civil(days[i].day, &y, &m, &dd);
		if (by == PQ_ZBY_MONTH)
			snprintf(name, sizeof name, "%04d-%02d", y, m);
		else
			snprintf(name, sizeof name, "%04d-%02d-%02d", y, m, dd);
		if (!np || strcmp(p[np - 1].name, name) != 0)
			snprintf(p[np++].name, sizeof p->name, "%s", name);
		for (int c = 0; c < PQ_ZCAT_N; c++) {
			p[np - 1].c[c].rows += days[i].d[c].rows;
			p[np - 1].c[c].tls13 += days[i].d[c].tls13;
			p[np - 1].c[c].res_yes += days[i].d[c].res_yes;
			p[np - 1].c[c].res_known += days[i].d[c].res_known;
		}
	}
	if (!days) {
		free(p);
		p = NULL;
	}
	free(days);
	*n = np;
	return p;
}

uint64_t pq_zeek_report_skipped(const pq_zeek_agg *a)
{
	uint64_t n = 0;
	for (int b = 1; b < PQ_ZB_COUNT; b++)
		n += a->bad[b];
	return n;
}

static double pct(uint64_t k, uint64_t n)
{
	return n ? 100.0 * (double)k / (double)n : 0;
}

/* ---- terminal ---- */
static void text_table(FILE *f, const pq_zeek_agg *a)
{
	pq_zeek_cnt c[NCOL];
	for (int col = 0; col < NCOL; col++)
		pq_zeek_cnt_of(a, col, &c[col]);
	fprintf(f, "\n%-27s", "metric (95% Wilson CI, k/n)");
	for (int col = 0; col < NCOL; col++)
		fprintf(f, " %28s", col_name(col));
	fprintf(f, "\n%-27s", "rows");
	for (int col = 0; col < NCOL; col++)
		fprintf(f, " %28" PRIu64, c[col].rows);
	for (int m = 0; m < PQ_ZMT_N; m++) {
		fprintf(f, "\n%-27s", pq_zeek_metric_label[m]);
		for (int col = 0; col < NCOL; col++) {
			uint64_t k, n;
			double lo, hi;
			char cell[64];
			pq_zeek_metric_kn(&c[col], (enum pq_zeek_metric)m, &k, &n);
			pq_zeek_wilson95(k, n, &lo, &hi);
			if (n)
				snprintf(cell, sizeof cell, "%.2f%% [%.1f,%.1f] %" PRIu64 "/%" PRIu64, pct(k, n),
					 100 * lo, 100 * hi, k, n);
			else
				snprintf(cell, sizeof cell, "n/a");
			fprintf(f, " %28s", cell);
		}
	}
	static const char *const apart[] = {"version unset (apart)", "resumed unknown", "decided by ranges",
					    "decided by ASN", "decided by neither"};
	for (int i = 0; i < 5; i++) {
		fprintf(f, "\n%-27s", apart[i]);
		for (int col = 0; col < NCOL; col++) {
			uint64_t v = i == 0 ? c[col].ver[PQ_ZV_UNSET]
				   : i == 1 ? c[col].res[PQ_ZS_ALL][PQ_ZR_UNKNOWN]
					    : c[col].method[i - 2];
			fprintf(f, " %28" PRIu64, v);
		}
	}
	fprintf(f, "\n\nTLS versions (rows)\n%-10s", "version");
	for (int col = 0; col < NCOL; col++)
		fprintf(f, " %10s", col_name(col));
	for (int v = 0; v < PQ_ZV_COUNT; v++) {
		if (!c[PQ_ZCAT_N].ver[v])
			continue;
		fprintf(f, "\n%-10s", pq_zeek_version_name(v));
		for (int col = 0; col < NCOL; col++)
			fprintf(f, " %10" PRIu64, c[col].ver[v]);
	}
	fprintf(f, "\n");
}

static void text_top(FILE *f, const char *title, kv *v, size_t n, int top, uint64_t total)
{
	fprintf(f, "\n%s\n", title);
	if (!n)
		fprintf(f, "  (none in these logs)\n");
	for (size_t i = 0; i < n && i < (size_t)top; i++)
		fprintf(f, "  %-48s %12" PRIu64 " %6.2f%%\n", v[i].key, v[i].n, pct(v[i].n, total));
	free(v);
}

void pq_zeek_report_text(FILE *f, const pq_zeek_agg *a, const pq_zeek_report_opts *o)
{
	fprintf(f, "%" PRIu64 " files, %" PRIu64 " bytes, %" PRIu64 " rows, %zu servers, %" PRIu64
		" header blocks; %" PRIu64 " lines skipped\n",
		a->files, a->bytes, a->rows, a->servers.len, a->header_blocks, pq_zeek_report_skipped(a));
	if (o->classification)
		fprintf(f, "classification: %s\n", o->classification);
	if (a->ts_implausible)
		fprintf(f, "%" PRIu64 " rows with an implausible ts (before 1995 or from 2100: a sensor's broken clock?) "
			"are counted but left out of the trend\n",
			a->ts_implausible);
	text_table(f, a);
	pq_zeek_study st[PQ_ZEEK_STUDY_MAX];
	pq_zeek_study_print(f, st, pq_zeek_study_table3(a, st, PQ_ZEEK_STUDY_MAX));
	size_t n = 0;
	uint64_t grp_total = 0;
	kv *g = sorted_counts(&a->groups, &n);
	for (size_t i = 0; g && i < n; i++)
		grp_total += g[i].n;
	text_top(f, "Key-exchange groups (curve column; rows where the log has it)", g, n, o->top, grp_total);
	kv *names = sorted_counts(&a->names, &n);
	text_top(f, "Top server names (SNI)", names, n, o->top, a->rows);
	kv *asns = sorted_asns(a, &n);
	text_top(f, "Top ASNs (rows, category)", asns, n, o->top, a->rows);
	if (o->by != PQ_ZBY_NONE) {
		period *p = trend(a, o->by, &n);
		fprintf(f, "\nTrend by %s: TLS 1.3 share and resumption (rows with a version; %" PRIu64
			" without a usable ts and %" PRIu64 " with an implausible one left out)\n%-10s %-8s %10s %8s %10s\n",
			o->by == PQ_ZBY_DAY ? "day" : "month", a->no_ts, a->ts_implausible, "period", "category", "rows",
			"tls13%", "resumed%");
		for (size_t i = 0; p && i < n; i++)
			for (int c = 0; c < PQ_ZCAT_N; c++)
				if (p[i].c[c].rows)
					fprintf(f, "%-10s %-8s %10" PRIu64 " %8.2f %10.2f\n", p[i].name,
						pq_zeek_cat_name(c), p[i].c[c].rows, pct(p[i].c[c].tls13, p[i].c[c].rows),
						pct(p[i].c[c].res_yes, p[i].c[c].res_known));
		free(p);
	}
	if (pq_zeek_report_skipped(a)) {
		fprintf(f, "\nSkipped lines by reason\n");
		for (int b = 1; b < PQ_ZB_COUNT; b++)
			if (a->bad[b])
				fprintf(f, "  %-50s %12" PRIu64 "\n", pq_zeek_bad_text(b), a->bad[b]);
		fprintf(f, "first %d:\n", a->nsamples);
		for (int i = 0; i < a->nsamples; i++)
			fprintf(f, "  %s:%" PRIu64 ": %s (%s)\n", a->samples[i].file, a->samples[i].line,
				pq_zeek_bad_text(a->samples[i].why), a->samples[i].detail);
	}
}

/* ---- JSON ---- */
static cJSON *top_json(kv *v, size_t n, int top, const char *keyname)
{
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; arr && v && i < n && i < (size_t)top; i++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, keyname, v[i].key);
		cJSON_AddNumberToObject(e, "rows", (double)v[i].n);
		cJSON_AddItemToArray(arr, e);
	}
	free(v);
	return arr;
}

cJSON *pq_zeek_report_json(const pq_zeek_agg *a, const pq_zeek_report_opts *o)
{
	cJSON *j = cJSON_CreateObject();
	if (!j)
		return NULL;
	cJSON_AddNumberToObject(j, "files", (double)a->files);
	cJSON_AddNumberToObject(j, "bytes", (double)a->bytes);
	cJSON_AddNumberToObject(j, "rows", (double)a->rows);
	cJSON_AddNumberToObject(j, "servers", (double)a->servers.len);
	cJSON_AddNumberToObject(j, "header_blocks", (double)a->header_blocks);
	cJSON_AddNumberToObject(j, "rows_without_ts", (double)a->no_ts);
	cJSON_AddNumberToObject(j, "rows_ts_implausible", (double)a->ts_implausible);
	if (o->classification)
		cJSON_AddStringToObject(j, "classification", o->classification);
	cJSON *cats = cJSON_AddObjectToObject(j, "categories");
	for (int col = 0; col < NCOL; col++) {
		pq_zeek_cnt c;
		pq_zeek_cnt_of(a, col, &c);
		cJSON *e = cJSON_AddObjectToObject(cats, col_name(col));
		cJSON_AddNumberToObject(e, "rows", (double)c.rows);
		cJSON_AddNumberToObject(e, "version_unset", (double)c.ver[PQ_ZV_UNSET]);
		cJSON_AddNumberToObject(e, "resumed_unknown", (double)c.res[PQ_ZS_ALL][PQ_ZR_UNKNOWN]);
		for (int m = 0; m < PQ_ZMT_N; m++) {
			uint64_t k, n;
			double lo, hi;
			pq_zeek_metric_kn(&c, (enum pq_zeek_metric)m, &k, &n);
			pq_zeek_wilson95(k, n, &lo, &hi);
			cJSON *x = cJSON_AddObjectToObject(e, pq_zeek_metric_name[m]);
			cJSON_AddNumberToObject(x, "k", (double)k);
			cJSON_AddNumberToObject(x, "n", (double)n);
			if (n) {
				cJSON_AddNumberToObject(x, "rate", (double)k / (double)n);
				cJSON_AddNumberToObject(x, "ci95_lo", lo);
				cJSON_AddNumberToObject(x, "ci95_hi", hi);
			} else {
				cJSON_AddNullToObject(x, "rate");
			}
		}
		cJSON *ver = cJSON_AddObjectToObject(e, "versions");
		for (int v = 0; v < PQ_ZV_COUNT; v++)
			if (c.ver[v])
				cJSON_AddNumberToObject(ver, pq_zeek_version_name(v), (double)c.ver[v]);
		cJSON *by = cJSON_AddObjectToObject(e, "decided_by");
		for (int m = 0; m < PQ_ZM_N; m++)
			cJSON_AddNumberToObject(by, pq_zeek_method_name(m), (double)c.method[m]);
	}
	size_t n = 0;
	kv *v = sorted_counts(&a->groups, &n);
	cJSON_AddItemToObject(j, "groups", top_json(v, n, o->top, "group"));
	v = sorted_counts(&a->names, &n);
	cJSON_AddItemToObject(j, "server_names", top_json(v, n, o->top, "server_name"));
	v = sorted_asns(a, &n);
	cJSON_AddItemToObject(j, "asns", top_json(v, n, o->top, "asn"));
	if (o->by != PQ_ZBY_NONE) {
		period *p = trend(a, o->by, &n);
		cJSON *t = cJSON_AddArrayToObject(j, "trend");
		for (size_t i = 0; p && i < n; i++)
			for (int c = 0; c < PQ_ZCAT_N; c++) {
				if (!p[i].c[c].rows)
					continue;
				cJSON *e = cJSON_CreateObject();
				cJSON_AddStringToObject(e, "period", p[i].name);
				cJSON_AddStringToObject(e, "category", pq_zeek_cat_name(c));
				cJSON_AddNumberToObject(e, "rows", (double)p[i].c[c].rows);
				cJSON_AddNumberToObject(e, "tls13", (double)p[i].c[c].tls13);
				cJSON_AddNumberToObject(e, "resumed", (double)p[i].c[c].res_yes);
				cJSON_AddNumberToObject(e, "resumed_known", (double)p[i].c[c].res_known);
				cJSON_AddItemToArray(t, e);
			}
		free(p);
	}
	cJSON *sk = cJSON_AddObjectToObject(j, "skipped");
	cJSON_AddNumberToObject(sk, "total", (double)pq_zeek_report_skipped(a));
	for (int b = 1; b < PQ_ZB_COUNT; b++)
		if (a->bad[b])
			cJSON_AddNumberToObject(sk, pq_zeek_bad_name(b), (double)a->bad[b]);
	cJSON *ex = cJSON_AddArrayToObject(sk, "first");
	for (int i = 0; i < a->nsamples; i++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "file", a->samples[i].file);
		cJSON_AddNumberToObject(e, "line", (double)a->samples[i].line);
		cJSON_AddStringToObject(e, "reason", pq_zeek_bad_name(a->samples[i].why));
		cJSON_AddStringToObject(e, "detail", a->samples[i].detail);
		cJSON_AddItemToArray(ex, e);
	}
	pq_zeek_study st[PQ_ZEEK_STUDY_MAX];
	cJSON *study = pq_zeek_study_json(st, pq_zeek_study_table3(a, st, PQ_ZEEK_STUDY_MAX));
	if (study)
		cJSON_AddItemToObject(j, "study", study);
	return j;
}

/* ---- CSV: one long table, the whole period first, then the trend ---- */
void pq_zeek_report_csv(FILE *f, const pq_zeek_agg *a, const pq_zeek_report_opts *o)
{
	fprintf(f, "period,category,metric,k,n,rate,ci95_lo,ci95_hi\n");
	for (int col = 0; col < NCOL; col++) {
		pq_zeek_cnt c;
		pq_zeek_cnt_of(a, col, &c);
		for (int m = 0; m < PQ_ZMT_N; m++) {
			uint64_t k, n;
			double lo, hi;
			pq_zeek_metric_kn(&c, (enum pq_zeek_metric)m, &k, &n);
			pq_zeek_wilson95(k, n, &lo, &hi);
			if (n)
				fprintf(f, "all,%s,%s,%" PRIu64 ",%" PRIu64 ",%.6f,%.6f,%.6f\n", col_name(col), pq_zeek_metric_name[m],
					k, n, (double)k / (double)n, lo, hi);
			else
				fprintf(f, "all,%s,%s,0,0,,,\n", col_name(col), pq_zeek_metric_name[m]);
		}
	}
	if (o->by == PQ_ZBY_NONE)
		return;
	size_t n = 0;
	period *p = trend(a, o->by, &n);
	for (size_t i = 0; p && i < n; i++)
		for (int c = 0; c < PQ_ZCAT_N; c++) {
			const pq_zeek_day *d = &p[i].c[c];
			if (!d->rows)
				continue;
			double lo, hi;
			pq_zeek_wilson95(d->tls13, d->rows, &lo, &hi);
			fprintf(f, "%s,%s,tls13_adoption,%" PRIu64 ",%" PRIu64 ",%.6f,%.6f,%.6f\n", p[i].name,
				pq_zeek_cat_name(c), d->tls13, d->rows, (double)d->tls13 / (double)d->rows, lo, hi);
			pq_zeek_wilson95(d->res_yes, d->res_known, &lo, &hi);
			if (d->res_known)
				fprintf(f, "%s,%s,resumption_all,%" PRIu64 ",%" PRIu64 ",%.6f,%.6f,%.6f\n", p[i].name,
					pq_zeek_cat_name(c), d->res_yes, d->res_known,
					(double)d->res_yes / (double)d->res_known, lo, hi);
		}
	free(p);
}
