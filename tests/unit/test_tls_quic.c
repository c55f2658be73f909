/* tls/quic and tls/qbio: the long-header walk over hand-made datagrams (coalesced
 * packets, each type, damage), the wire accounting and both amplification views, the
 * refusals of what QUIC cannot carry, QUIC contexts, and the datagram tap over a real
 * datagram BIO pair. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/bio.h>

#include "tls/ctx.h"
#include "tls/qbio.h"
#include "tls/quic.h"

/* A long-header packet of `type` (0 Initial, 1 0-RTT, 2 Handshake, 3 Retry) with 8-byte
 * connection IDs, `payload` bytes after the length (two-byte varint), at d. Returns its
 * length. */
static size_t put_long(uint8_t *d, unsigned type, size_t payload)
{
	size_t at = 0;
	d[at++] = (uint8_t)(0xC0 | type << 4);
	d[at++] = 0, d[at++] = 0, d[at++] = 0, d[at++] = 1; /* version 1 */
	for (int cid = 0; cid < 2; cid++) {
		d[at++] = 8;
		memset(d + at, 0xAB, 8);
		at += 8;
	}
	if (type == 3) {
		memset(d + at, 0x11, payload);
		return at + payload;
	}
	if (type == 0)
		d[at++] = 0; /* no token */
	d[at++] = (uint8_t)(0x40 | payload >> 8);
	d[at++] = (uint8_t)payload;
	memset(d + at, 0x22, payload);
	return at + payload;
}

static void types(void **state)
{
	(void)state;
	uint8_t d[1500];
	size_t n = put_long(d, 0, 200);
	assert_int_equal(pq_tls_quic_types(d, n), PQ_QPKT_INITIAL);
	n += put_long(d + n, 2, 300); /* coalesced: Initial + Handshake */
	assert_int_equal(pq_tls_quic_types(d, n), PQ_QPKT_INITIAL | PQ_QPKT_HANDSHAKE);
	d[n] = 0x40; /* then a short-header packet to the end */
	memset(d + n + 1, 0, 20);
	assert_int_equal(pq_tls_quic_types(d, n + 21),
			 PQ_QPKT_INITIAL | PQ_QPKT_HANDSHAKE | PQ_QPKT_SHORT);
	n = put_long(d, 3, 40);
	assert_int_equal(pq_tls_quic_types(d, n), PQ_QPKT_RETRY);
	n = put_long(d, 1, 10);
	assert_int_equal(pq_tls_quic_types(d, n), PQ_QPKT_0RTT);
}

static void types_damaged(void **state)
{
	(void)state;
	uint8_t d[600];
	size_t n = put_long(d, 2, 100);
	/* A length past the end: nothing trusted. */
	assert_int_equal(pq_tls_quic_types(d, n - 1), 0);
	/* A connection ID longer than 20. */
	d[5] = 21;
	assert_int_equal(pq_tls_quic_types(d, n), 0);
	/* Too short for a long header at all, and empty. */
	assert_int_equal(pq_tls_quic_types(d, 4), 0);
	assert_int_equal(pq_tls_quic_types(d, 0), 0);
	/* Damage after a good packet keeps what was read before it. */
	size_t good = put_long(d, 0, 50);
	d[good] = 0xE0; /* a Handshake header cut short */
	assert_int_equal(pq_tls_quic_types(d, good + 3), PQ_QPKT_INITIAL);
	/* An Initial whose token length runs past the end. */
	n = put_long(d, 0, 10);
	d[23] = 0x3f;
	assert_int_equal(pq_tls_quic_types(d, 30), 0);
	/* Version Negotiation (version 0) fills the datagram and has no type of ours. */
	d[1] = d[2] = d[3] = d[4] = 0;
	assert_int_equal(pq_tls_quic_types(d, n), 0);
}

