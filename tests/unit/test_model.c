/* The flight model against hand-computed cases, and its write rule (pki/acct.h)
 * against the writes OpenSSL really makes in an in-memory handshake (tls/flight.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* cmocka needs the headers above. */
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "model/cliff.h"
#include "model/flight.h"
#include "model/hello.h"
#include "model/quic.h"
#include "model/tcp.h"
#include "pki/alg.h"
#include "pki/chain.h"
#include "tls/ctx.h"
#include "tls/flight.h"

/* ML-DSA-65 leaf + intermediate, X25519MLKEM768: OpenSSL writes 4,096 + 8,196 + 3,413. */
static const size_t mldsa65[] = {4096, 8196, 3413};

static void tcp_per_write(void **state)
{
	(void)state;
	pq_model_tcp t = {.mss = 1448, .cwnd = 10};
	pq_model_burst b;
	/* 3 + 6 segments leave 1 of the window; the third write's first 1,448 bytes take
	 * it, its other 1,965 wait a round trip: 2 segments. */
	pq_model_tcp_send(&t, mldsa65, 3, &b);
	assert_int_equal(b.first_round, 10);
	assert_int_equal(b.segments, 12);
	assert_int_equal(b.rounds, 2);
	assert_int_equal(t.cwnd, 20); /* the 10 ACKed in slow start; the 2 later do not grow it */
	/* The same bytes in one write: 11 segments, still over 10. */
	size_t one = 4096 + 8196 + 3413;
	t.cwnd = 10;
	pq_model_tcp_send(&t, &one, 1, &b);
	assert_int_equal(b.segments, 11);
	assert_int_equal(b.rounds, 2);
	/* A flight far below the window does not grow it (not window-limited). */
	size_t small = 2215;
	t.cwnd = 10;
	pq_model_tcp_send(&t, &small, 1, &b);
	assert_int_equal(b.segments, 2);
	assert_int_equal(b.rounds, 1);
	assert_int_equal(t.cwnd, 10);
}

static void tcp_queue_coalesces(void **state)
{
	(void)state;
	/* Window 1: the first write goes, the next two wait and merge: 2,000 bytes = 2
	 * segments in round 2. */
	size_t w[] = {1000, 1000, 1000};
	pq_model_tcp t = {.mss = 1448, .cwnd = 1};
	pq_model_burst b;
	pq_model_tcp_send(&t, w, 3, &b);
	assert_int_equal(b.rounds, 2);
	assert_int_equal(b.segments, 3);
	/* Merging shows with short writes: 300 goes, 5 x 300 queued are 2 segments, not 5. */
	size_t tiny[] = {300, 300, 300, 300, 300, 300};
	t.cwnd = 1;
	pq_model_tcp_send(&t, tiny, 6, &b);
	assert_int_equal(b.segments, 1 + 2); /* 300 alone, then 1,500 = 2 segments */
	assert_int_equal(b.rounds, 2);
	size_t none = 0;
	pq_model_tcp_send(&t, &none, 0, &b);
	assert_int_equal(b.rounds, 0);
}

