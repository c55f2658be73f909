/* Exact padding: every 1 KiB up to 120 KiB and the sizes around DER length jumps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
/* cmocka needs the headers above. */
#include <cmocka.h>

#include <openssl/x509v3.h>

#include "pki/alg.h"
#include "pki/cert.h"
#include "pki/pad.h"

struct pair {
	EVP_PKEY *ca_key, *leaf_key;
	X509 *ca, *leaf;
	const EVP_MD *md;
};

static void make_pair(struct pair *p, const char *alg)
{
	const pq_alg *a = pq_alg_find(alg);
	assert_non_null(a);
	assert_int_equal(pq_alg_keygen(a, &p->ca_key, NULL), 0);
	assert_int_equal(pq_alg_keygen(a, &p->leaf_key, NULL), 0);
	p->md = pq_alg_md(a);
	pq_cert_req r = {.cn = "pad root",
			 .ca = 1,
			 .key = p->ca_key,
			 .md = p->md,
			 .not_before = 1764000000,
			 .days = 3650};
	assert_int_equal(pq_cert_new(&r, &p->ca, NULL), 0);
	pq_cert_req l = {.cn = "localhost",
			 .key = p->leaf_key,
			 .issuer = p->ca,
			 .issuer_key = p->ca_key,
			 .md = p->md,
			 .not_before = 1764000000,
			 .days = 3650};
	assert_int_equal(pq_cert_new(&l, &p->leaf, NULL), 0);
}

static void free_pair(struct pair *p)
{
	X509_free(p->ca);
	X509_free(p->leaf);
	EVP_PKEY_free(p->ca_key);
	EVP_PKEY_free(p->leaf_key);
}

/* Fits x to t; returns 1 when exact, 0 when refused as not encodable (checked: the
 * message names neighbours, and those really are reachable). */
static int fit_exact(struct pair *p, X509 *x, size_t t, const char *cn)
{
	pq_diag d = {0};
	pq_pad_req r = {.key = p->ca_key, .md = p->md, .target = t, .cn = cn, .what = "test"};
	int rc = pq_pad_fit(x, &r, &d);
	if (rc == 0) {
		assert_int_equal(pq_pad_der_len(x), t);
		return 1;
	}
	assert_int_equal(rc, PQ_ERANGE);
	assert_non_null(strstr(d.msg, "nearest sizes that exist"));
	return 0;
}

static int verifies(struct pair *p)
{
	X509_STORE *st = X509_STORE_new();
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	X509_STORE_add_cert(st, p->ca);
	X509_STORE_CTX_init(ctx, st, p->leaf, NULL);
	int ok = X509_verify_cert(ctx);
	X509_STORE_CTX_free(ctx);
	X509_STORE_free(st);
	return ok == 1;
}

/* Every 1 KiB from the natural size to 120 KiB, re-signed by the same key each time:
 * ECDSA (variable signature length) and ML-DSA-44. */
static void sweep_kib(const char *alg)
{
	struct pair p = {0};
	make_pair(&p, alg);
	size_t natural = pq_pad_der_len(p.leaf);
	int refused = 0;
	for (size_t t = natural; t <= 120 * 1024; t = (t / 1024 + 1) * 1024)
		refused += !fit_exact(&p, p.leaf, t, "localhost");
	assert_int_equal(refused, 0);
	assert_true(verifies(&p));
	assert_true(pq_pad_bytes(p.leaf) > 100000);
	free_pair(&p);
}

static void sweep_kib_ecdsa(void **state)
{
	(void)state;
	sweep_kib("ecdsa-p256");
}

static void sweep_kib_mldsa(void **state)
{
	(void)state;
	sweep_kib("ml-dsa-44");
}

/* Sizes where the pad extension's own lengths, the extensions' and the TBS's cross
 * 127/128, 255/256 and 65535/65536 bytes. For a CA (no CN to lengthen) a few of these
 * cannot exist in DER; each refusal must be a real gap (its neighbours exist). */
