/* The loss model (model/loss.h): exact at no loss, deterministic under a seed, the
 * share of loss-free handshakes as independent loss predicts it, one decision per burst,
 * and its inputs refused with their ranges. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "model/flight.h"
#include "model/loss.h"
#include "net/stage.h"

/* A flight of 2 writes (4 + 3 segments), a 1-segment ClientHello, at 100 ms. */
static pq_model_loss_in base(double loss)
{
	pq_model_loss_in in = {.loss = loss, .rtt_ns = 100000000, .iw = 10, .n_ch = 1, .n_fl = 2,
			       .n_fin = 1, .n_resp = 2, .trials = 4000, .seed = 7};
	in.ch[0] = 1;
	in.fl[0] = 4;
	in.fl[1] = 3;
	in.fin[0] = 1;
	in.resp[0] = 1;
	in.resp[1] = 1;
	return in;
}

static void no_loss_is_the_flight_model(void **state)
{
	(void)state;
	pq_model_loss_in in = base(0);
	pq_model_loss_out o;
	pq_diag d = {0};
	assert_int_equal(pq_model_loss_run(&in, &o, &d), 0);
	for (int k = 0; k < 3; k++) {
		assert_true(fabs(o.hs_rtt[k] - 2) < 1e-9);
		assert_true(fabs(o.ttfb_rtt[k] - 3) < 1e-9);
	}
	assert_true(fabs(o.clean - 1) < 1e-12);
	assert_true(fabs(o.conn_ms[2] - 100) < 1e-9); /* no timer fires without loss */
	assert_int_equal(o.p95_conns, 10);	       /* no spread: the fewest it tries */
	assert_int_equal(o.decisions, 2 + 1 + 7);
	/* a flight over the window takes the round its ACKs open */
	in.fl[0] = 12;
	assert_int_equal(pq_model_loss_run(&in, &o, &d), 0);
	assert_true(fabs(o.hs_rtt[1] - 3) < 1e-9);
}

static void seeded_and_as_independent_loss_predicts(void **state)
{
	(void)state;
	pq_model_loss_in in = base(0.06);
	pq_model_loss_out a, b;
	pq_diag d = {0};
	assert_int_equal(pq_model_loss_run(&in, &a, &d), 0);
	assert_int_equal(pq_model_loss_run(&in, &b, &d), 0);
	assert_memory_equal(&a, &b, sizeof a);
	/* 10 decisions: (0.94)^10 = 0.539 without loss among them */
	assert_true(fabs(a.clean - pow(0.94, 10)) < 0.03);
	assert_true(a.hs_rtt[0] == 2 && a.hs_rtt[1] == 2);
	assert_true(a.hs_rtt[2] > 4); /* a SYN lost costs 1 s = 10 RTT; a tail, a probe */
	/* per burst, the flight is 2 decisions: fewer handshakes touched */
	in.unit = PQ_LOSS_UNIT_BURST;
	assert_int_equal(pq_model_loss_run(&in, &b, &d), 0);
	assert_int_equal(b.decisions, 2 + 1 + 2);
	assert_true(fabs(b.clean - pow(0.94, 5)) < 0.03);
	/* Gilbert-Elliott at the same mean: runs and loses about as much */
	in.unit = PQ_LOSS_UNIT_SEGMENT;
	in.burst = 3;
	assert_int_equal(pq_model_loss_run(&in, &b, &d), 0);
	assert_true(b.clean > a.clean); /* losses come together: more clean handshakes */
}

/* Linux's SYN timer is linear for five retransmissions: at 30 % loss each way, the 5 %
 * of connections that need four or more SYN exchanges connect within about 4 s, not the
 * 15 s that doubling from the first would take; and a p95 at that loss needs more
 * connections for a narrow interval than one at 2 %. */
static void syn_timers_and_the_p95_rule(void **state)
{
	(void)state;
	pq_model_loss_in in = base(0.3);
	pq_model_loss_out o, low;
	pq_diag d = {0};
	assert_int_equal(pq_model_loss_run(&in, &o, &d), 0);
	assert_true(o.conn_ms[2] > 2000 && o.conn_ms[2] < 5000);
	in = base(0.02);
	assert_int_equal(pq_model_loss_run(&in, &low, &d), 0);
	assert_true(low.p95_conns >= 10);
	assert_true(o.p95_conns == 0 || o.p95_conns > low.p95_conns);
}

static void first_extra_round_trip(void **state)
{
	(void)state;
	pq_model_loss_in small = base(0), big = base(0);
	small.n_fl = 1;
	small.fl[0] = 2;
	double r1, r2, rtts, b;
	pq_diag d = {0};
	assert_int_equal(pq_model_loss_first_extra(&small, 0.01, &r1, &rtts, &b, &d), 0);
	assert_int_equal(pq_model_loss_first_extra(&big, 0.01, &r2, &rtts, &b, &d), 0);
	assert_true(fabs(b - 2) < 1e-9 && rtts >= 2.5);
	assert_true(r2 > 0 && r2 < r1); /* more packets that matter: the step comes sooner */
	/* near (1 - 0.5^(1/k)) for k decisions: 10 for the big flight gives 6.7 % */
	assert_true(r2 > 0.04 && r2 < 0.11);
	char why[512];
	pq_model_loss_reason(&big, r2, why, sizeof why);
	assert_non_null(strstr(why, "10 loss decisions"));
}

