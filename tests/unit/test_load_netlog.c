/* load/netlog: the navigation's connection found behind a speculative one, its times,
 * network-only times and negotiation; failures (a rejected chain, no navigation, a log
 * cut short, not a NetLog). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "load/netlog.h"

/* Event types and sources as Chromium numbers them in this log (its own numbering). */
#define HEAD                                                                                                   \
	"{\"constants\":{\"clientInfo\":{\"version\":\"156.0.8078.114\"},"                                    \
	"\"netError\":{\"ERR_CERT_AUTHORITY_INVALID\":-202,\"ERR_CONNECTION_REFUSED\":-102},"                 \
	"\"logEventTypes\":{\"TCP_CONNECT\":10,\"SSL_CONNECT\":11,\"SSL_HANDSHAKE_MESSAGE_SENT\":12,"         \
	"\"SSL_HANDSHAKE_MESSAGE_RECEIVED\":13,\"SOCKET_BYTES_SENT\":14,\"SOCKET_BYTES_RECEIVED\":15,"        \
	"\"CERT_VERIFIER_REQUEST\":16,\"URL_REQUEST_START_JOB\":17,\"HTTP_TRANSACTION_SEND_REQUEST\":18,"     \
	"\"HTTP_TRANSACTION_READ_RESPONSE_HEADERS\":19,\"HTTP_STREAM_REQUEST_BOUND_TO_JOB\":20,"              \
	"\"SOCKET_POOL_BOUND_TO_SOCKET\":21,\"REQUEST_ALIVE\":22,\"URL_REQUEST_JOB_FILTERED_BYTES_READ\":23}}," \
	"\"events\":["
#define EV(t, type, ph, src, params) \
	"{\"time\":\"" #t "\",\"type\":" #type ",\"phase\":" #ph ",\"source\":{\"id\":" #src ",\"type\":10},\"params\":" params "},"
#define LAST "{\"time\":\"9999\",\"type\":1,\"phase\":0,\"source\":{\"id\":1,\"type\":0}}]}"

/* A ClientHello of 0x0794 + 4 = 1944 bytes: "AQAHlA" is 01 00 07 94. */
#define SOCKET(id, t0, t50, t100, flight2)                                                                               \
	EV(t0, 10, 1, id, "{}")                                                                               \
	EV(t50, 10, 2, id, "{\"remote_address\":\"10.0.0.2:8443\"}")                                      \
	EV(t50, 11, 1, id, "{}")                                                                          \
	EV(t50, 12, 0, id, "{\"bytes\":\"AQAHlAMDWfGC\",\"type\":1}")                                     \
	EV(t50, 14, 0, id, "{\"byte_count\":1981}")                                                       \
	EV(t100, 15, 0, id, "{\"byte_count\":12292}")                                                     \
	EV(t100, 13, 0, id, "{\"bytes\":\"AgAEtgMD\",\"type\":2}")                                        \
	EV(flight2, 15, 0, id, "{\"byte_count\":3397}")                                                       \
	EV(flight2, 16, 1, id, "{}")

static const char good_log[] =
	HEAD EV(0, 17, 1, 5, "{\"url\":\"https://other:8443/\",\"request_type\":\"main frame\"}")
	/* socket 7: speculative, opened first, carries the navigation */
	SOCKET(7, 1000, 1050, 1100, 1150) EV(1198, 16, 2, 7, "{}")
	EV(1200, 11, 2, 7, "{\"key_exchange_group\":4588,\"peer_signature_algorithm\":2309,\"is_resumed\":false,\"version\":\"TLS 1.3\",\"cipher_suite\":4865}")
	EV(1205, 15, 0, 7, "{\"byte_count\":478}")
	EV(1001, 17, 1, 9, "{\"url\":\"https://localhost:8443/\",\"request_type\":\"main frame\"}")
	/* socket 8: the navigation's own, not used */
	SOCKET(8, 1010, 1060, 1110, 1160) EV(1210, 16, 2, 8, "{}")
	EV(1210, 11, 2, 8, "{\"key_exchange_group\":4588,\"peer_signature_algorithm\":2309}")
	/* the socket bound to the job before the job to the navigation, as Chromium logs it */
	EV(1211, 21, 0, 3, "{\"source_dependency\":{\"id\":7,\"type\":10}}")
	EV(1212, 20, 0, 9, "{\"source_dependency\":{\"id\":3,\"type\":17}}")
	EV(1220, 18, 1, 9, "{}") EV(1221, 14, 0, 7, "{\"byte_count\":667}")
	EV(1271, 15, 0, 7, "{\"byte_count\":191}")
	EV(1275, 19, 0, 9, "{\"headers\":[\"HTTP/1.1 200 OK\",\"Content-Length: 81\"]}")
	EV(1276, 23, 0, 9, "{\"byte_count\":81}") EV(1280, 22, 2, 9, "{}")
	EV(1300, 15, 0, 7, "{\"byte_count\":100}") LAST;

