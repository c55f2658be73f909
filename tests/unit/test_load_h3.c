/* load/h3: HTTP/3 on one client connection stepped by hand (tpeer.h's loop) against the
 * test's HTTP/3 server (h3peer.h). A response whole (status, body, its state freed
 * with the connection); one nghttp3 refuses (no :status); a request stream the server
 * resets, its code named in HTTP/3's and QPACK's tables or said to be the server's own;
 * and what the library refuses: streams on a connection that is not QUIC, in preparing
 * and in starting (its half-made state freed, and freeing twice harmless). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "load/h3.h"
#include "tls/ctx.h"
#include "h3peer.h"
#include "testchain.h"
#include "tpeer.h"

static SSL_CTX *h3_ctx, *tcp_ctx;

/* One GET / over HTTP/3 against p; the record as it ended. */
static pq_load_record get(h3peer *p)
{
	pq_diag d = {0};
	char at[32];
	pq_addr t;
	snprintf(at, sizeof at, "127.0.0.1:%u", p->port);
	assert_int_equal(pq_addr_parse(at, "target", 0, &t, &d), 0);
	pq_conn_params cp = {.target = &t,
			     .servername = "localhost",
			     .ctx = h3_ctx,
			     .clock = &pq_clock_mono,
			     .requests = 1,
			     .timeout_ns = 2 * PQ_NS_PER_S,
			     .quic = 1,
			     .h3 = 1,
			     .path = "/",
			     .expect_body = UINT64_MAX};
	pq_load_conn c;
	pq_load_conn_start(&c, &cp, 1, -1, NULL);
	/* 5 s bounds a failure only: each step waits for the server's datagrams */
	if (tpump(&c, NULL, NULL, 5000) < 0) {
		/* a stall: say where, and whether a step with no event would have gone on */
		fprintf(stderr, "not done in 5 s: state %d, status %d, %llu body bytes, timer in %lld ms\n",
			(int)c.st, c.rec.status, (unsigned long long)c.rec.body_bytes,
			(long long)((c.tick_ns - pq_mono_ns()) / PQ_NS_PER_MS));
		(void)pq_load_conn_step(&c);
		fprintf(stderr, "one more step: state %d, status %d\n", (int)c.st, c.rec.status);
	}
	assert_int_equal(c.st, PQ_CS_DONE);
	assert_null(c.h3); /* freed with the connection */
	return c.rec;
}

static void response(void **state)
{
	(void)state;
	h3peer p = {.mode = H3P_OK, .body = 3000, .chunks = 3};
	assert_int_equal(h3peer_start(&p), 0);
	pq_load_record r = get(&p);
	assert_int_equal(r.err, PQ_LERR_NONE);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.body_bytes, 3000);
	assert_true(r.t[PQ_PH_REQUEST] >= r.t[PQ_PH_HANDSHAKE]);
	assert_true(r.t[PQ_PH_TTFB] >= r.t[PQ_PH_REQUEST] && r.t[PQ_PH_TTLB] >= r.t[PQ_PH_TTFB]);
	h3peer_stop(&p);
}

static void no_status(void **state)
{
	(void)state;
	h3peer p = {.mode = H3P_NO_STATUS, .body = 10, .chunks = 1};
	assert_int_equal(h3peer_start(&p), 0);
	pq_load_record r = get(&p);
	assert_int_equal(r.err, PQ_LERR_HTTP);
	assert_string_equal(r.err_detail, "HTTP/3 response head without :status (H3_MESSAGE_ERROR 0x10e)");
	h3peer_stop(&p);
}

/* A reset's code by name: the first and last of HTTP/3's, one of QPACK's, one past both. */
static void resets_named(void **state)
{
	(void)state;
	static const struct {
		uint64_t code;
		const char *name;
	} cases[] = {
	    {0x100, "H3_NO_ERROR"},
	    {0x110, "H3_VERSION_FALLBACK"},
	    {0x202, "QPACK_DECODER_STREAM_ERROR"},
	    {0x111, "an error code of its own"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		h3peer p = {.mode = H3P_RESET, .body = 2000, .chunks = 2, .reset_code = cases[i].code};
		assert_int_equal(h3peer_start(&p), 0);
		pq_load_record r = get(&p);
		char want[160];
		snprintf(want, sizeof want, "the server reset the request stream (%s 0x%llx)",
			 cases[i].name, (unsigned long long)cases[i].code);
		if (strcmp(r.err_detail, want))
			fprintf(stderr, "reset 0x%llx: %s\n", (unsigned long long)cases[i].code, r.err_detail);
		assert_int_equal(r.err, PQ_LERR_HTTP);
		assert_string_equal(r.err_detail, want);
		h3peer_stop(&p);
	}
}

/* HTTP/3 on a TLS-over-TCP connection: OpenSSL has no streams there. */
static void not_quic(void **state)
{
	(void)state;
	pq_addr t = {.host = "localhost"};
	pq_conn_params cp = {.target = &t, .ctx = tcp_ctx, .clock = &pq_clock_mono, .h3 = 1};
	pq_load_conn c = {.p = &cp, .fd = -1};
	c.ssl = SSL_new(tcp_ctx);
	assert_non_null(c.ssl);
	pq_load_h3_free(&c); /* nothing started: nothing to free */
	assert_int_equal(pq_load_h3_prepare(&c), PQ_ETLS);
	const char *why = NULL;
	assert_int_equal(pq_load_h3_start(&c, &why), PQ_ETLS);
	assert_string_equal(why, "cannot open the HTTP/3 streams");
	assert_non_null(c.h3);
	pq_load_h3_free(&c);
	assert_null(c.h3);
	pq_load_h3_free(&c);
	ERR_clear_error();
	SSL_free(c.ssl);
}

static int setup(void **state)
{
	(void)state;
	pq_diag d = {0};
	if (testchain_make("ecdsa-p256"))
		return -1;
	pq_tls_config q = {.role = PQ_TLS_CLIENT, .quic = 1, .quic_h3 = 1, .insecure = 1};
	pq_tls_config t = {.role = PQ_TLS_CLIENT, .insecure = 1};
	if (pq_tls_ctx_new(&q, &h3_ctx, &d) || pq_tls_ctx_new(&t, &tcp_ctx, &d)) {
		fprintf(stderr, "test_load_h3: %s\n", pq_diag_msg(&d));
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	pq_tls_ctx_free(h3_ctx);
	pq_tls_ctx_free(tcp_ctx);
	return testchain_remove(state);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(response),
	    cmocka_unit_test(no_status),
	    cmocka_unit_test(resets_named),
	    cmocka_unit_test(not_quic),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
