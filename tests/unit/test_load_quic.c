/* load/qconn, load/h3 and server/quic together: the in-process QUIC server measured by
 * the in-process QUIC client (phases, wire counts, the amplification views, one request
 * each), a ticket resumed over QUIC, and the failure paths: what QUIC cannot carry
 * refused by name, a port with nothing on it (refused), a socket that never answers
 * (the phase timeout), an HTTP/3 client the hq-interop server refuses, and a bad
 * request line answered as 400. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "load/run.h"
#include "server/server.h"
#include "tls/quic.h"
#include "h3peer.h"
#include "testchain.h"

static pq_server_config server_config(void)
{
	return (pq_server_config){
		.listen = "127.0.0.1:0",
		.threads = 1,
		.max_conns = 100,
		.handshake_timeout_ns = 2 * PQ_NS_PER_S,
		.idle_timeout_ns = 2 * PQ_NS_PER_S,
		.tls = {.role = PQ_TLS_SERVER, .quic = 1, .certs_dir = chain_dir, .tickets = 2},
	};
}

static pq_server *start_config(const pq_server_config *cfg)
{
	pq_diag d = {0};
	pq_server *s = NULL;
	if (pq_server_new(cfg, &s, &d) != 0 || pq_server_start(s, &d) != 0) {
		fprintf(stderr, "test_load_quic: %s\n", pq_diag_msg(&d));
		return NULL;
	}
	return s;
}

static pq_server *start(int retry)
{
	pq_server_config cfg = server_config();
	cfg.quic_retry = retry;
	return start_config(&cfg);
}

static pq_load_config client(uint16_t port)
{
	pq_load_config cfg = {
		.servername = "localhost",
		.tls = {.role = PQ_TLS_CLIENT, .quic = 1, .insecure = 1},
		.connections = 6,
		.concurrency = 2,
		.requests_per_conn = 1,
		.path = "/bytes/5000",
		.timeout_ns = 3 * PQ_NS_PER_S,
	};
	pq_diag d;
	char a[32];
	snprintf(a, sizeof a, "127.0.0.1:%u", port);
	assert_int_equal(pq_addr_parse(a, "target", 0, &cfg.target, &d), 0);
	return cfg;
}

/* Run n connections that the server refuses, all at once, and check that they ended
 * within a second: a refusal heard from the server takes a loopback round trip and a
 * held ClientHello, milliseconds; a second leaves room for a loaded machine (or ASan),
 * and is far below the 5 s timeout a client that heard nothing would wait. */
static pq_load_result run_refused(pq_load_config *cfg, size_t n)
{
	pq_load_result res;
	pq_diag d = {0};
	cfg->connections = n;
	cfg->concurrency = (int)n;
	cfg->timeout_ns = 5 * PQ_NS_PER_S;
	int64_t t0 = pq_mono_ns();
	assert_int_equal(pq_load_run(cfg, &res, &d), 0);
	assert_true(pq_mono_ns() - t0 < PQ_NS_PER_S);
	assert_int_equal(res.n, n);
	return res;
}

static void measured(void **state)
{
	(void)state;
	pq_server *s = start(0);
	assert_non_null(s);
	pq_load_config cfg = client(pq_server_port(s));
	pq_load_result res;
	pq_diag d = {0};
	assert_int_equal(pq_load_run(&cfg, &res, &d), 0);
	assert_int_equal(res.n, 6);
	for (size_t i = 0; i < res.n; i++) {
		const pq_load_record *r = &res.recs[i];
		assert_int_equal(r->err, PQ_LERR_NONE);
		assert_int_equal(r->quic, 1);
		assert_int_equal(r->t[PQ_PH_CONNECT], -1); /* no connect phase over QUIC */
		assert_true(r->t[PQ_PH_HANDSHAKE] > 0 && r->t[PQ_PH_TTFB] >= r->t[PQ_PH_HANDSHAKE]);
		assert_true(r->t[PQ_PH_TTLB] >= r->t[PQ_PH_TTFB]);
		assert_int_equal(r->body_bytes, 5000);
		assert_int_equal(r->status, 200);
		/* OpenSSL's default groups offer X25519MLKEM768: two Initial datagrams. */
		assert_int_equal(r->quic_first_dgrams, 2);
		assert_true(r->quic_first_bytes >= 2 * PQ_WIRE_QUIC_MIN_INITIAL);
		assert_true(r->quic_dgrams[PQ_RX] >= 2 && r->quic_bytes[PQ_RX] > 1000);
		assert_int_equal(r->quic_retry, 0);
	}
	pq_load_result_dispose(&res);
	/* Resumption over QUIC: the warm-up's tickets are offered and taken. */
	cfg.resume = 1;
	cfg.warmup = 2;
	assert_int_equal(pq_load_run(&cfg, &res, &d), 0);
	size_t resumed = 0;
	for (size_t i = 0; i < res.n; i++)
		resumed += res.recs[i].resumed;
	assert_true(resumed >= 1);
	pq_load_result_dispose(&res);
	pq_server_stop(s);
	pq_server_wait(s);
	const pq_server_stats *st = pq_server_get_stats(s);
	assert_int_equal(st->requests, 14);
	assert_int_equal(st->body_bytes, 14 * 5000);
	assert_true(st->quic_prevalid_rx > 0);
	pq_server_free(s);
}