static void boundaries(void **state)
{
	(void)state;
	struct pair p = {0};
	make_pair(&p, "ecdsa-p256");
	size_t natural_leaf = pq_pad_der_len(p.leaf), natural_ca = pq_pad_der_len(p.ca);
	static const long around[] = {128, 256, 65536};
	int leaf_refused = 0, ca_refused = 0, tried = 0;
	for (size_t i = 0; i < 3; i++)
		for (long k = -24; k <= 24; k++) {
			/* Around a pad of `around` bytes, and around extensions of that size. */
			size_t t = natural_leaf + (size_t)(around[i] + k) + PQ_PAD_EXT_MIN;
			leaf_refused += !fit_exact(&p, p.leaf, t, "localhost");
			size_t tc = natural_ca + (size_t)(around[i] + k) + PQ_PAD_EXT_MIN;
			int ok = fit_exact(&p, p.ca, tc, NULL);
			if (!ok) {
				ca_refused++;
				assert_true(fit_exact(&p, p.ca, tc - 1, NULL) ||
					    fit_exact(&p, p.ca, tc - 2, NULL));
				assert_true(fit_exact(&p, p.ca, tc + 1, NULL) ||
					    fit_exact(&p, p.ca, tc + 2, NULL));
			}
			tried++;
		}
	/* A leaf can always lengthen its CN; only whole-certificate gaps are left. */
	assert_int_equal(leaf_refused, 0);
	assert_true(ca_refused <= 3);
	print_message("boundaries: %d targets, CA refusals %d\n", tried, ca_refused);
	free_pair(&p);
}

/* The gaps DER itself has: a TBSCertificate of 65,540 bytes cannot exist. */
static void tbs_gap_refused(void **state)
{
	(void)state;
	struct pair p = {0};
	make_pair(&p, "ed25519");
	/* Ed25519: signature fields are fixed, so the certificate for a 65,540-byte TBS
	 * would be tlv(65540 + algid 7 + bitstring 67) = 65614 + 4 + 1. */
	size_t t = 1 + 4 + 65540 + 7 + 67;
	pq_diag d = {0};
	pq_pad_req r = {.key = p.ca_key, .md = NULL, .target = t, .cn = "localhost", .what = "gap"};
	assert_int_equal(pq_pad_fit(p.leaf, &r, &d), PQ_ERANGE);
	assert_non_null(strstr(d.msg, "gap: no DER encoding"));
	char want[64];
	snprintf(want, sizeof want, "%zu and %zu", t - 1, t + 1);
	assert_non_null(strstr(d.msg, want));
	free_pair(&p);
}

static void below_natural_and_small_delta(void **state)
{
	(void)state;
	struct pair p = {0};
	make_pair(&p, "ml-dsa-44");
	size_t natural = pq_pad_der_len(p.ca);
	pq_diag d = {0};
	char want[64];
	pq_pad_req r = {.key = p.ca_key, .target = natural - 1, .what = "--pad-leaf-to"};
	assert_int_equal(pq_pad_fit(p.ca, &r, &d), PQ_ERANGE);
	snprintf(want, sizeof want, "smallest size is %zu bytes", natural);
	assert_non_null(strstr(d.msg, want));
	/* A CA cannot grow by less than one pad extension... */
	r.target = natural + 5;
	assert_int_equal(pq_pad_fit(p.ca, &r, &d), PQ_ERANGE);
	assert_non_null(strstr(d.msg, "at least 18 bytes"));
	/* ...but the leaf can, by its CN; and ML-DSA re-signing keeps it verifiable. */
	assert_true(fit_exact(&p, p.leaf, pq_pad_der_len(p.leaf) + 5, "localhost"));
	assert_true(fit_exact(&p, p.leaf, 20000, "localhost"));
	assert_true(fit_exact(&p, p.leaf, 67000, "localhost"));
	assert_true(verifies(&p));
	/* Re-fitting smaller starts from the natural size, not from the padded one. */
	assert_true(fit_exact(&p, p.leaf, 9000, "localhost"));
	assert_true(fit_exact(&p, p.ca, natural + 100, NULL));
	assert_true(verifies(&p));
	free_pair(&p);
}

/* The pad is random, so it does not compress. */
static void pad_is_random(void **state)
{
	(void)state;
	struct pair p = {0};
	make_pair(&p, "ed25519");
	assert_true(fit_exact(&p, p.leaf, 4096, "localhost"));
	unsigned char *der = NULL;
	int n = i2d_X509(p.leaf, &der);
	size_t zeros = 0;
	for (int i = 0; i < n; i++)
		zeros += der[i] == 0;
	assert_true(zeros < 64); /* ~16 expected from 3.7 KB of random bytes */
	OPENSSL_free(der);
	free_pair(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(sweep_kib_ecdsa),
	    cmocka_unit_test(sweep_kib_mldsa),
	    cmocka_unit_test(boundaries),
	    cmocka_unit_test(tbs_gap_refused),
	    cmocka_unit_test(below_natural_and_small_delta),
	    cmocka_unit_test(pad_is_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
