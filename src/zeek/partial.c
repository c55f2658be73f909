#include "zeek/partial.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/wfile.h"
#include "zeek/input.h"

#define FORMAT 1

static cJSON *u64s(const uint64_t *v, int n)
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; a && i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]));
	return a;
}

static cJSON *build(const pq_zeek_agg *a, const char *classification)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "pqtls_zeek_partial", FORMAT);
	cJSON_AddStringToObject(j, "classification", classification ? classification : "");
	uint64_t tot[5] = {a->rows, a->no_ts, a->files, a->bytes, a->header_blocks};
	cJSON_AddItemToObject(j, "totals", u64s(tot, 5));
	/* apart from "totals": partials written before it existed stay readable (absent = 0) */
	cJSON_AddNumberToObject(j, "rows_ts_implausible", (double)a->ts_implausible);
	cJSON_AddItemToObject(j, "bad", u64s(a->bad, PQ_ZB_COUNT));
	cJSON *cats = cJSON_AddArrayToObject(j, "categories");
	for (int c = 0; c < PQ_ZCAT_N; c++)
		cJSON_AddItemToArray(cats, u64s((const uint64_t *)&a->cat[c], sizeof(pq_zeek_cnt) / 8));
	cJSON *srv = cJSON_AddArrayToObject(j, "servers");
	size_t it = 0, kl;
	const void *k;
	const pq_zeek_server *s;
	while ((s = pq_zeek_map_next(&a->servers, &it, &k, &kl))) {
		char ip[64];
		pq_zeek_addr_format(k, ip, sizeof ip);
		cJSON *e = cJSON_CreateArray();
		cJSON_AddItemToArray(e, cJSON_CreateString(ip));
		uint64_t v[5] = {s->cls.cat, s->cls.method, s->cls.asn, s->rows, s->res_yes};
		for (int i = 0; i < 5; i++)
			cJSON_AddItemToArray(e, cJSON_CreateNumber((double)v[i]));
		cJSON_AddItemToArray(srv, e);
	}
	/* "inputs" (the logs counted, by size, mtime and real path) lets a merge refuse the
	 * same log counted twice; partials without it are read as before. */
	const pq_zeek_map *maps[3] = {&a->names, &a->groups, &a->inputs};
	const char *mnames[3] = {"server_names", "groups", "inputs"};
	for (int m = 0; m < 3; m++) {
		cJSON *arr = cJSON_AddArrayToObject(j, mnames[m]);
		const uint64_t *c;
		it = 0;
		while ((c = pq_zeek_map_next(maps[m], &it, &k, &kl))) {
			char *str = strndup(k, kl);
			cJSON *e = cJSON_CreateArray();
			cJSON_AddItemToArray(e, cJSON_CreateString(str ? str : ""));
			cJSON_AddItemToArray(e, cJSON_CreateNumber((double)*c));
			cJSON_AddItemToArray(arr, e);
			free(str);
		}
	}
	cJSON *days = cJSON_AddArrayToObject(j, "days");
	const pq_zeek_day *dd;
	it = 0;
	while ((dd = pq_zeek_map_next(&a->days, &it, &k, &kl))) {
		int64_t day;
		memcpy(&day, k, sizeof day);
		cJSON *e = cJSON_CreateArray();
		cJSON_AddItemToArray(e, cJSON_CreateNumber((double)day));
		cJSON_AddItemToArray(e, u64s((const uint64_t *)dd, (int)(PQ_ZCAT_N * sizeof *dd / 8)));
		cJSON_AddItemToArray(days, e);
	}
	cJSON *smp = cJSON_AddArrayToObject(j, "skipped_first");
	for (int i = 0; i < a->nsamples; i++) {
		cJSON *e = cJSON_CreateArray();
		cJSON_AddItemToArray(e, cJSON_CreateString(a->samples[i].file));
		cJSON_AddItemToArray(e, cJSON_CreateNumber((double)a->samples[i].line));
		cJSON_AddItemToArray(e, cJSON_CreateNumber(a->samples[i].why));
		cJSON_AddItemToArray(e, cJSON_CreateString(a->samples[i].detail));
		cJSON_AddItemToArray(smp, e);
	}
	return j;
}

int pq_zeek_partial_write(const pq_zeek_agg *a, const char *classification, const char *path, pq_diag *d)
{
	cJSON *j = build(a, classification);
	char *txt = j ? cJSON_PrintUnformatted(j) : NULL;
	cJSON_Delete(j);
	if (!txt)
		return pq_diag_set(d, PQ_ENOMEM, "%s: out of memory writing the counts", path);
	pq_wfile w;
	int rc = pq_wfile_open(&w, path, NULL, d);
	if (rc == 0) {
		fputs(txt, w.f);
		fputc('\n', w.f);
		rc = pq_wfile_close(&w, d);
	}
	free(txt);
	return rc;
}

/* ---- reading ---- */
typedef struct rd {
	const char *path;
	pq_diag *d;
	int rc;
} rd;

