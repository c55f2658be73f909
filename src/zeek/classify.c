#include "zeek/classify.h"

#include <stdlib.h>
#include <string.h>

int pq_zeek_classifier_init(pq_zeek_classifier *c)
{
	memset(c, 0, sizeof *c);
	return pq_zeek_lpm_init(&c->lpm);
}

void pq_zeek_classifier_dispose(pq_zeek_classifier *c)
{
	pq_zeek_lpm_dispose(&c->lpm);
	for (size_t i = 0; i < c->nprov; i++)
		free(c->prov_name[i]);
	free(c->prov_name);
	free(c->prov_cat);
	if (c->have_mmdb)
		MMDB_close(&c->mmdb);
	free(c->cdn.v);
	free(c->cloud.v);
	memset(c, 0, sizeof *c);
}

const char *pq_zeek_cat_name(int cat)
{
	static const char *const n[] = {"CDN", "Cloud", "Other", "Unknown"};
	return cat >= 0 && cat < PQ_ZCAT_N ? n[cat] : "?";
}

const char *pq_zeek_method_name(int m)
{
	static const char *const n[] = {"ranges", "asn", "none"};
	return m >= 0 && m < PQ_ZM_N ? n[m] : "?";
}

static int in4(const pq_zeek_addr *a, uint8_t b0, uint8_t b1, unsigned plen)
{
	uint32_t x = (uint32_t)a->b[0] << 24 | (uint32_t)a->b[1] << 16;
	uint32_t p = (uint32_t)b0 << 24 | (uint32_t)b1 << 16;
	uint32_t mask = plen ? ~0u << (32 - plen) : 0;
	return (x & mask) == (p & mask);
}

int pq_zeek_addr_special(const pq_zeek_addr *a)
{
	if (a->fam == 4) {
		return in4(a, 0, 0, 8) || in4(a, 10, 0, 8) || in4(a, 100, 64, 10) || in4(a, 127, 0, 8) ||
		       in4(a, 169, 254, 16) || in4(a, 172, 16, 12) || in4(a, 192, 168, 16) ||
		       in4(a, 198, 18, 15) || in4(a, 224, 0, 3);
	}
	static const uint8_t zero[16], v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	if (!memcmp(a->b, zero, 15) || !memcmp(a->b, v4mapped, 12))
		return 1; /* ::, ::1, and IPv4-mapped (which an IPv4 list should answer) */
	return (a->b[0] & 0xfe) == 0xfc ||                  /* fc00::/7 unique local */
	       (a->b[0] == 0xfe && (a->b[1] & 0xc0) == 0x80) || /* fe80::/10 link local */
	       a->b[0] == 0xff ||                            /* multicast */
	       (a->b[0] == 0x20 && a->b[1] == 0x01 && a->b[2] == 0x0d && a->b[3] == 0xb8); /* doc */
}

static int asn_in(const pq_zeek_asnset *s, uint32_t asn)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->v[mid] == asn)
			return 1;
		if (s->v[mid] < asn)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* The ASN of a, or 0 when the DB has no record or no number for it. */
static uint32_t lookup_asn(const pq_zeek_classifier *c, const pq_zeek_addr *a)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	if (a->fam == 4) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, a->b, 4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
		s6->sin6_family = AF_INET6;
		memcpy(&s6->sin6_addr, a->b, 16);
	}
	int mmdb_err = 0;
	MMDB_lookup_result_s r = MMDB_lookup_sockaddr((MMDB_s *)&c->mmdb, (struct sockaddr *)&ss, &mmdb_err);
	if (mmdb_err != MMDB_SUCCESS || !r.found_entry)
		return 0;
	MMDB_entry_data_s v;
	if (MMDB_get_value(&r.entry, &v, "autonomous_system_number", NULL) != MMDB_SUCCESS || !v.has_data)
		return 0;
	if (v.type == MMDB_DATA_TYPE_UINT32)
		return v.uint32;
	if (v.type == MMDB_DATA_TYPE_UINT16)
		return v.uint16;
	return 0;
}

pq_zeek_class pq_zeek_classify(const pq_zeek_classifier *c, const pq_zeek_addr *a)
{
	pq_zeek_class k = {PQ_ZCAT_UNKNOWN, PQ_ZM_NONE, 0, -1};
	if (c->have_ranges) {
		int32_t p = pq_zeek_lpm_lookup(&c->lpm, a, NULL);
		if (p >= 0) {
			k = (pq_zeek_class){c->prov_cat[p], PQ_ZM_RANGES, 0, p};
		} else if (!pq_zeek_addr_special(a)) {
			k.cat = PQ_ZCAT_OTHER;
			k.method = PQ_ZM_RANGES;
		}
	}
	if (c->have_mmdb) {
		k.asn = lookup_asn(c, a);
		if (k.provider < 0 && k.asn) {
			k.method = PQ_ZM_ASN;
			k.cat = asn_in(&c->cdn, k.asn) ? PQ_ZCAT_CDN
				: asn_in(&c->cloud, k.asn) ? PQ_ZCAT_CLOUD
							   : PQ_ZCAT_OTHER;
		}
	}
	return k;
}