static const pq_netlog_target target = {.url = "https://localhost:8443/", .addr = "10.0.0.2:8443", .mss = 1448};

static void navigation(void **state)
{
	(void)state;
	pq_load_record r;
	char v[32];
	assert_int_equal(pq_netlog_read(good_log, strlen(good_log), &target, &r, v, sizeof v, NULL), 0);
	assert_string_equal(v, "156.0.8078.114");
	assert_int_equal(r.err, PQ_LERR_NONE);
	assert_int_equal(r.browser, 1);
	assert_int_equal(r.br_conns, 2);
	assert_int_equal(r.t[PQ_PH_CONNECT], 50000000);
	assert_int_equal(r.t[PQ_PH_CLIENT_HELLO], 50000000);
	assert_int_equal(r.t[PQ_PH_SERVER_HELLO], 100000000);
	assert_int_equal(r.br_flight_ns, 150000000); /* before verification began */
	assert_int_equal(r.br_verify_ns, 48000000);
	assert_int_equal(r.t[PQ_PH_HANDSHAKE], 200000000);
	assert_int_equal(r.t[PQ_PH_REQUEST], 220000000);
	assert_int_equal(r.br_req_net_ns, 221000000); /* the ticket before it is not the request */
	assert_int_equal(r.br_ttfb_net_ns, 271000000);
	assert_int_equal(r.t[PQ_PH_TTFB], 275000000);
	assert_int_equal(r.t[PQ_PH_TTLB], 271000000); /* the bytes after the request ended are not its */
	assert_int_equal(r.status, 200);
	assert_int_equal(r.body_bytes, 81);
	assert_int_equal(r.requests, 1);
	assert_string_equal(r.group, "X25519MLKEM768");
	assert_string_equal(r.sigalg, "mldsa65");
	assert_string_equal(r.version, "TLSv1.3");
	assert_int_equal(r.resumed, 0);
	assert_int_equal(r.ch_bytes[0], 1944);
	assert_int_equal(r.ch_segs[0], 2);
	assert_int_equal(r.hs_bytes[PQ_TX][PQ_HS_CLIENT_HELLO], 1944);
	assert_int_equal(r.hs_bytes[PQ_RX][PQ_HS_SERVER_HELLO], 0x04b6 + 4);
	assert_string_equal(r.cipher, "TLS_AES_128_GCM_SHA256");
}

/* A server that takes neither of the browser's key shares: a HelloRetryRequest (type 2
 * by the wire) and a second ClientHello of 0x01a0 + 4 = 420 bytes ("AQABoA": 01 00 01 a0). */
static const char hrr_log[] =
	HEAD EV(1001, 17, 1, 9, "{\"url\":\"https://localhost:8443/\",\"request_type\":\"main frame\"}")
	EV(1000, 10, 1, 7, "{}") EV(1050, 10, 2, 7, "{\"remote_address\":\"10.0.0.2:8443\"}")
	EV(1050, 11, 1, 7, "{}") EV(1050, 12, 0, 7, "{\"bytes\":\"AQAHlAMDWfGC\",\"type\":1}")
	EV(1050, 14, 0, 7, "{\"byte_count\":1981}") EV(1100, 13, 0, 7, "{\"bytes\":\"AgAAWAMD\",\"type\":2}")
	EV(1100, 12, 0, 7, "{\"bytes\":\"AQABoAMD\",\"type\":1}") EV(1100, 14, 0, 7, "{\"byte_count\":425}")
	EV(1150, 13, 0, 7, "{\"bytes\":\"AgAAWAMD\",\"type\":2}")
	EV(1151, 21, 0, 3, "{\"source_dependency\":{\"id\":7,\"type\":10}}")
	EV(1152, 20, 0, 9, "{\"source_dependency\":{\"id\":3,\"type\":17}}") LAST;