static int shape(rd *r, const char *what)
{
	if (!r->rc)
		r->rc = pq_diag_set(r->d, PQ_EPARSE, "%s: %s is missing or malformed (not partial counts written by pqtls zeek?)",
				    r->path, what);
	return r->rc;
}

static int num(rd *r, const cJSON *v, uint64_t *out, const char *what)
{
	if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 9007199254740992.0 ||
	    v->valuedouble != floor(v->valuedouble))
		return shape(r, what);
	*out = (uint64_t)v->valuedouble;
	return 0;
}

static int u64arr(rd *r, const cJSON *a, uint64_t *out, int n, const char *what)
{
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n)
		return shape(r, what);
	for (int i = 0; i < n; i++)
		if (num(r, cJSON_GetArrayItem(a, i), &out[i], what))
			return r->rc;
	return 0;
}

static int read_servers(rd *r, const cJSON *arr, pq_zeek_agg *a)
{
	const cJSON *e;
	if (!cJSON_IsArray(arr))
		return shape(r, "\"servers\"");
	cJSON_ArrayForEach(e, arr)
	{
		const cJSON *ip = cJSON_GetArrayItem(e, 0);
		pq_zeek_addr addr;
		uint64_t v[5];
		if (cJSON_GetArraySize(e) != 6 || !cJSON_IsString(ip) ||
		    pq_zeek_addr_parse(ip->valuestring, strlen(ip->valuestring), &addr))
			return shape(r, "a server entry");
		for (int i = 0; i < 5; i++)
			if (num(r, cJSON_GetArrayItem(e, i + 1), &v[i], "a server entry"))
				return r->rc;
		if (v[0] >= PQ_ZCAT_N || v[1] >= PQ_ZM_N || v[2] > UINT32_MAX)
			return shape(r, "a server entry's category, method or ASN");
		int fresh;
		pq_zeek_server *s = pq_zeek_map_get(&a->servers, &addr, sizeof addr, &fresh);
		if (!s)
			return r->rc = PQ_ENOMEM;
		if (fresh)
			s->cls = (pq_zeek_class){(uint8_t)v[0], (uint8_t)v[1], (uint32_t)v[2], -1};
		s->rows += v[3];
		s->res_yes += v[4];
	}
	return 0;
}

static int read_counts(rd *r, const cJSON *arr, pq_zeek_map *m, const char *what)
{
	const cJSON *e;
	if (!cJSON_IsArray(arr))
		return shape(r, what);
	cJSON_ArrayForEach(e, arr)
	{
		const cJSON *k = cJSON_GetArrayItem(e, 0);
		uint64_t n = 0;
		if (cJSON_GetArraySize(e) != 2 || !cJSON_IsString(k) || num(r, cJSON_GetArrayItem(e, 1), &n, what))
			return shape(r, what);
		uint64_t *v = pq_zeek_map_get(m, k->valuestring, strlen(k->valuestring), NULL);
		if (!v)
			return r->rc = PQ_ENOMEM;
		*v += n;
	}
	return 0;
}

/* A log this partial counts that an earlier one counted too: the same partial under two
 * names (a copy), or one log summarized twice; merging would count it twice. */
static int counted_before(rd *r, const pq_zeek_agg *into, const pq_zeek_agg *part)
{
	size_t it = 0, kl;
	const void *k;
	while (pq_zeek_map_next(&part->inputs, &it, &k, &kl)) {
		if (!pq_zeek_map_find(&into->inputs, k, kl))
			continue;
		const char *p = memchr(k, ' ', kl);
		p = p ? memchr(p + 1, ' ', kl - (size_t)(p + 1 - (const char *)k)) : NULL;
		size_t skip = p ? (size_t)(p + 1 - (const char *)k) : 0;
		return r->rc = pq_diag_set(r->d, PQ_EINVAL,
					   "%s: counts %.*s, which an earlier partial file counted already (the same "
					   "partial under two names, or one log summarized twice); give each once",
					   r->path, (int)(kl - skip), (const char *)k + skip);
	}
	return 0;
}

static int read_days(rd *r, const cJSON *arr, pq_zeek_agg *a)
{
	const cJSON *e;
	if (!cJSON_IsArray(arr))
		return shape(r, "\"days\"");
	cJSON_ArrayForEach(e, arr)
	{
		const cJSON *k = cJSON_GetArrayItem(e, 0);
		uint64_t v[PQ_ZCAT_N * 4];
		if (cJSON_GetArraySize(e) != 2 || !cJSON_IsNumber(k) || fabs(k->valuedouble) > 1e9 ||
		    u64arr(r, cJSON_GetArrayItem(e, 1), v, PQ_ZCAT_N * 4, "a day entry"))
			return shape(r, "a day entry");
		int64_t day = (int64_t)k->valuedouble;
		if (!pq_zeek_ts_plausible(day * 86400))
			return shape(r, "a day entry (a day outside 1995-2099)");
		uint64_t *t = pq_zeek_map_get(&a->days, &day, sizeof day, NULL);
		if (!t)
			return r->rc = PQ_ENOMEM;
		for (int i = 0; i < PQ_ZCAT_N * 4; i++)
			t[i] += v[i];
	}
	return 0;
}

