/* The forwarder's release-lateness accounting (net/late.c) driven by made-up times: every
 * due and write time below is invented, nothing sleeps and no clock is read, so each
 * percentile is known exactly. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "net/late.h"

#define US 1000LL

/* 100 releases late by 1..100 us, due 1 ms apart. */
static void note_ramp(pq_late *l, int64_t t0)
{
	for (int i = 1; i <= 100; i++)
		pq_late_note(l, t0 + i * 1000 * US, t0 + i * 1000 * US + i * US);
}

static void exact_percentiles_of_a_window(void **state)
{
	(void)state;
	pq_late l;
	pq_late_win w;
	pq_summary s;
	pq_late_init(&l, 0);
	note_ramp(&l, 5 * 1000000000LL);
	pq_late_take(&l, NULL, &w);
	pq_late_win_summary(&w, &s);
	assert_int_equal(s.n, 100);
	assert_float_equal(s.p50, 50.5 * US, 1e-6); /* linear interpolation between ranks 50 and 51 */
	assert_float_equal(s.p99, 99.01 * US, 1e-6);
	assert_float_equal(s.max, 100 * US, 1e-6);
	assert_float_equal(s.min, 1 * US, 1e-6);
	pq_late_win_dispose(&w);
	pq_late_dispose(&l);
}

/* Taking a window starts the next one: a cell sees only its own releases, while the
 * link's life keeps them all. */
static void windows_are_separate_life_is_whole(void **state)
{
	(void)state;
	pq_late l;
	pq_late_win w;
	pq_summary s;
	pq_late_init(&l, 0);
	note_ramp(&l, 0);
	pq_late_take(&l, NULL, &w);
	pq_late_win_dispose(&w);
	/* the next window: one release 3 ms late among 99 on time */
	for (int i = 0; i < 99; i++)
		pq_late_note(&l, 200 * 1000 * US + i * US, 200 * 1000 * US + i * US);
	pq_late_note(&l, 300 * 1000 * US, 303 * 1000 * US);
	pq_late_take(&l, NULL, &w);
	pq_late_win_summary(&w, &s);
	assert_int_equal(s.n, 100);
	assert_float_equal(s.p50, 0, 1e-9);
	assert_float_equal(s.max, 3000 * US, 1e-6);
	assert_true(s.p99 < 30.1 * US); /* rank 99.01 of 100: a hundredth of the way to the outlier */
	pq_late_win_dispose(&w);
	pq_late_life(&l, &s);
	assert_int_equal(s.n, 200);
	assert_float_equal(s.max, 3000 * US, 1e-6);
	/* an empty window: nothing released, all NaN */
	pq_late_take(&l, NULL, &w);
	pq_late_win_summary(&w, &s);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.p99) && isnan(s.max));
	pq_late_win_dispose(&w);
	pq_late_dispose(&l);
}

/* Past the cap the sets stop growing, but the count and the maximum stay true. */
static void the_cap_bounds_memory_not_the_count(void **state)
{
	(void)state;
	pq_late l;
	pq_late_win w;
	pq_summary s;
	pq_late_init(&l, 10);
	for (int i = 0; i < 10; i++)
		pq_late_note(&l, i * US, i * US + 5 * US);
	pq_late_note(&l, 50 * US, 50 * US + 900 * US); /* beyond the cap: counted, not sampled */
	pq_late_take(&l, NULL, &w);
	assert_int_equal(w.s.n, 10);
	pq_late_win_summary(&w, &s);
	assert_int_equal(s.n, 11);
	assert_float_equal(s.p99, 5 * US, 1e-9);
	assert_float_equal(s.max, 900 * US, 1e-9);
	pq_late_win_dispose(&w);
	pq_late_life(&l, &s);
	assert_int_equal(s.n, 11);
	assert_int_equal(l.life.n, 10);
	pq_late_dispose(&l);
}

/* A release on time is 0, and an impossible early one (a clock stepping back) shows as
 * negative rather than being hidden. */
static void on_time_and_early(void **state)
{
	(void)state;
	pq_late l;
	pq_late_win w;
	pq_summary s;
	pq_late_init(&l, 0);
	pq_late_note(&l, 1000, 1000);
	pq_late_note(&l, 2000, 1500);
	pq_late_take(&l, NULL, &w);
	pq_late_win_summary(&w, &s);
	assert_float_equal(s.min, -500, 1e-9);
	assert_float_equal(s.max, 0, 1e-9);
	pq_late_win_dispose(&w);
	pq_late_dispose(&l);
}

/* A window prepared beforehand becomes the current one: its room is there before the
 * first release, and the samples land in it. */
static void a_prepared_window_is_used(void **state)
{
	(void)state;
	pq_late l;
	pq_late_win next, w;
	pq_summary s;
	pq_late_init(&l, 0);
	pq_late_win_prepare(&next, 100);
	assert_true(next.s.cap >= 100);
	assert_int_equal(next.s.n, 0);
	assert_int_equal(next.n, 0);
	double *room = next.s.v;
	pq_late_take(&l, &next, &w); /* the first window (empty) out, the prepared one in */
	assert_int_equal(w.n, 0);
	pq_late_win_dispose(&w);
	note_ramp(&l, 0);
	assert_ptr_equal(l.win.s.v, room); /* no allocation on the way */
	pq_late_take(&l, NULL, &w);
	pq_late_win_summary(&w, &s);
	assert_int_equal(s.n, 100);
	assert_float_equal(s.max, 100 * US, 1e-6);
	pq_late_win_dispose(&w);
	pq_late_dispose(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exact_percentiles_of_a_window),
		cmocka_unit_test(windows_are_separate_life_is_whole),
		cmocka_unit_test(the_cap_bounds_memory_not_the_count),
		cmocka_unit_test(on_time_and_early),
		cmocka_unit_test(a_prepared_window_is_used),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
