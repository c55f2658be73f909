#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/units.h"

static void sizes(void **state)
{
	(void)state;
	uint64_t v = 0;
	assert_int_equal(pq_parse_size("1500", "x", &v, NULL), 0);
	assert_int_equal(v, 1500);
	assert_int_equal(pq_parse_size("16KiB", "x", &v, NULL), 0);
	assert_int_equal(v, 16384);
	assert_int_equal(pq_parse_size("20KB", "x", &v, NULL), 0);
	assert_int_equal(v, 20000);
	assert_int_equal(pq_parse_size("1.5MiB", "x", &v, NULL), 0);
	assert_int_equal(v, 1572864);
	assert_int_equal(pq_parse_size("0B", "x", &v, NULL), 0);
	assert_int_equal(v, 0);
}

static void sizes_bad(void **state)
{
	(void)state;
	uint64_t v = 7;
	pq_diag d;
	assert_int_equal(pq_parse_size("12 parsecs", "--pad-chain-to", &v, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "--pad-chain-to"));
	assert_non_null(strstr(d.msg, "KiB"));
	assert_int_equal(v, 7);
	assert_int_equal(pq_parse_size("-5", "x", &v, NULL), PQ_EINVAL);
	assert_int_equal(pq_parse_size("", "x", &v, NULL), PQ_EINVAL);
	assert_int_equal(pq_parse_size("1.5B", "x", &v, NULL), PQ_EINVAL);
	assert_int_equal(pq_parse_size("99999999999GiB", "x", &v, NULL), PQ_EINVAL);
	assert_int_equal(pq_parse_size(NULL, "x", &v, NULL), PQ_EINVAL);
}

static void durations(void **state)
{
	(void)state;
	int64_t v = 0;
	assert_int_equal(pq_parse_duration("70ms", "x", &v, NULL), 0);
	assert_int_equal(v, 70000000);
	assert_int_equal(pq_parse_duration("1.5s", "x", &v, NULL), 0);
	assert_int_equal(v, 1500000000);
	assert_int_equal(pq_parse_duration("250us", "x", &v, NULL), 0);
	assert_int_equal(v, 250000);
	assert_int_equal(pq_parse_duration("0", "x", &v, NULL), 0);
	assert_int_equal(v, 0);
	assert_int_equal(pq_parse_duration("2m", "x", &v, NULL), 0);
	assert_int_equal(v, 120000000000LL);
}

static void durations_bad(void **state)
{
	(void)state;
	int64_t v = 0;
	pq_diag d;
	assert_int_equal(pq_parse_duration("70", "--rtt", &v, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "--rtt"));
	assert_non_null(strstr(d.msg, "ms"));
	assert_int_equal(pq_parse_duration("-5ms", "--rtt", &v, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "negative"));
	assert_int_equal(pq_parse_duration("5 fortnights", "x", &v, NULL), PQ_EINVAL);
	assert_int_equal(pq_parse_duration("1e300s", "x", &v, NULL), PQ_EINVAL);
}

static void rates(void **state)
{
	(void)state;
	uint64_t v = 0;
	assert_int_equal(pq_parse_rate("20Mbit", "x", &v, NULL), 0);
	assert_int_equal(v, 20000000);
	assert_int_equal(pq_parse_rate("1Gbit/s", "x", &v, NULL), 0);
	assert_int_equal(v, 1000000000);
	assert_int_equal(pq_parse_rate("2.5MB/s", "x", &v, NULL), 0);
	assert_int_equal(v, 20000000);
	assert_int_equal(pq_parse_rate("0", "x", &v, NULL), 0);
	assert_int_equal(v, 0);
	pq_diag d;
	assert_int_equal(pq_parse_rate("20", "--rate", &v, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "Mbit"));
	/* Rounded to 0 bit/s it would mean unlimited: refused. */
	assert_int_equal(pq_parse_rate("0.0001bit", "--rate", &v, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "--rate: '0.0001bit' is below 1 bit/s"));
	assert_int_equal(pq_parse_rate("fast", "--rate", &v, &d), PQ_EINVAL);
}

