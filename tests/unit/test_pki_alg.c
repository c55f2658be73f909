/* The algorithm table: lookup, messages, key generation, key description. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
/* cmocka needs the headers above. */
#include <cmocka.h>

#include "pki/alg.h"

static void lookup(void **state)
{
	(void)state;
	const pq_alg *a = NULL;
	pq_diag d = {0};
	assert_int_equal(pq_alg_count(), 32); /* 9 + 12 SLH-DSA + 4 composite + 7 size emulations */
	assert_null(pq_alg_at(pq_alg_count()));
	assert_int_equal(pq_alg_lookup("ML-DSA-65", "--sig", &a, &d), 0);
	assert_string_equal(a->name, "ml-dsa-65");
	assert_ptr_equal(pq_alg_find("mldsa65"), a);
	assert_string_equal(pq_alg_find("p256_mldsa44")->name, "p256-ml-dsa-44");
	assert_null(pq_alg_find("ml-dsa-6"));
	assert_null(pq_alg_find("ml-dsa-655"));
	assert_null(pq_alg_find(""));
	assert_int_equal(pq_alg_lookup("dilithium3", "--leaf", &a, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "--leaf: unknown signature algorithm 'dilithium3'"));
	assert_non_null(strstr(d.msg, "slh-dsa-shake-256f"));
	assert_non_null(strstr(d.msg, "p256-ml-dsa-44"));
	assert_int_equal(pq_alg_lookup(NULL, "--sig", &a, &d), PQ_EINVAL);
	int slh = 0;
	for (size_t i = 0; i < pq_alg_count(); i++) {
		const pq_alg *x = pq_alg_at(i);
		slh += x->family == PQ_ALG_SLHDSA;
		assert_true(x->tls_leaf == (x->family != PQ_ALG_SLHDSA));
	}
	assert_int_equal(slh, 12);
	a = pq_alg_find("p384-ml-dsa-65");
	assert_ptr_equal(pq_alg_key_alg(a), pq_alg_find("ml-dsa-65"));
	assert_null(pq_alg_md(a));
	assert_non_null(pq_alg_md(pq_alg_find("ecdsa-p384")));
}

/* Every entry names where its sizes come from; the size emulations stand on Ed25519
 * with the published sizes, and the bare scheme name points to its emulation. */
static void sources_and_emulations(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		unsigned pub, sig;
	} pub[] = {{"emu-fn-dsa-512", 897, 666},   {"emu-fn-dsa-1024", 1793, 1280},
		   {"emu-hawk-512", 1024, 555},	   {"emu-mayo-1", 1420, 454},
		   {"emu-mayo-2", 4912, 186},	   {"emu-sqisign-i", 65, 148},
		   {"emu-uov-is-pkc", 66576, 96}, {"ml-dsa-44", 1312, 2420},
		   {"ml-dsa-65", 1952, 3309},	   {"ml-dsa-87", 2592, 4627},
		   {"slh-dsa-sha2-128s", 32, 7856}, {"slh-dsa-sha2-128f", 32, 17088}};
	const pq_alg *ed = pq_alg_find("ed25519");
	int emu = 0;
	for (size_t i = 0; i < pq_alg_count(); i++) {
		const pq_alg *a = pq_alg_at(i);
		if (!a->source || strlen(a->source) < 8)
			fail_msg("algorithm table entry %s has no source for its sizes", a->name);
		if (!pq_alg_is_size_emu(a))
			continue;
		emu++;
		assert_int_equal(strncmp(a->name, "emu-", 4), 0); /* nobody mistakes it */
		assert_ptr_equal(pq_alg_key_alg(a), ed);
		assert_int_equal(a->pub_bytes, ed->pub_bytes + a->emu_pub_extra);
		assert_int_equal(a->sig_bytes, ed->sig_bytes + a->emu_sig_extra);
		assert_true(a->sig_bytes - ed->sig_bytes >= 4); /* the pad extension's header */
	}
	assert_int_equal(emu, 7);
	for (size_t i = 0; i < sizeof pub / sizeof pub[0]; i++) {
		const pq_alg *a = pq_alg_find(pub[i].name);
		assert_non_null(a);
		assert_int_equal(a->pub_bytes, pub[i].pub);
		assert_int_equal(a->sig_bytes, pub[i].sig);
	}
	const pq_alg *a = NULL;
	pq_diag d = {0};
	assert_int_equal(pq_alg_lookup("FN-DSA-512", "--leaf", &a, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "--leaf: 'FN-DSA-512' is not a signature OpenSSL 3.5 implements"));
	assert_non_null(strstr(d.msg, "emu-fn-dsa-512"));
	assert_false(pq_alg_is_size_emu(pq_alg_find("p256-ml-dsa-44")));
	assert_false(pq_alg_is_size_emu(NULL));
}

