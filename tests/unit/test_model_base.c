/* model/base: the flight model's inputs taken from the stack. From a chain directory:
 * its certificates as inspected, one handshake's writes in memory (one write when the
 * buffer is unbounded), the rule's flight at the same size. By algorithm: the count of
 * certificates, the ClientHello measured, nothing else. Refused by name: a group the
 * model does not know, a directory that holds no chain, an algorithm nobody knows, an
 * intermediate count out of range. And the views built from a base: the TCP inputs
 * (measured writes before the rule's), a measured offer's ClientHellos and HRR, and
 * the QUIC view (ClientHellos without their record header, the CRYPTO buffer, Retry and
 * HRR on top) against the model's own calls. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "model/base.h"
#include "pki/chain.h"
#include "testchain.h"

static void from_certs(void **state)
{
	(void)state;
	pq_diag d = {0};
	pq_chain_info info;
	pq_model_base b, one;
	assert_int_equal(pq_chain_inspect(chain_dir, &info, &d), 0);
	assert_int_equal(pq_model_base_certs(chain_dir, "--certs", "X25519MLKEM768", 0, &b, &d), 0);
	assert_string_equal(b.group, "X25519MLKEM768");
	assert_string_equal(b.leaf_alg, info.cert[0].key_alg);
	assert_int_equal(b.n, info.n);
	size_t sum = 0;
	for (size_t i = 0; i < b.n; i++) {
		assert_int_equal(b.der[i], info.cert[i].der_bytes);
		sum += b.der[i];
	}
	assert_int_equal(b.chain_der, sum);
	assert_ptr_equal(b.acct_in.der, b.der); /* into the copy the caller holds */
	assert_int_equal(b.measured, 1);
	assert_true(b.client_hello > 1000); /* an ML-KEM key share: over 1,184 bytes */
	assert_true(b.tickets > 0);	    /* the server sends two */
	size_t written = 0;
	for (size_t i = 0; i < b.n_writes; i++)
		written += b.writes[i];
	assert_true(b.n_writes >= 1 && written > sum); /* the chain and the rest of the flight */
	assert_true(b.rule.n_writes >= 1);
	/* an unbounded buffer: the same flight in one write */
	assert_int_equal(pq_model_base_certs(chain_dir, "--certs", "X25519MLKEM768", SIZE_MAX, &one, &d), 0);
	assert_int_equal(one.n_writes, 1);
	/* of another handshake: an ECDSA signature's DER length varies by a few bytes */
	assert_true(one.writes[0] + 8 >= written && one.writes[0] <= written + 8);
}

static void certs_refused(void **state)
{
	(void)state;
	pq_diag d = {0};
	pq_model_base b = {.n = 99};
	assert_int_equal(pq_model_base_certs(chain_dir, "--certs", "X448", 0, &b, &d), PQ_EINVAL);
	assert_non_null(strstr(pq_diag_msg(&d), "key-exchange group 'X448' is unknown to the flight model"));
	assert_non_null(strstr(pq_diag_msg(&d), "accepted: X25519, X25519MLKEM768"));
	assert_int_equal(pq_model_base_certs(chain_dir, "--certs", NULL, 0, &b, &d), PQ_EINVAL);
	assert_non_null(strstr(pq_diag_msg(&d), "group ''"));

	/* a directory without a chain: the caller's name for it first */
	char empty[300];
	snprintf(empty, sizeof empty, "%s/empty", chain_dir);
	assert_int_equal(mkdir(empty, 0700), 0);
	assert_true(pq_model_base_certs(empty, "--certs", "X25519", 0, &b, &d) < 0);
	assert_true(strncmp(pq_diag_msg(&d), "--certs: ", 9) == 0);
	assert_int_equal(b.n, 99); /* untouched */
	rmdir(empty);
}

static void from_alg(void **state)
{
	(void)state;
	pq_diag d = {0};
	pq_model_base b;
	assert_int_equal(pq_model_base_alg("ml-dsa-65", "--leaf", 2, "X25519", 0, &b, &d), 0);
	assert_string_equal(b.leaf_alg, "ml-dsa-65");
	assert_string_equal(b.group, "X25519");
	assert_int_equal(b.n, 3);
	assert_int_equal(b.der[0] + b.der[1] + b.der[2], 3);
	assert_int_equal(b.measured, 0);
	assert_int_equal(b.tickets, 0);
	assert_true(b.client_hello > 100 && b.client_hello < 1000); /* X25519 alone: small */
	assert_ptr_equal(b.acct_in.der, b.der);
	assert_true(b.rule.n_writes >= 1);

	assert_int_equal(pq_model_base_alg("ml-dsa-65", "--leaf", 0, "X25519", 0, &b, &d), 0);
	assert_int_equal(b.n, 1);
	assert_int_equal(pq_model_base_alg("ml-dsa-65", "--leaf", PQ_MODEL_BASE_CERTS - 1, "X25519", 0, &b, &d), 0);
	assert_int_equal(b.n, PQ_MODEL_BASE_CERTS);
}

