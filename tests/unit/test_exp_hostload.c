/* exp/hostload: the host's verdict on a cell from the hypervisor's steal and the
 * endpoints' own waits for a CPU, against budgets that scale with the RTT; a cgroup CPU
 * quota's throttling between two samples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "exp/hostload.h"
#include "testdir.h"

/* A span of RTT r and median connection time n, us. */
static pq_hostload_span span(double r, double n)
{
	return (pq_hostload_span){r, n};
}

static void budget(void **state)
{
	(void)state;
	/* a tenth of the RTT, never under the floor */
	assert_true(pq_hostload_wait_budget_us(span(50000, 0)) == 5000);
	assert_true(pq_hostload_wait_budget_us(span(200000, 0)) == 20000);
	assert_true(pq_hostload_wait_budget_us(span(1000, 0)) == PQ_HOSTLOAD_WAIT_FLOOR_US);
	assert_true(pq_hostload_wait_budget_us(span(0, 0)) == PQ_HOSTLOAD_WAIT_FLOOR_US);
	assert_true(pq_hostload_wait_budget_us(span(-1, -1)) == PQ_HOSTLOAD_WAIT_FLOOR_US);
	/* a handshake's connection (4 round trips): the RTT's share is the larger */
	assert_true(pq_hostload_wait_budget_us(span(50000, 200000)) == 5000);
	/* a transfer's: 1 % of an 8.9 s connection at 35 ms (docs/sweep.md's aws-lowbw, 1 MiB) */
	assert_true(pq_hostload_wait_budget_us(span(35000, 8.9e6)) == 89000);
	/* a long connection on a local path: its share still counts */
	assert_true(pq_hostload_wait_budget_us(span(0, 5e5)) == 5000);
	/* an unknown connection time leaves the RTT's budget */
	assert_true(pq_hostload_wait_budget_us(span(50000, NAN)) == 5000);
}

static void endpoint_wait(void **state)
{
	(void)state;
	assert_true(pq_hostload_endpoint_wait_us(300, 200) == 500);
	assert_true(pq_hostload_endpoint_wait_us(300, -1) == 300);   /* a remote server's: unknown */
	assert_true(pq_hostload_endpoint_wait_us(NAN, 200) == 200);  /* NaN is unknown too */
	assert_true(pq_hostload_endpoint_wait_us(-1, NAN) == -1);
	assert_true(pq_hostload_endpoint_wait_us(0, 0) == 0);
}

static void verdict(void **state)
{
	(void)state;
	/* within both */
	assert_int_equal(pq_hostload_verdict(2.0, 4000, span(50000, 0)), 1);
	/* the endpoints waited over a tenth of a 50 ms round trip: over, whatever the steal */
	assert_int_equal(pq_hostload_verdict(2.0, 5001, span(50000, 0)), 0);
	assert_int_equal(pq_hostload_verdict(-1, 5001, span(50000, 0)), 0);
	/* the same wait is within the budget of a 100 ms RTT */
	assert_int_equal(pq_hostload_verdict(2.0, 5001, span(100000, 0)), 1);
	/* steal over its budget */
	assert_int_equal(pq_hostload_verdict(PQ_HOSTLOAD_STEAL_BUDGET_PCT + 0.1, 0, span(50000, 0)), 0);
	assert_int_equal(pq_hostload_verdict(PQ_HOSTLOAD_STEAL_BUDGET_PCT, 0, span(50000, 0)), 1);
	/* waits unknown: steal alone decides; nothing known: unknown */
	assert_int_equal(pq_hostload_verdict(3.0, -1, span(50000, 0)), 1);
	assert_int_equal(pq_hostload_verdict(-1, -1, span(50000, 0)), -1);
	/* waits within, steal unknown: not cleared */
	assert_int_equal(pq_hostload_verdict(-1, 10, span(50000, 0)), -1);
	/* at 1 ms RTT the floor: 0.9 ms is within, 1.1 ms over */
	assert_int_equal(pq_hostload_verdict(0, 900, span(1000, 0)), 1);
	assert_int_equal(pq_hostload_verdict(0, 1100, span(1000, 0)), 0);
	/* 53 ms of waits: over a 35 ms RTT's budget in a 200 ms connection, within it in 8.9 s */
	assert_int_equal(pq_hostload_verdict(1.0, 53000, span(35000, 2e5)), 0);
	assert_int_equal(pq_hostload_verdict(1.0, 53000, span(35000, 8.9e6)), 1);
	assert_int_equal(pq_hostload_wait_over(90000, span(35000, 8.9e6)), 1);
	assert_int_equal(pq_hostload_wait_over(NAN, span(35000, 8.9e6)), 0);
}