static void predict_phases(void **state)
{
	(void)state;
	pq_model_in in = {.client_hello = 1393, .server_writes = mldsa65, .n_server_writes = 3,
			  .tickets = 510};
	pq_model_out o;
	assert_int_equal(pq_model_predict(&in, &o, NULL), 0);
	assert_int_equal(o.connect, 1);
	assert_int_equal(o.handshake, 3);
	assert_int_equal(o.ttfb, 4);
	assert_int_equal(o.ttlb, 0);
	assert_non_null(strstr(o.why, "15,705 bytes"));
	assert_non_null(strstr(o.why, "4,096 + 8,196 + 3,413"));
	assert_non_null(strstr(o.why, "= 12 segments"));
	assert_non_null(strstr(o.why, "1 more round trip"));
	/* ECDSA: 2,215 bytes in one write fit. A 1 MiB response after it: tickets (1) +
	 * 1,048,576 + 100 header in 65 records = 1,050,106 bytes = 726 segments; from a
	 * window of 10: 10, 20, 40, 80, 160, 320, 640 -> 7 rounds (1,270 >= 727). */
	size_t ec = 2215;
	in.server_writes = &ec;
	in.n_server_writes = 1;
	in.response = pq_model_response_bytes(100, 1 << 20);
	assert_int_equal(in.response, 1048676 + 65 * 22);
	assert_int_equal(pq_model_predict(&in, &o, NULL), 0);
	assert_int_equal(o.handshake, 2);
	/* The first byte waits for the first record whole: 16,406 bytes = 12 segments, with
	 * the tickets' 13, over the window of 10 the small flight left (measured on aws-fast,
	 * 35 ms: ECDSA's first byte 3.1 round trips at 10 KiB, 4.1 from 50 KiB on). */
	assert_int_equal(o.first_record, 16384 + 22);
	assert_int_equal(o.first_record_segments, 1 + 12);
	assert_int_equal(o.first_record_rounds, 2);
	assert_int_equal(o.ttfb, 4);
	assert_non_null(strstr(o.why, "first TLS record (16,406 bytes)"));
	assert_non_null(strstr(o.why, "1 more round trip, 4 in all"));
	assert_int_equal(o.cwnd_after_flight, 10);
	assert_int_equal(o.response_segments, 1 + 726);
	assert_int_equal(o.response_rounds, 7);
	assert_int_equal(o.ttlb, 3 + 6);
	/* 10 KiB is one record of 8 segments: with the tickets, 9 fit. */
	in.response = pq_model_response_bytes(100, 10240);
	assert_int_equal(pq_model_predict(&in, &o, NULL), 0);
	assert_int_equal(o.first_record_rounds, 1);
	assert_int_equal(o.ttfb, 3);
	assert_int_equal(o.ttlb, 3);
	assert_null(strstr(o.why, "first TLS record"));
	/* ML-DSA-65's flight filled the window and opened it (10 -> 20): the same 1 MiB
	 * response's first record fits, the first byte one round after the handshake. */
	in.server_writes = mldsa65;
	in.n_server_writes = 3;
	in.response = pq_model_response_bytes(100, 1 << 20);
	assert_int_equal(pq_model_predict(&in, &o, NULL), 0);
	assert_int_equal(o.cwnd_after_flight, 20);
	assert_int_equal(o.first_record_rounds, 1);
	assert_int_equal(o.ttfb, 4);
	in.server_writes = &ec;
	in.n_server_writes = 1;
	in.early_data = 1;
	assert_int_equal(pq_model_predict(&in, &o, NULL), 0);
	assert_int_equal(o.ttfb, 2);
	assert_non_null(strstr(o.why, "0-RTT"));
}

/* A HelloRetryRequest: the ECDSA flight that takes 2 round trips to the handshake takes
 * 3, and the first byte 4; a second ClientHello bigger than the window (a 20 KB one,
 * 15 segments from a window of 10) adds one more. */
static void predict_hrr(void **state)
{
	(void)state;
	size_t ec = 2215;
	pq_model_in in = {.client_hello = 285, .server_writes = &ec, .n_server_writes = 1};
	pq_model_out o;
	assert_int_equal(pq_model_predict(&in, &o, NULL), 0);
	assert_int_equal(o.handshake, 2);
	assert_int_equal(o.hrr_rounds, 0);
	in.hrr = 1;
	in.hrr_bytes = 99;
	in.client_hello2 = 1504;
	assert_int_equal(pq_model_predict(&in, &o, NULL), 0);
	assert_int_equal(o.hrr_rounds, 1);
	assert_int_equal(o.handshake, 3);
	assert_int_equal(o.ttfb, 4);
	assert_non_null(strstr(o.why, "HelloRetryRequest"));
	assert_non_null(strstr(o.why, "second ClientHello (1,504 bytes)"));
	in.client_hello2 = 20000;
	assert_int_equal(pq_model_predict(&in, &o, NULL), 0);
	assert_int_equal(o.hrr_rounds, 2);
	assert_int_equal(o.handshake, 4);
}

/* The client's flight per key-share choice, against each other: one more supported group
 * is 2 bytes, a second share 4 + 32, the hybrid's share 1216 against X25519's 32, and
 * OpenSSL sends ec_point_formats (8 bytes: three formats) only when a classical EC group
 * is offered. */
