/* model/pace.h: when a burst's segments leave under Linux's pacing, checked against the
 * arithmetic of tcp_update_skb_after_send and BBR's STARTUP by hand, and against a
 * capture (docs/model.md: a 38 KiB ECDSA chain at 50 ms under BBR, whose second window
 * left in pairs 3.5 ms apart after a first gap of 1.6 ms). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "model/flight.h"
#include "model/pace.h"
#include "model/tcp.h"

#define MSS 1448

static void fill(size_t *seg, unsigned *unit, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		seg[i] = MSS;
		unit[i] = 0;
	}
}

static void unpaced_windows_are_bursts(void **state)
{
	(void)state;
	size_t seg[64];
	unsigned unit[64];
	fill(seg, unit, 64);
	pq_model_pace p = {.kind = PQ_MODEL_PACE_OFF};
	assert_true(fabs(pq_model_pace_burst(&p, MSS, 10, seg, unit, 10) - 0.0) < 1e-9);
	p = (pq_model_pace){.kind = PQ_MODEL_PACE_OFF};
	/* 10, then 20: the second window leaves when the first one's ACKs are back */
	assert_true(fabs(pq_model_pace_burst(&p, MSS, 10, seg, unit, 28) - 1.0) < 1e-9);
	p = (pq_model_pace){.kind = PQ_MODEL_PACE_OFF};
	assert_true(fabs(pq_model_pace_burst(&p, MSS, 10, seg, unit, 31) - 2.0) < 1e-9);
	assert_true(pq_model_pace_burst(&p, MSS, 10, seg, unit, 0) == 0);
	assert_true(pq_model_pace_burst(&p, MSS, 10, seg, unit, PQ_MODEL_PACE_MAX_SEGS + 1) < 0);
}

static void bbr_paces_after_ten(void **state)
{
	(void)state;
	size_t seg[64];
	unsigned unit[64];
	fill(seg, unit, 64);
	/* The first 10 data segments are never paced: one window is a burst under BBR too. */
	pq_model_pace p = {.kind = PQ_MODEL_PACE_BBR};
	assert_true(fabs(pq_model_pace_burst(&p, MSS, 10, seg, unit, 10)) < 1e-9);
	/* 28 segments: the second window's 18 leave as 9 skbs of 2 at 2.885 x 0.99 x 10
	 * segments per RTT: the first at once, the next after half an skb's time (the
	 * idle credit), then one skb's time each: 1 + (0.5 + 7) x 2 / 28.56. */
	p = (pq_model_pace){.kind = PQ_MODEL_PACE_BBR};
	double per_skb = 2.0 / (PQ_MODEL_BBR_HIGH_GAIN * PQ_MODEL_BBR_MARGIN * 10);
	double last = pq_model_pace_burst(&p, MSS, 10, seg, unit, 28);
	assert_true(fabs(last - (1.0 + 7.5 * per_skb)) < 1e-6);
	/* In RTT units the capture's gaps: 1.6 ms and 3.5 ms of a 50 ms RTT. */
	assert_true(fabs(per_skb * 50 - 3.5) < 0.1 && fabs(per_skb * 25 - 1.75) < 0.1);
	/* The bandwidth estimate only grows, and the state carries to the next burst. */
	assert_true(p.bw >= 10);
	assert_int_equal(p.segs_out, 28);
	/* Without GSO each segment is paced on its own: the same rate, twice the skbs. */
	p = (pq_model_pace){.kind = PQ_MODEL_PACE_BBR, .skb_segs = 1};
	double single = pq_model_pace_burst(&p, MSS, 10, seg, unit, 28);
	assert_true(fabs(single - (1.0 + 16.5 * per_skb / 2)) < 1e-6);
}

