/* core/proc: the machine's busy ticks from /proc/stat's text and a process's own and
 * reaped children's ticks from /proc/PID/stat's (a name with spaces and parentheses
 * included), their refusals, and both read back from this process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/proc.h"

static void busy(void **state)
{
	(void)state;
	uint64_t t = 0;
	/* user nice system idle iowait irq softirq steal: nice, idle, iowait, steal left out */
	assert_int_equal(pq_proc_parse_busy("cpu  100 5000 20 9000 7 3 2 40 0 0\ncpu0 1 2 3 4 5 6 7 8\n", &t), 0);
	assert_int_equal(t, 125);
	assert_int_equal(pq_proc_parse_busy("cpu0 1 2 3 4 5 6 7 8\n", &t), PQ_EPARSE);
	assert_int_equal(pq_proc_parse_busy("cpu  1 2 3\n", &t), PQ_EPARSE);
	assert_int_equal(pq_proc_parse_busy("", &t), PQ_EPARSE);
	assert_int_equal(pq_proc_parse_busy(NULL, &t), PQ_EPARSE);
}

static void tree(void **state)
{
	(void)state;
	uint64_t t = 0;
	const char *s = "4242 (pqtls (a) b) S 1 4242 4242 0 -1 4194560 900 0 0 0 11 22 33 44 20 0 1 0 100 0 0";
	assert_int_equal(pq_proc_parse_tree(s, &t), 0);
	assert_int_equal(t, 11 + 22 + 33 + 44);
	assert_int_equal(pq_proc_parse_tree("4242 (x) S 1 2 3", &t), PQ_EPARSE);
	assert_int_equal(pq_proc_parse_tree("no parenthesis 1 2 3", &t), PQ_EPARSE);
	assert_int_equal(pq_proc_parse_tree(NULL, &t), PQ_EPARSE);
}

/* This process, read back: its ticks and the machine's parse and never go down. */
static void live(void **state)
{
	(void)state;
	char buf[4096], path[64];
	uint64_t a = 0, b = 0, m = 0, n = 0;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)getpid());
	pq_proc_read_text(path, buf, sizeof buf);
	assert_int_equal(pq_proc_parse_tree(buf, &a), 0);
	pq_proc_read_text("/proc/stat", buf, sizeof buf);
	assert_int_equal(pq_proc_parse_busy(buf, &m), 0);
	for (volatile unsigned long i = 0; i < 50000000ul; i++)
		;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)getpid());
	pq_proc_read_text(path, buf, sizeof buf);
	assert_int_equal(pq_proc_parse_tree(buf, &b), 0);
	pq_proc_read_text("/proc/stat", buf, sizeof buf);
	assert_int_equal(pq_proc_parse_busy(buf, &n), 0);
	assert_true(b >= a);
	assert_true(n >= m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(busy), cmocka_unit_test(tree), cmocka_unit_test(live)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