static void client_hellos(void **state)
{
	(void)state;
	pq_model_hello_row r[PQ_MODEL_HELLOS];
	pq_diag d = {0};
	assert_int_equal(pq_model_hellos(1448, r, &d), 0);
	assert_string_equal(r[0].label, "classical");
	assert_int_equal(r[1].bytes, r[0].bytes + 1216 - 32 - 8);
	assert_int_equal(r[2].bytes, r[1].bytes + 2 + 8); /* + X25519 in the list, formats */
	assert_int_equal(r[3].bytes, r[0].bytes + 2);
	assert_int_equal(r[4].bytes, r[2].bytes + 4 + 32);
	for (int i = 0; i < PQ_MODEL_HELLOS; i++) {
		assert_int_equal(r[i].one_segment_mtu, r[i].bytes + 52);
		assert_int_equal(r[i].segments, (r[i].bytes + 1447) / 1448);
		assert_int_equal(r[i].hrr, i == 3); /* only the wrong guess draws an HRR */
	}
	assert_true(r[3].bytes2 > r[2].bytes);
	assert_string_equal(r[3].group, "X25519MLKEM768");
	assert_int_equal(pq_model_hellos(700, r, &d), 0);
	assert_int_equal(r[2].segments, 3);
	cJSON *j = pq_model_hellos_json(r);
	assert_int_equal(cJSON_GetArraySize(j), PQ_MODEL_HELLOS);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(j, 3), "hrr")));
	cJSON_Delete(j);
}

static void predict_bad_input(void **state)
{
	(void)state;
	pq_model_out o;
	pq_diag d = {0};
	pq_model_in in = {.client_hello = 1393};
	assert_int_equal(pq_model_predict(&in, &o, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "server writes"));
	in.server_writes = mldsa65;
	in.n_server_writes = 3;
	in.mss = 20;
	assert_int_equal(pq_model_predict(&in, &o, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "MSS of 20"));
	in.mss = 0;
	in.hrr = 1;
	assert_int_equal(pq_model_predict(&in, &o, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "second ClientHello"));
}

/* The measured cliffs of the issue (X25519MLKEM768, 1 intermediate, IW10), by hand:
 * before the Certificate the flight holds 1,215 + 6 + 28 = 1,249 bytes; the Certificate
 * record of a D-byte two-certificate chain is D + 18 + 22. OpenSSL's 4,096-byte buffer
 * goes out first (3 segments), the rest R = D + 40 - 2,847 in one write, and the
 * CertificateVerify and Finished records last. ECDSA (72-byte signature: 102 + 74 =
 * 176 bytes, 1 segment): fits while 3 + ceil(R / 1448) + 1 <= 10, R <= 8,688,
 * D <= 11,495. ML-DSA-44 (2,420-byte signature: 2,450 + 74 = 2,524 bytes, 2 segments):
 * R <= 7,240, D <= 10,047. Measured: about 11.5 KB and 10.05 KB. The flat count
 * (flight / MSS: D + 1,465 <= 14,480) puts the ECDSA cliff at 13,015, 1.5 KB too late. */
static void cliffs_by_hand(void **state)
{
	(void)state;
	size_t der[2] = {500, 400};
	pq_acct_in ec = {.der = der, .n = 2, .sig_bytes = 72, .server_share = 1120};
	pq_model_in net = {.client_hello = 1393, .tickets = 510};
	pq_model_cliff c[4];
	size_t n = 0;
	assert_int_equal(pq_model_cliffs(&ec, 4096, 20000, &net, c, 4, &n, NULL), 0);
	assert_true(n >= 1);
	assert_int_equal(c[0].last_fit, 11495);
	assert_int_equal(c[0].first_over, 11496);
	assert_int_equal(c[0].rtts_before, 2);
	assert_int_equal(c[0].rtts_after, 3);
	pq_acct_in mldsa44 = ec;
	mldsa44.sig_bytes = 2420;
	assert_int_equal(pq_model_cliffs(&mldsa44, 4096, 20000, &net, c, 4, &n, NULL), 0);
	assert_int_equal(c[0].last_fit, 10047);
	ec.wbuf = SIZE_MAX; /* the flight in one write */
	assert_int_equal(pq_model_cliffs(&ec, 4096, 20000, &net, c, 4, &n, NULL), 0);
	assert_int_equal(c[0].last_fit, 13015);
	pq_diag d = {0};
	assert_int_equal(pq_model_cliffs(&ec, 5000, 4000, &net, c, 4, &n, &d), PQ_ERANGE);
	assert_non_null(strstr(d.msg, "empty"));
	pq_acct a;
	pq_model_out o;
	assert_int_equal(pq_model_at_size(&ec, 300, &net, &a, &o, &d), PQ_ERANGE);
	assert_non_null(strstr(d.msg, "at least 401 bytes"));
}

/* QUIC on paper: a 1,388-byte ClientHello is 2 Initial datagrams (1,150 bytes of room
 * each) = 2,400 bytes, so 7,200 may come back before validation; 15,600 bytes of
 * handshake messages are 14 datagrams = 16,800 bytes: one more round trip. 5,000 bytes
 * (5 datagrams, 6,000) fit. */