static void hello_retry(void **state)
{
	(void)state;
	pq_load_record r;
	assert_int_equal(pq_netlog_read(hrr_log, strlen(hrr_log), &target, &r, NULL, 0, NULL), 0);
	assert_int_equal(r.hrr, 1);
	assert_int_equal(r.ch_bytes[0], 1944);
	assert_int_equal(r.ch_bytes[1], 420);
	assert_int_equal(r.ch_segs[1], 1);
	assert_int_equal(r.hs_bytes[PQ_TX][PQ_HS_CLIENT_HELLO], 1944 + 420);
	assert_int_equal(pq_netlog_read(good_log, strlen(good_log), &target, &r, NULL, 0, NULL), 0);
	assert_int_equal(r.hrr, 0); /* one ClientHello: none */
	assert_int_equal(r.ch_bytes[1], 0);
}

static const char rejected_log[] =
	HEAD EV(1001, 17, 1, 9, "{\"url\":\"https://localhost:8443/\",\"request_type\":\"main frame\"}")
	SOCKET(7, 1000, 1050, 1100, 1150) EV(1198, 16, 2, 7, "{}")
	EV(1200, 11, 2, 7, "{\"net_error\":-202}")
	EV(1201, 17, 2, 9, "{\"net_error\":-202}") LAST;

static void rejected(void **state)
{
	(void)state;
	pq_load_record r;
	assert_int_equal(pq_netlog_read(rejected_log, strlen(rejected_log), &target, &r, NULL, 0, NULL), 0);
	assert_int_equal(r.err, PQ_LERR_VERIFY);
	assert_non_null(strstr(r.err_detail, "ERR_CERT_AUTHORITY_INVALID"));
	assert_int_equal(r.t[PQ_PH_CONNECT], 50000000); /* the socket stands for the navigation */
	assert_int_equal(r.t[PQ_PH_HANDSHAKE], -1);
}

static void no_navigation(void **state)
{
	(void)state;
	pq_load_record r;
	static const char log[] = HEAD LAST;
	assert_int_equal(pq_netlog_read(log, strlen(log), &target, &r, NULL, 0, NULL), 0);
	assert_int_equal(r.err, PQ_LERR_CONNECT);
	assert_non_null(strstr(r.err_detail, "no navigation"));
}

/* A killed browser's log stops mid-array: read up to its last whole event. */
static void cut_short(void **state)
{
	(void)state;
	pq_load_record r;
	char buf[sizeof good_log];
	const char *cut = strstr(good_log, "{\"time\":\"1220\"");
	size_t n = (size_t)(cut - good_log) + 20;
	memcpy(buf, good_log, n);
	assert_int_equal(pq_netlog_read(buf, n, &target, &r, NULL, 0, NULL), 0);
	assert_int_equal(r.t[PQ_PH_HANDSHAKE], 200000000);
	assert_int_equal(r.err, PQ_LERR_TIMEOUT_RESPONSE);
}

/* A resuming browser: the URL navigated twice in one profile, the server closing the
 * first connection after its response. The first navigation over socket 7 (a full
 * handshake), the second over socket 31 (resumed); socket 40 carries the first page's
 * favicon during the second, socket 43 connects after it. */
#define FIRST_NAV                                                                                          \
	EV(1001, 17, 1, 9, "{\"url\":\"https://localhost:8443/\",\"request_type\":\"main frame\"}")          \
	SOCKET(7, 1000, 1050, 1100, 1150) EV(1198, 16, 2, 7, "{}")                                         \
	EV(1200, 11, 2, 7, "{\"key_exchange_group\":4588,\"is_resumed\":false}")                            \
	EV(1211, 21, 0, 3, "{\"source_dependency\":{\"id\":7,\"type\":10}}")                                \
	EV(1212, 20, 0, 9, "{\"source_dependency\":{\"id\":3,\"type\":17}}")                                \
	EV(1220, 18, 1, 9, "{}") EV(1221, 14, 0, 7, "{\"byte_count\":667}")                                  \
	EV(1271, 15, 0, 7, "{\"byte_count\":191}")                                                          \
	EV(1275, 19, 0, 9, "{\"headers\":[\"HTTP/1.1 200 OK\"]}") EV(1280, 22, 2, 9, "{}")                   \
	EV(1989, 17, 1, 30, "{\"url\":\"https://localhost:8443/\",\"request_type\":\"main frame\"}")
