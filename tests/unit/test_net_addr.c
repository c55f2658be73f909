/* net/addr: endpoint addresses as users type them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "net/addr.h"

static void addr_parse(void **state)
{
	(void)state;
	pq_addr a;
	pq_diag d;
	char buf[80];
	assert_int_equal(pq_addr_parse("127.0.0.1:8443", "--x", 0, &a, &d), 0);
	assert_int_equal(a.port, 8443);
	assert_string_equal(a.host, "127.0.0.1");
	assert_string_equal(pq_addr_format((struct sockaddr *)&a.sa, buf, sizeof buf), "127.0.0.1:8443");
	assert_int_equal(pq_addr_parse("[::1]:443", "--x", 0, &a, &d), 0);
	assert_string_equal(a.host, "::1");
	assert_string_equal(pq_addr_format((struct sockaddr *)&a.sa, buf, sizeof buf), "[::1]:443");
	assert_int_equal(pq_addr_parse("127.0.0.1:0", "--x", 1, &a, &d), 0);
	assert_int_equal(pq_addr_parse("127.0.0.1:0", "--x", 0, &a, &d), PQ_EINVAL);
	static const char *const bad[] = {"127.0.0.1", ":80", "127.0.0.1:", "1.2.3.4:x",
					  "[::1:80", "::1:80", "127.0.0.1:70000"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(pq_addr_parse(bad[i], "--x", 0, &a, &d), PQ_EINVAL);
		assert_non_null(strstr(d.msg, "--x"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(addr_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
