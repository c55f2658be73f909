/* Certificate chains in the wild and what ML-DSA would make of them: the chains ssl.log
 * names (cert_chain_fps or cert_chain_fuids), each certificate's DER size (files.log
 * seen_bytes by fuid or sha256, or the base64 `cert` column of x509.log) and key and
 * signature types (x509.log), and for each chain the server's first flight by pqtls's own
 * accounting (pki/acct) as logged and with ML-DSA-44 or ML-DSA-65 keys and signatures in
 * every certificate: does it still fit the initial window?
 *
 * Replacing a key or signature swaps its bytes (pki/alg sizes) and keeps the rest of the
 * DER as it was (length fields and algorithm identifiers are not re-encoded: a few bytes
 * per certificate). The signature in the topmost certificate sent (by a root not sent) is
 * sized from its sig_alg; RSA of unknown size counts as RSA-2048.
 *
 * Zeek sees no certificates in TLS 1.3 (they are encrypted): chains come from TLS 1.2
 * and earlier connections only.
 *
 * Contract: loaders take the input's name for messages and return 0 or a negative code
 * with d set; malformed lines are counted in db->bad, not failures. */
#ifndef PQ_ZEEK_CERTS_H
#define PQ_ZEEK_CERTS_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "core/err.h"
#include "zeek/map.h"

typedef struct pq_zeek_cert {
	uint32_t der;      /* DER bytes; 0 unknown */
	unsigned pub;      /* public key bytes; 0 unknown */
	unsigned sig_own;  /* bytes of a signature its key makes; 0 unknown */
	unsigned sig_in;   /* bytes of the signature it carries, from sig_alg; 0 unknown */
} pq_zeek_cert;

typedef struct pq_zeek_certdb {
	pq_zeek_map certs; /* id (fingerprint or fuid) -> pq_zeek_cert */
	uint64_t x509_rows, files_rows, bad;
} pq_zeek_certdb;

void pq_zeek_certdb_init(pq_zeek_certdb *db);
void pq_zeek_certdb_dispose(pq_zeek_certdb *db);
/* x509.log or files.log, TSV or JSON lines, plain or gzip; which one by its columns. */
int pq_zeek_certdb_load(pq_zeek_certdb *db, const char *path, pq_diag *d) PQ_MUST_USE;
/* The same from text in memory (modified in place); 0 or PQ_ENOMEM. */
int pq_zeek_certdb_add_text(pq_zeek_certdb *db, char *text, size_t len) PQ_MUST_USE;

enum { PQ_ZCERT_ASIS, PQ_ZCERT_MLDSA44, PQ_ZCERT_MLDSA65, PQ_ZCERT_N };

typedef struct pq_zeek_certstats {
	uint64_t chains, conns;               /* all chains in ssl.log */
	uint64_t known_chains, known_conns;   /* every certificate's size and types known */
	uint64_t fits[PQ_ZCERT_N], plus1[PQ_ZCERT_N], plus2[PQ_ZCERT_N]; /* connections */
	uint64_t fits_chains[PQ_ZCERT_N];
	double median_der[PQ_ZCERT_N];         /* bytes, over known chains weighted by connections */
	const char *group;
} pq_zeek_certstats;

/* chains: ids joined by '\n' -> connections (pq_zeek_agg.chains). group: the TLS group
 * of the first flight ("X25519MLKEM768"); PQ_EINVAL names an unknown one. */
int pq_zeek_certs_eval(const pq_zeek_certdb *db, const pq_zeek_map *chains, const char *group,
		       pq_zeek_certstats *out, pq_diag *d) PQ_MUST_USE;
void pq_zeek_certs_print(FILE *f, const pq_zeek_certstats *s);
cJSON *pq_zeek_certs_json(const pq_zeek_certstats *s);

#endif
