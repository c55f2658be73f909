/* The first-flight model against the flights measured with OpenSSL 3.5.7 s_client -msg
 * (pq-facts.md section 6). Each measured row gives the Certificate message; its DER sum
 * is that minus 18 (two certificates: 4 + 1 + 3 + 2 x (3 + 2)), so the rows check the
 * rest of the model: ServerHello per group, CCS, EE, record framing and splitting,
 * CertificateVerify, Finished, segments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
/* cmocka needs the headers above. */
#include <cmocka.h>

#include "pki/acct.h"

struct row {
	const char *what;
	size_t cert_msg, sig, flight, segments, flat;
	int fits;
	unsigned rounds;
};

/* X25519MLKEM768 (the default group), server EE empty. */
static const struct row measured[] = {
    {"Ed25519", 789, 64, 2228, 2, 2, 1, 1},
    {"ECDSA P-256 (70-byte DER signature)", 922, 70, 2367, 2, 2, 1, 1},
    {"RSA-2048", 1709, 256, 3340, 3, 3, 1, 1},
    /* writes 4096 + 524: 3 + 1 */
    {"RSA-4096", 2733, 512, 4620, 4, 4, 1, 1},
    /* 4096 + 5284 + 2524: 3 + 4 + 2 */
    {"ML-DSA-44", 8109, 2420, 11904, 9, 9, 1, 1},
    /* 4096 + 8342 + 3413: 3 + 6 + 3, one more than the flat 11 */
    {"ML-DSA-65", 11167, 3309, 15851, 12, 11, 0, 2},
    /* 4096 + 12258 + 4657 + 74: 3 + 9 + 4 + 1 */
    {"ML-DSA-87", 15083, 4627, 21085, 17, 15, 0, 2},
    {"ML-DSA-65 leaf, SLH-DSA-128s CA", 18295, 3309, 23001, 17, 16, 0, 2},
    {"ML-DSA-65 leaf, SLH-DSA-256f CA", 102339, 3309, 107155, 79, 75, 0, 4},
};

static void measured_rows(void **state)
{
	(void)state;
	const pq_acct_group *g = pq_acct_group_find("x25519mlkem768");
	assert_non_null(g);
	for (size_t i = 0; i < sizeof measured / sizeof measured[0]; i++) {
		const struct row *r = &measured[i];
		size_t der[2] = {r->cert_msg - 18 - r->cert_msg / 3, r->cert_msg / 3};
		pq_acct_in in = {
		    .der = der, .n = 2, .sig_bytes = r->sig, .server_share = g->server_share};
		pq_acct a;
		assert_int_equal(pq_acct_flight(&in, &a, NULL), 0);
		print_message("%-34s flight %zu (measured %zu)\n", r->what, a.flight, r->flight);
		assert_int_equal(a.server_hello, 1210);
		assert_int_equal(a.cert_msg, r->cert_msg);
		assert_int_equal(a.cert_verify, 4 + 2 + 2 + r->sig);
		assert_int_equal(a.flight, r->flight);
		assert_int_equal(a.segments, r->segments);
		assert_int_equal(a.segments_flat, r->flat);
		assert_int_equal(a.fits_iw, r->fits);
		assert_int_equal(a.rounds, r->rounds);
	}
}

/* With X25519 the default server lists its 8 groups in EE (X25519 is not its first
 * choice): 6 + 4 + 2 + 16 bytes. Measured: ML-DSA-65 14,785; ECDSA P-256 1,301. */
static void x25519_rows(void **state)
{
	(void)state;
	const pq_acct_group *g = pq_acct_group_find("X25519");
	size_t der_mldsa[2] = {11167 - 18 - 5601, 5601}, der_ec[2] = {922 - 18 - 450, 450};
	pq_acct a;
	pq_acct_in in = {.der = der_mldsa,
			 .n = 2,
			 .sig_bytes = 3309,
			 .server_share = g->server_share,
			 .ee_bytes = 28};
	assert_int_equal(pq_acct_flight(&in, &a, NULL), 0);
	assert_int_equal(a.server_hello, 122);
	assert_int_equal(a.flight, 14785);
	in.der = der_ec;
	in.sig_bytes = 70;
	assert_int_equal(pq_acct_flight(&in, &a, NULL), 0);
	assert_int_equal(a.flight, 1301);
}

