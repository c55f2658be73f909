#include "zeek/json.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int bad(pq_zeek_rec *r, int why, const char *detail)
{
	r->bad = why;
	snprintf(r->bad_detail, sizeof r->bad_detail, "%s", detail);
	return PQ_EPARSE;
}

/* A string member copied to *dst (inside the line, which is at least as long as every
 * string it encodes); absent or null is unset. */
static int text(const cJSON *o, const char *key, char **dst, const char **out, size_t *olen, pq_zeek_rec *r)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v))
		return bad(r, PQ_ZB_VALUE, key);
	size_t n = strlen(v->valuestring);
	if (!n)
		return 0;
	memcpy(*dst, v->valuestring, n);
	*out = *dst;
	*olen = n;
	*dst += n;
	return 0;
}

static int tribool(const cJSON *o, const char *key, int *out, pq_zeek_rec *r)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsBool(v))
		return bad(r, PQ_ZB_VALUE, key);
	*out = cJSON_IsTrue(v) ? 1 : 0;
	return 0;
}

/* The certificate ids, joined by ',' into *dst (Zeek's ids hold no comma). */
static void chain(const cJSON *o, char **dst, pq_zeek_rec *r)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "cert_chain_fps"), *e;
	if (!cJSON_IsArray(a))
		a = cJSON_GetObjectItemCaseSensitive(o, "cert_chain_fuids");
	if (!cJSON_IsArray(a) || !cJSON_GetArraySize(a))
		return;
	char *start = *dst;
	cJSON_ArrayForEach(e, a)
	{
		if (!cJSON_IsString(e))
			continue;
		size_t n = strlen(e->valuestring);
		if (*dst > start)
			*(*dst)++ = ',';
		memcpy(*dst, e->valuestring, n);
		*dst += n;
	}
	if (*dst > start) {
		r->chain = start;
		r->chain_len = (size_t)(*dst - start);
		r->chain_sep = ',';
	}
}

static void timestamp(const cJSON *o, pq_zeek_rec *r)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "ts");
	if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && fabs(v->valuedouble) < 1e15) {
		r->ts = (int64_t)floor(v->valuedouble);
		r->has_ts = 1;
	} else if (cJSON_IsString(v)) {
		r->has_ts = !pq_zeek_time_parse(v->valuestring, strlen(v->valuestring), &r->ts);
	}
}

int pq_zeek_json_row(char *line, size_t len, pq_zeek_rec *r)
{
	pq_zeek_rec_clear(r);
	cJSON *o = cJSON_ParseWithLength(line, len);
	int rc = 0;
	if (!o || !cJSON_IsObject(o)) {
		rc = bad(r, PQ_ZB_JSON, o ? "not an object" : "syntax error");
		goto out;
	}
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "id.resp_h");
	if (!cJSON_IsString(a) || pq_zeek_addr_parse(a->valuestring, strlen(a->valuestring), &r->resp)) {
		rc = bad(r, PQ_ZB_ADDR, "id.resp_h");
		goto out;
	}
	timestamp(o, r);
	/* Decoded strings are copied to the start of the line: cJSON holds its own copy. */
	char *dst = line;
	const char *v = NULL;
	size_t vn = 0;
	if (text(o, "version", &dst, &v, &vn, r) ||
	    text(o, "server_name", &dst, &r->server_name, &r->server_name_len, r) ||
	    text(o, "curve", &dst, &r->curve, &r->curve_len, r) || tribool(o, "resumed", &r->resumed, r) ||
	    tribool(o, "established", &r->established, r)) {
		rc = PQ_EPARSE;
		goto out;
	}
	r->version = v ? pq_zeek_version(v, vn) : PQ_ZV_UNSET;
	chain(o, &dst, r);
out:
	cJSON_Delete(o);
	return rc;
}
