/* tls/hello: the offer as one OpenSSL list, and in-memory ClientHellos against servers
 * that take the share, ask again (HelloRetryRequest), or share no group at all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tls/hello.h"

static void offer_lists(void **state)
{
	(void)state;
	char buf[128];
	pq_diag d = {0};
	assert_int_equal(pq_tls_groups_offer("X25519MLKEM768:X25519", NULL, "groups", buf, sizeof buf, &d), 0);
	assert_string_equal(buf, "*X25519MLKEM768:X25519");
	assert_int_equal(pq_tls_groups_offer("X25519MLKEM768:X25519", "x25519", "groups", buf, sizeof buf, &d), 0);
	assert_string_equal(buf, "X25519MLKEM768:*X25519");
	assert_int_equal(pq_tls_groups_offer("X25519MLKEM768:X25519", "X25519:X25519MLKEM768", "groups", buf,
					     sizeof buf, &d), 0);
	assert_string_equal(buf, "*X25519MLKEM768:*X25519");
	assert_int_equal(pq_tls_groups_offer("X25519", NULL, "groups", buf, sizeof buf, &d), 0);
	assert_string_equal(buf, "*X25519");
}

static void offer_errors(void **state)
{
	(void)state;
	char buf[16];
	pq_diag d = {0};
	assert_int_equal(pq_tls_groups_offer("X25519MLKEM768:X25519", "MLKEM768", "key-share", buf,
					     sizeof buf, &d), PQ_EINVAL);
	assert_non_null(strstr(pq_diag_msg(&d), "key-share: the key share 'MLKEM768' is not among the groups offered"));
	assert_int_equal(pq_tls_groups_offer("", NULL, "groups", buf, sizeof buf, &d), PQ_EINVAL);
	assert_non_null(strstr(pq_diag_msg(&d), "empty"));
	assert_int_equal(pq_tls_groups_offer("X25519", "", "key-share", buf, sizeof buf, &d), PQ_EINVAL);
	assert_int_equal(pq_tls_groups_offer("X25519MLKEM768:X25519", NULL, "groups", buf, sizeof buf, &d),
			 PQ_EINVAL);
	assert_non_null(strstr(pq_diag_msg(&d), "too long"));
}

static void right_guess(void **state)
{
	(void)state;
	pq_tls_hello h;
	pq_diag d = {0};
	assert_int_equal(pq_tls_hello_measure("*X25519MLKEM768:X25519", "X25519MLKEM768/X25519", &h, &d), 0);
	assert_false(h.hrr);
	assert_string_equal(h.group, "X25519MLKEM768");
	assert_true(h.client_hello[0] > 1216 + 4);
	assert_int_equal(h.client_hello[1], 0);
	assert_int_equal(h.hrr_bytes, 0);
}

static void wrong_guess(void **state)
{
	(void)state;
	pq_tls_hello right, wrong;
	assert_int_equal(pq_tls_hello_measure("*X25519MLKEM768:X25519", "X25519MLKEM768/X25519", &right, NULL), 0);
	assert_int_equal(pq_tls_hello_measure("X25519MLKEM768:*X25519", "X25519MLKEM768/X25519", &wrong, NULL), 0);
	assert_true(wrong.hrr);
	assert_string_equal(wrong.group, "X25519MLKEM768");
	/* a 32-byte X25519 share first, then the 1216-byte hybrid one */
	assert_int_equal(wrong.client_hello[0] + 1216 - 32, right.client_hello[0]);
	assert_true(wrong.client_hello[1] > right.client_hello[0]); /* plus a cookie-less CCS */
	assert_true(wrong.hrr_bytes > 0 && wrong.hrr_bytes < 200);
	/* one tuple: the X25519 share is taken as it is */
	pq_tls_hello one;
	assert_int_equal(pq_tls_hello_measure("X25519MLKEM768:*X25519", "X25519MLKEM768:X25519", &one, NULL), 0);
	assert_false(one.hrr);
	assert_string_equal(one.group, "x25519");
}

static void both_shares(void **state)
{
	(void)state;
	pq_tls_hello one, both;
	assert_int_equal(pq_tls_hello_measure("*X25519MLKEM768:X25519", NULL, &one, NULL), 0);
	assert_int_equal(pq_tls_hello_measure("*X25519MLKEM768:*X25519", NULL, &both, NULL), 0);
	assert_false(both.hrr);
	assert_int_equal(both.client_hello[0], one.client_hello[0] + 4 + 32); /* group, length, share */
}

static void failures(void **state)
{
	(void)state;
	pq_tls_hello h;
	pq_diag d = {0};
	assert_int_equal(pq_tls_hello_measure("*NOPE1", NULL, &h, &d), PQ_EINVAL);
	assert_non_null(strstr(pq_diag_msg(&d), "NOPE1"));
	assert_int_equal(pq_tls_hello_measure("*X25519", "MLKEM768", &h, &d), PQ_ETLS);
	assert_non_null(strstr(pq_diag_msg(&d), "client groups *X25519, server groups MLKEM768"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(offer_lists), cmocka_unit_test(offer_errors), cmocka_unit_test(right_guess),
		cmocka_unit_test(wrong_guess), cmocka_unit_test(both_shares),	cmocka_unit_test(failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
