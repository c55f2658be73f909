/* Address ranges of CDNs and clouds into the classifier's longest-prefix trie. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "zeek/classify.h"
#include "zeek/input.h"

/* The provider index for (cat, name), added when new. */
static int provider(pq_zeek_classifier *c, int cat, const char *name, size_t nlen, int32_t *idx)
{
	for (size_t i = 0; i < c->nprov; i++) {
		if (c->prov_cat[i] == cat && strlen(c->prov_name[i]) == nlen &&
		    !memcmp(c->prov_name[i], name, nlen)) {
			*idx = (int32_t)i;
			return 0;
		}
	}
	char **nn = realloc(c->prov_name, (c->nprov + 1) * sizeof *nn);
	if (!nn)
		return PQ_ENOMEM;
	c->prov_name = nn;
	uint8_t *nc = realloc(c->prov_cat, c->nprov + 1);
	if (!nc)
		return PQ_ENOMEM;
	c->prov_cat = nc;
	char *s = strndup(name, nlen);
	if (!s)
		return PQ_ENOMEM;
	c->prov_name[c->nprov] = s;
	c->prov_cat[c->nprov] = (uint8_t)cat;
	*idx = (int32_t)c->nprov++;
	return 0;
}

static int add(pq_zeek_classifier *c, const char *cidr, size_t len, int cat, const char *name, size_t nlen,
	       const char *where, pq_diag *d)
{
	pq_zeek_addr a;
	unsigned plen;
	int32_t p;
	if (pq_zeek_cidr_parse(cidr, len, &a, &plen))
		return pq_diag_set(d, PQ_EINVAL, "%s: '%.*s' is not a CIDR prefix (e.g. 192.0.2.0/24 or 2001:db8::/32)",
				   where, (int)(len > 60 ? 60 : len), cidr);
	int rc = provider(c, cat, name, nlen, &p);
	if (!rc)
		rc = pq_zeek_lpm_insert(&c->lpm, &a, plen, p);
	return rc ? pq_diag_set(d, rc, "%s: %s", where, pq_strerror(rc)) : 0;
}

static int load_json(pq_zeek_classifier *c, const char *path, const char *text, size_t len, pq_diag *d)
{
	static const struct {
		const char *key;
		int cat;
	} groups[] = {{"cdn", PQ_ZCAT_CDN}, {"waf", PQ_ZCAT_CDN}, {"cloud", PQ_ZCAT_CLOUD}};
	cJSON *o = cJSON_ParseWithLength(text, len);
	int rc = 0, any = 0;
	if (!cJSON_IsObject(o)) {
		rc = pq_diag_set(d, PQ_EPARSE, "%s: not a JSON object (expected cdncheck's sources_data.json shape: "
				 "{\"cdn\":{NAME:[CIDR,...]},\"cloud\":{...}})", path);
		goto out;
	}
	for (size_t g = 0; g < sizeof groups / sizeof groups[0] && !rc; g++) {
		const cJSON *grp = cJSON_GetObjectItemCaseSensitive(o, groups[g].key), *prov;
		cJSON_ArrayForEach(prov, grp)
		{
			const cJSON *cidr;
			if (!cJSON_IsArray(prov)) {
				rc = pq_diag_set(d, PQ_EPARSE, "%s: \"%s\".\"%s\" is not an array of CIDR strings", path,
						 groups[g].key, prov->string ? prov->string : "?");
				goto out;
			}
			cJSON_ArrayForEach(cidr, prov)
			{
				char where[512];
				snprintf(where, sizeof where, "%s: \"%s\".\"%s\"", path, groups[g].key, prov->string);
				if (!cJSON_IsString(cidr)) {
					rc = pq_diag_set(d, PQ_EPARSE, "%s holds a non-string", where);
					goto out;
				}
				rc = add(c, cidr->valuestring, strlen(cidr->valuestring), groups[g].cat, prov->string,
					 strlen(prov->string), where, d);
				if (rc)
					goto out;
				any = 1;
			}
		}
	}
	if (!any)
		rc = pq_diag_set(d, PQ_EPARSE, "%s: no \"cdn\", \"waf\" or \"cloud\" ranges in it", path);
out:
	cJSON_Delete(o);
	return rc;
}

static size_t word(const char *s, size_t i, size_t end, size_t *start)
{
	while (i < end && isspace((unsigned char)s[i]))
		i++;
	*start = i;
	while (i < end && !isspace((unsigned char)s[i]))
		i++;
	return i;
}

static int load_lines(pq_zeek_classifier *c, const char *path, const char *text, size_t len, int def_cat,
		      pq_diag *d)
{
	size_t lineno = 0, any = 0;
	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;
		const char *hash = memchr(text + pos, '#', end - pos);
		size_t stop = hash ? (size_t)(hash - text) : end;
		lineno++;
		size_t s0, s1, s2, e0 = word(text, pos, stop, &s0), e1 = word(text, e0, stop, &s1);
		size_t e2 = word(text, e1, stop, &s2);
		char where[300];
		snprintf(where, sizeof where, "%s:%zu", path, lineno);
		if (e0 > s0) {
			int cat = def_cat;
			if (e1 - s1 == 3 && !strncasecmp(text + s1, "cdn", 3))
				cat = PQ_ZCAT_CDN;
			else if (e1 - s1 == 5 && !strncasecmp(text + s1, "cloud", 5))
				cat = PQ_ZCAT_CLOUD;
			else if (e1 > s1)
				return pq_diag_set(d, PQ_EINVAL, "%s: category '%.*s' is neither cdn nor cloud", where,
						   (int)(e1 - s1 > 40 ? 40 : e1 - s1), text + s1);
			if (cat == PQ_ZCAT_N)
				return pq_diag_set(d, PQ_EINVAL, "%s: no category (write 'CIDR cdn|cloud [NAME]', "
						   "or give the file as cdn:FILE or cloud:FILE)", where);
			int rc = add(c, text + s0, e0 - s0, cat, e2 > s2 ? text + s2 : "-", e2 > s2 ? e2 - s2 : 1,
				     where, d);
			if (rc)
				return rc;
			any++;
		}
		pos = end + 1;
	}
	if (!any)
		return pq_diag_set(d, PQ_EPARSE, "%s: no CIDR prefixes in it", path);
	return 0;
}

int pq_zeek_ranges_load(pq_zeek_classifier *c, const char *path, int def_cat, pq_diag *d)
{
	char *text = NULL;
	size_t len = 0;
	int rc = pq_zeek_slurp(path, (size_t)1 << 30, &text, &len, d);
	if (rc)
		return rc;
	size_t i = 0;
	while (i < len && isspace((unsigned char)text[i]))
		i++;
	rc = i < len && text[i] == '{' ? load_json(c, path, text, len, d)
				       : load_lines(c, path, text, len, def_cat, d);
	if (!rc)
		c->have_ranges = 1;
	free(text);
	return rc;
}
