/* model/rate.h: a connection's packets through a rate-limited link, against the
 * arithmetic by hand and against a real 1 Mbit/s link (the ttlb preset's aws-lowbw: 35 ms,
 * 1 Mbit/s both ways; ECDSA P-256, X25519, a 1 MiB response: 8,834 ms to the last byte on
 * average over 60 connections, 2026-12-05); and flight.c's use of it: the round trips the
 * rate adds, nothing without a rate, the tolerance it widens. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "model/flight.h"
#include "model/rate.h"
#include "model/tcp.h"

#define MSS 1448
#define RTT 0.035

/* ECDSA P-256, no intermediate, X25519: a 769-byte flight in one write. */
static const size_t ecdsa_flight[] = {769};

static pq_model_rate_in ecdsa(uint64_t bps, size_t response)
{
	return (pq_model_rate_in){.rtt_s = RTT, .down_bps = bps, .up_bps = bps, .mss = MSS, .iw = 10,
				  .client_hello = 217, .server_writes = ecdsa_flight, .n_server_writes = 1,
				  .tickets = 510, .response = response, .first_record = response < 16406 ? response : 16406};
}

static void no_rate_is_round_trips(void **state)
{
	(void)state;
	pq_model_rate_in in = ecdsa(0, 100);
	pq_model_rate_times t;
	assert_int_equal(pq_model_rate_times_of(&in, &t, NULL), 0);
	assert_true(fabs(t.connect - RTT) < 1e-9);
	assert_true(fabs(t.handshake - 2 * RTT) < 1e-9);
	assert_true(fabs(t.ttfb - 3 * RTT) < 1e-9);
	assert_true(fabs(t.ttlb - 3 * RTT) < 1e-9);
	/* 100 KiB from a window of 10: 10, 20, 40, 80 segments: 4 rounds after the request */
	in = ecdsa(0, 102400 + 100 + 7 * 22);
	assert_int_equal(pq_model_rate_times_of(&in, &t, NULL), 0);
	assert_true(fabs(t.ttlb - 6 * RTT) < 1e-9);
}

/* Without a rate the packets' times are the flight model's round trips, phase by phase,
 * for a small flight and a large one at every response size to 1 MiB: what flight.c adds
 * (the times with the rate less these) is then the wire's alone. (Until the rounds were
 * counted as tcp.h counts them, an ML-DSA-65 flight of 12 segments left a window of 22
 * here against tcp.h's 20, and a 200 KiB response a round short: +1 round trip on
 * aws-lowbw's page.) */
static void no_rate_matches_the_rounds(void **state)
{
	(void)state;
	static const size_t mldsa[] = {4096, 8239, 3413};
	const size_t *flights[] = {ecdsa_flight, mldsa};
	const size_t nw[] = {1, 3};
	for (int f = 0; f < 2; f++)
		for (size_t body = 0; body <= 1048576; body += 4096) {
			size_t resp = pq_model_response_bytes(PQ_MODEL_HTTP_HEAD, body);
			pq_model_in m = {.mss = MSS, .iw = 10, .client_hello = 1400, .server_writes = flights[f],
					 .n_server_writes = nw[f], .tickets = 510, .response = resp};
			pq_model_out o;
			assert_int_equal(pq_model_predict(&m, &o, NULL), 0);
			pq_model_rate_in in = {.rtt_s = RTT, .mss = MSS, .iw = 10, .client_hello = 1400,
					       .server_writes = flights[f], .n_server_writes = nw[f], .tickets = 510,
					       .response = resp, .first_record = resp < 16406 ? resp : 16406};
			pq_model_rate_times t;
			assert_int_equal(pq_model_rate_times_of(&in, &t, NULL), 0);
			if (fabs(t.handshake / RTT - o.handshake) > 1e-6 || fabs(t.ttfb / RTT - o.ttfb) > 1e-6 ||
			    fabs(t.ttlb / RTT - o.ttlb) > 1e-6)
				fail_msg("flight %d, body %zu: %.2f / %.2f / %.2f round trips, the flight model %u / %u / %u", f,
					 body, t.handshake / RTT, t.ttfb / RTT, t.ttlb / RTT, o.handshake, o.ttfb, o.ttlb);
		}
}

