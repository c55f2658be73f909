/* load/qconn: the QUIC half of a client connection. Opening it fails with the system's
 * words on an address family with no UDP, and as the library's refusal on a connected
 * socket whose peer OpenSSL cannot address (a Unix socket); its first flight, read by a
 * silent UDP socket of the test, is what its datagram tap counted, datagram by
 * datagram, and what the record gets; OpenSSL's timer lands on the connection's clock;
 * a server's CONNECTION_CLOSE is named as an alert during the handshake and by its
 * code after it, a connection nobody closed as no close at all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>
#include <openssl/err.h>

#include "load/qconn.h"
#include "server/server.h"
#include "tls/ctx.h"
#include "testchain.h"

static SSL_CTX *client_ctx;
static const char request[] = "/bytes/10\r\n";

static pq_conn_params params(const pq_addr *t, pq_clock *clock)
{
	return (pq_conn_params){.target = t,
				.servername = "localhost",
				.ctx = client_ctx,
				.clock = clock,
				.request = request,
				.request_len = sizeof request - 1,
				.requests = 1,
				.timeout_ns = 2 * PQ_NS_PER_S,
				.quic = 1,
				.expect_body = 10};
}

/* A connection object as pq_load_conn_start leaves it before its socket: the SSL only. */
static void bare(pq_load_conn *c, const pq_conn_params *p)
{
	memset(c, 0, sizeof *c);
	c->p = p;
	c->fd = -1;
	c->ssl = SSL_new(p->ctx);
	assert_non_null(c->ssl);
}

static void open_failures(void **state)
{
	(void)state;
	pq_clock clock;
	pq_clock_fake_init(&clock, 0);
	pq_addr t = {.len = sizeof(struct sockaddr_in)}; /* family AF_UNSPEC: no UDP socket */
	pq_conn_params p = params(&t, &clock);
	pq_load_conn c;
	const char *why = NULL;
	bare(&c, &p);
	assert_int_equal(pq_load_qconn_open(&c, &why), -EAFNOSUPPORT);
	assert_string_equal(why, strerror(EAFNOSUPPORT));
	SSL_free(c.ssl);

	/* A connected datagram socket OpenSSL has no address type for. */
	char path[108];
	snprintf(path, sizeof path, "/tmp/pqtls-unit-qconn.%d", (int)getpid());
	int u = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un *un = (struct sockaddr_un *)&t.sa;
	memset(&t, 0, sizeof t);
	un->sun_family = AF_UNIX;
	snprintf(un->sun_path, sizeof un->sun_path, "%s", path);
	t.len = sizeof *un;
	unlink(path);
	assert_int_equal(bind(u, (struct sockaddr *)un, sizeof *un), 0);
	bare(&c, &p);
	assert_int_equal(pq_load_qconn_open(&c, &why), PQ_ETLS);
	assert_string_equal(why, "cannot make the QUIC datagram BIO");
	assert_true(c.fd >= 0); /* the caller's to close, as after any failure */
	close(c.fd);
	SSL_free(c.ssl);
	close(u);
	unlink(path);
}