static void retry(void **state)
{
	(void)state;
	pq_server *s = start(1);
	assert_non_null(s);
	pq_load_config cfg = client(pq_server_port(s));
	cfg.connections = 2;
	pq_load_result res;
	pq_diag d = {0};
	assert_int_equal(pq_load_run(&cfg, &res, &d), 0);
	for (size_t i = 0; i < res.n; i++) {
		assert_int_equal(res.recs[i].err, PQ_LERR_NONE);
		assert_int_equal(res.recs[i].quic_retry, 1);
		assert_int_equal(res.recs[i].quic_amp_held, 0);
	}
	pq_load_result_dispose(&res);
	pq_server_stop(s);
	pq_server_wait(s);
	assert_int_equal(pq_server_get_stats(s)->quic_amp_held, 0);
	pq_server_free(s);
}

static void refusals(void **state)
{
	(void)state;
	pq_load_config cfg = client(9);
	pq_load_result res;
	pq_diag d = {0};
	cfg.requests_per_conn = 2;
	assert_int_equal(pq_load_run(&cfg, &res, &d), PQ_EINVAL);
	assert_non_null(strstr(pq_diag_msg(&d), "one hq-interop request"));
	cfg.requests_per_conn = 1;
	cfg.early_data = 1;
	assert_int_equal(pq_load_run(&cfg, &res, &d), PQ_EINVAL);
	assert_non_null(strstr(pq_diag_msg(&d), "no 0-RTT"));
	pq_server_config sc = {.listen = "127.0.0.1:0", .threads = 2, .max_conns = 1,
			       .tls = {.role = PQ_TLS_SERVER, .quic = 1, .certs_dir = chain_dir}};
	assert_int_equal(pq_server_config_check(&sc, &d), PQ_EUNSUPPORTED);
	assert_non_null(strstr(pq_diag_msg(&d), "one thread"));
	sc.threads = 1;
	sc.flight_one_write = 1;
	assert_int_equal(pq_server_config_check(&sc, &d), PQ_EUNSUPPORTED);
	sc.flight_one_write = 0;
	sc.tls.quic = 0;
	sc.quic_retry = 1;
	assert_int_equal(pq_server_config_check(&sc, &d), PQ_EINVAL);
	pq_server *s = NULL;
	assert_int_equal(pq_server_new(&sc, &s, &d), PQ_EINVAL);
	assert_null(s);
}

/* A UDP port with nothing bound: refused (ICMP port unreachable). A bound socket that
 * never answers: the handshake times out at the phase timeout. */