/* A client's view: two Initials out, the server's flight back in pieces. */
static void wire_client(void **state)
{
	(void)state;
	uint8_t ini[1200], hs[1200];
	size_t ni = put_long(ini, 0, 1174), nh = put_long(hs, 2, 1175); /* 1200 each */
	assert_int_equal(ni, 1200);
	assert_int_equal(nh, 1200);
	pq_tls_quic_wire w;
	pq_tls_quic_wire_init(&w, 0);
	pq_tls_quic_wire_dgram(&w, 1, ini, ni);
	pq_tls_quic_wire_dgram(&w, 1, ini, ni);
	for (int i = 0; i < 6; i++) /* 6 x 1200 = 7200: exactly 3x, not beyond */
		pq_tls_quic_wire_dgram(&w, 0, hs, nh);
	pq_tls_quic_wire_dgram(&w, 1, hs, nh); /* not part of the first flight */
	assert_int_equal(w.first_dgrams, 2);
	assert_int_equal(w.first_bytes, 2 * ni);
	assert_int_equal(w.first_dgram_bytes, ni);
	assert_int_equal(pq_tls_quic_client_saw_held(&w), 0);
	pq_tls_quic_wire_dgram(&w, 0, hs, nh); /* one more: beyond 3x */
	assert_int_equal(pq_tls_quic_client_saw_held(&w), 1);
	assert_int_equal(w.dgrams[0], 3);
	assert_int_equal(w.dgrams[1], 7);
	pq_tls_quic_wire_done(&w);
	pq_tls_quic_wire_dgram(&w, 0, hs, nh); /* after the handshake: totals only */
	assert_int_equal(w.dgrams[1], 7);
	assert_int_equal(w.total_dgrams[1], 8);
	assert_int_equal(w.bytes[1], 7 * nh);
	/* A Retry validates up front: never judged held. */
	uint8_t rt[100];
	size_t nr = put_long(rt, 3, 40);
	pq_tls_quic_wire_dgram(&w, 0, rt, nr);
	assert_int_equal(w.retry, 1);
	assert_int_equal(pq_tls_quic_client_saw_held(&w), 0);
	/* Nothing sent: nothing judged. */
	pq_tls_quic_wire_init(&w, 0);
	assert_int_equal(pq_tls_quic_client_saw_held(&w), 0);
}

/* A server's view: the budget grows with what arrives; a Handshake packet validates. */
static void wire_server(void **state)
{
	(void)state;
	uint8_t ini[1200], hs[1200];
	size_t ni = put_long(ini, 0, 1174), nh = put_long(hs, 2, 1175); /* 1200 each */
	pq_tls_quic_wire w;
	pq_tls_quic_wire_init(&w, 1);
	pq_tls_quic_wire_dgram(&w, 0, ini, ni); /* 1200 in: 3600 allowed */
	pq_tls_quic_wire_dgram(&w, 1, hs, nh);
	pq_tls_quic_wire_dgram(&w, 1, hs, nh); /* 2400 out: room for one more */
	assert_int_equal(pq_tls_quic_server_held(&w), 0);
	pq_tls_quic_wire_dgram(&w, 1, hs, nh); /* 3600: no room left */
	assert_int_equal(pq_tls_quic_server_held(&w), 1);
	assert_int_equal(w.first_dgrams, 1);
	pq_tls_quic_wire_dgram(&w, 0, hs, nh); /* the client's Handshake: validated */
	assert_int_equal(w.validated, 1);
	pq_tls_quic_wire_dgram(&w, 1, hs, nh);
	assert_int_equal(w.prevalid_tx, 3 * nh);
	assert_int_equal(w.prevalid_rx, ni);
	/* A flight well inside the budget is not held. */
	pq_tls_quic_wire_init(&w, 1);
	pq_tls_quic_wire_dgram(&w, 0, ini, ni);
	pq_tls_quic_wire_dgram(&w, 0, ini, ni);
	pq_tls_quic_wire_dgram(&w, 1, hs, nh);
	pq_tls_quic_wire_dgram(&w, 0, hs, nh);
	assert_int_equal(pq_tls_quic_server_held(&w), 0);
	/* After a Retry the client's next datagram validates. */
	pq_tls_quic_wire_init(&w, 1);
	uint8_t rt[100];
	pq_tls_quic_wire_dgram(&w, 0, ini, ni);
	pq_tls_quic_wire_dgram(&w, 1, rt, put_long(rt, 3, 40));
	pq_tls_quic_wire_dgram(&w, 0, ini, ni);
	assert_int_equal(w.validated, 1);
}