/* The endpoints' delays come after the packets: a constant one shifts every handshake and
 * first-byte percentile by itself and leaves connect and the loss-free share alone; a
 * delay of 0 changes nothing (the packets' draws do not move); a sample of two values puts
 * each percentile between the two shifts, the median near half of the trials over. */
static void delays_shift_what_follows(void **state)
{
	(void)state;
	pq_model_loss_in in = base(0.1);
	pq_model_loss_out net, d0, d50, mix;
	pq_diag d = {0};
	double zero = 0, fifty = 50, two[2] = {0, 400};
	assert_int_equal(pq_model_loss_run(&in, &net, &d), 0);
	in.delay_ms = &zero;
	in.n_delay = 1;
	assert_int_equal(pq_model_loss_run(&in, &d0, &d), 0);
	assert_memory_equal(d0.hs_ms, net.hs_ms, sizeof net.hs_ms);
	assert_memory_equal(d0.ttfb_ms, net.ttfb_ms, sizeof net.ttfb_ms);
	in.delay_ms = &fifty;
	assert_int_equal(pq_model_loss_run(&in, &d50, &d), 0);
	for (int k = 0; k < 3; k++) {
		assert_true(fabs(d50.hs_ms[k] - net.hs_ms[k] - 50) < 1e-9);
		assert_true(fabs(d50.ttfb_ms[k] - net.ttfb_ms[k] - 50) < 1e-9);
		assert_true(fabs(d50.conn_ms[k] - net.conn_ms[k]) < 1e-9);
		assert_true(fabs(d50.delay_ms[k] - 50) < 1e-9);
		assert_true(fabs(net.delay_ms[k]) < 1e-12);
	}
	assert_true(fabs(d50.hs_rtt[1] - net.hs_rtt[1] - 0.5) < 1e-9); /* 50 ms of a 100 ms RTT */
	assert_true(d50.clean == net.clean);
	in.delay_ms = two;
	in.n_delay = 2;
	assert_int_equal(pq_model_loss_run(&in, &mix, &d), 0);
	assert_true(mix.hs_ms[0] >= net.hs_ms[0] && mix.hs_ms[2] <= net.hs_ms[2] + 400 + 1e-9);
	assert_true(fabs(mix.delay_ms[0]) < 1e-12 && fabs(mix.delay_ms[2] - 400) < 1e-12);
}

static void bad_inputs_name_the_range(void **state)
{
	(void)state;
	pq_diag d = {0};
	pq_model_loss_out o;
	assert_int_equal(pq_model_loss_check(0.51, 0, "--loss", "--burst", &d), PQ_ERANGE);
	assert_non_null(strstr(pq_diag_msg(&d), "give 0% to 50%"));
	assert_int_equal(pq_model_loss_check(-0.01, 0, "--loss", "--burst", &d), PQ_ERANGE);
	assert_int_equal(pq_model_loss_check(0.1, 0.5, "--loss", "--burst", &d), PQ_ERANGE);
	assert_non_null(strstr(pq_diag_msg(&d), "--burst: 0.5 packets"));
	assert_int_equal(pq_model_loss_check(0.5, 1, "--loss", "--burst", &d), 0);
	pq_model_loss_in in = base(0.1);
	in.rtt_ns = 0;
	assert_int_equal(pq_model_loss_run(&in, &o, &d), PQ_EINVAL);
	in = base(0.1);
	in.n_fl = 0;
	assert_int_equal(pq_model_loss_run(&in, &o, &d), PQ_EINVAL);
	in = base(0.7);
	assert_int_equal(pq_model_loss_run(&in, &o, &d), PQ_ERANGE);
	/* an endpoint delay below 0 (or none where some are announced) is refused with the range */
	double neg = -1;
	in = base(0.1);
	in.delay_ms = &neg;
	in.n_delay = 1;
	assert_int_equal(pq_model_loss_run(&in, &o, &d), PQ_EINVAL);
	assert_non_null(strstr(pq_diag_msg(&d), "delay -1 ms is not one; give 0 to 120000 ms"));
	in.delay_ms = NULL;
	assert_int_equal(pq_model_loss_run(&in, &o, &d), PQ_EINVAL);
	assert_non_null(strstr(pq_diag_msg(&d), "endpoint delays: 1 announced, none given"));
}

static void from_the_flight_model(void **state)
{
	(void)state;
	size_t w[2] = {4096, 3739};
	pq_model_in net = {.mss = 1448, .iw = 10, .client_hello = 1426, .server_writes = w, .n_server_writes = 2,
			   .tickets = 500};
	pq_model_loss_in in = {0};
	pq_model_loss_from(&net, &in);
	assert_int_equal(in.n_ch, 1);
	assert_int_equal(in.ch[0], 1);
	assert_int_equal(in.n_fl, 2);
	assert_int_equal(in.fl[0], 3);
	assert_int_equal(in.fl[1], 3);
	assert_int_equal(in.n_resp, 2);
	assert_int_equal(pq_model_loss_segs(0, 1448), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_loss_is_the_flight_model),
		cmocka_unit_test(seeded_and_as_independent_loss_predicts),
		cmocka_unit_test(syn_timers_and_the_p95_rule),
		cmocka_unit_test(first_extra_round_trip),
		cmocka_unit_test(delays_shift_what_follows),
		cmocka_unit_test(bad_inputs_name_the_range),
		cmocka_unit_test(from_the_flight_model),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