static void unreachable(void **state)
{
	(void)state;
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof a;
	assert_int_equal(bind(u, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(getsockname(u, (struct sockaddr *)&a, &len), 0);
	pq_load_config cfg = client(ntohs(a.sin_port));
	cfg.connections = 1;
	cfg.concurrency = 1;
	cfg.timeout_ns = 300 * PQ_NS_PER_MS;
	pq_load_result res;
	pq_diag d = {0};
	assert_int_equal(pq_load_run(&cfg, &res, &d), 0);
	assert_int_equal(res.n, 1);
	assert_int_equal(res.recs[0].err, PQ_LERR_TIMEOUT_HANDSHAKE);
	assert_true(res.recs[0].quic_dgrams[PQ_TX] >= 2); /* it did try */
	assert_int_equal(res.recs[0].quic_dgrams[PQ_RX], 0);
	pq_load_result_dispose(&res);
	close(u); /* now nothing is bound there */
	assert_int_equal(pq_load_run(&cfg, &res, &d), 0);
	assert_int_equal(res.recs[0].err, PQ_LERR_REFUSED);
	pq_load_result_dispose(&res);
}

/* An HTTP/3 client against the hq-interop server: refused by ALPN, and told so by the
 * server's CONNECTION_CLOSE with the TLS alert, not left to its timeout. A path the
 * server does not route: its 404 page over hq-interop is no body of the length asked. */
static void h3_refused_and_bad_paths(void **state)
{
	(void)state;
	pq_server *s = start(0);
	assert_non_null(s);
	pq_load_config cfg = client(pq_server_port(s));
	cfg.tls.quic_h3 = 1;
	pq_load_result res = run_refused(&cfg, 1);
	pq_diag d = {0};
	assert_int_equal(res.recs[0].err, PQ_LERR_ALERT);
	assert_non_null(strstr(res.recs[0].err_detail, "no application protocol"));
	pq_load_result_dispose(&res);
	cfg.timeout_ns = 1 * PQ_NS_PER_S;
	cfg.tls.quic_h3 = 0;
	cfg.path = "/bytes/99999999999";
	assert_int_equal(pq_load_run(&cfg, &res, &d), 0);
	assert_int_equal(res.recs[0].err, PQ_LERR_HTTP);
	assert_non_null(strstr(res.recs[0].err_detail, "stream ended after"));
	pq_load_result_dispose(&res);
	pq_server_stop(s);
	pq_server_wait(s);
	const pq_server_stats *st = pq_server_get_stats(s);
	assert_int_equal(st->err[PQ_SRV_HANDSHAKE], 1);
	pq_server_free(s);
}

/* A client with no group in common with the server: the server's TLS alert (handshake
 * failure) arrives as its CONNECTION_CLOSE (0x128) at once, where OpenSSL 3.5 alone
 * would send nothing and leave the client to its timeout. */
static void no_common_group(void **state)
{
	(void)state;
	pq_server_config sc = server_config();
	sc.tls.groups = "X25519MLKEM768";
	pq_server *s = start_config(&sc);
	assert_non_null(s);
	pq_load_config cfg = client(pq_server_port(s));
	cfg.tls.groups = "X25519";
	pq_load_result res = run_refused(&cfg, 1);
	pq_diag d = {0};
	assert_int_equal(res.recs[0].err, PQ_LERR_ALERT);
	assert_string_equal(res.recs[0].err_detail,
			    "handshake failure (QUIC CONNECTION_CLOSE 0x128: handshake alert)");
	pq_load_result_dispose(&res);
	/* A group in common: not held, not refused. */
	cfg.tls.groups = "X25519:X25519MLKEM768";
	cfg.connections = 2;
	assert_int_equal(pq_load_run(&cfg, &res, &d), 0);
	assert_int_equal(res.n, 2);
	for (size_t i = 0; i < res.n; i++)
		assert_int_equal(res.recs[i].err, PQ_LERR_NONE);
	pq_load_result_dispose(&res);
	pq_server_stop(s);
	pq_server_wait(s);
	assert_int_equal(pq_server_get_stats(s)->err[PQ_SRV_HANDSHAKE], 1);
	assert_int_equal(pq_server_get_stats(s)->handshakes, 2);
	pq_server_free(s);
}

/* A raw OpenSSL QUIC client that completes its handshake and then holds the connection
 * (no request): one of the server's connections, for as long as the test needs it. */
static SSL *hold(uint16_t port, SSL_CTX *ctx)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	SSL *ssl = SSL_new(ctx);
	BIO_ADDR *peer = BIO_ADDR_new();
	assert_true(fd >= 0 && ssl && peer);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
	assert_true(BIO_ADDR_rawmake(peer, AF_INET, &a.sin_addr, sizeof a.sin_addr, a.sin_port));
	assert_int_equal(SSL_set_fd(ssl, fd), 1);
	assert_int_equal(SSL_set1_initial_peer_addr(ssl, peer), 1);
	assert_int_equal(SSL_connect(ssl), 1);
	BIO_ADDR_free(peer);
	return ssl;
}

static void unhold(SSL *ssl)
{
	int fd = SSL_get_fd(ssl);
	SSL_free(ssl);
	close(fd);
}

/* Past --max-conns a QUIC connection is refused at once, as over TCP: the server holds
 * its ClientHello (no flight) and closes it; the client sees the close (OpenSSL turns the
 * application close into APPLICATION_ERROR in an Initial packet) before any ServerHello,
 * where it used to finish its handshake and wait for a response that never came. */
static void over_limit(void **state)
{
	(void)state;
	pq_server_config sc = server_config();
	sc.max_conns = 1;
	pq_server *s = start_config(&sc);
	assert_non_null(s);
	SSL_CTX *hctx = SSL_CTX_new(OSSL_QUIC_client_method());
	assert_non_null(hctx);
	SSL_CTX_set_verify(hctx, SSL_VERIFY_NONE, NULL);
	static const unsigned char hq[] = "\x0ahq-interop";
	assert_int_equal(SSL_CTX_set_alpn_protos(hctx, hq, sizeof hq - 1), 0);
	SSL *held = hold(pq_server_port(s), hctx);
	pq_load_config cfg = client(pq_server_port(s));
	pq_load_result res = run_refused(&cfg, 2);
	for (size_t i = 0; i < res.n; i++) {
		assert_int_equal(res.recs[i].err, PQ_LERR_CLOSED);
		assert_int_equal(res.recs[i].t[PQ_PH_SERVER_HELLO], -1);
		assert_non_null(
			strstr(res.recs[i].err_detail, "APPLICATION_ERROR 0xc before its ServerHello"));
	}
	pq_load_result_dispose(&res);
	unhold(held);
	SSL_CTX_free(hctx);
	pq_server_stop(s);
	pq_server_wait(s);
	const pq_server_stats *st = pq_server_get_stats(s);
	assert_int_equal(st->err[PQ_SRV_OVER_LIMIT], 2);
	assert_int_equal(st->err[PQ_SRV_IO], 0);
	assert_int_equal(st->handshakes, 1);
	pq_server_free(s);
}

/* One HTTP/3 GET against the test's HTTP/3 server (h3peer.h), with a phase timeout. */
static pq_load_record h3_get(const h3peer *p, int64_t timeout_ns)
{
	pq_load_config cfg = client(p->port);
	cfg.connections = 1;
	cfg.concurrency = 1;
	cfg.path = "/";
	cfg.tls.quic_h3 = 1;
	cfg.timeout_ns = timeout_ns;
	pq_load_result res;
	pq_diag d = {0};
	assert_int_equal(pq_load_run(&cfg, &res, &d), 0);
	assert_int_equal(res.n, 1);
	pq_load_record r = res.recs[0];
	pq_load_result_dispose(&res);
	return r;
}

/* --timeout is "no progress for T" over HTTP/3 as over hq-interop: a body that trickles
 * in for more than twice the timeout, a chunk every 150 ms against a 600 ms timeout, is a
 * success (every byte starts the timeout again); a server that then stops for more than
 * twice the timeout mid-body is still a timeout. (150 ms between chunks leaves 450 ms
 * for a loaded machine, or ASan, to deliver each one.) */
static void h3_slow_body(void **state)
{
	(void)state;
	h3peer p = {.mode = H3P_OK, .body = 6000, .chunks = 10, .gap_ms = 150};
	assert_int_equal(h3peer_start(&p), 0);
	pq_load_record r = h3_get(&p, 600 * PQ_NS_PER_MS);
	if (r.err != PQ_LERR_NONE)
		fprintf(stderr, "slow body: %s: %s\n", pq_load_err_text(r.err), r.err_detail);
	assert_int_equal(r.err, PQ_LERR_NONE);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.body_bytes, 6000);
	/* 9 gaps of 150 ms between the first chunk and the last */
	assert_true(r.t[PQ_PH_TTLB] - r.t[PQ_PH_TTFB] >= 1300 * PQ_NS_PER_MS);
	h3peer_stop(&p);
	p = (h3peer){.mode = H3P_OK, .body = 2000, .chunks = 2, .gap_ms = 1500};
	assert_int_equal(h3peer_start(&p), 0);
	r = h3_get(&p, 600 * PQ_NS_PER_MS);
	assert_int_equal(r.err, PQ_LERR_TIMEOUT_RESPONSE);
	assert_string_equal(r.err_detail, "no progress for 600 ms");
	assert_int_equal(r.body_bytes, 1000);
	h3peer_stop(&p);
}