static void fractions(void **state)
{
	(void)state;
	double v = 0;
	assert_int_equal(pq_parse_fraction("0.5%", "x", &v, NULL), 0);
	assert_float_equal(v, 0.005, 1e-12);
	assert_int_equal(pq_parse_fraction("0.2", "x", &v, NULL), 0);
	assert_float_equal(v, 0.2, 1e-12);
	assert_int_equal(pq_parse_fraction("100%", "x", &v, NULL), 0);
	assert_float_equal(v, 1.0, 1e-12);
	pq_diag d;
	assert_int_equal(pq_parse_fraction("101%", "--loss", &v, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "100%"));
	assert_int_equal(pq_parse_fraction("-1%", "--loss", &v, &d), PQ_EINVAL);
	assert_int_equal(pq_parse_fraction("1.5", "--loss", &v, &d), PQ_EINVAL);
	assert_int_equal(pq_parse_fraction("lots", "--loss", &v, &d), PQ_EINVAL);
}

static void ints(void **state)
{
	(void)state;
	long long v = 0;
	pq_diag d;
	assert_int_equal(pq_parse_int("10k", "x", 0, 1000000, &v, NULL), 0);
	assert_int_equal(v, 10000);
	assert_int_equal(pq_parse_int("5", "--intermediates", 0, 4, &v, NULL), PQ_ERANGE);
	assert_int_equal(pq_parse_int("5", "--intermediates", 0, 4, &v, &d), PQ_ERANGE);
	assert_non_null(strstr(d.msg, "0 to 4"));
	assert_int_equal(pq_parse_int("two", "x", 0, 4, &v, NULL), PQ_EINVAL);
	assert_int_equal(pq_parse_int("3x", "x", 0, 4, &v, NULL), PQ_EINVAL);
	/* Found by fuzz/fuzz_units.c: the M suffix overflowed (undefined behaviour). */
	assert_int_equal(pq_parse_int("22222222222232M", "x", 0, 4, &v, NULL), PQ_ERANGE);
	double dv;
	assert_int_equal(pq_parse_double("0.8", "x", 0, 1, &dv, NULL), 0);
	assert_int_equal(pq_parse_double("nan", "x", 0, 1, &dv, NULL), PQ_EINVAL);
	assert_int_equal(pq_parse_double("2", "x", 0, 1, &dv, NULL), PQ_ERANGE);
}

static void formatting(void **state)
{
	(void)state;
	char b[32];
	assert_string_equal(pq_fmt_size(b, sizeof b, 812), "812 B");
	assert_string_equal(pq_fmt_size(b, sizeof b, 15872), "15.5 KiB");
	assert_string_equal(pq_fmt_duration(b, sizeof b, 70000000), "70.0 ms");
	assert_string_equal(pq_fmt_duration(b, sizeof b, 812000), "812 us");
	assert_string_equal(pq_fmt_rate(b, sizeof b, 20000000), "20.0 Mbit/s");
	assert_string_equal(pq_fmt_rate(b, sizeof b, 0), "unlimited");
	assert_string_equal(pq_fmt_rate(b, sizeof b, 1), "1 bit/s"); /* not "0.0 kbit/s" */
	assert_string_equal(pq_fmt_rate(b, sizeof b, 999), "999 bit/s");
	assert_string_equal(pq_fmt_rate(b, sizeof b, 8000), "8.0 kbit/s");
}

/* Each unit ladder at the edges of its steps: a value equal to a step's bound is the next
 * step's; the first step prints whole numbers; a negative duration steps by its size. */
static void formatting_edges(void **state)
{
	(void)state;
	static const struct {
		char kind; /* s size, d duration, r rate */
		long long v;
		const char *want;
	} edges[] = {
	    {'s', 0, "0 B"},		      {'s', 1023, "1023 B"},	       {'s', 1024, "1.0 KiB"},
	    {'s', 1048576, "1.0 MiB"},	      {'s', 1073741824LL, "1.00 GiB"}, {'d', 999, "999 ns"},
	    {'d', -999, "-999 ns"},	      {'d', 1000, "1 us"},	       {'d', -1500000, "-1.5 ms"},
	    {'d', 1000000000, "1.00 s"},      {'r', 1000, "1.0 kbit/s"},       {'r', 1000000000LL, "1.00 Gbit/s"},
	};
	char b[32];
	for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
		long long v = edges[i].v;
		const char *got = edges[i].kind == 's'	 ? pq_fmt_size(b, sizeof b, (uint64_t)v)
				  : edges[i].kind == 'd' ? pq_fmt_duration(b, sizeof b, (int64_t)v)
							 : pq_fmt_rate(b, sizeof b, (uint64_t)v);
		assert_string_equal(got, edges[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sizes),     cmocka_unit_test(sizes_bad), cmocka_unit_test(durations),
		cmocka_unit_test(durations_bad), cmocka_unit_test(rates), cmocka_unit_test(fractions),
		cmocka_unit_test(ints),	     cmocka_unit_test(formatting), cmocka_unit_test(formatting_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
