#include "pki/alg.h"

#include <ctype.h>
#include <openssl/core_names.h>
#include <stdio.h>
#include <string.h>

#define SLH(n, pub, sig)                                                                           \
	{                                                                                          \
		n, PQ_ALG_SLHDSA, n, NULL, 0, NULL, 0, pub, sig, NULL, 0, 0, FIPS205               \
	}
/* A size emulation on an Ed25519 key (algs[2]: 32-byte key, 64-byte signature). */
#define EMU(n, pub, sig, src)                                                                      \
	{                                                                                          \
		n, PQ_ALG_SIZE_EMU, "ED25519", NULL, 0, NULL, 1, pub, sig, &algs[2], (pub) - 32,   \
		    (sig) - 64, src                                                                \
	}
/* FIPS 205's parameter sets over one hash family: the sizes depend on the security level
 * and s/f only, the same for SHA2 and SHAKE. */
#define SLH_SETS(hash)                                                                             \
	SLH("slh-dsa-" hash "-128s", 32, 7856), SLH("slh-dsa-" hash "-128f", 32, 17088),          \
	    SLH("slh-dsa-" hash "-192s", 48, 16224), SLH("slh-dsa-" hash "-192f", 48, 35664),     \
	    SLH("slh-dsa-" hash "-256s", 64, 29792), SLH("slh-dsa-" hash "-256f", 64, 49856)
#define FIPS204 "FIPS 204 (2024) Table 2"
#define FIPS205 "FIPS 205 (2024) Table 2"
#define IETF_COMPOSITE                                                                             \
	"FIPS 204 Table 2 plus the classical part as draft-ietf-lamps-pq-composite-sigs encodes it"


/* Sizes: each entry's source (pq-facts.md section 1 repeats them). ECDSA sig_bytes is the
 * typical DER length (r and s each 50 % likely to need a leading zero byte). The emulated
 * schemes use the sizes their NIST submissions give for the parameter set (round 2 of the
 * additional signatures where there is one); FN-DSA's is Falcon's padded signature, the
 * fixed length a certificate would carry. */