static void quic_amplification(void **state)
{
	(void)state;
	pq_model_quic q;
	pq_model_quic_flight(1388, 15600, &q);
	assert_int_equal(q.client_datagrams, 2);
	assert_int_equal(q.limit, 7200);
	assert_int_equal(q.server_datagrams, 14);
	assert_int_equal(q.extra_rtts, 1);
	pq_model_quic_flight(1388, 5000, &q);
	assert_int_equal(q.extra_rtts, 0);
	/* Round trips from the first Initial: 1 to handshake done, one more to the first
	 * byte; the last byte is not predicted. */
	pq_model_out o;
	pq_model_quic_rounds(&q, &o);
	assert_int_equal(o.connect, 0);
	assert_int_equal(o.handshake, 1);
	assert_int_equal(o.ttfb, 2);
	assert_int_equal(o.ttlb, 0);
	pq_model_quic_flight(1388, 15600, &q);
	pq_model_quic_rounds(&q, &o);
	assert_int_equal(o.handshake, 2);
	assert_int_equal(o.ttfb, 3);
	/* After validation the next round carries the initial window (12,000 B), not twice
	 * it: 7,200 + 12,000 = 19,200 B in two rounds, so 20 datagrams (24,000 B) take a third. */
	pq_model_quic_flight(1388, 20 * 1150, &q);
	assert_int_equal(q.extra_rtts, 2);
	pq_model_quic_flight(1388, 16 * 1150, &q); /* 19,200 B: two rounds */
	assert_int_equal(q.extra_rtts, 1);
	/* Behind a Retry: a round trip first (two with a two-Initial ClientHello, as OpenSSL
	 * 3.5's server takes it), then the window alone, doubling: 14 datagrams (16,800 B)
	 * need 12,000 + 24,000, one round more; 10 datagrams fit the first. */
	pq_model_quic_flight(1388, 14 * 1150, &q);
	pq_model_quic_retry(&q);
	assert_int_equal(q.extra_rtts, 1);
	assert_int_equal(q.retry_rtts, 2);
	pq_model_quic_rounds(&q, &o);
	assert_int_equal(o.handshake, 4);
	assert_int_equal(o.ttfb, 5);
	pq_model_quic_flight(1000, 10 * 1150, &q); /* an X25519 ClientHello: one Initial */
	pq_model_quic_retry(&q);
	assert_int_equal(q.retry_rtts, 1);
	pq_model_quic_rounds(&q, &o);
	assert_int_equal(o.handshake, 2);
	/* Nothing but CRYPTO frames' messages count: no TLS record framing, no tickets. */
	pq_acct a = {.server_hello = 1214, .ee = 10, .cert_msg = 5000, .cert_verify = 80, .finished = 36,
		     .flight = 99999};
	assert_int_equal(pq_model_quic_server_msgs(&a), 1214 + 10 + 5000 + 80 + 36);
}

/* A HelloRetryRequest over QUIC: one round trip more, and the 3x budget counts both
 * ClientHellos' datagrams less the HRR's own. X25519 first (1 Initial), X25519MLKEM768 after
 * (1,388 B: 2 Initials): 3 x 3,600 - 1,200 = 9,600 B; a 9,600-byte flight (8 datagrams) of
 * 9,200 B fits, where the first ClientHello alone allowed 3,600. Behind a Retry: only the
 * round trip, the window as the Retry left it. */
static void quic_hrr(void **state)
{
	(void)state;
	pq_model_quic q;
	pq_model_out o;
	pq_model_quic_flight(1000, 8 * 1150, &q);
	assert_int_equal(q.limit, 3600);
	assert_int_equal(q.extra_rtts, 1);
	pq_model_quic_hrr(&q, 1388);
	assert_int_equal(q.hrr_rtts, 1);
	assert_int_equal(q.client2_datagrams, 2);
	assert_int_equal(q.limit, 9600);
	assert_int_equal(q.extra_rtts, 0);
	pq_model_quic_rounds(&q, &o);
	assert_int_equal(o.handshake, 2);
	assert_int_equal(o.ttfb, 3);
	assert_int_equal(o.hrr_rounds, 1);
	assert_int_equal(o.ch_rounds, 2);
	/* a flight beyond the new budget still waits: 10 datagrams then 2 more */
	pq_model_quic_flight(1000, 12 * 1150, &q);
	pq_model_quic_hrr(&q, 1388);
	assert_int_equal(q.extra_rtts, 1);
	/* behind a Retry */
	pq_model_quic_flight(1000, 10 * 1150, &q);
	pq_model_quic_retry(&q);
	pq_model_quic_hrr(&q, 1388);
	assert_int_equal(q.extra_rtts, 0);
	pq_model_quic_rounds(&q, &o);
	assert_int_equal(o.handshake, 3); /* Retry, HRR, flight */
}

