/* Classifies a server address as CDN, Cloud, Other or Unknown, and says which method
 * decided: published address ranges (longest prefix wins; cdncheck's sources_data.json
 * shape or plain CIDR lists) first, then the address's ASN from a MaxMind DB against
 * lists of CDN and cloud ASNs.
 *
 * Other: a method covered the address and it is on no list (a public address outside
 * every range, or an ASN on neither list). Unknown: no method could speak for it (in
 * special-purpose space such as RFC 1918 when only ranges are loaded, or no record in
 * the ASN database).
 *
 * Contract: load functions take the input's name for messages and return 0 or a
 * negative code with d set; pq_zeek_classify never fails and is thread-safe once
 * loading is done. */
#ifndef PQ_ZEEK_CLASSIFY_H
#define PQ_ZEEK_CLASSIFY_H

#include <maxminddb.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "zeek/lpm.h"
#include "zeek/rec.h"

enum pq_zeek_cat { PQ_ZCAT_CDN, PQ_ZCAT_CLOUD, PQ_ZCAT_OTHER, PQ_ZCAT_UNKNOWN, PQ_ZCAT_N };
enum pq_zeek_method { PQ_ZM_RANGES, PQ_ZM_ASN, PQ_ZM_NONE, PQ_ZM_N };

typedef struct pq_zeek_class {
	uint8_t cat, method;
	uint32_t asn;     /* 0 when unknown */
	int32_t provider; /* index into the provider names, -1 when none */
} pq_zeek_class;

typedef struct pq_zeek_asnset {
	uint32_t *v;
	size_t n;
} pq_zeek_asnset;

typedef struct pq_zeek_classifier {
	pq_zeek_lpm lpm;
	int have_ranges;
	char **prov_name; /* "cloudflare" */
	uint8_t *prov_cat;
	size_t nprov;
	MMDB_s mmdb;
	int have_mmdb;
	pq_zeek_asnset cdn, cloud;
} pq_zeek_classifier;

int pq_zeek_classifier_init(pq_zeek_classifier *c) PQ_MUST_USE;
void pq_zeek_classifier_dispose(pq_zeek_classifier *c);

/* Ranges from path (plain or gzip): a JSON object {"cdn":{NAME:[CIDR...]}, "waf":{...},
 * "cloud":{...}} (cdn and waf are CDN; other keys ignored), or text lines
 * "CIDR [cdn|cloud [NAME]]" with '#' comments, the category defaulting to def_cat
 * (PQ_ZCAT_N: none, each line must say). Equal prefixes: the first loaded wins. */
int pq_zeek_ranges_load(pq_zeek_classifier *c, const char *path, int def_cat, pq_diag *d) PQ_MUST_USE;

/* Opens a MaxMind DB with ASN data and checks all of it (every search-tree node and
 * every data record), so a corrupt file is refused here rather than at a lookup. */
int pq_zeek_asn_open(pq_zeek_classifier *c, const char *path, pq_diag *d) PQ_MUST_USE;

/* ASN lists: "13335,54113" or "AS13335 AS54113", or a file ("@path") with one per line
 * (# comments). Replace the built-in list of that category. */
int pq_zeek_asns_set(pq_zeek_classifier *c, int cat, const char *spec, const char *name, pq_diag *d) PQ_MUST_USE;
/* The built-in lists (docs/zeek.md gives each one's source). */
int pq_zeek_asns_default(pq_zeek_classifier *c) PQ_MUST_USE;

pq_zeek_class pq_zeek_classify(const pq_zeek_classifier *c, const pq_zeek_addr *a);

const char *pq_zeek_cat_name(int cat);
const char *pq_zeek_method_name(int m);
/* Special-purpose space (RFC 6890 and friends) that no public list can speak for. */
int pq_zeek_addr_special(const pq_zeek_addr *a);

#endif