static void check_refusals(void **state)
{
	(void)state;
	pq_diag d = {0};
	static const pq_name names[] = {{"version", "--tls"}, {"max_early_data", "--max-early-data"}, {NULL, NULL}};
	pq_tls_config c = {.role = PQ_TLS_SERVER, .quic = 1, .version = 12, .names = names};
	assert_int_equal(pq_tls_quic_check(&c, &d), PQ_EUNSUPPORTED);
	assert_non_null(strstr(pq_diag_msg(&d), "--tls 1.2"));
	c.version = 13;
	c.max_early_data = 16384;
	assert_int_equal(pq_tls_quic_check(&c, &d), PQ_EUNSUPPORTED);
	assert_non_null(strstr(pq_diag_msg(&d), "--max-early-data"));
	assert_non_null(strstr(pq_diag_msg(&d), "no 0-RTT"));
	c.max_early_data = 0;
	assert_int_equal(pq_tls_quic_check(&c, &d), 0);
	/* The context factory refuses the same before making anything. */
	SSL_CTX *ctx = NULL;
	c.version = 12;
	assert_int_equal(pq_tls_ctx_new(&c, &ctx, &d), PQ_EUNSUPPORTED);
	assert_null(ctx);
}

static void contexts(void **state)
{
	(void)state;
	pq_diag d = {0};
	SSL_CTX *ctx = NULL;
	pq_tls_config c = {.role = PQ_TLS_CLIENT, .quic = 1, .insecure = 1, .groups = "X25519MLKEM768"};
	assert_int_equal(pq_tls_ctx_new(&c, &ctx, &d), 0);
	SSL *ssl = SSL_new(ctx);
	assert_non_null(ssl);
	assert_int_equal(SSL_is_quic(ssl), 1);
	SSL_free(ssl);
	pq_tls_ctx_free(ctx);
	assert_ptr_equal(pq_tls_quic_method(PQ_TLS_SERVER), OSSL_QUIC_server_method());
	assert_ptr_equal(pq_tls_quic_method(PQ_TLS_CLIENT), OSSL_QUIC_client_method());
	/* A bad group is refused over QUIC as over TCP. */
	c.groups = "NoSuchGroup";
	assert_int_equal(pq_tls_ctx_new(&c, &ctx, &d), PQ_EINVAL);
}

typedef struct seen {
	int tx, rx;
	size_t bytes;
} seen;

static void count(void *arg, int tx, const BIO_ADDR *peer, const uint8_t *d, size_t n)
{
	(void)peer, (void)d;
	seen *s = arg;
	if (tx)
		s->tx++;
	else
		s->rx++;
	s->bytes += n;
}

/* The tap over a datagram BIO pair: what goes through is counted, with its size. */
static void tap(void **state)
{
	(void)state;
	BIO *a = NULL, *b = NULL;
	assert_int_equal(BIO_new_bio_dgram_pair(&a, 0, &b, 0), 1);
	seen s = {0};
	BIO *t = pq_tls_qbio_new(a, count, &s);
	assert_non_null(t);
	char msg[100] = "hello";
	BIO_MSG m = {.data = msg, .data_len = 100};
	size_t done = 0;
	assert_int_equal(BIO_sendmmsg(t, &m, sizeof m, 1, 0, &done), 1);
	assert_int_equal(done, 1);
	assert_int_equal(s.tx, 1);
	char in[200];
	BIO_MSG r = {.data = in, .data_len = sizeof in};
	assert_int_equal(BIO_sendmmsg(b, &m, sizeof m, 1, 0, &done), 1);
	assert_int_equal(BIO_recvmmsg(t, &r, sizeof r, 1, 0, &done), 1);
	assert_int_equal(s.rx, 1);
	assert_int_equal(s.bytes, 200);
	/* Nothing waiting: a failed receive tells nothing. */
	assert_int_equal(BIO_recvmmsg(t, &r, sizeof r, 1, 0, &done), 0);
	assert_int_equal(s.rx, 1);
	/* Controls reach the BIO below (a pair reports its MTU). */
	assert_true(BIO_dgram_get_mtu(t) > 0);
	pq_tls_qbio_set_cb(t, NULL, NULL);
	assert_int_equal(BIO_sendmmsg(t, &m, sizeof m, 1, 0, &done), 1);
	assert_int_equal(s.tx, 1);
	BIO_free_all(t);
	BIO_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(types),	  cmocka_unit_test(types_damaged),
		cmocka_unit_test(wire_client),	  cmocka_unit_test(wire_server),
		cmocka_unit_test(check_refusals), cmocka_unit_test(contexts),
		cmocka_unit_test(tap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