/* The client's receive window (model/tcp.h): 64,512 bytes, as Linux advertised it across
 * the link. At IW46 a 4,096-byte write (3 segments) and 42 segments of the next fill the
 * window to the byte, the second round takes another 64,512, the third the rest: one
 * round more than the congestion window alone (46, then 92 segments). At IW200 the window
 * stays flat for three rounds and then no longer limits. */
static void tcp_receive_window(void **state)
{
	(void)state;
	const size_t w[] = {4096, 130000};
	pq_model_tcp t = {.mss = 1448, .cwnd = 46, .rwnd = 64512}, free_rx = {.mss = 1448, .cwnd = 46};
	pq_model_burst b, f;
	pq_model_tcp_send(&t, w, 2, &b);
	pq_model_tcp_send(&free_rx, w, 2, &f);
	assert_int_equal(f.rounds, 2);
	assert_int_equal(f.rwnd_rounds, 0);
	assert_int_equal(b.first_round, 3 + 42);
	assert_int_equal(b.rounds, 3);
	assert_int_equal(b.rwnd_rounds, 1);
	assert_true(b.last_tx >= 2.0); /* unpaced: the last segment leaves in the third round */
	const size_t big = 250000;
	pq_model_tcp wide = {.mss = 1448, .cwnd = 200, .rwnd = 64512};
	pq_model_tcp_send(&wide, &big, 1, &b);
	assert_int_equal(b.rounds, 4); /* 3 x 64,512, then the 56,464 left */
	assert_int_equal(b.rwnd_rounds, 3);
	assert_int_equal(wide.rwnd, 0); /* no longer limiting */
	/* a flight inside the window is not touched */
	pq_model_tcp small = {.mss = 1448, .cwnd = 10, .rwnd = 64512};
	pq_model_tcp_send(&small, mldsa65, 3, &b);
	assert_int_equal(b.rounds, 2);
	assert_int_equal(b.rwnd_rounds, 0);
	/* the whole prediction says why */
	pq_model_in in = {.iw = 46, .client_hello = 1393, .server_writes = w, .n_server_writes = 2, .rwnd = 64512};
	pq_model_out o;
	pq_diag d = {0};
	assert_int_equal(pq_model_predict(&in, &o, &d), 0);
	assert_int_equal(o.handshake, 4);
	assert_int_equal(o.flight_rwnd_rounds, 1);
	assert_non_null(strstr(o.why, "receive window (64,512 bytes"));
	in.rwnd = 0;
	assert_int_equal(pq_model_predict(&in, &o, &d), 0);
	assert_int_equal(o.handshake, 3);
	assert_null(strstr(o.why, "receive window"));
}

/* OpenSSL's CRYPTO send buffer (model/quic.h): 16,384 bytes of the Handshake level's
 * messages a round. A 135,000-byte flight (ServerHello 1,214 at the Initial level):
 * 5,686 in the first round (6 datagrams less the ServerHello), 11,500 in the second (10
 * datagrams), then 16,384 a round: 8 more, 9 in all beyond the first where the window alone
 * needs 4. A 24,000-byte flight is not touched; a 40,000-byte one takes one round more. */
