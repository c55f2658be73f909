/* TCP's handshake under loss (model/syn.h): one round trip without loss, the SYN timer's
 * five linear seconds then doubling, the client's first RTT sample spanning a lost
 * SYN-ACK's timer but not a lost SYN's, and the server's window after its retransmissions.
 * Loss is made exact with a Gilbert-Elliott chain that alternates (lose, keep, ...). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "model/syn.h"
#include "net/stage.h"

#define R 78.6
#define GIVE_UP 300000.0

static pq_loss_chain none, alternate, all;

static int setup(void **state)
{
	(void)state;
	pq_loss_cfg n = {0}, alt = {.ge_p = 1, .ge_r = 1, .loss_bad = 1, .loss_good = 0}, a = {.p = 1};
	pq_loss_chain_init(&none, &n, 1);
	pq_loss_chain_init(&alternate, &alt, 1);
	pq_loss_chain_init(&all, &a, 1);
	return 0;
}

static void no_loss_one_round_trip(void **state)
{
	(void)state;
	pq_syn s;
	int iw1;
	pq_syn_connect(&s, R, 1.5, &none, &none, GIVE_UP);
	assert_true(fabs(s.connected - R) < 1e-9);
	assert_true(fabs(pq_syn_client_sample(&s, &iw1) - R) < 1e-9);
	assert_false(iw1);
	assert_true(fabs(pq_syn_server_sample(&s, R * 1.5, &iw1) - R) < 1e-9);
	assert_false(iw1);
}

static void syn_timer_linear_then_doubling(void **state)
{
	(void)state;
	pq_syn s;
	pq_syn_connect(&s, R, 0.3, &all, &none, GIVE_UP);
	assert_true(s.connected == GIVE_UP); /* every SYN lost: the caller's give-up time */
	assert_int_equal(s.n_syn, 11);	      /* 6 retries and 4 linear ones */
	for (int k = 1; k <= 5; k++) {
		double gap = s.syn_tx[k] - s.syn_tx[k - 1];
		assert_true(gap >= 1000 && gap <= 1036);
	}
	assert_true(s.syn_tx[6] - s.syn_tx[5] >= 2000 && s.syn_tx[6] - s.syn_tx[5] <= 2036);
	assert_true(s.syn_tx[7] - s.syn_tx[6] >= 4000 && s.syn_tx[7] - s.syn_tx[6] <= 4260);
}

static void lost_synack_inflates_the_client_sample(void **state)
{
	(void)state;
	pq_syn s;
	int iw1;
	pq_loss_chain down = alternate; /* the first SYN-ACK lost, the next kept */
	pq_syn_connect(&s, R, 2.2, &none, &down, GIVE_UP);
	assert_true(s.connected > 1000 + R && s.connected < 1000 + R + 40);
	/* the SYN-ACK echoes the first SYN: the sample spans the timer */
	assert_true(pq_syn_client_sample(&s, &iw1) > 1000 + R);
	assert_false(iw1); /* one SYN sent again */
	double est = s.connected + R / 2;
	double m = pq_syn_server_sample(&s, est, &iw1);
	assert_true(fabs(m - (est - s.sa_tx[s.accepted])) < 1e-9);
	assert_true(m < R + 1e-9 && s.accepted >= 1);
	/* a window of 1 exactly when two went out again, one on the timer, and the first was lost */
	assert_int_equal(iw1, s.num_retrans >= 2 && s.num_timeout >= 1);
}

static void lost_syn_does_not(void **state)
{
	(void)state;
	pq_syn s;
	int iw1;
	pq_loss_chain up = alternate; /* the first SYN lost, the second through */
	pq_syn_connect(&s, R, 0.9, &up, &none, GIVE_UP);
	assert_true(s.connected > 1000 + R && s.connected < 1000 + R + 40);
	assert_true(fabs(pq_syn_client_sample(&s, &iw1) - R) < 1e-9); /* it echoes the second SYN */
	assert_false(iw1);
}

static void repeated_syns_are_rate_limited_and_rearm(void **state)
{
	(void)state;
	pq_syn s;
	pq_syn_connect(&s, R, 0, &none, &all, GIVE_UP); /* no SYN-ACK ever arrives */
	assert_true(s.connected == GIVE_UP);
	/* every SYN after the first answered (1 s apart, past the 500 ms limit), the timer
	 * re-armed by each: never more SYN-ACKs than SYNs plus the timer's */
	assert_true(s.num_retrans >= s.n_syn - 1);
	assert_true(s.n_sa == 1 + s.num_retrans);
	assert_true(s.num_timeout <= 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_loss_one_round_trip),
		cmocka_unit_test(syn_timer_linear_then_doubling),
		cmocka_unit_test(lost_synack_inflates_the_client_sample),
		cmocka_unit_test(lost_syn_does_not),
		cmocka_unit_test(repeated_syns_are_rate_limited_and_rearm),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