static const char resumed_log[] =
	HEAD FIRST_NAV EV(1990, 10, 1, 31, "{}") EV(2040, 10, 2, 31, "{\"remote_address\":\"10.0.0.2:8443\"}")
	EV(2040, 11, 1, 31, "{}") EV(2040, 12, 0, 31, "{\"bytes\":\"AQAHlAMDWfGC\",\"type\":1}")
	EV(2040, 14, 0, 31, "{\"byte_count\":1981}") EV(2090, 13, 0, 31, "{\"bytes\":\"AgAAWAMD\",\"type\":2}")
	EV(2090, 15, 0, 31, "{\"byte_count\":1475}")
	EV(2091, 11, 2, 31, "{\"key_exchange_group\":4588,\"is_resumed\":true,\"version\":\"TLS 1.3\"}")
	EV(2092, 21, 0, 32, "{\"source_dependency\":{\"id\":31,\"type\":10}}")
	EV(2093, 20, 0, 30, "{\"source_dependency\":{\"id\":32,\"type\":17}}")
	EV(2095, 18, 1, 30, "{}") EV(2096, 14, 0, 31, "{\"byte_count\":600}")
	EV(2146, 15, 0, 31, "{\"byte_count\":191}")
	EV(2097, 10, 1, 40, "{}") EV(2100, 10, 2, 40, "{\"remote_address\":\"10.0.0.2:8443\"}")
	EV(2101, 21, 0, 42, "{\"source_dependency\":{\"id\":40,\"type\":10}}")
	EV(2102, 20, 0, 41, "{\"source_dependency\":{\"id\":42,\"type\":17}}")
	EV(2150, 19, 0, 30, "{\"headers\":[\"HTTP/1.1 200 OK\"]}") EV(2160, 22, 2, 30, "{}")
	EV(2200, 10, 1, 43, "{}") EV(2250, 10, 2, 43, "{\"remote_address\":\"10.0.0.2:8443\"}") LAST;

static void second_navigation(void **state)
{
	(void)state;
	pq_load_record r;
	assert_int_equal(pq_netlog_read(resumed_log, strlen(resumed_log), &target, &r, NULL, 0, NULL), 0);
	assert_int_equal(r.err, PQ_LERR_NONE);
	assert_int_equal(r.resumed, 1);
	assert_int_equal(r.br_conns, 1); /* not the first navigation's socket, the favicon's nor the later one */
	assert_int_equal(r.t[PQ_PH_CONNECT], 50000000);
	assert_int_equal(r.t[PQ_PH_HANDSHAKE], 101000000);
	assert_int_equal(r.br_flight_ns, 100000000);
	assert_int_equal(r.br_verify_ns, -1); /* a resumed handshake verifies no chain */
	assert_int_equal(r.t[PQ_PH_REQUEST], 105000000);
	assert_int_equal(r.t[PQ_PH_TTFB], 160000000);
	assert_int_equal(r.ch_bytes[0], 1944);
}

/* A server that kept the first connection alive: the second navigation reuses it, so
 * there is no new connection to measure. */
static const char reused_log[] =
	HEAD FIRST_NAV EV(1990, 21, 0, 32, "{\"source_dependency\":{\"id\":7,\"type\":10}}")
	EV(1991, 20, 0, 30, "{\"source_dependency\":{\"id\":32,\"type\":17}}")
	EV(1995, 18, 1, 30, "{}") EV(1996, 14, 0, 7, "{\"byte_count\":600}")
	EV(2046, 15, 0, 7, "{\"byte_count\":191}")
	EV(2050, 19, 0, 30, "{\"headers\":[\"HTTP/1.1 200 OK\"]}") EV(2060, 22, 2, 30, "{}") LAST;

static void reused_connection(void **state)
{
	(void)state;
	pq_load_record r;
	assert_int_equal(pq_netlog_read(reused_log, strlen(reused_log), &target, &r, NULL, 0, NULL), 0);
	assert_int_equal(r.err, PQ_LERR_PROTOCOL);
	assert_non_null(strstr(r.err_detail, "reused a connection of the one before (the server kept it alive)"));
	assert_int_equal(r.br_conns, 0);
}

static void not_netlog(void **state)
{
	(void)state;
	pq_load_record r;
	pq_diag d;
	assert_int_equal(pq_netlog_read("<html>", 6, &target, &r, NULL, 0, &d), PQ_EPARSE);
	assert_non_null(strstr(d.msg, "not JSON"));
	assert_int_equal(pq_netlog_read("{\"events\":[]}", 13, &target, &r, NULL, 0, &d), PQ_EPARSE);
	assert_non_null(strstr(d.msg, "logEventTypes"));
	assert_int_equal(pq_netlog_read("{\"constants\":{\"logEventTypes\":{}}}", 34, &target, &r, NULL, 0, &d), PQ_EPARSE);
	assert_non_null(strstr(d.msg, "events"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(navigation), cmocka_unit_test(hello_retry), cmocka_unit_test(rejected), cmocka_unit_test(no_navigation),
		cmocka_unit_test(cut_short),  cmocka_unit_test(not_netlog), cmocka_unit_test(second_navigation),
		cmocka_unit_test(reused_connection),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