static void fq_ratio_paces_cubic(void **state)
{
	(void)state;
	size_t seg[64];
	unsigned unit[64];
	fill(seg, unit, 64);
	/* fq at 200 % in slow start: round 2 starts at cwnd 20 and grows with each ACK of it
	 * later; the first skb's rate is 2 x 20 segments per RTT. */
	pq_model_pace p = {.kind = PQ_MODEL_PACE_RATIO};
	double last = pq_model_pace_burst(&p, MSS, 10, seg, unit, 28);
	assert_true(last > 1.0 + 7.5 * 2.0 / 40 - 1e-6);
	assert_true(last < 1.0 + 7.5 * 2.0 / 20);
	/* A ratio of 100 % paces twice as slowly as 200 %. */
	pq_model_pace q = {.kind = PQ_MODEL_PACE_RATIO, .ss_ratio = 100};
	double slow = pq_model_pace_burst(&q, MSS, 10, seg, unit, 28);
	assert_true(fabs((slow - 1.0) - 2 * (last - 1.0)) < 1e-6);
}

static void writes_cut_into_units(void **state)
{
	(void)state;
	/* OpenSSL's three writes for an ML-DSA-65 chain: 3 + 6 + 3 segments, 12 in all, two
	 * in the second window: one skb, so BBR adds nothing to the round it needs. */
	const size_t w[3] = {4096, 8196, 3413};
	pq_model_tcp t = {.mss = MSS, .cwnd = 10, .pace = {.kind = PQ_MODEL_PACE_BBR}};
	pq_model_burst b;
	pq_model_tcp_send(&t, w, 3, &b);
	assert_int_equal(b.rounds, 2);
	assert_true(fabs(b.last_tx - 1.0) < 1e-9);
	assert_int_equal(t.pace.segs_out, 12);
	/* Unpaced, the timing is the rounds less one. */
	pq_model_tcp u = {.mss = MSS, .cwnd = 10};
	pq_model_tcp_send(&u, w, 3, &b);
	assert_true(fabs(b.last_tx - 1.0) < 1e-9);
}

static void flight_phases_with_pacing(void **state)
{
	(void)state;
	/* A 40 KiB flight in one write: 29 segments, 10 + 19. */
	const size_t w = 29 * MSS - 100;
	pq_model_in in = {.client_hello = 300, .server_writes = &w, .n_server_writes = 1, .tickets = 500,
			  .response = 200};
	pq_model_out cubic, bbr;
	assert_int_equal(pq_model_predict(&in, &cubic, NULL), 0);
	in.server_pace = pq_model_pace_of("bbr", "pfifo_fast", 200, 1);
	assert_int_equal(pq_model_predict(&in, &bbr, NULL), 0);
	assert_int_equal(cubic.handshake, 3);
	assert_int_equal(bbr.handshake, 3);
	assert_true(fabs(cubic.handshake_t - 3.0) < 1e-9 && fabs(cubic.ttfb_t - 4.0) < 1e-9);
	assert_true(bbr.handshake_t > 3.5 && bbr.handshake_t < 3.7);
	assert_true(fabs(bbr.ttfb_t - bbr.handshake_t - 1.0) < 1e-9);
	assert_non_null(strstr(bbr.why, "BBR paces the server's segments after its first 10"));
	assert_null(strstr(cubic.why, "pacing"));
}

static void pace_of_and_agreement(void **state)
{
	(void)state;
	assert_int_equal(pq_model_pace_of("cubic", "pfifo_fast", 200, 1).kind, PQ_MODEL_PACE_OFF);
	assert_int_equal(pq_model_pace_of("cubic", "fq", 200, 1).kind, PQ_MODEL_PACE_RATIO);
	assert_int_equal(pq_model_pace_of("bbr", "pfifo_fast", 200, 0).kind, PQ_MODEL_PACE_BBR);
	assert_int_equal(pq_model_pace_of("bbr", NULL, 200, 0).skb_segs, 1);
	assert_int_equal(pq_model_pace_of(NULL, NULL, 0, 1).kind, PQ_MODEL_PACE_OFF);
	assert_true(pq_model_agrees(3.53, 3.60));
	assert_true(pq_model_agrees(3.0, 3.25));
	assert_false(pq_model_agrees(3.0, 3.26));
	assert_false(pq_model_agrees(3.0, 2.7));
	assert_false(pq_model_agrees(3.0, NAN));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unpaced_windows_are_bursts), cmocka_unit_test(bbr_paces_after_ten),
		cmocka_unit_test(fq_ratio_paces_cubic),	      cmocka_unit_test(writes_cut_into_units),
		cmocka_unit_test(flight_phases_with_pacing),  cmocka_unit_test(pace_of_and_agreement),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
