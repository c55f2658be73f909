/* The certificate chain factory: root -> 0..4 intermediates -> leaf, written as a
 * directory that a TLS server and `openssl verify` use as-is:
 *   root.pem       the trust anchor (clients load it as their CA file)
 *   chain.pem      leaf, then intermediates from the leaf's issuer up: what a server sends
 *   leaf.key       the leaf's private key (PKCS#8 PEM, mode 0600)
 *   ocsp.der       with spec.ocsp only: the leaf's OCSP response, signed by its issuer,
 *                  which the server staples (pki/ocsp.h)
 *   trust.pem      with trust anchor identifiers (spec.tai) only: the intermediates the
 *                  client already holds, left out of chain.pem, then the root; a client
 *                  loads it as its CA file and still verifies up to the root
 *   manifest.json  the spec and the size accounting (pq_manifest_json)
 *
 * Library use (serve, bench, sweep call this in-process):
 *   pq_chain_spec s; pq_chain_spec_init(&s);  s.leaf = pq_alg_find("ml-dsa-65"); ...
 *   pq_chain_info info;
 *   int hit = pq_chain_cached(&s, cache_root, &info, &d);    // dir in info.dir
 * Sizes, padding and the TLS accounting are in pq_chain_info; see pki/acct.h for the
 * flight model and pki/pad.h for how padding is made exact. */
#ifndef PQ_PKI_CHAIN_H
#define PQ_PKI_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/names.h"
#include "pki/acct.h"
#include "pki/alg.h"
#include "pki/mtc.h"

#define PQ_CHAIN_MAX_INT 4
#define PQ_CHAIN_MAX_CERTS 16 /* pq_chain_inspect reads chains up to this many certificates */
#define PQ_CHAIN_MAX_FLIGHTS 4
#define PQ_CHAIN_MAX_SCTS 8 /* SCTs a leaf can carry here (browsers ask for 2 or 3) */
#define PQ_CHAIN_PAD_MAX 0xffffffu /* a padded leaf or chain: a TLS certificate entry's limit, 2^24-1 */

typedef struct pq_chain_spec {
	const pq_alg *root, *inter, *leaf; /* all required (pq_chain_spec_init: ml-dsa-65) */
	int intermediates;		   /* 0..PQ_CHAIN_MAX_INT */
	size_t pad_leaf_to;		   /* exact leaf DER bytes, 0 = natural */
	size_t pad_chain_to;		   /* exact DER bytes of chain.pem, 0 = natural */
	enum pq_mtc_mode mtc;		   /* MTC size emulation: leaf-only chain */
	uint64_t mtc_tree_size;		   /* subtree entries (>= 2) */
	const pq_alg *mtc_cosigner;	   /* standalone cosignature algorithm; NULL = leaf's */
	int scts;			   /* SCTs embedded in the leaf (size emulation), 0..PQ_CHAIN_MAX_SCTS */
	const pq_alg *sct_alg;		   /* the logs' signature algorithm; NULL = ecdsa-p256 */
	int tai; /* trust anchor identifiers: the server sends the leaf alone, the client holds
		  * the intermediates (trust.pem); needs intermediates >= 1. pad_chain_to is then
		  * the leaf's size (chain.pem is the leaf) */
	int ocsp; /* an OCSP staple for the leaf (pki/ocsp.h); not with an MTC */
	int64_t not_before;		   /* Unix seconds; 0 = now minus one hour */
	/* What the caller calls the inputs in messages: the fields above ("root", "inter",
	 * "leaf", "pad_leaf_to", ...) and pq_chain_make's "outdir" and "force". NULL: those
	 * keys. Not part of the cache key. */
	const pq_name *names;
} pq_chain_spec;

typedef struct pq_cert_info {
	char role[32];	   /* "leaf", "intermediate 1" (issued the leaf), "root", "cert 3" */
	char subject[128]; /* one-line DN */
	char key_alg[48];  /* "ml-dsa-65", "ecdsa-p256", "p256-ml-dsa-44 (emulated)" */
	char sig_alg[48];  /* signature on this certificate, OpenSSL's name */
	size_t pub_bytes;  /* raw public key (emulated size for composites) */
	size_t sig_bytes;  /* signature on this certificate (emulated size for composites) */
	size_t pad_bytes;  /* DER bytes of pad extensions (composite filler included) */
	size_t emu_bytes;  /* of those, bytes standing in for a composite's classical parts */
	size_t der_bytes;
	char sha256[65]; /* hex of the DER */
} pq_cert_info;

typedef struct pq_chain_flight {
	const pq_acct_group *group;
	pq_acct acct;
} pq_chain_flight;