/* Measured again: a cell over a budget, unless its mark is its own transfer's waits for a
 * CPU (over the host's budget alone, steal within, and alone for its response's CPU). */
static void worth_again(void **state)
{
	(void)state;
	assert_int_equal(pq_hostload_worth_again(1, 1, 2.0, 0), 0);   /* within both */
	assert_int_equal(pq_hostload_worth_again(-1, 1, 2.0, 1), 0);  /* unknown link, host within */
	assert_int_equal(pq_hostload_worth_again(0, 1, 2.0, 0), 1);   /* the link over */
	assert_int_equal(pq_hostload_worth_again(0, 1, 2.0, 1), 1);   /* the link over, whoever's CPU */
	assert_int_equal(pq_hostload_worth_again(1, 0, 2.0, 0), 1);   /* the host over, neighbours possible */
	assert_int_equal(pq_hostload_worth_again(1, 0, 2.0, 1), 0);   /* its own waits */
	assert_int_equal(pq_hostload_worth_again(-1, 0, -1, 1), 0);   /* steal unknown: the waits marked it */
	assert_int_equal(pq_hostload_worth_again(0, 0, 2.0, 1), 1);   /* the link over too */
	/* steal over its budget is the hypervisor's, which another attempt may escape */
	assert_int_equal(pq_hostload_worth_again(1, 0, PQ_HOSTLOAD_STEAL_BUDGET_PCT + 0.1, 1), 1);
	assert_int_equal(pq_hostload_worth_again(1, 0, PQ_HOSTLOAD_STEAL_BUDGET_PCT, 1), 0);
}

/* The throttling of a quota's cgroup between two samples, from its cpu.stat (v2's
 * microseconds); none without a quota, and none when the counter went back. */
static void throttled(void **state)
{
	(void)state;
	pq_cpus c;
	memset(&c, 0, sizeof c);
	c.online = c.allowed = c.usable = 2;
	c.quota = 1.5;
	snprintf(c.quota_dir, sizeof c.quota_dir, "%s", dir);
	pq_hostload a, b;
	testdir_write("cpu.stat", "usage_usec 900\nthrottled_usec 2500\n");
	pq_hostload_sample(&a, &c);
	assert_true(a.throttled_ns == 2500000);
	testdir_write("cpu.stat", "usage_usec 990\nthrottled_usec 4000\n");
	pq_hostload_sample(&b, &c);
	assert_true(pq_hostload_throttled_us(&a, &b) == 1500);
	assert_true(pq_hostload_throttled_us(&b, &a) == -1); /* went back: not a reading */
	/* v1 counts nanoseconds */
	c.quota_v1 = 1;
	testdir_write("cpu.stat", "nr_periods 4\nnr_throttled 1\nthrottled_time 777\n");
	pq_hostload_sample(&b, &c);
	assert_true(b.throttled_ns == 777);
	/* no quota, no cpus, or a cpu.stat without the counter: none */
	c.quota_v1 = 0;
	testdir_write("cpu.stat", "usage_usec 5\n");
	pq_hostload_sample(&b, &c);
	assert_true(b.throttled_ns == -1);
	assert_true(pq_hostload_throttled_us(&a, &b) == -1);
	pq_hostload_sample(&b, NULL);
	assert_true(b.throttled_ns == -1 && b.runq >= 1);
	c.quota = 0;
	c.quota_dir[0] = '\0';
	pq_hostload_sample(&b, &c);
	assert_true(b.throttled_ns == -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(budget),
		cmocka_unit_test(endpoint_wait),
		cmocka_unit_test(verdict),
		cmocka_unit_test(worth_again),
		cmocka_unit_test(throttled),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