static const pq_alg algs[] = {
    {"ecdsa-p256", PQ_ALG_ECDSA, "EC", "P-256", 0, "SHA256", 1, 65, 71, NULL, 0, 0,
     "SEC 1 v2 and RFC 5480 (DER ECDSA-Sig-Value, typical length)"},
    {"ecdsa-p384", PQ_ALG_ECDSA, "EC", "P-384", 0, "SHA384", 1, 97, 103, NULL, 0, 0,
     "SEC 1 v2 and RFC 5480 (DER ECDSA-Sig-Value, typical length)"},
    {"ed25519", PQ_ALG_EDDSA, "ED25519", NULL, 0, NULL, 1, 32, 64, NULL, 0, 0,
     "RFC 8032 section 5.1"},
    {"rsa-2048", PQ_ALG_RSA, "RSA", NULL, 2048, "SHA256", 1, 256, 256, NULL, 0, 0,
     "RFC 8017 (modulus bytes)"},
    {"rsa-3072", PQ_ALG_RSA, "RSA", NULL, 3072, "SHA256", 1, 384, 384, NULL, 0, 0,
     "RFC 8017 (modulus bytes)"},
    {"rsa-4096", PQ_ALG_RSA, "RSA", NULL, 4096, "SHA256", 1, 512, 512, NULL, 0, 0,
     "RFC 8017 (modulus bytes)"},
    {"ml-dsa-44", PQ_ALG_MLDSA, "ML-DSA-44", NULL, 0, NULL, 1, 1312, 2420, NULL, 0, 0, FIPS204},
    {"ml-dsa-65", PQ_ALG_MLDSA, "ML-DSA-65", NULL, 0, NULL, 1, 1952, 3309, NULL, 0, 0, FIPS204},
    {"ml-dsa-87", PQ_ALG_MLDSA, "ML-DSA-87", NULL, 0, NULL, 1, 2592, 4627, NULL, 0, 0, FIPS204},
    SLH_SETS("sha2"),
    SLH_SETS("shake"),
    /* Composite emulations (OQS hybrid pairs). Classical parts as the IETF composite
     * draft encodes them: EC point, RSAPublicKey DER, DER ECDSA signature (max). */
    {"p256-ml-dsa-44", PQ_ALG_COMPOSITE, "ML-DSA-44", NULL, 0, NULL, 1, 1312 + 65, 2420 + 72,
     &algs[6], 65, 72, IETF_COMPOSITE},
    {"rsa3072-ml-dsa-44", PQ_ALG_COMPOSITE, "ML-DSA-44", NULL, 0, NULL, 1, 1312 + 398, 2420 + 384,
     &algs[6], 398, 384, IETF_COMPOSITE},
    {"p384-ml-dsa-65", PQ_ALG_COMPOSITE, "ML-DSA-65", NULL, 0, NULL, 1, 1952 + 97, 3309 + 104,
     &algs[7], 97, 104, IETF_COMPOSITE},
    {"p521-ml-dsa-87", PQ_ALG_COMPOSITE, "ML-DSA-87", NULL, 0, NULL, 1, 2592 + 133, 4627 + 139,
     &algs[8], 133, 139, IETF_COMPOSITE},
    /* Size emulations of schemes OpenSSL 3.5 lacks (see alg.h). */
    EMU("emu-fn-dsa-512", 897, 666,
	"Falcon specification v1.2 (2020) Table 3.3 (padded signature); FN-DSA, FIPS 206 draft"),
    EMU("emu-fn-dsa-1024", 1793, 1280,
	"Falcon specification v1.2 (2020) Table 3.3 (padded signature); FN-DSA, FIPS 206 draft"),
    EMU("emu-hawk-512", 1024, 555, "HAWK specification v1.1 (NIST round 2, 2025) Table 4"),
    EMU("emu-mayo-1", 1420, 454, "MAYO specification v2.0 (NIST round 2, 2025) Table 2.2"),
    EMU("emu-mayo-2", 4912, 186, "MAYO specification v2.0 (NIST round 2, 2025) Table 2.2"),
    EMU("emu-sqisign-i", 65, 148, "SQIsign specification v2.0 (NIST round 2, 2025), NIST-I"),
    EMU("emu-uov-is-pkc", 66576, 96,
	"UOV specification (NIST round 2, 2025), uov-Is-pkc (GF(16), n 160, m 64)"),
};

#define NALGS (sizeof algs / sizeof algs[0])

size_t pq_alg_count(void)
{
	return NALGS;
}

const pq_alg *pq_alg_at(size_t i)
{
	return i < NALGS ? &algs[i] : NULL;
}

/* Equal ignoring case, '-' and '_': "ML-DSA-65", "mldsa65" and OQS's "p256_mldsa44"
 * name the same algorithms as "ml-dsa-65" and "p256-ml-dsa-44". */
static int same_name(const char *a, const char *b)
{
	for (;;) {
		while (*a == '-' || *a == '_')
			a++;
		while (*b == '-' || *b == '_')
			b++;
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return 0;
		if (!*a)
			return 1;
		a++;
		b++;
	}
}

const pq_alg *pq_alg_find(const char *name)
{
	for (size_t i = 0; name && i < NALGS; i++)
		if (same_name(algs[i].name, name))
			return &algs[i];
	return NULL;
}

int pq_alg_lookup(const char *name, const char *what, const pq_alg **out, pq_diag *d)
{
	const pq_alg *a = pq_alg_find(name);
	if (a) {
		*out = a;
		return 0;
	}
	char list[1024] = "", emu[64];
	size_t len = 0;
	for (size_t i = 0; i < NALGS && len < sizeof list; i++)
		len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
					algs[i].name);
	/* "fn-dsa-512": OpenSSL has no such signature, but its size emulation exists */
	snprintf(emu, sizeof emu, "emu-%s", name ? name : "");
	const pq_alg *e = pq_alg_find(emu);
	if (e)
		return pq_diag_set(d, PQ_EINVAL,
				   "%s: '%s' is not a signature OpenSSL 3.5 implements; its size "
				   "emulation (an Ed25519 key padded to its sizes) is %s",
				   what, name, e->name);
	return pq_diag_set(d, PQ_EINVAL, "%s: unknown signature algorithm '%s'; accepted: %s", what,
			   name ? name : "", list);
}

