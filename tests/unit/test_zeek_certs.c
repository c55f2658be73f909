/* zeek/certs: x509.log and files.log into the certificate table (TSV and JSON, fuid and
 * sha256 ids, base64 certs), chains evaluated as logged and with ML-DSA, unknown sizes
 * and groups, malformed lines counted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testdir.h"
#include "zeek/certs.h"


static void load_and_eval(void **state)
{
	(void)state;
	pq_zeek_certdb db;
	pq_diag d = {0};
	pq_zeek_certdb_init(&db);
	assert_int_equal(pq_zeek_certdb_load(&db, testdir_write("x509.log",
		"#fields\tid\tcertificate.sig_alg\tcertificate.key_type\tcertificate.key_length\tcertificate.curve\tcert\n"
		"A\tsha256WithRSAEncryption\trsa\t2048\t-\t-\n"
		"B\tsha256WithRSAEncryption\trsa\t2048\t-\t-\n"
		"C\tML-DSA-44\tML-DSA-44\t10496\t-\tQUJDRA==\n"
		"a line with the wrong field count\n"), &d), 0);
	assert_int_equal(pq_zeek_certdb_load(&db, testdir_write("files.json",
		"{\"fuid\":\"A\",\"mime_type\":\"application/x-x509-user-cert\",\"seen_bytes\":1400}\n"
		"{\"fuid\":\"B\",\"seen_bytes\":1100,\"sha256\":\"B2\"}\n"
		"{\"fuid\":\"H\",\"mime_type\":\"text/html\",\"seen_bytes\":99}\n"
		"{not json\n"), &d), 0);
	assert_int_equal(db.x509_rows, 3);
	assert_int_equal(db.files_rows, 2);
	assert_int_equal(db.bad, 2);
	const pq_zeek_cert *c = pq_zeek_map_find(&db.certs, "A", 1);
	assert_non_null(c);
	assert_int_equal(c->der, 1400);
	assert_int_equal(c->pub, 256);
	assert_int_equal(c->sig_in, 256);
	assert_non_null(pq_zeek_map_find(&db.certs, "B2", 2)); /* by sha256 too */
	assert_null(pq_zeek_map_find(&db.certs, "H", 1));     /* not a certificate */
	c = pq_zeek_map_find(&db.certs, "C", 1);
	assert_int_equal(c->der, 4); /* base64 "ABCD" */
	assert_int_equal(c->pub, 1312);
	assert_int_equal(c->sig_in, 2420);

	pq_zeek_map chains;
	pq_zeek_map_init(&chains, sizeof(uint64_t));
	*(uint64_t *)pq_zeek_map_get(&chains, "A\nB", 3, NULL) = 5;
	*(uint64_t *)pq_zeek_map_get(&chains, "A\nZ", 3, NULL) = 2; /* Z unknown */
	pq_zeek_certstats st;
	assert_int_equal(pq_zeek_certs_eval(&db, &chains, "X25519MLKEM768", &st, &d), 0);
	assert_int_equal(st.chains, 2);
	assert_int_equal(st.conns, 7);
	assert_int_equal(st.known_conns, 5);
	assert_true(st.median_der[PQ_ZCERT_ASIS] == 2500);
	/* Each certificate loses 256 + 256 RSA bytes and gains ML-DSA's key and signature. */
	assert_true(st.median_der[PQ_ZCERT_MLDSA44] == 2500 - 2 * 512 + 2 * (1312 + 2420));
	assert_int_equal(st.fits[PQ_ZCERT_ASIS], 5);
	assert_int_equal(st.plus1[PQ_ZCERT_MLDSA65], 5);
	assert_int_equal(pq_zeek_certs_eval(&db, &chains, "bogus", &st, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "bogus"));
	assert_int_not_equal(pq_zeek_certdb_load(&db, "/nonexistent/x509.log", &d), 0);
	assert_non_null(strstr(d.msg, "/nonexistent/x509.log"));
	pq_zeek_map_dispose(&chains);
	pq_zeek_certdb_dispose(&db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(load_and_eval),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
