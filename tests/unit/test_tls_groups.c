/* tls/groups: every group name asked of OpenSSL, lists with their separators, and the
 * refusals (an unknown name with the known ones, an empty element, a separator or a
 * prefix the syntax does not take), each naming the input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tls/groups.h"

static void refused(const char *list, const char *syntax, const char *want)
{
	pq_diag d = {0};
	int rc = pq_tls_groups_check(list, syntax, "what", &d);
	if (rc != PQ_EINVAL || !strstr(pq_diag_msg(&d), want))
		fail_msg("'%s' (syntax '%s'): rc %d, message '%s', wanted '%s'", list, syntax, rc, pq_diag_msg(&d), want);
}

static void names_and_lists(void **state)
{
	(void)state;
	pq_diag d = {0};
	assert_int_equal(pq_tls_groups_check("X25519MLKEM768", "", "what", &d), 0);
	assert_int_equal(pq_tls_groups_check("x25519", "", "what", &d), 0); /* OpenSSL's case rule */
	assert_int_equal(pq_tls_groups_check("P-256", "", "what", &d), 0);  /* an alias OpenSSL takes */
	assert_int_equal(pq_tls_groups_check("X25519MLKEM768:X25519", ":", "what", &d), 0);
	assert_int_equal(pq_tls_groups_check("X25519MLKEM768/X25519:secp256r1", ":/", "what", &d), 0);
	/* OpenSSL's whole syntax where it is asked for (bench's and serve's --groups) */
	assert_int_equal(pq_tls_groups_check("X25519MLKEM768:*X25519:?NoSuch:-x448", PQ_TLS_GROUPS_OPENSSL, "what", &d), 0);
	assert_int_equal(pq_tls_groups_check("DEFAULT", PQ_TLS_GROUPS_OPENSSL, "what", &d), 0);
}

static void refusals(void **state)
{
	(void)state;
	refused("X25519MLKEM769", "", "what: 'X25519MLKEM769' is not a group this OpenSSL knows; known: ");
	refused("X25519MLKEM769", "", " X25519MLKEM768 ");
	refused("X25519MLKEM768:bogus", ":", "what: 'bogus' in 'X25519MLKEM768:bogus' is not a group this OpenSSL knows");
	refused("X25519MLKEM768::X25519", ":", "what: 'X25519MLKEM768::X25519' has an empty element; give group names "
					       "separated by ':'");
	refused("X25519MLKEM768//X25519", ":/", "has an empty element; give group names separated by ':' or '/'");
	refused("X25519:", ":", "has an empty element");
	refused(":X25519", ":", "has an empty element");
	refused("", ":", "what: an empty list");
	refused("X25519MLKEM768:X25519", "", "':' does not separate groups here; give one group name");
	refused("X25519MLKEM768/X25519", ":", "'/' does not separate groups here");
	refused("*X25519", ":", "OpenSSL's prefix '*' is not taken here");
	refused("?NoSuch", "", "OpenSSL's prefix '?' is not taken here");
	refused("DEFAULT", "", "'DEFAULT' is OpenSSL's list of groups, not a group");
	refused("X25519//x448", PQ_TLS_GROUPS_OPENSSL, "has an empty element");
	refused("X25519:NoSuch", PQ_TLS_GROUPS_OPENSSL, "'NoSuch' in 'X25519:NoSuch' is not a group");
	char longname[200];
	memset(longname, 'x', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	refused(longname, "", "is not a group this OpenSSL knows");
}

static void membership(void **state)
{
	(void)state;
	assert_true(pq_tls_groups_has("X25519MLKEM768/X25519", "x25519", 6));
	assert_true(pq_tls_groups_has("*X25519MLKEM768:*X25519", "X25519MLKEM768", 14));
	assert_false(pq_tls_groups_has("X25519MLKEM768", "X25519", 6));
	assert_true(pq_tls_groups_meet("X25519MLKEM768:X25519", "secp256r1/X25519"));
	assert_false(pq_tls_groups_meet("X25519MLKEM768", "X25519:secp256r1"));
	char buf[600];
	assert_non_null(strstr(pq_tls_groups_known(buf, sizeof buf), "X25519MLKEM768"));
	assert_int_equal(strlen(pq_tls_groups_known(buf, 8)), 7); /* cut, still a string */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_and_lists),
		cmocka_unit_test(refusals),
		cmocka_unit_test(membership),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