/* Every datagram the silent peer got, as the tap counted it. */
static void first_flight(void **state)
{
	(void)state;
	int u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof a;
	assert_int_equal(bind(u, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(getsockname(u, (struct sockaddr *)&a, &alen), 0);
	char at[32];
	pq_addr t;
	pq_diag d = {0};
	snprintf(at, sizeof at, "127.0.0.1:%u", ntohs(a.sin_port));
	assert_int_equal(pq_addr_parse(at, "target", 0, &t, &d), 0);
	pq_clock clock;
	pq_clock_fake_init(&clock, 5 * PQ_NS_PER_S);
	pq_conn_params p = params(&t, &clock);
	pq_load_conn c;
	pq_load_conn_start(&c, &p, 1, -1, NULL);
	assert_int_equal(c.st, PQ_CS_HANDSHAKE);
	assert_true(c.fd >= 0);
	assert_int_equal(c.events, POLLIN);
	/* OpenSSL's timer (its probe timeout) read against the connection's clock */
	assert_true(c.tick_ns > clock.fake_ns && c.tick_ns < clock.fake_ns + 10 * PQ_NS_PER_S);

	static uint8_t buf[65536];
	size_t got = 0, bytes = 0, first = 0;
	ssize_t n;
	while (poll(&(struct pollfd){.fd = u, .events = POLLIN}, 1, 200) == 1 &&
	       (n = recv(u, buf, sizeof buf, 0)) > 0) {
		assert_true((size_t)n >= PQ_WIRE_QUIC_MIN_INITIAL); /* padded Initials */
		first = first ? first : (size_t)n;
		bytes += (size_t)n;
		got++;
		if (got == c.wire.dgrams[PQ_TX])
			break;
	}
	assert_true(got >= 1);
	assert_int_equal(got, c.wire.dgrams[PQ_TX]);
	assert_int_equal(bytes, c.wire.bytes[PQ_TX]);

	char why[200] = "unchanged";
	assert_int_equal(pq_load_qconn_peer_close(&c, 1, "before x", why, sizeof why), PQ_LERR_NONE);
	assert_string_equal(why, "unchanged");
	pq_load_conn_cut(&c, "the test ended");
	const pq_load_record *r = &c.rec;
	assert_int_equal(r->err, PQ_LERR_CUT_OFF);
	assert_int_equal(r->quic, 1);
	assert_int_equal(r->quic_dgrams[PQ_TX], got);
	assert_int_equal(r->quic_bytes[PQ_TX], bytes);
	assert_int_equal(r->quic_dgrams[PQ_RX], 0);
	assert_int_equal(r->quic_first_dgram_bytes, first);
	assert_int_equal(r->quic_retry, 0);
	assert_int_equal(c.tick_ns, INT64_MAX); /* no timer once done */
	pq_load_qconn_timer(&c);		/* no SSL: none */
	assert_int_equal(c.tick_ns, INT64_MAX);
	close(u);
}

/* A server with no group in common closes with the TLS alert (crypto error 0x128). */
static void peer_close_named(void **state)
{
	(void)state;
	pq_diag d = {0};
	pq_server_config sc = {
	    .listen = "127.0.0.1:0", .threads = 1, .max_conns = 10,
	    .handshake_timeout_ns = 2 * PQ_NS_PER_S, .idle_timeout_ns = 2 * PQ_NS_PER_S,
	    .tls = {.role = PQ_TLS_SERVER, .quic = 1, .certs_dir = chain_dir,
		    .groups = "X25519MLKEM768"}};
	pq_server *s = NULL;
	assert_int_equal(pq_server_new(&sc, &s, &d), 0);
	assert_int_equal(pq_server_start(s, &d), 0);
	SSL_CTX *x25519 = NULL;
	pq_tls_config cc = {.role = PQ_TLS_CLIENT, .quic = 1, .insecure = 1, .groups = "X25519"};
	assert_int_equal(pq_tls_ctx_new(&cc, &x25519, &d), 0);
	char at[32];
	pq_addr t;
	snprintf(at, sizeof at, "127.0.0.1:%u", pq_server_port(s));
	assert_int_equal(pq_addr_parse(at, "target", 0, &t, &d), 0);
	pq_conn_params p = params(&t, &pq_clock_mono);
	p.ctx = x25519;
	/* Opened here and moved on by hand, not by pq_load_conn_start and _step: they would
	 * end the connection (and free its SSL) as soon as the close came, which on
	 * loopback can be within the first step. */
	pq_load_conn c;
	const char *open_why = NULL;
	bare(&c, &p);
	assert_int_equal(pq_load_qconn_open(&c, &open_why), 0);
	assert_true(c.fd >= 0);
	SSL_set_connect_state(c.ssl);
	SSL_CONN_CLOSE_INFO info;
	int64_t end = pq_mono_ns() + 5 * PQ_NS_PER_S;
	while (SSL_get_conn_close_info(c.ssl, &info, sizeof info) != 1 && pq_mono_ns() < end) {
		poll(&(struct pollfd){.fd = c.fd, .events = POLLIN}, 1, 10);
		(void)SSL_connect(c.ssl);
		ERR_clear_error();
	}
	char why[200];
	assert_int_equal(pq_load_qconn_peer_close(&c, 1, "during the handshake", why, sizeof why),
			 PQ_LERR_ALERT);
	assert_string_equal(why, "handshake failure (QUIC CONNECTION_CLOSE 0x128: handshake alert)");
	assert_int_equal(pq_load_qconn_peer_close(&c, 0, "after the handshake", why, sizeof why),
			 PQ_LERR_CLOSED);
	assert_string_equal(why, "QUIC transport error 0x128 after the handshake: handshake alert");
	pq_load_qconn_record(&c);
	assert_int_equal(c.rec.quic, 1);
	assert_true(c.rec.quic_dgrams[PQ_TX] >= 1 && c.rec.quic_dgrams[PQ_RX] >= 1);
	SSL_free(c.ssl);
	close(c.fd);
	pq_tls_ctx_free(x25519);
	pq_server_stop(s);
	pq_server_wait(s);
	pq_server_free(s);
}

static int setup(void **state)
{
	(void)state;
	pq_diag d = {0};
	if (testchain_make("ecdsa-p256"))
		return -1;
	pq_tls_config cc = {.role = PQ_TLS_CLIENT, .quic = 1, .insecure = 1};
	if (pq_tls_ctx_new(&cc, &client_ctx, &d)) {
		fprintf(stderr, "test_load_qconn: %s\n", pq_diag_msg(&d));
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	pq_tls_ctx_free(client_ctx);
	return testchain_remove(state);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(open_failures),
	    cmocka_unit_test(first_flight),
	    cmocka_unit_test(peer_close_named),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
