/* ASNs: a MaxMind DB checked whole at open, and the CDN and cloud ASN lists. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "zeek/classify.h"
#include "zeek/input.h"
#include "zeek/map.h"

/* Every record the search tree points at decodes, and every node is readable: what a
 * lookup could touch, checked once. Data records are checked once each (by offset). */
static int verify_tree(MMDB_s *db, const char *path, pq_diag *d)
{
	pq_zeek_map seen;
	pq_zeek_map_init(&seen, 1);
	int rc = 0;
	uint32_t nodes = db->metadata.node_count;
	for (uint32_t i = 0; i < nodes && !rc; i++) {
		MMDB_search_node_s n;
		int e = MMDB_read_node(db, i, &n);
		if (e != MMDB_SUCCESS) {
			rc = pq_diag_set(d, PQ_EPARSE, "%s: search tree node %u: %s", path, i, MMDB_strerror(e));
			break;
		}
		const uint8_t types[2] = {n.left_record_type, n.right_record_type};
		MMDB_entry_s ents[2] = {n.left_record_entry, n.right_record_entry};
		for (int s = 0; s < 2 && !rc; s++) {
			if (types[s] == MMDB_RECORD_TYPE_INVALID) {
				rc = pq_diag_set(d, PQ_EPARSE, "%s: search tree node %u points outside the file", path, i);
			} else if (types[s] == MMDB_RECORD_TYPE_DATA) {
				int fresh = 0;
				if (!pq_zeek_map_get(&seen, &ents[s].offset, sizeof ents[s].offset, &fresh)) {
					rc = PQ_ENOMEM;
					break;
				}
				if (!fresh)
					continue;
				MMDB_entry_data_list_s *list = NULL;
				e = MMDB_get_entry_data_list(&ents[s], &list);
				MMDB_free_entry_data_list(list);
				if (e != MMDB_SUCCESS)
					rc = pq_diag_set(d, PQ_EPARSE, "%s: data record at offset %u: %s", path,
							 ents[s].offset, MMDB_strerror(e));
			}
		}
	}
	pq_zeek_map_dispose(&seen);
	return rc;
}

int pq_zeek_asn_open(pq_zeek_classifier *c, const char *path, pq_diag *d)
{
	MMDB_s db;
	int e = MMDB_open(path, MMDB_MODE_MMAP, &db);
	if (e != MMDB_SUCCESS) {
		int sys = e == MMDB_IO_ERROR || e == MMDB_FILE_OPEN_ERROR;
		const char *why = sys && errno ? strerror(errno) : MMDB_strerror(e);
		return pq_diag_set(d, sys ? PQ_EIO : PQ_EPARSE,
				   "%s: not a readable MaxMind DB: %s (expected GeoLite2-ASN or a compatible .mmdb)",
				   path, why);
	}
	/* Checked whole first, so a corrupt file is called corrupt whatever its type. */
	int rc = verify_tree(&db, path, d);
	if (rc)
		goto out;
	const char *type = db.metadata.database_type ? db.metadata.database_type : "";
	if (!strstr(type, "ASN") && !strstr(type, "ISP")) {
		rc = pq_diag_set(d, PQ_EINVAL, "%s: a '%s' database has no ASNs (expected GeoLite2-ASN, GeoIP2-ISP "
				 "or another with autonomous_system_number)", path, type);
		goto out;
	}
	c->mmdb = db;
	c->have_mmdb = 1;
out:
	if (rc)
		MMDB_close(&db);
	return rc;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Parses "AS13335, 54113 ..." (separators: space, comma, newline; '#' to end of line). */
static int parse_list(const char *s, size_t len, const char *name, pq_zeek_asnset *out, pq_diag *d)
{
	pq_zeek_asnset set = {0};
	size_t cap = 0;
	int rc = 0;
	for (size_t i = 0; i < len;) {
		if (s[i] == '#') {
			while (i < len && s[i] != '\n')
				i++;
			continue;
		}
		if (isspace((unsigned char)s[i]) || s[i] == ',') {
			i++;
			continue;
		}
		size_t st = i;
		if (i + 2 <= len && (s[i] == 'A' || s[i] == 'a') && (s[i + 1] == 'S' || s[i + 1] == 's'))
			i += 2;
		uint64_t v = 0;
		size_t dg = i;
		while (i < len && isdigit((unsigned char)s[i]) && v <= UINT32_MAX)
			v = v * 10 + (uint64_t)(s[i++] - '0');
		if (i == dg || v == 0 || v > UINT32_MAX || (i < len && !isspace((unsigned char)s[i]) && s[i] != ',' && s[i] != '#')) {
			while (i < len && !isspace((unsigned char)s[i]) && s[i] != ',')
				i++;
			rc = pq_diag_set(d, PQ_EINVAL, "%s: '%.*s' is not an AS number (e.g. 13335 or AS13335)", name,
					 (int)(i - st > 40 ? 40 : i - st), s + st);
			goto out;
		}
		if (set.n == cap) {
			cap = cap ? cap * 2 : 64;
			uint32_t *nv = realloc(set.v, cap * sizeof *nv);
			if (!nv) {
				rc = PQ_ENOMEM;
				goto out;
			}
			set.v = nv;
		}
		set.v[set.n++] = (uint32_t)v;
	}
	if (!set.n) {
		rc = pq_diag_set(d, PQ_EINVAL, "%s: no AS numbers in it", name);
		goto out;
	}
	qsort(set.v, set.n, sizeof *set.v, cmp_u32);
	*out = set;
	set.v = NULL;
out:
	free(set.v);
	return rc;
}

int pq_zeek_asns_set(pq_zeek_classifier *c, int cat, const char *spec, const char *name, pq_diag *d)
{
	pq_zeek_asnset *dst = cat == PQ_ZCAT_CDN ? &c->cdn : &c->cloud, set = {0};
	int rc;
	if (spec[0] == '@') {
		char *text = NULL;
		size_t len = 0;
		rc = pq_zeek_slurp(spec + 1, (size_t)64 << 20, &text, &len, d);
		if (!rc)
			rc = parse_list(text, len, spec + 1, &set, d);
		free(text);
	} else {
		rc = parse_list(spec, strlen(spec), name, &set, d);
	}
	if (rc)
		return rc;
	free(dst->v);
	*dst = set;
	return 0;
}

/* Sources: docs/zeek.md, "Built-in ASN lists". */
static const char default_cdn[] =
	"13335 54113 15133 22822 60068 "                       /* Cloudflare Fastly Edgecast Limelight CDN77 */
	"60626 197068 200449 51115 208006 205585 30148 "       /* cdncheck provider.yaml cdn/waf asn */
	"12222 16625 16702 17204 18680 18717 20189 20940 21342 21357 21399 22207 22452 23454 "
	"23455 23903 24319 26008 30675 31107 31108 31109 31110 31377 33047 33905 34164 34850 "
	"35204 35993 35994 36183 39836 43639 55409 55770 63949 133103 393560"; /* Akamai, same file */
static const char default_cloud[] =
	"14618 16509 8075 15169 45102 14061 16276 24940 20473 36351 " /* brianhama bad-asn-list */
	"396982 31898 132203 45090";                                 /* X4BNet datacenter ASN list */

int pq_zeek_asns_default(pq_zeek_classifier *c)
{
	int rc = pq_zeek_asns_set(c, PQ_ZCAT_CDN, default_cdn, "built-in CDN ASNs", NULL);
	return rc ? rc : pq_zeek_asns_set(c, PQ_ZCAT_CLOUD, default_cloud, "built-in cloud ASNs", NULL);
}
