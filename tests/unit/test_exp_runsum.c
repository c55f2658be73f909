/* exp/runsum.c and exp/preflight.c: a sweep's summary added across workers (counts summed,
 * extremes kept, unknowns never winning) and the host line it prints; the time estimate
 * (more cells, longer; more at once, shorter; the warm-up in force counts); the checks
 * before measuring pass a grid that asks nothing of the browser or a remote grid. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <string.h>

#include "teststore.h"
#include "core/sched.h"
#include "exp/runner.h"

static void init_unknowns(void **state)
{
	(void)state;
	pq_exp_run_summary s;
	pq_exp_run_summary_init(&s);
	assert_true(s.probe_tail_max_ns < 0 && s.late_p99_max_ns < 0 && s.wait_max_us < 0);
	assert_int_equal(s.runq_max, -1);
	assert_int_equal(s.nice, PQ_SCHED_NICE_KEEP);
	char buf[512];
	pq_exp_run_noise(&s, buf, sizeof buf);
	assert_string_equal(buf, "host: steal unknown");
}

static void add_sums_and_extremes(void **state)
{
	(void)state;
	pq_exp_run_summary a, b;
	pq_exp_run_summary_init(&a);
	pq_exp_run_summary_init(&b);
	a.cells_run = 3, a.conns = 30, a.cells_link_known = 3, a.cells_link_over = 1, a.steal_pct_max = 2.0;
	a.steal_pct_sum = 3.0, a.cells_steal_known = 3, a.inflight_peak = 4, a.nice = 5, a.late_p99_max_ns = 2e5;
	b.cells_run = 2, b.conns = 20, b.cells_link_known = 2, b.steal_pct_max = 7.5, b.steal_pct_sum = 9.0;
	b.cells_steal_known = 2, b.inflight_peak = 2, b.runq_max = 6, b.interrupted = 1;
	pq_exp_run_summary_add(&a, &b);
	assert_int_equal(a.cells_run, 5);
	assert_int_equal(a.conns, 50);
	assert_int_equal(a.cells_link_known, 5);
	assert_int_equal(a.cells_link_over, 1);
	assert_int_equal(a.inflight_peak, 4);   /* the larger, not the sum */
	assert_true(a.steal_pct_max == 7.5);
	assert_int_equal(a.runq_max, 6);        /* a known one beats unknown */
	assert_int_equal(a.nice, 5);            /* an unknown one never wins */
	assert_true(a.late_p99_max_ns == 2e5);  /* b had none */
	assert_int_equal(a.interrupted, 1);
	char buf[512];
	pq_exp_run_noise(&a, buf, sizeof buf);
	assert_non_null(strstr(buf, "up to 4 cells measured at once"));
	assert_non_null(strstr(buf, "steal 2.4 % on average, 7.5 % at most"));
	assert_non_null(strstr(buf, "1 of 5 cells over the link budget (release lateness p99 at most 0.20 ms)"));
	/* a short buffer is cut, never overrun */
	char small[16];
	pq_exp_run_noise(&a, small, sizeof small);
	assert_int_equal(strlen(small), sizeof small - 1);
}

static void estimate(void **state)
{
	(void)state;
	pq_exp_grid g1, g4, r;
	ts_grid("rtt = 50ms\n", &g1);
	ts_grid("rtt = 50ms\nsig = ecdsa-p256,ml-dsa-44,ml-dsa-65,ml-dsa-87\n", &g4);
	ts_grid("rtt = 50ms\nresume = 100%\nconcurrency = 4\n", &r);
	double one = pq_exp_estimate_s(&g1, 1), four = pq_exp_estimate_s(&g4, 1), four_at_once = pq_exp_estimate_s(&g4, 4);
	assert_true(one > 0);
	assert_true(four > one);
	assert_true(four_at_once < four);
	/* resumption with no warm-up given warms up with the concurrency: longer than without */
	assert_true(pq_exp_estimate_s(&r, 1) > 0);
	pq_exp_grid c4;
	ts_grid("rtt = 50ms\nconcurrency = 4\n", &c4);
	assert_true(pq_exp_estimate_s(&r, 1) > pq_exp_estimate_s(&c4, 1));
	/* however many at once, a sweep takes at least its longest cell (and its link) */
	pq_exp_grid l;
	ts_grid("rtt = 200ms\nloss = 0%, 20%\nconnections = 200\n", &l);
	double longest = pq_exp_cell_estimate_s(&l.cells[0].p);
	for (size_t i = 1; i < l.n; i++)
		longest = pq_exp_cell_estimate_s(&l.cells[i].p) > longest ? pq_exp_cell_estimate_s(&l.cells[i].p) : longest;
	assert_true(longest > 200 * 0.6); /* 200 handshakes of three round trips, and then some */
	assert_true(pq_exp_estimate_s(&l, 24) >= longest);
	assert_true(pq_exp_estimate_s(&l, 24) < pq_exp_estimate_s(&l, 1));
	/* a browser starts for each navigation (about 2 s here), a warm one navigates twice;
	 * browser cells run alone, so at once or not they add up */
	pq_exp_grid b;
	ts_grid("rtt = 50ms\nclient = pqtls, chromium\nconnections = 4\n", &b);
	assert_int_equal(b.n, 2);
	size_t ib = b.cells[0].p.browser ? 0 : 1;
	assert_int_equal(b.cells[ib].p.browser, 1);
	double own = pq_exp_cell_estimate_s(&b.cells[1 - ib].p), chr = pq_exp_cell_estimate_s(&b.cells[ib].p);
	assert_true(chr > own + 4 * 2.0);
	assert_true(chr < own + 4 * 3.0);
	b.cells[ib].p.browser_state = 1; /* warm (PQ_BROWSER_WARM): two navigations, one start */
	assert_true(pq_exp_cell_estimate_s(&b.cells[ib].p) > chr);
	assert_true(pq_exp_cell_estimate_s(&b.cells[ib].p) < chr + 4 * 2.0);
	pq_exp_grid_dispose(&b);
	pq_exp_grid_dispose(&g1);
	pq_exp_grid_dispose(&g4);
	pq_exp_grid_dispose(&r);
	pq_exp_grid_dispose(&c4);
	pq_exp_grid_dispose(&l);
}

static void checks_without_asks(void **state)
{
	(void)state;
	pq_exp_grid g;
	pq_diag d;
	char version[64] = "x";
	ts_grid("rtt = 10ms\n", &g);
	assert_int_equal(pq_exp_check_browser(&g, version, sizeof version, &d), 0);
	assert_string_equal(version, ""); /* no Chromium cell: nothing asked of a browser */
	pq_exp_grid_dispose(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(init_unknowns),
		cmocka_unit_test(add_sums_and_extremes),
		cmocka_unit_test(estimate),
		cmocka_unit_test(checks_without_asks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