static void alg_refused(void **state)
{
	(void)state;
	pq_diag d = {0};
	pq_model_base b;
	assert_int_equal(pq_model_base_alg("ml-dsa-65", "--leaf", -1, "X25519", 0, &b, &d), PQ_ERANGE);
	assert_string_equal(pq_diag_msg(&d), "-1 intermediates (accepted: 0 to 15)");
	assert_int_equal(pq_model_base_alg("ml-dsa-65", "--leaf", PQ_MODEL_BASE_CERTS, "X25519", 0, &b, &d),
			 PQ_ERANGE);
	assert_string_equal(pq_diag_msg(&d), "16 intermediates (accepted: 0 to 15)");
	assert_true(pq_model_base_alg("ml-dsa-99", "--leaf", 1, "X25519", 0, &b, &d) < 0);
	assert_non_null(strstr(pq_diag_msg(&d), "--leaf"));
	assert_non_null(strstr(pq_diag_msg(&d), "ml-dsa-99"));
	assert_int_equal(pq_model_base_alg("ml-dsa-65", "--leaf", 1, "ffdhe2048", 0, &b, &d), PQ_EINVAL);
	assert_non_null(strstr(pq_diag_msg(&d), "'ffdhe2048'"));
}

static void views(void **state)
{
	(void)state;
	pq_diag d = {0};
	pq_model_base b;
	pq_model_in in;
	assert_int_equal(pq_model_base_alg("ecdsa-p256", "--leaf", 1, "X25519", 0, &b, &d), 0);
	/* by the rule: its writes */
	pq_model_base_net(&b, 1448, 10, 5000, &in);
	assert_int_equal(in.mss, 1448);
	assert_int_equal(in.iw, 10);
	assert_int_equal(in.response, 5000);
	assert_int_equal(in.client_hello, b.client_hello);
	assert_ptr_equal(in.server_writes, b.rule.writes);
	assert_int_equal(in.n_server_writes, b.rule.n_writes);
	assert_int_equal(in.hrr, 0);
	/* measured: its own writes */
	b.measured = 1;
	b.writes[0] = 4000;
	b.n_writes = 1;
	b.tickets = 500;
	pq_model_base_net(&b, 1448, 10, 0, &in);
	assert_ptr_equal(in.server_writes, b.writes);
	assert_int_equal(in.n_server_writes, 1);
	assert_int_equal(in.tickets, 500);

	/* a measured offer that draws a HelloRetryRequest */
	pq_tls_hello h = {.client_hello = {1700, 1500}, .hrr = 1, .hrr_bytes = 99};
	pq_model_base_hello(&b, &h);
	assert_int_equal(b.client_hello, 1700);
	assert_int_equal(b.client_hello2, 1500);
	pq_model_base_net(&b, 1448, 10, 0, &in);
	assert_int_equal(in.hrr, 1);
	assert_int_equal(in.hrr_bytes, 99);
	assert_int_equal(in.client_hello2, 1500);

	/* QUIC: the same calls by hand, on the messages without their 5-byte record header */
	pq_model_quic got, want;
	pq_model_base_quic(&b, 9000, 120, 1, &got);
	pq_model_quic_flight(1695, 9000, &want);
	pq_model_quic_crypto(&want, 120, PQ_MODEL_QUIC_CRYPTO_BUF);
	pq_model_quic_retry(&want);
	pq_model_quic_hrr(&want, 1495);
	assert_memory_equal(&got, &want, sizeof got);
	assert_true(got.hrr_rtts > 0 && got.retry_rtts > 0);
	/* without HRR or Retry, and a ClientHello no longer than a header: none left */
	b.hrr = 0;
	b.client_hello = 5;
	pq_model_base_quic(&b, 9000, 120, 0, &got);
	pq_model_quic_flight(0, 9000, &want);
	pq_model_quic_crypto(&want, 120, PQ_MODEL_QUIC_CRYPTO_BUF);
	assert_memory_equal(&got, &want, sizeof got);
	assert_int_equal(got.retry_rtts, 0);
	assert_int_equal(got.hrr_rtts, 0);
}

static int setup(void **state)
{
	(void)state;
	return testchain_make("ecdsa-p256");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(from_certs),
	    cmocka_unit_test(certs_refused),
	    cmocka_unit_test(from_alg),
	    cmocka_unit_test(alg_refused),
	    cmocka_unit_test(views),
	};
	return cmocka_run_group_tests(tests, setup, testchain_remove);
}
