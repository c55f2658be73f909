/* Linux's retransmission clocks (model/rtt.h): the first sample's RTO, the estimator
 * over rounds, the backoff and its cap, the probe's timeout, and the timer wheel that
 * never fires early and rounds a 1 s timer to 32 ms. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "model/rtt.h"

static void first_sample_rto(void **state)
{
	(void)state;
	pq_rtt e = {0};
	pq_rtt_sample(&e, 50, 0);
	assert_true(fabs(e.rto - 250) < 1e-9); /* 50 + max(100, 200) */
	assert_true(fabs(e.min_rtt - 50) < 1e-9);
	pq_rtt f = {0};
	pq_rtt_sample(&f, 1078.6, 0); /* a SYN-ACK lost once: the sample spans the SYN timer */
	assert_true(fabs(f.rto - 3 * 1078.6) < 1e-9);
	assert_true(fabs(pq_rtt_pto(&f, 1) - (2 * 1078.6 + 200)) < 1e-9);
}

static void rounds_bring_the_rto_down(void **state)
{
	(void)state;
	pq_rtt e = {0};
	pq_rtt_sample(&e, 300, 0);
	assert_true(fabs(e.rto - 900) < 1e-9);
	double last = e.rto;
	for (int i = 0; i < 6; i++) {
		pq_rtt_sample(&e, 300, 1);
		assert_true(e.rto <= last + 1e-9);
		last = e.rto;
	}
	assert_true(last < 850 && last >= 300 + PQ_RTT_MIN_RTO_MS);
	/* a sample within a round keeps RTTVAR: only round ends decay it */
	pq_rtt g = e;
	pq_rtt_sample(&g, 300, 0);
	assert_true(fabs(g.rttvar - e.rttvar) < 1e-9);
	/* a smaller sample: SRTT falls by an eighth of the difference, never below it */
	pq_rtt_sample(&g, 100, 0);
	assert_true(fabs(g.srtt - 275) < 1e-9);
	assert_true(fabs(g.min_rtt - 100) < 1e-9);
}

static void backoff_doubles_and_caps(void **state)
{
	(void)state;
	pq_rtt e = {0};
	pq_rtt_sample(&e, 100, 0);
	pq_rtt_backoff(&e);
	assert_true(fabs(e.rto - 600) < 1e-9);
	for (int i = 0; i < 20; i++)
		pq_rtt_backoff(&e);
	assert_true(fabs(e.rto - PQ_RTT_MAX_RTO_MS) < 1e-9);
	pq_rtt_sample(&e, 100, 0); /* a sample ends the backoff */
	assert_true(e.rto < 400);
}

static void probe_timeout(void **state)
{
	(void)state;
	pq_rtt e = {0};
	assert_true(fabs(pq_rtt_pto(&e, 3) - 1000) < 1e-9); /* no sample yet */
	pq_rtt_sample(&e, 78.6, 0);
	assert_true(fabs(pq_rtt_pto(&e, 1) - (2 * 78.6 + 200)) < 1e-9);
	assert_true(fabs(pq_rtt_pto(&e, 4) - (2 * 78.6 + 2)) < 1e-9);
}

static void timer_wheel(void **state)
{
	(void)state;
	static const double delay[] = {0.1, 3, 150, 278.6, 1000, 2000, 5000, 20000};
	static const double late[] = {8, 8, 8, 36, 36, 36, 260, 2052};
	for (size_t k = 0; k < sizeof delay / sizeof delay[0]; k++)
		for (double now = 0; now < 600; now += 7.3)
			for (double ph = 0; ph < PQ_RTT_JIFFY_MS; ph += 0.7) {
				double t = pq_rtt_fire(now, delay[k], ph);
				assert_true(t >= now + delay[k] - 1e-9);   /* never early */
				assert_true(t <= now + delay[k] + late[k]); /* the level's granularity */
			}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(first_sample_rto),
		cmocka_unit_test(rounds_bring_the_rto_down),
		cmocka_unit_test(backoff_doubles_and_caps),
		cmocka_unit_test(probe_timeout),
		cmocka_unit_test(timer_wheel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