/* Keys for every fast family, and their description matches the table. */
/* A certificate's estimate: its key, its issuer's signature and the fixed part; either
 * side may be missing (an MTC leaf has no issuer's signature). */
static void cert_der_estimate(void **state)
{
	(void)state;
	const pq_alg *ec = pq_alg_find("ecdsa-p256"), *ml = pq_alg_find("ml-dsa-65");
	assert_int_equal(pq_alg_cert_der_estimate(ec, ec), PQ_ALG_CERT_DER_BASE + 65 + 71);
	assert_int_equal(pq_alg_cert_der_estimate(ml, ml), PQ_ALG_CERT_DER_BASE + 1952 + 3309);
	assert_int_equal(pq_alg_cert_der_estimate(ec, ml), PQ_ALG_CERT_DER_BASE + 65 + 3309);
	assert_int_equal(pq_alg_cert_der_estimate(ml, NULL), PQ_ALG_CERT_DER_BASE + 1952);
	assert_int_equal(pq_alg_cert_der_estimate(NULL, NULL), PQ_ALG_CERT_DER_BASE);
	/* A chain: the leaf signed by the intermediate, the last intermediate by the root; the
	 * leaf alone under trust anchor identifiers, or when only one fits. */
	size_t der[4];
	assert_int_equal(pq_alg_chain_der_estimate(ec, ml, ec, 2, 0, der, 4), 3);
	assert_int_equal(der[0], pq_alg_cert_der_estimate(ec, ml));
	assert_int_equal(der[1], pq_alg_cert_der_estimate(ml, ml));
	assert_int_equal(der[2], pq_alg_cert_der_estimate(ml, ec));
	assert_int_equal(pq_alg_chain_der_estimate(ec, ml, ec, 0, 0, der, 4), 1);
	assert_int_equal(der[0], pq_alg_cert_der_estimate(ec, ec));
	assert_int_equal(pq_alg_chain_der_estimate(ec, ml, ec, 2, 1, der, 4), 1);
	assert_int_equal(pq_alg_chain_der_estimate(ec, ml, ec, 2, 0, der, 1), 1);
}

static void keygen_and_describe(void **state)
{
	(void)state;
	static const char *names[] = {"ecdsa-p256",	   "ecdsa-p384",    "ed25519",
				      "rsa-2048",	   "ml-dsa-44",	    "ml-dsa-87",
				      "slh-dsa-sha2-128f", "p256-ml-dsa-44"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const pq_alg *a = pq_alg_find(names[i]);
		EVP_PKEY *k = NULL;
		assert_int_equal(pq_alg_keygen(a, &k, NULL), 0);
		char name[48];
		unsigned pub = 0, sig = 0;
		int tls = -1;
		pq_alg_describe_key(k, name, sizeof name, &pub, &sig, &tls);
		const pq_alg *key = pq_alg_key_alg(a);
		assert_string_equal(name, key->name);
		assert_int_equal(pub, key->pub_bytes);
		assert_int_equal(sig, key->sig_bytes);
		assert_int_equal(tls, key->tls_leaf);
		EVP_PKEY_free(k);
	}
}

/* Keys outside the table still get a name and sizes (web chains: RSA-1024, P-521). */
static void describe_other_keys(void **state)
{
	(void)state;
	char name[48];
	unsigned pub = 0, sig = 0;
	int tls = 0;
	EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-521");
	pq_alg_describe_key(k, name, sizeof name, &pub, &sig, &tls);
	assert_string_equal(name, "ecdsa-p521");
	assert_int_equal(pub, 133);
	assert_true(sig >= 137 && sig <= 139);
	EVP_PKEY_free(k);
	k = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)1024);
	pq_alg_describe_key(k, name, sizeof name, &pub, &sig, &tls);
	assert_string_equal(name, "rsa-1024");
	assert_int_equal(sig, 128);
	EVP_PKEY_free(k);
	k = EVP_PKEY_Q_keygen(NULL, NULL, "ML-KEM-768");
	pq_alg_describe_key(k, name, sizeof name, &pub, &sig, &tls);
	assert_int_equal(sig, 0); /* cannot sign: no CertificateVerify */
	assert_int_equal(tls, 0);
	EVP_PKEY_free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(lookup),
	    cmocka_unit_test(sources_and_emulations),
	    cmocka_unit_test(cert_der_estimate),
	    cmocka_unit_test(keygen_and_describe),
	    cmocka_unit_test(describe_other_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