/* TLS 1.2 sizes as in the Zeek web chains' manifest (tls1.2.chain.pem). */
static void tls12_and_cert_msg(void **state)
{
	(void)state;
	size_t der[3] = {1449, 1280, 1082};
	assert_int_equal(pq_acct_tls12_list(der, 3), 3820);
	assert_int_equal(pq_acct_cert_msg(der, 3), 4 + 1 + 3 + 3811 + 3 * 5);
	assert_int_equal(pq_acct_cert_msg(der, 0), 8);
}

static void records_split(void **state)
{
	(void)state;
	assert_int_equal(pq_wire_records(0), 22);
	assert_int_equal(pq_wire_records(16384), 16384 + 22);
	assert_int_equal(pq_wire_records(16385), 16385 + 44);
	assert_int_equal(pq_wire_records(102339), 102339 + 7 * 22);
	/* The resumed flight with X25519: SH record 5 + 122, psk 6, CCS 6, EE 6 + 22,
	 * Finished 52 + 22. */
	assert_int_equal(pq_acct_server_hello(32), 122);
	assert_int_equal(pq_acct_resumed_flight(32), 5 + 122 + 6 + 6 + 28 + 74);
}

static void groups(void **state)
{
	(void)state;
	int common = 0;
	for (size_t i = 0; i < pq_acct_group_count(); i++)
		common += pq_acct_group_at(i)->common;
	assert_int_equal(common, 4);
	assert_null(pq_acct_group_find("x448mlkem"));
	assert_null(pq_acct_group_at(pq_acct_group_count()));
	assert_int_equal(pq_acct_group_find("SecP256r1MLKEM768")->server_share, 1153);
	assert_int_equal(pq_acct_server_hello(1088), 1178);
}

static void limits(void **state)
{
	(void)state;
	pq_diag d = {0};
	pq_acct a;
	size_t der[2] = {1000, 0x1000000};
	pq_acct_in in = {.der = der, .n = 0, .sig_bytes = 64, .server_share = 32};
	assert_int_equal(pq_acct_flight(&in, &a, &d), PQ_ERANGE);
	assert_non_null(strstr(d.msg, "no certificate"));
	in.n = 2;
	assert_int_equal(pq_acct_flight(&in, &a, &d), PQ_ERANGE);
	assert_non_null(strstr(d.msg, "certificate 1 is 16777216 bytes"));
	der[1] = 1000;
	in.sig_bytes = 70000;
	assert_int_equal(pq_acct_flight(&in, &a, &d), PQ_ERANGE);
	assert_non_null(strstr(d.msg, "CertificateVerify"));
	size_t big[2] = {0xfffff0, 0xfffff0};
	in.der = big;
	in.sig_bytes = 64;
	assert_int_equal(pq_acct_flight(&in, &a, &d), PQ_ERANGE);
	assert_non_null(strstr(d.msg, "exceeds the TLS limit"));
}

static void mss_and_window(void **state)
{
	(void)state;
	size_t der[1] = {10000};
	pq_acct_in in = {
	    .der = der, .n = 1, .sig_bytes = 2420, .server_share = 1120, .mss = 1000, .iw = 20};
	pq_acct a;
	assert_int_equal(pq_acct_flight(&in, &a, NULL), 0);
	assert_int_equal(a.segments_flat, (a.flight + 999) / 1000);
	assert_int_equal(a.segments, pq_acct_write_segments(a.writes, a.n_writes, 1000));
	assert_true(a.segments >= a.segments_flat);
	in.wbuf = SIZE_MAX; /* one write: the flat count */
	assert_int_equal(pq_acct_flight(&in, &a, NULL), 0);
	assert_int_equal(a.n_writes, 1);
	assert_int_equal(a.segments, a.segments_flat);
	assert_true(a.fits_iw);
	assert_int_equal(a.rounds, 1);
}