static void slow_link_runs_at_its_rate(void **state)
{
	(void)state;
	/* 1 MiB and its HTTP head in 65 records: 1,050,106 bytes on TCP, 726 segments, each
	 * with 52 bytes of headers: 1,087,858 bytes, 8.703 s at 1 Mbit/s. The window (10
	 * segments) is over the link's bandwidth-delay product (3), so the queue never
	 * drains: the last byte is the handshake, the request's way there, then the bytes. */
	pq_model_rate_in in = ecdsa(1000000, 1050106);
	pq_model_rate_times t;
	assert_int_equal(pq_model_rate_times_of(&in, &t, NULL), 0);
	double wire = (1050106.0 + 510 + 726 * 52 + 52) * 8 / 1e6;
	assert_true(t.ttlb > t.handshake + RTT + wire - 0.01);
	assert_true(t.ttlb < t.handshake + RTT + wire + 0.02);
	/* Measured on a real link of these: 8,834 ms on average (a 35 ms RTT as the client
	 * sees it is 36.7 ms there: a small packet's own time on the wire and the forwarder's) */
	assert_true(t.ttlb > 8.834 * 0.98 && t.ttlb < 8.834 * 1.02);
	/* The first byte waits for the first record: the tickets' segment and 12 full ones of
	 * the response (the record ends in the 12th), 18,562 bytes on the wire, 148 ms, after
	 * the request's 1.7 ms. */
	assert_true(t.ttfb > t.handshake + RTT + 0.148 && t.ttfb < t.handshake + RTT + 0.152);
}

static void faster_is_never_later(void **state)
{
	(void)state;
	const uint64_t rates[] = {100000, 1000000, 10000000, 100000000, 1000000000, 0};
	double prev = INFINITY;
	for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
		pq_model_rate_in in = ecdsa(rates[i], 512000);
		pq_model_rate_times t;
		assert_int_equal(pq_model_rate_times_of(&in, &t, NULL), 0);
		assert_true(t.ttlb <= prev + 1e-12);
		assert_true(t.handshake <= t.ttfb && t.ttfb <= t.ttlb);
		prev = t.ttlb;
	}
	/* An up direction of its own: a slow uplink delays the ClientHello, not the download. */
	pq_model_rate_in in = ecdsa(0, 512000), up = in;
	up.up_bps = 64000;
	pq_model_rate_times a, b;
	assert_int_equal(pq_model_rate_times_of(&in, &a, NULL), 0);
	assert_int_equal(pq_model_rate_times_of(&up, &b, NULL), 0);
	assert_true(b.handshake > a.handshake + 0.03); /* 217 + 52 bytes at 64 kbit/s: 34 ms */
	/* and the download's ACKs share it: a segment's ACK each, 52 bytes, 6.5 ms, so a
	 * 64 kbit/s uplink clocks the download out at 1,500 bytes per 6.5 ms */
	assert_true(b.ttlb > a.ttlb + 1.0);
}

static void early_data_and_hrr(void **state)
{
	(void)state;
	pq_model_rate_in in = ecdsa(1000000, 10000);
	pq_model_rate_times plain, early, hrr;
	assert_int_equal(pq_model_rate_times_of(&in, &plain, NULL), 0);
	in.early_data = 1;
	assert_int_equal(pq_model_rate_times_of(&in, &early, NULL), 0);
	assert_true(early.ttfb < plain.ttfb - RTT * 0.9); /* the request's round trip saved */
	assert_true(early.handshake <= early.ttfb);
	in = ecdsa(1000000, 10000);
	in.hrr = 1, in.hrr_bytes = 100, in.client_hello2 = 1400;
	assert_int_equal(pq_model_rate_times_of(&in, &hrr, NULL), 0);
	assert_true(hrr.handshake > plain.handshake + RTT); /* a round trip and the larger hello */
	/* no response: no last byte */
	in = ecdsa(1000000, 0);
	assert_int_equal(pq_model_rate_times_of(&in, &plain, NULL), 0);
	assert_true(plain.ttlb == 0 && plain.ttfb > plain.handshake);
}

