#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "net/steal.h"

static void parse_and_fraction(void **state)
{
	(void)state;
	pq_steal_sample a, b;
	assert_int_equal(pq_steal_parse("cpu  100 0 50 800 10 0 5 35 0 0\ncpu0 ...", &a), 0);
	assert_int_equal(a.total, 1000);
	assert_int_equal(a.steal, 35);
	assert_int_equal(pq_steal_parse("cpu  200 0 60 900 10 0 5 135 0 0\n", &b), 0);
	/* 100 of the 310 ticks between the samples were stolen. */
	assert_float_equal(pq_steal_fraction(&a, &b), 100.0 / 310.0, 1e-12);
	assert_float_equal(pq_steal_fraction(&a, &a), 0.0, 1e-12);
	assert_float_equal(pq_steal_fraction(&b, &a), 0.0, 1e-12);
}

static void parse_failures(void **state)
{
	(void)state;
	pq_steal_sample s;
	assert_int_equal(pq_steal_parse("cpu0 1 2 3 4 5 6 7 8", &s), PQ_EPARSE);
	assert_int_equal(pq_steal_parse("cpu  1 2 3", &s), PQ_EPARSE);
	assert_int_equal(pq_steal_parse("", &s), PQ_EPARSE);
	assert_int_equal(pq_steal_parse("intr 12345", &s), PQ_EPARSE);
}

static void reads_this_machine(void **state)
{
	(void)state;
	pq_steal_sample s;
	/* Linux always has /proc/stat: failing to read it is a failure, not a skip. */
	assert_int_equal(pq_steal_read(&s), 0);
	assert_true(s.total > 0);
	assert_true(s.steal <= s.total);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_and_fraction),
		cmocka_unit_test(parse_failures),
		cmocka_unit_test(reads_this_machine),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
