/* zeek/rec: Zeek's escapes, addresses, times, versions, booleans. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "zeek/rec.h"

static void unescape(void **state)
{
	(void)state;
	char a[] = "\\x2c,CC\\x09x\\\\y";
	long n = pq_zeek_unescape(a, strlen(a));
	assert_int_equal(n, 8);
	assert_memory_equal(a, ",,CC\tx\\y", 8);
	char plain[] = "abc";
	assert_int_equal(pq_zeek_unescape(plain, 3), 3);
	const char *bad[] = {"\\xZZ", "\\x2", "ab\\", "\\q12", "\\x"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char b[16];
		strcpy(b, bad[i]);
		assert_int_equal(pq_zeek_unescape(b, strlen(b)), -1);
	}
}

static void addresses(void **state)
{
	(void)state;
	pq_zeek_addr a;
	char buf[64];
	assert_int_equal(pq_zeek_addr_parse("192.0.2.255", 11, &a), 0);
	assert_int_equal(a.fam, 4);
	assert_int_equal(a.b[3], 255);
	assert_int_equal(pq_zeek_addr_parse("2001:db8::1", 11, &a), 0);
	assert_int_equal(a.fam, 6);
	pq_zeek_addr_format(&a, buf, sizeof buf);
	assert_string_equal(buf, "2001:db8::1");
	const char *bad[] = {"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.04444", "1..2.3", "a.b.c.d",
			     "1.2.3.4 ", "-", "2001:db8:::1", "1.2.3.-4"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		assert_int_equal(pq_zeek_addr_parse(bad[i], strlen(bad[i]), &a), -1);
	char longv6[80];
	memset(longv6, ':', sizeof longv6);
	assert_int_equal(pq_zeek_addr_parse(longv6, sizeof longv6, &a), -1);
}

static void times(void **state)
{
	(void)state;
	int64_t t = 0;
	assert_int_equal(pq_zeek_time_parse("1379288668.148196", 17, &t), 0);
	assert_int_equal(t, 1379288668);
	assert_int_equal(pq_zeek_time_parse("1700000000", 10, &t), 0);
	assert_int_equal(t, 1700000000);
	assert_int_equal(pq_zeek_time_parse("-0.5", 4, &t), 0);
	assert_int_equal(t, -1); /* in the day before the epoch */
	assert_int_equal(pq_zeek_time_parse("2008-07-09T16:13:30.005432Z", 27, &t), 0);
	assert_int_equal(t, 1215620010);
	assert_int_equal(pq_zeek_time_parse("1969-12-31T23:59:59.600000Z", 27, &t), 0);
	assert_int_equal(t, -1);
	assert_int_equal(pq_zeek_time_parse("2024-02-29T00:00:00Z", 20, &t), 0);
	assert_int_equal(t, 1709164800);
	assert_int_equal(pq_zeek_time_parse("2000-02-29T00:00:00Z", 20, &t), 0); /* 400-year leap */
	assert_int_equal(pq_zeek_time_parse("2023-12-31T00:00:00Z", 20, &t), 0);
	const char *bad[] = {"XXXXXXXXXX.XXXXXX", "", "1.", ".5", "12a", "2008-13-09T16:13:30Z",
			     "2008-07-09 16:13:30Z", "2008-07-09T16:13:30", "9999999999999999",
			     /* days their months do not have (not read as the next month's) */
			     "2023-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2023-04-31T00:00:00Z",
			     "2023-11-31T12:00:00Z"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		assert_int_equal(pq_zeek_time_parse(bad[i], strlen(bad[i]), &t), -1);
}

static void versions_bools(void **state)
{
	(void)state;
	assert_int_equal(pq_zeek_version("TLSv13", 6), PQ_ZV_TLSv13);
	assert_int_equal(pq_zeek_version("DTLSv12", 7), PQ_ZV_DTLSv12);
	assert_int_equal(pq_zeek_version("TLSv13-draft23", 14), PQ_ZV_OTHER);
	assert_int_equal(pq_zeek_version("TLSv1", 5), PQ_ZV_OTHER);
	assert_string_equal(pq_zeek_version_name(PQ_ZV_UNSET), "unset");
	assert_string_equal(pq_zeek_version_name(99), "?");
	assert_int_equal(pq_zeek_bool("T", 1), 1);
	assert_int_equal(pq_zeek_bool("F", 1), 0);
	assert_int_equal(pq_zeek_bool("true", 4), -1);
	assert_int_equal(pq_zeek_bool("", 0), -1);
	assert_string_equal(pq_zeek_bad_name(PQ_ZB_GZIP), "GZIP");
	assert_non_null(strstr(pq_zeek_bad_text(PQ_ZB_ESCAPE), "escape"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unescape),
		cmocka_unit_test(addresses),
		cmocka_unit_test(times),
		cmocka_unit_test(versions_bools),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
