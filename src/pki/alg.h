/* Signature algorithms a chain can use: the table users pick from (for the root, the
 * intermediates and the leaf), their nominal sizes, and key generation with OpenSSL 3.5.
 *
 * Sizes are the bytes an algorithm puts on the wire: `pub_bytes` is the raw public key
 * (inside the SPKI BIT STRING), `sig_bytes` the signature as carried in X.509 and in a
 * TLS 1.3 CertificateVerify (ECDSA: the typical DER length; one signing may be 1 byte
 * shorter or longer).
 *
 * Composite (hybrid) algorithms do not exist in OpenSSL 3.5: entries with `base` set are
 * size emulations. Their key really is `base` (ML-DSA); the classical key and signature
 * bytes (`emu_pub_extra`, `emu_sig_extra`) are added to the certificates as padding.
 *
 * Signature schemes OpenSSL 3.5 does not implement (FN-DSA, HAWK, MAYO, SQIsign, UOV) are
 * SIZE EMULATIONS named `emu-...` (family PQ_ALG_SIZE_EMU): their key really is an Ed25519
 * key (`base`), each certificate is padded by the difference between the emulated public
 * key/signature and Ed25519's, and the CertificateVerify bytes beyond Ed25519's travel in
 * the server's first flight as a pad extension (tls/sigpad.h). CPU time is Ed25519's.
 * Every entry names the `source` of its sizes (a unit test refuses an entry without). */
#ifndef PQ_PKI_ALG_H
#define PQ_PKI_ALG_H

#include <openssl/evp.h>
#include <stddef.h>

#include "core/err.h"

enum pq_alg_family {
	PQ_ALG_ECDSA,
	PQ_ALG_EDDSA,
	PQ_ALG_RSA,
	PQ_ALG_MLDSA,
	PQ_ALG_SLHDSA,
	PQ_ALG_COMPOSITE,
	PQ_ALG_SIZE_EMU, /* a scheme OpenSSL lacks, emulated by its sizes: "emu-fn-dsa-512" */
};

typedef struct pq_alg {
	const char *name; /* as users type it: "ml-dsa-65" */
	enum pq_alg_family family;
	const char *keytype; /* OpenSSL key type: "EC", "ED25519", "RSA", "ML-DSA-65" */
	const char *curve;   /* EC group name, else NULL */
	unsigned rsa_bits;   /* RSA modulus bits, else 0 */
	const char *digest;  /* "SHA256"/"SHA384" for ECDSA/RSA; NULL for pure signatures */
	int tls_leaf;	     /* can be a TLS 1.3 server key in OpenSSL 3.5 */
	unsigned pub_bytes, sig_bytes;
	const struct pq_alg *base;	       /* composite emulation: the real key's algorithm */
	unsigned emu_pub_extra, emu_sig_extra; /* bytes added as padding (composite: the
						* classical parts; size emulation: beyond base's) */
	const char *source;		       /* where pub_bytes and sig_bytes come from */
} pq_alg;

/* A certificate's DER bytes beyond its subject's public key and its issuer's signature
 * (names, validity, extensions), fitted to the chains pqtls certs made here: 399 - 65 - 72
 * bytes for an ECDSA P-256 leaf, 5,523 - 1,952 - 3,309 for ML-DSA-65. */
#define PQ_ALG_CERT_DER_BASE 262

/* A certificate's estimated DER bytes: its subject's public key (NULL: none) and its
 * issuer's signature (NULL: none) plus PQ_ALG_CERT_DER_BASE. */
size_t pq_alg_cert_der_estimate(const pq_alg *subject, const pq_alg *issuer);

/* The estimated DER sizes of the certificates a server sends, leaf first: the leaf and n
 * intermediates (the leaf alone with trust anchor identifiers, tai), each its subject's key
 * and its issuer's signature (the root signs the last intermediate, or the leaf without
 * one). Fills der (max >= 1) and returns how many. */
size_t pq_alg_chain_der_estimate(const pq_alg *leaf, const pq_alg *inter, const pq_alg *root, int n, int tai,
				 size_t *der, size_t max);

/* 1 when `a` is a size emulation of a scheme OpenSSL lacks (no real signature of it). */
int pq_alg_is_size_emu(const pq_alg *a);

/* Number of entries and the i-th entry (for help and tests). */
size_t pq_alg_count(void);
const pq_alg *pq_alg_at(size_t i);

/* Lookup by name ignoring case, '-' and '_' (so OpenSSL's "mldsa65" and OQS's
 * "p256_mldsa44" work); NULL when unknown. */
const pq_alg *pq_alg_find(const char *name);

/* Like pq_alg_find, but an unknown name gives PQ_EINVAL with a message naming `what`
 * (the caller's name for the input) and listing every accepted name. */
int pq_alg_lookup(const char *name, const char *what, const pq_alg **out, pq_diag *d) PQ_MUST_USE;

/* The algorithm whose key is generated (base for composites, else a itself). */
const pq_alg *pq_alg_key_alg(const pq_alg *a);

/* A fresh key for `a` (for a composite, a key of its base). *out is owned by the caller. */
int pq_alg_keygen(const pq_alg *a, EVP_PKEY **out, pq_diag *d) PQ_MUST_USE;

/* The digest to sign with for `a` (NULL for ML-DSA, SLH-DSA, Ed25519). */
const EVP_MD *pq_alg_md(const pq_alg *a);

/* Describes a key found in a certificate: writes a name ("ecdsa-p256", "rsa-2048",
 * "ml-dsa-65", or OpenSSL's type name when not in the table), the raw public key bytes,
 * and the signature size a TLS 1.3 CertificateVerify made with it would carry (0 when
 * the key cannot sign, e.g. ML-KEM). Sets *tls_leaf as for pq_alg. */
void pq_alg_describe_key(EVP_PKEY *k, char *name, size_t name_len, unsigned *pub_bytes,
			 unsigned *sig_bytes, int *tls_leaf);

#endif