int pq_alg_is_size_emu(const pq_alg *a)
{
	return a && a->family == PQ_ALG_SIZE_EMU;
}

const pq_alg *pq_alg_key_alg(const pq_alg *a)
{
	return a->base ? a->base : a;
}

int pq_alg_keygen(const pq_alg *a, EVP_PKEY **out, pq_diag *d)
{
	const pq_alg *k = pq_alg_key_alg(a);
	EVP_PKEY *key = NULL;
	if (k->family == PQ_ALG_ECDSA)
		key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", k->curve);
	else if (k->family == PQ_ALG_RSA)
		key = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)k->rsa_bits);
	else
		key = EVP_PKEY_Q_keygen(NULL, NULL, k->keytype);
	if (!key)
		return pq_diag_ossl(d, PQ_ETLS, "cannot generate a %s key", a->name);
	*out = key;
	return 0;
}

const EVP_MD *pq_alg_md(const pq_alg *a)
{
	const pq_alg *k = pq_alg_key_alg(a);
	return k->digest ? EVP_get_digestbyname(k->digest) : NULL;
}

static const pq_alg *match_key(EVP_PKEY *k)
{
	int bits = EVP_PKEY_get_bits(k);
	for (size_t i = 0; i < NALGS; i++) {
		const pq_alg *a = &algs[i];
		if (a->base || !EVP_PKEY_is_a(k, a->keytype))
			continue;
		if (a->family == PQ_ALG_ECDSA &&
		    !(strcmp(a->curve, "P-256") == 0 ? bits == 256 : bits == 384))
			continue;
		if (a->family == PQ_ALG_RSA && (unsigned)bits != a->rsa_bits)
			continue;
		return a;
	}
	return NULL;
}

void pq_alg_describe_key(EVP_PKEY *k, char *name, size_t name_len, unsigned *pub_bytes,
			 unsigned *sig_bytes, int *tls_leaf)
{
	const pq_alg *a = match_key(k);
	int bits = EVP_PKEY_get_bits(k);
	size_t pub = 0;
	if (a) {
		snprintf(name, name_len, "%s", a->name);
		*pub_bytes = a->pub_bytes;
		*sig_bytes = a->sig_bytes;
		*tls_leaf = a->tls_leaf;
		return;
	}
	*tls_leaf = 0;
	*sig_bytes = 0;
	if (EVP_PKEY_is_a(k, "RSA") || EVP_PKEY_is_a(k, "RSA-PSS")) {
		snprintf(name, name_len, "rsa-%d", bits);
		*pub_bytes = *sig_bytes = (unsigned)(bits + 7) / 8;
		*tls_leaf = 1;
		return;
	}
	EVP_PKEY_get_octet_string_param(k, OSSL_PKEY_PARAM_PUB_KEY, NULL, 0, &pub);
	*pub_bytes = (unsigned)pub;
	if (EVP_PKEY_is_a(k, "EC")) {
		/* DER ECDSA: two INTEGERs of the field size, typically one with a 0x00 prefix. */
		snprintf(name, name_len, "ecdsa-p%d", bits);
		*sig_bytes = 2 * ((unsigned)bits + 7) / 8 + 7;
		*tls_leaf = 1;
		return;
	}
	if (EVP_PKEY_is_a(k, "ED448")) {
		snprintf(name, name_len, "ed448");
		*sig_bytes = 114;
		*tls_leaf = 1;
		return;
	}
	const char *t = EVP_PKEY_get0_type_name(k);
	snprintf(name, name_len, "%s", t ? t : "unknown");
}

size_t pq_alg_cert_der_estimate(const pq_alg *subject, const pq_alg *issuer)
{
	return PQ_ALG_CERT_DER_BASE + (subject ? subject->pub_bytes : 0) + (issuer ? issuer->sig_bytes : 0);
}

size_t pq_alg_chain_der_estimate(const pq_alg *leaf, const pq_alg *inter, const pq_alg *root, int n, int tai,
				 size_t *der, size_t max)
{
	size_t k = 0;
	der[k++] = pq_alg_cert_der_estimate(leaf, n > 0 ? inter : root);
	for (int i = 0; i < n && !tai && k < max; i++)
		der[k++] = pq_alg_cert_der_estimate(inter, i + 1 < n ? inter : root);
	return k;
}