static void quic_crypto_buffer(void **state)
{
	(void)state;
	pq_model_quic q;
	pq_model_quic_flight(1388, 135000, &q);
	assert_int_equal(q.extra_rtts, 4);
	assert_int_equal(q.crypto_rtts, 0);
	pq_model_quic_crypto(&q, 1214, PQ_MODEL_QUIC_CRYPTO_BUF);
	assert_int_equal(q.extra_rtts, 9);
	assert_int_equal(q.crypto_rtts, 5);
	pq_model_out o;
	pq_model_quic_rounds(&q, &o);
	assert_int_equal(o.handshake, 10);
	pq_model_quic_flight(1388, 24000, &q);
	pq_model_quic_crypto(&q, 1214, PQ_MODEL_QUIC_CRYPTO_BUF);
	assert_int_equal(q.extra_rtts, 2);
	assert_int_equal(q.crypto_rtts, 0);
	pq_model_quic_flight(1388, 40000, &q);
	pq_model_quic_crypto(&q, 1214, PQ_MODEL_QUIC_CRYPTO_BUF);
	assert_int_equal(q.extra_rtts, 3);
	assert_int_equal(q.crypto_rtts, 1);
	/* Behind a Retry the bound stays: 10,286 + 16,384 a round for 133,786 bytes: 8 more
	 * rounds, where the window alone (10, 20, 40, 80 datagrams) needs 3. */
	pq_model_quic_flight(1388, 135000, &q);
	pq_model_quic_crypto(&q, 1214, PQ_MODEL_QUIC_CRYPTO_BUF);
	pq_model_quic_retry(&q);
	assert_int_equal(q.extra_rtts, 8);
	assert_int_equal(q.crypto_rtts, 5);
	/* no bound: as before */
	pq_model_quic_crypto(&q, 1214, 0);
	assert_int_equal(q.extra_rtts, 3);
	assert_int_equal(q.crypto_rtts, 0);
}

/* The write rule against OpenSSL itself: chains made here (ECDSA padded across the
 * buffer's boundaries, ML-DSA-44), one in-memory handshake each. */
static void rule_matches_openssl(void **state)
{
	(void)state;
	static const struct {
		const char *sig;
		size_t pad;
	} cases[] = {{"ecdsa-p256", 0}, {"ecdsa-p256", 3000}, {"ecdsa-p256", 11495},
		     {"ecdsa-p256", 40000}, {"ml-dsa-44", 0}};
	char dir[] = "/tmp/pqtls-model-XXXXXX";
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char out[300];
		pq_chain_spec spec;
		pq_chain_info info;
		pq_diag d = {0};
		SSL_CTX *s = NULL, *c = NULL;
		pq_tls_flight f;
		snprintf(out, sizeof out, "%s/c%zu", dir, i);
		pq_chain_spec_init(&spec);
		assert_int_equal(pq_alg_lookup(cases[i].sig, "sig", &spec.leaf, &d), 0);
		spec.root = spec.inter = spec.leaf;
		spec.pad_chain_to = cases[i].pad;
		assert_int_equal(pq_chain_make(&spec, out, 0, &info, &d), 0);
		pq_tls_config sc = {.role = PQ_TLS_SERVER, .certs_dir = out, .tickets = 2,
				    .groups = "X25519MLKEM768"};
		pq_tls_config cc = {.role = PQ_TLS_CLIENT, .insecure = 1, .groups = "X25519MLKEM768"};
		assert_int_equal(pq_tls_ctx_new(&sc, &s, &d), 0);
		assert_int_equal(pq_tls_ctx_new(&cc, &c, &d), 0);
		assert_int_equal(pq_tls_flight_measure(s, c, &f, &d), 0);
		const pq_acct *a = NULL;
		for (size_t g = 0; g < info.n_flight; g++)
			if (strcmp(info.flight[g].group->name, "X25519MLKEM768") == 0)
				a = &info.flight[g].acct;
		assert_non_null(a);
		print_message("%s pad %zu: OpenSSL %zu writes, %zu bytes; rule %zu writes, %zu bytes\n",
			      cases[i].sig, cases[i].pad, f.server.n, f.server.total, a->n_writes,
			      a->flight);
		/* ECDSA signatures vary by a byte or two: the last write may differ by that. */
		assert_int_equal(f.server.n, a->n_writes);
		for (size_t k = 0; k + 1 < a->n_writes; k++)
			assert_int_equal(f.server.len[k], a->writes[k]);
		size_t last = f.server.len[a->n_writes - 1], want = a->writes[a->n_writes - 1];
		assert_true(last + 2 >= want && last <= want + 2);
		assert_true(f.client_hello.total > 1000 && f.tickets.n == 2);
		pq_tls_ctx_free(s);
		pq_tls_ctx_free(c);
	}
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(tcp_per_write),	cmocka_unit_test(tcp_queue_coalesces),
	    cmocka_unit_test(predict_phases),	cmocka_unit_test(predict_bad_input),
	    cmocka_unit_test(predict_hrr),	cmocka_unit_test(client_hellos),
	    cmocka_unit_test(cliffs_by_hand),	cmocka_unit_test(quic_amplification), cmocka_unit_test(quic_hrr),
	    cmocka_unit_test(tcp_receive_window), cmocka_unit_test(quic_crypto_buffer),
	    cmocka_unit_test(rule_matches_openssl),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