/* OpenSSL's BIO_f_buffer by hand: buffer 100 bytes. */
static void buffer_writes(void **state)
{
	(void)state;
	size_t w[4];
	size_t small[] = {30, 30, 30};		 /* all fit: one write at the flush */
	size_t overflow[] = {60, 70};		 /* 60 kept; 70 tops up to 100, 30 kept */
	size_t big[] = {60, 250, 20};		 /* 100, then 210 direct, then 20 */
	size_t direct[] = {250, 5};		 /* empty buffer: 250 direct */
	size_t exact[] = {40, 60};		 /* free space 60 is not > 60: flush */
	size_t many[] = {100, 100, 100, 100, 100, 7}; /* more writes than room */
	assert_int_equal(pq_acct_buffer_writes(small, 3, 100, w, 4), 1);
	assert_int_equal(w[0], 90);
	assert_int_equal(pq_acct_buffer_writes(overflow, 2, 100, w, 4), 2);
	assert_int_equal(w[0], 100);
	assert_int_equal(w[1], 30);
	assert_int_equal(pq_acct_buffer_writes(big, 3, 100, w, 4), 3);
	assert_int_equal(w[1], 210);
	assert_int_equal(w[2], 20);
	assert_int_equal(pq_acct_buffer_writes(direct, 2, 100, w, 4), 2);
	assert_int_equal(w[0], 250);
	assert_int_equal(w[1], 5);
	assert_int_equal(pq_acct_buffer_writes(exact, 2, 100, w, 4), 1);
	assert_int_equal(w[0], 100);
	assert_int_equal(pq_acct_buffer_writes(many, 6, 100, w, 4), 4);
	assert_int_equal(w[3], 207); /* the last entry absorbs the rest */
	assert_int_equal(pq_acct_buffer_writes(small, 3, 100, w, 0), 0);
	size_t segs[] = {4096, 8196, 3413}; /* ML-DSA-65's flight as OpenSSL writes it */
	assert_int_equal(pq_acct_write_segments(segs, 3, 1448), 3 + 6 + 3);
}

static void by_name(void **state)
{
	(void)state;
	size_t der[2] = {11167 - 18 - 5601, 5601};
	pq_acct a;
	pq_diag d = {0};
	assert_int_equal(pq_acct_flight_named(der, 2, "ml-dsa-65", "X25519MLKEM768", &a, &d), 0);
	assert_int_equal(a.flight, 15851);
	assert_int_equal(pq_acct_flight_named(der, 2, "p256-ml-dsa-44", "mlkem768", &a, &d), 0);
	assert_int_equal(a.cert_verify, 8 + 2420 + 72);
	assert_int_equal(pq_acct_flight_named(der, 2, "falcon-512", "X25519", &a, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "'falcon-512'"));
	assert_int_equal(pq_acct_flight_named(der, 2, "ed25519", "X448MLKEM", &a, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "TLS group 'X448MLKEM' is unknown"));
}

/* A size-emulated signature: the bytes beyond the real one move from CertificateVerify to
 * the leaf's CertificateEntry; the flight is the emulated scheme's to the byte. */
static void signature_carry(void **state)
{
	(void)state;
	size_t der[2] = {1811, 1747};
	pq_acct ideal, carried;
	pq_diag d = {0};
	pq_acct_in in = {.der = der, .n = 2, .sig_bytes = 666, .server_share = 1120};
	assert_int_equal(pq_acct_flight(&in, &ideal, &d), 0);
	in.cv_carry = 666 - 64;
	assert_int_equal(pq_acct_flight(&in, &carried, &d), 0);
	assert_int_equal(carried.flight, ideal.flight);
	assert_int_equal(carried.cert_msg, ideal.cert_msg + 602);
	assert_int_equal(carried.cert_verify, 4 + 2 + 2 + 64);
	in.cv_carry = 3;
	assert_int_equal(pq_acct_flight(&in, &carried, &d), PQ_ERANGE);
	assert_non_null(strstr(d.msg, "0 or 4..666"));
	in.cv_carry = 667;
	assert_int_equal(pq_acct_flight(&in, &carried, &d), PQ_ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(measured_rows),
	    cmocka_unit_test(x25519_rows),
	    cmocka_unit_test(tls12_and_cert_msg),
	    cmocka_unit_test(records_split),
	    cmocka_unit_test(groups),
	    cmocka_unit_test(limits),
	    cmocka_unit_test(mss_and_window),
	    cmocka_unit_test(buffer_writes),
	    cmocka_unit_test(by_name),
	    cmocka_unit_test(signature_carry),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
