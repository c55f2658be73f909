/* load/conn: one client connection stepped by hand against a scripted peer on loopback
 * (tpeer.h), time from a fake clock. Its phases in order over two keep-alive requests;
 * a body that ends with the connection; and the failure paths, each with its kind and
 * its words: a port with nothing on it, a context the library cannot use, a peer that
 * speaks no TLS, one that closes or resets before its ServerHello, a certificate for
 * another name, HTTP errors (a status over 400, a malformed head, a head over 8 KiB,
 * keep-alive refused, a body cut mid-way), the phase and total timeouts (the fake clock
 * moved past them: no waiting) and a connection cut when its run ends. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <cmocka.h>

#include "load/conn.h"
#include "pki/files.h"
#include "tls/ctx.h"
#include "testchain.h"
#include "tpeer.h"

static SSL_CTX *server_ctx, *client_ctx;

static const char ok5[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";

typedef struct rig {
	pq_clock clock;
	pq_addr target;
	pq_conn_params p;
	pq_load_conn c;
	tpeer peer;
} rig;

static const char request[] = "GET /bytes/5 HTTP/1.1\r\nHost: localhost\r\n\r\n";

/* A peer of the given script (ctx NULL: plain TCP) and a connection's parameters at it. */
static void rig_init(rig *r, SSL_CTX *peer_ctx, const char *reply, enum tpeer_after after)
{
	pq_diag d = {0};
	char a[32];
	memset(r, 0, sizeof *r);
	pq_clock_fake_init(&r->clock, 1000 * PQ_NS_PER_S);
	r->peer = (tpeer){.ctx = peer_ctx, .reply = reply, .after = after};
	assert_int_equal(tpeer_open(&r->peer), 0);
	snprintf(a, sizeof a, "127.0.0.1:%u", r->peer.port);
	assert_int_equal(pq_addr_parse(a, "target", 0, &r->target, &d), 0);
	r->p = (pq_conn_params){.target = &r->target,
				.servername = "localhost",
				.ctx = client_ctx,
				.clock = &r->clock,
				.run_start_ns = 999 * PQ_NS_PER_S,
				.request = request,
				.request_len = sizeof request - 1,
				.requests = 1,
				.timeout_ns = 250 * PQ_NS_PER_MS,
				.cap_name = "--max-cert"};
}

static void rig_run(rig *r)
{
	pq_load_conn_start(&r->c, &r->p, 7, -1, NULL);
	assert_int_equal(tpump(&r->c, &r->peer, &r->clock, 5000), 0);
}

static void rig_dispose(rig *r)
{
	tpeer_close(&r->peer);
}

static void two_requests(void **state)
{
	(void)state;
	rig r;
	rig_init(&r, server_ctx, ok5, TP_KEEP);
	r.peer.replies = 2;
	r.p.requests = 2;
	rig_run(&r);
	const pq_load_record *rec = &r.c.rec;
	assert_int_equal(rec->err, PQ_LERR_NONE);
	assert_int_equal(rec->id, 7);
	assert_int_equal(rec->start_ns, PQ_NS_PER_S); /* relative to the run's start */
	assert_int_equal(rec->intended_ns, rec->start_ns); /* closed loop */
	assert_int_equal(rec->status, 200);
	assert_int_equal(rec->requests, 2);
	assert_int_equal(rec->body_bytes, 10);
	assert_string_equal(rec->version, "TLSv1.3");
	assert_true(rec->group[0] && rec->cipher[0] && rec->sigalg[0]);
	/* every phase marked, each after the one before (the fake clock moved 1 ms a step) */
	static const enum pq_phase order[] = {PQ_PH_CONNECT, PQ_PH_HANDSHAKE, PQ_PH_REQUEST,
					      PQ_PH_TTFB, PQ_PH_TTLB, PQ_PH_END};
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		assert_true(rec->t[order[i]] > 0);
		if (i)
			assert_true(rec->t[order[i]] >= rec->t[order[i - 1]]);
	}
	assert_true(rec->t[PQ_PH_END] > rec->t[PQ_PH_TTLB]); /* the second response came later */
	assert_true(rec->tls_bytes[PQ_RX] > 0 && rec->tls_bytes[PQ_TX] > 0);
	assert_int_equal(r.c.fd, -1); /* closed, and the SSL freed */
	assert_null(r.c.ssl);
	rig_dispose(&r);
}