typedef struct pq_chain_info {
	char dir[512];			       /* chain directory, or "" for a PEM file */
	char source[512];		       /* the PEM file the chain was read from */
	pq_cert_info cert[PQ_CHAIN_MAX_CERTS]; /* as in chain.pem: leaf first */
	size_t n;
	pq_cert_info root; /* valid when has_root */
	int has_root;
	size_t chain_der;	       /* sum of cert[].der_bytes */
	size_t tls12_list, tls12_body; /* TLS 1.2 certificate_list and Certificate body */
	size_t cert_msg;	       /* TLS 1.3 Certificate message */
	size_t cv_sig_bytes;	       /* CertificateVerify signature (modelled algorithm) */
	size_t cv_sig_wire;	       /* what OpenSSL really sends (differs for composites) */
	size_t cv_carry;	       /* size emulation: cv_sig_bytes - cv_sig_wire, carried in
					* the leaf's CertificateEntry (pq_acct_in.cv_carry) */
	int leaf_tls_ok;	       /* leaf key usable by an OpenSSL 3.5 TLS 1.3 server */
	pq_chain_flight flight[PQ_CHAIN_MAX_FLIGHTS]; /* the common groups; valid when n_flight */
	size_t n_flight;
	char emulation[768]; /* "" or what is emulated (composite, MTC) and how */
	int has_spec;
	pq_chain_spec spec;	/* when has_spec */
	size_t mtc_proof_bytes; /* MTC emulation only */
	size_t sct_bytes;	/* the embedded SCT list extension's DER bytes (emulated); 0: none */
	/* Trust anchor identifiers: the intermediates left out of chain.pem because the client
	 * holds them (trust.pem), in chain order (the leaf's issuer first). */
	pq_cert_info held[PQ_CHAIN_MAX_INT];
	size_t n_held;
	size_t held_der;	  /* their DER bytes */
	size_t held_cert_msg;	  /* the bytes they would add to the Certificate message (DER + 5 each) */
	size_t held_flight_saved; /* the first flight (first group) with them minus without them */
	size_t ocsp_bytes;	  /* the stapled OCSP response's DER (ocsp.der); 0: none */
	size_t ocsp_pad;	  /* of those, the pad standing for an emulated issuer's signature */
} pq_chain_info;

/* Defaults: ml-dsa-65 everywhere, one intermediate, natural sizes, no MTC. */
void pq_chain_spec_init(pq_chain_spec *s);

/* Checks a spec before any key is made: PQ_EINVAL/PQ_EUNSUPPORTED with a message naming
 * the input (by s->names: leaf, intermediates, mtc, ...). An SLH-DSA leaf is refused
 * with the two ways that work. */
int pq_chain_spec_check(const pq_chain_spec *s, pq_diag *d) PQ_MUST_USE;

/* DER bytes of the leaf extension (RFC 6962 section 3.3, OID 1.3.6.1.4.1.11129.2.4.2)
 * carrying n SCTs signed with sig_bytes-byte signatures: each SCT is version 1 + log ID 32
 * + timestamp 8 + extensions 2 + algorithm 2 + length 2 + signature, with its 2-byte
 * length in the SignedCertificateTimestampList (2 bytes), in an OCTET STRING in the
 * extension's extnValue. 0 for n = 0. */
size_t pq_chain_sct_ext_bytes(int n, size_t sig_bytes);

/* Canonical text of the spec's parameters (not not_before), the cache key's input. */
void pq_chain_spec_key(const pq_chain_spec *s, char *buf, size_t n);

/* Builds the chain and writes it to `outdir` through a temporary directory next to it,
 * renamed into place at the end: on failure nothing is left. An existing `outdir` is an
 * error (PQ_EEXIST) unless `force`, and even then it is only replaced when it is empty
 * or holds a manifest.json (a previous chain). Fills *info (may be NULL). */
int pq_chain_make(const pq_chain_spec *s, const char *outdir, int force, pq_chain_info *info,
		  pq_diag *d) PQ_MUST_USE;

/* Reads a PEM file of certificates (chain order: leaf first), or a chain directory
 * (its chain.pem and root.pem), and fills *info with sizes and the accounting. A file
 * with no PEM certificate is PQ_EPARSE. */
int pq_chain_inspect(const char *path, pq_chain_info *info, pq_diag *d) PQ_MUST_USE;

/* Reads DIR/PQ_CHAIN_FILE_SIGPAD (a size-emulated leaf, tls/sigpad.h): *carry and the
 * algorithm's name. No file: 0 and *carry = 0 (a real chain). A malformed file: PQ_EPARSE
 * naming it (`what`: the caller's name for the directory). */
int pq_chain_sigpad_read(const char *dir, const char *what, size_t *carry, char *alg, size_t alg_len,
			 pq_diag *d) PQ_MUST_USE;

/* The cache directory for a spec: <cache_root>/chains/<hash>. cache_root is required
 * (the CLI's default is $PQTLS_CACHE, else ~/.cache/pqtls: pq_cli_cache_root). */
int pq_chain_cache_dir(const pq_chain_spec *s, const char *cache_root, char *out, size_t n,
		       pq_diag *d) PQ_MUST_USE;

/* The chain for `s` from the cache, made (and cached) when absent. Returns 1 on a cache
 * hit, 0 when it was made now, negative on failure; info->dir names the directory.
 * Pad bytes are random, so a cached chain is reused as-is. */
int pq_chain_cached(const pq_chain_spec *s, const char *cache_root, pq_chain_info *info,
		    pq_diag *d) PQ_MUST_USE;

/* Adds what only the spec knows to an inspected chain: composite emulation sizes (key,
 * signature, CertificateVerify), the emulation note, the spec itself. Recomputes the
 * accounting. */
int pq_chain_annotate(pq_chain_info *info, const pq_chain_spec *s, pq_diag *d) PQ_MUST_USE;

/* Recomputes the TLS accounting of info from its certificate sizes (cert_msg, TLS 1.2
 * sizes, flights for the common groups). Called by make and inspect. */
int pq_chain_account(pq_chain_info *info, pq_diag *d) PQ_MUST_USE;

#endif