static int read_samples(rd *r, const cJSON *arr, pq_zeek_agg *a)
{
	const cJSON *e;
	if (!cJSON_IsArray(arr))
		return shape(r, "\"skipped_first\"");
	pq_zeek_agg tmp;
	pq_zeek_agg_init(&tmp, NULL);
	cJSON_ArrayForEach(e, arr)
	{
		const cJSON *f = cJSON_GetArrayItem(e, 0), *det = cJSON_GetArrayItem(e, 3);
		uint64_t line = 0, why = 0;
		if (cJSON_GetArraySize(e) != 4 || !cJSON_IsString(f) || !cJSON_IsString(det) ||
		    num(r, cJSON_GetArrayItem(e, 1), &line, "a skipped line") ||
		    num(r, cJSON_GetArrayItem(e, 2), &why, "a skipped line") || why == 0 || why >= PQ_ZB_COUNT)
			break;
		pq_zeek_agg_bad(&tmp, f->valuestring, 0, line, (int)why, det->valuestring);
	}
	if (!r->rc && e)
		shape(r, "a skipped line");
	/* Only the samples move over; the counts by reason come from "bad". */
	memset(tmp.bad, 0, sizeof tmp.bad);
	if (!r->rc && pq_zeek_agg_merge(a, &tmp))
		r->rc = PQ_ENOMEM;
	pq_zeek_agg_dispose(&tmp);
	return r->rc;
}

int pq_zeek_partial_read(pq_zeek_agg *a, const char *path, char **classification, pq_diag *d)
{
	char *text = NULL;
	size_t len = 0;
	rd r = {path, d, 0};
	int rc = pq_zeek_slurp(path, (size_t)4 << 30, &text, &len, d);
	if (rc)
		return rc;
	cJSON *j = cJSON_ParseWithLength(text, len);
	free(text);
	const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(j, "pqtls_zeek_partial");
	if (!cJSON_IsNumber(fmt) || fmt->valueint != FORMAT) {
		rc = pq_diag_set(d, PQ_EPARSE, "%s: not partial counts written by pqtls zeek (format %d expected)", path, FORMAT);
		goto out;
	}
	/* Into a fresh aggregate first, so that a bad file adds nothing. */
	pq_zeek_agg part;
	pq_zeek_agg_init(&part, NULL);
	uint64_t tot[5];
	if (!u64arr(&r, cJSON_GetObjectItemCaseSensitive(j, "totals"), tot, 5, "\"totals\"") &&
	    !u64arr(&r, cJSON_GetObjectItemCaseSensitive(j, "bad"), part.bad, PQ_ZB_COUNT, "\"bad\"")) {
		const cJSON *cats = cJSON_GetObjectItemCaseSensitive(j, "categories");
		if (!cJSON_IsArray(cats) || cJSON_GetArraySize(cats) != PQ_ZCAT_N)
			shape(&r, "\"categories\"");
		for (int c = 0; c < PQ_ZCAT_N && !r.rc; c++)
			u64arr(&r, cJSON_GetArrayItem(cats, c), (uint64_t *)&part.cat[c], sizeof(pq_zeek_cnt) / 8,
			       "\"categories\"");
	}
	if (!r.rc && !read_servers(&r, cJSON_GetObjectItemCaseSensitive(j, "servers"), &part) &&
	    !read_counts(&r, cJSON_GetObjectItemCaseSensitive(j, "server_names"), &part.names, "\"server_names\"") &&
	    !read_counts(&r, cJSON_GetObjectItemCaseSensitive(j, "groups"), &part.groups, "\"groups\"") &&
	    !read_days(&r, cJSON_GetObjectItemCaseSensitive(j, "days"), &part) &&
	    (!cJSON_HasObjectItem(j, "inputs") ||
	     !read_counts(&r, cJSON_GetObjectItemCaseSensitive(j, "inputs"), &part.inputs, "\"inputs\"")) &&
	    !counted_before(&r, a, &part))
		read_samples(&r, cJSON_GetObjectItemCaseSensitive(j, "skipped_first"), &part);
	if (!r.rc) {
		part.rows = tot[0];
		part.no_ts = tot[1];
		part.files = tot[2];
		part.bytes = tot[3];
		part.header_blocks = tot[4];
		const cJSON *imp = cJSON_GetObjectItemCaseSensitive(j, "rows_ts_implausible");
		if (imp)
			num(&r, imp, &part.ts_implausible, "\"rows_ts_implausible\"");
		if (!r.rc && pq_zeek_agg_merge(a, &part))
			r.rc = pq_diag_set(d, PQ_ENOMEM, "%s: out of memory", path);
	}
	const cJSON *cl = cJSON_GetObjectItemCaseSensitive(j, "classification");
	if (!r.rc && classification && cJSON_IsString(cl))
		*classification = strdup(cl->valuestring);
	pq_zeek_agg_dispose(&part);
	rc = r.rc;
out:
	cJSON_Delete(j);
	return rc;
}