/* Responses that are none, each with its own words: a head without :status, and a
 * request stream the server resets mid-body (with its HTTP/3 error code, by name). */
static void h3_bad_responses(void **state)
{
	(void)state;
	h3peer p = {.mode = H3P_NO_STATUS, .body = 100, .chunks = 1};
	assert_int_equal(h3peer_start(&p), 0);
	pq_load_record r = h3_get(&p, 2 * PQ_NS_PER_S);
	assert_int_equal(r.err, PQ_LERR_HTTP);
	/* nghttp3 refuses the head (its reset_stream callback, H3_MESSAGE_ERROR). */
	assert_string_equal(r.err_detail,
			    "HTTP/3 response head without :status (H3_MESSAGE_ERROR 0x10e)");
	h3peer_stop(&p);
	p = (h3peer){.mode = H3P_RESET, .body = 2000, .chunks = 2, .reset_code = 0x10c};
	assert_int_equal(h3peer_start(&p), 0);
	r = h3_get(&p, 2 * PQ_NS_PER_S);
	assert_int_equal(r.err, PQ_LERR_HTTP);
	assert_string_equal(r.err_detail,
			    "the server reset the request stream (H3_REQUEST_CANCELLED 0x10c)");
	h3peer_stop(&p);
}

static int setup(void **state)
{
	(void)state;
	return testchain_make("ecdsa-p256");
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(measured),	 cmocka_unit_test(retry),
		cmocka_unit_test(refusals),	 cmocka_unit_test(unreachable),
		cmocka_unit_test(h3_refused_and_bad_paths), cmocka_unit_test(h3_slow_body),
		cmocka_unit_test(h3_bad_responses), cmocka_unit_test(no_common_group),
		cmocka_unit_test(over_limit),
	};
	return cmocka_run_group_tests(tests, setup, testchain_remove);
}