/* A body without Content-Length ends with the connection's close_notify: a success. */
static void body_until_close(void **state)
{
	(void)state;
	rig r;
	rig_init(&r, server_ctx, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nabc", TP_CLOSE_NOTIFY);
	rig_run(&r);
	assert_int_equal(r.c.rec.err, PQ_LERR_NONE);
	assert_int_equal(r.c.rec.body_bytes, 3);
	assert_int_equal(r.c.rec.requests, 1);
	rig_dispose(&r);
}

static void expect(rig *r, enum pq_load_err err, const char *detail)
{
	if (r->c.rec.err != err || strcmp(r->c.rec.err_detail, detail))
		fprintf(stderr, "got %s: %s\n", pq_load_err_text(r->c.rec.err), r->c.rec.err_detail);
	assert_int_equal(r->c.rec.err, err);
	assert_string_equal(r->c.rec.err_detail, detail);
	assert_int_equal(r->c.st, PQ_CS_DONE);
	assert_int_equal(r->c.events, 0);
	assert_int_equal(r->c.fd, -1);
}

static void http_failures(void **state)
{
	(void)state;
	static char big[PQ_HTTP_MAX_HEAD + 200];
	memset(big, 'a', sizeof big - 1);
	memcpy(big, "HTTP/1.1 200 OK\r\nX: ", 20);
	const struct {
		const char *reply;
		enum tpeer_after after;
		int requests;
		const char *detail;
	} cases[] = {
	    {"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", TP_KEEP, 1, "HTTP status 404"},
	    {"HTTP/1.1 abc\r\n\r\n", TP_KEEP, 1, "malformed response head"},
	    {big, TP_KEEP, 1, "response head over 8 KiB"},
	    {"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx", TP_KEEP, 2,
	     "server closed keep-alive before all requests"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		rig r;
		rig_init(&r, server_ctx, cases[i].reply, cases[i].after);
		r.p.requests = cases[i].requests;
		rig_run(&r);
		expect(&r, PQ_LERR_HTTP, cases[i].detail);
		rig_dispose(&r);
	}
}

/* A body cut without a close_notify, and a head cut: closed, saying how far it got. */
static void cut_responses(void **state)
{
	(void)state;
	rig r;
	rig_init(&r, server_ctx, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc", TP_CLOSE);
	rig_run(&r);
	expect(&r, PQ_LERR_CLOSED, "after the response head, mid-body (3 bytes in, 97 to go)");
	assert_true(r.c.rec.t[PQ_PH_TTFB] > 0);
	assert_int_equal(r.c.rec.t[PQ_PH_TTLB], -1);
	rig_dispose(&r);
	rig_init(&r, server_ctx, "HTTP/1.1 200 OK\r\nContent-Le", TP_CLOSE);
	rig_run(&r);
	expect(&r, PQ_LERR_CLOSED, "in the middle of the response head (27 bytes in)");
	rig_dispose(&r);
}

/* Nothing listening: refused, at once or at the first step. */
static void refused(void **state)
{
	(void)state;
	rig r;
	rig_init(&r, server_ctx, NULL, TP_KEEP);
	tpeer_close(&r.peer); /* nothing listens on that port now */
	pq_load_conn_start(&r.c, &r.p, 1, -1, NULL);
	assert_int_equal(tpump(&r.c, NULL, NULL, 5000), 0);
	expect(&r, PQ_LERR_REFUSED, "Connection refused");
	assert_int_equal(r.c.rec.t[PQ_PH_CONNECT], -1);
}

/* OpenSSL refuses to make a connection without a context: no socket is opened. */
static void no_context(void **state)
{
	(void)state;
	rig r;
	rig_init(&r, server_ctx, NULL, TP_KEEP);
	r.p.ctx = NULL;
	pq_load_conn_start(&r.c, &r.p, 1, -1, NULL);
	expect(&r, PQ_LERR_CONNECT, "cannot create a TLS connection object");
	struct pollfd pf = {.fd = r.peer.ls, .events = POLLIN};
	assert_int_equal(poll(&pf, 1, 0), 0); /* nobody connected */
	rig_dispose(&r);
}

static void not_tls(void **state)
{
	(void)state;
	rig r;
	rig_init(&r, NULL, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", TP_KEEP);
	rig_run(&r);
	assert_int_equal(r.c.rec.err, PQ_LERR_PROTOCOL);
	assert_non_null(strstr(r.c.rec.err_detail, "(is it a TLS server?)"));
	rig_dispose(&r);
}

/* The peer takes the connection and closes it (or resets it once the ClientHello is
 * there) before any ServerHello: a server that would not talk, not a TLS failure. The
 * order is the test's: each side acts only when the other has. */
static void closed_before_server_hello(void **state)
{
	(void)state;
	static const char when[] = "before its ServerHello (over its connection limit, or exiting?)";
	for (int reset = 0; reset < 2; reset++) {
		rig r;
		rig_init(&r, server_ctx, NULL, TP_KEEP);
		pq_load_conn_start(&r.c, &r.p, 1, -1, NULL);
		assert_int_equal(tpeer_accept(&r.peer, 1000), 0);
		if (!reset) {
			tpeer_end(&r.peer, TP_CLOSE); /* FIN before the ClientHello is sent */
		} else {
			assert_int_equal(poll(&(struct pollfd){.fd = r.c.fd, .events = POLLOUT}, 1, 1000), 1);
			assert_int_equal(pq_load_conn_step(&r.c), EPOLLIN); /* ClientHello sent */
			assert_int_equal(poll(&(struct pollfd){.fd = r.peer.fd, .events = POLLIN}, 1, 1000), 1);
			tpeer_end(&r.peer, TP_RESET);
		}
		assert_int_equal(tpump(&r.c, NULL, NULL, 5000), 0);
		expect(&r, reset ? PQ_LERR_RESET : PQ_LERR_CLOSED, when);
		assert_true(r.c.rec.t[PQ_PH_CONNECT] >= 0);
		assert_int_equal(r.c.rec.t[PQ_PH_SERVER_HELLO], -1);
		rig_dispose(&r);
	}
}

/* A chain for localhost checked against the name another.example: refused by name. */
static void verify_fails(void **state)
{
	(void)state;
	char ca[300];
	pq_diag d = {0};
	SSL_CTX *strict = NULL;
	snprintf(ca, sizeof ca, "%s/%s", chain_dir, PQ_CHAIN_FILE_ROOT);
	pq_tls_config cc = {.role = PQ_TLS_CLIENT, .ca_file = ca};
	assert_int_equal(pq_tls_ctx_new(&cc, &strict, &d), 0);
	rig r;
	rig_init(&r, server_ctx, ok5, TP_KEEP);
	r.p.ctx = strict;
	r.p.servername = "another.example";
	rig_run(&r);
	expect(&r, PQ_LERR_VERIFY, "hostname mismatch");
	rig_dispose(&r);
	/* the right name against the same roots: a success (the test's chain is sound) */
	rig_init(&r, server_ctx, ok5, TP_KEEP);
	r.p.ctx = strict;
	rig_run(&r);
	assert_int_equal(r.c.rec.err, PQ_LERR_NONE);
	rig_dispose(&r);
	pq_tls_ctx_free(strict);
}

/* Timeouts are decided by the connection's clock alone: moved past the phase timeout
 * while the peer says nothing, and past the total one. */
static void timeouts(void **state)
{
	(void)state;
	rig r;
	rig_init(&r, server_ctx, NULL, TP_KEEP);
	pq_load_conn_start(&r.c, &r.p, 1, -1, NULL);
	assert_int_equal(r.c.deadline_ns, r.clock.fake_ns + r.p.timeout_ns);
	pq_load_conn_timeout(&r.c);
	expect(&r, PQ_LERR_TIMEOUT_CONNECT, "no progress for 250 ms");
	rig_dispose(&r);

	rig_init(&r, NULL, NULL, TP_KEEP); /* takes the connection, never answers */
	r.p.total_timeout_ns = 1 * PQ_NS_PER_S;
	pq_load_conn_start(&r.c, &r.p, 1, -1, NULL);
	assert_int_equal(poll(&(struct pollfd){.fd = r.c.fd, .events = POLLOUT}, 1, 1000), 1);
	r.clock.fake_ns += 900 * PQ_NS_PER_MS;
	assert_int_equal(pq_load_conn_step(&r.c), EPOLLIN);
	assert_int_equal(r.c.st, PQ_CS_HANDSHAKE);
	/* the phase deadline never passes the total one */
	assert_int_equal(r.c.deadline_ns, r.c.start_abs_ns + r.p.total_timeout_ns);
	r.clock.fake_ns += 100 * PQ_NS_PER_MS;
	pq_load_conn_timeout(&r.c);
	expect(&r, PQ_LERR_TIMEOUT_TOTAL, "not finished 1000 ms after it started (in the handshake)");
	assert_int_equal(r.c.rec.t[PQ_PH_CONNECT], 900 * PQ_NS_PER_MS);
	rig_dispose(&r);
}

/* Cut when the run ends: the reason as given, once (a second end changes nothing). */
static void cut_off(void **state)
{
	(void)state;
	rig r;
	rig_init(&r, server_ctx, NULL, TP_KEEP);
	pq_load_conn_start(&r.c, &r.p, 1, 5 * PQ_NS_PER_MS, NULL);
	assert_int_equal(r.c.rec.intended_ns, 5 * PQ_NS_PER_MS); /* open loop: as scheduled */
	pq_load_conn_cut(&r.c, "the run's duration ended");
	expect(&r, PQ_LERR_CUT_OFF, "the run's duration ended");
	pq_load_conn_cut(&r.c, "again");
	pq_load_conn_timeout(&r.c);
	expect(&r, PQ_LERR_CUT_OFF, "the run's duration ended");
	rig_dispose(&r);
}

static int setup(void **state)
{
	(void)state;
	pq_diag d = {0};
	if (testchain_make("ecdsa-p256"))
		return -1;
	pq_tls_config sc = {.role = PQ_TLS_SERVER, .certs_dir = chain_dir};
	pq_tls_config cc = {.role = PQ_TLS_CLIENT, .insecure = 1};
	if (pq_tls_ctx_new(&sc, &server_ctx, &d) || pq_tls_ctx_new(&cc, &client_ctx, &d)) {
		fprintf(stderr, "test_load_conn: %s\n", pq_diag_msg(&d));
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	pq_tls_ctx_free(server_ctx);
	pq_tls_ctx_free(client_ctx);
	return testchain_remove(state);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(two_requests),	cmocka_unit_test(body_until_close),
	    cmocka_unit_test(http_failures),	cmocka_unit_test(cut_responses),
	    cmocka_unit_test(refused),		cmocka_unit_test(no_context),
	    cmocka_unit_test(not_tls),		cmocka_unit_test(closed_before_server_hello),
	    cmocka_unit_test(verify_fails),	cmocka_unit_test(timeouts),
	    cmocka_unit_test(cut_off),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