static void bad_input(void **state)
{
	(void)state;
	pq_model_rate_in in = ecdsa(1000000, 0);
	pq_model_rate_times t;
	pq_diag d = {0};
	in.rtt_s = 0;
	assert_int_equal(pq_model_rate_times_of(&in, &t, &d), PQ_EINVAL);
	assert_non_null(strstr(pq_diag_msg(&d), "RTT"));
	in = ecdsa(1000000, 0);
	in.n_server_writes = 0;
	assert_int_equal(pq_model_rate_times_of(&in, &t, NULL), PQ_EINVAL);
	/* the flight model refuses a rate without the RTT */
	pq_model_in m = {.client_hello = 217, .server_writes = ecdsa_flight, .n_server_writes = 1,
			 .down_bps = 1000000};
	pq_model_out o;
	assert_int_equal(pq_model_predict(&m, &o, &d), PQ_EINVAL);
	assert_non_null(strstr(pq_diag_msg(&d), "RTT"));
}

static void flight_adds_the_wire(void **state)
{
	(void)state;
	size_t resp = pq_model_response_bytes(PQ_MODEL_HTTP_HEAD, 1048576);
	pq_model_in m = {.client_hello = 217, .server_writes = ecdsa_flight, .n_server_writes = 1, .tickets = 510,
			 .response = resp};
	pq_model_out plain, slow;
	assert_int_equal(pq_model_predict(&m, &plain, NULL), 0);
	assert_true(plain.wire_handshake == 0 && plain.wire_ttfb == 0 && plain.wire_ttlb == 0);
	assert_null(strstr(plain.why, "on the wire"));
	m.down_bps = m.up_bps = 1000000, m.rtt_s = RTT;
	assert_int_equal(pq_model_predict(&m, &slow, NULL), 0);
	/* the whole round trips do not move; the fractional phases gain the wire's time */
	assert_int_equal(slow.ttlb, plain.ttlb);
	assert_int_equal(slow.ttfb, plain.ttfb);
	assert_true(slow.wire_ttlb > 240 && slow.wire_ttlb < 250);
	assert_true(fabs(slow.ttlb_t - plain.ttlb_t - slow.wire_ttlb) < 1e-9);
	assert_true(fabs(slow.handshake_t - plain.handshake_t - slow.wire_handshake) < 1e-9);
	assert_non_null(strstr(slow.why, "1.0 Mbit/s down"));
	/* at 1 Gbit/s a megabyte's rounds are bursts of 1.5 ms or less: a tenth of a round trip */
	m.down_bps = m.up_bps = 1000000000;
	assert_int_equal(pq_model_predict(&m, &slow, NULL), 0);
	assert_true(slow.wire_ttlb > 0.01 && slow.wire_ttlb < 0.5);
}

static void tolerance_grows_with_the_wire(void **state)
{
	(void)state;
	assert_true(pq_model_agrees_wire(3.0, 3.25, 0));
	assert_false(pq_model_agrees_wire(3.0, 3.26, 0));
	/* 2 % of 243 round trips on the wire: 4.86 beside the quarter */
	assert_true(pq_model_agrees_wire(252.0, 247.0, 243.0));
	assert_false(pq_model_agrees_wire(252.0, 246.0, 243.0));
	assert_false(pq_model_agrees_wire(252.0, NAN, 243.0));
	assert_true(pq_model_agrees(3.0, 3.25) == pq_model_agrees_wire(3.0, 3.25, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(no_rate_is_round_trips), cmocka_unit_test(no_rate_matches_the_rounds), cmocka_unit_test(slow_link_runs_at_its_rate),
	    cmocka_unit_test(faster_is_never_later),  cmocka_unit_test(early_data_and_hrr),
	    cmocka_unit_test(bad_input),		  cmocka_unit_test(flight_adds_the_wire),
	    cmocka_unit_test(tolerance_grows_with_the_wire),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
