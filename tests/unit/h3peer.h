/* A small HTTP/3 server for the client's tests (load/h3.c), which pqtls serve cannot be
 * (it speaks hq-interop): OpenSSL 3.5's QUIC server on a loopback UDP socket, driven by a
 * thread of its own, non-blocking, with nghttp3 nowhere on its side. It answers every
 * connection's request stream, read to its end and not decoded, as the test asks:
 *   H3P_OK         a HEADERS frame with ":status 200", then `body` bytes in `chunks` DATA
 *                  frames, `gap_ms` apart (a slow but steady server);
 *   H3P_NO_STATUS  the same with a head that has no :status (only "age: 0");
 *   H3P_RESET      the head and the first chunk, then RESET_STREAM with `reset_code`.
 * Frames are written by hand (RFC 9114 7.2; field sections from QPACK's static table
 * alone, RFC 9204 4.5 and appendix A: 0xd9 is ":status 200", 0xc2 "age: 0"). Its
 * control stream carries an empty SETTINGS frame.
 *
 * Contract: h3peer_start binds and starts the thread (0, or -1 with a message on
 * stderr); h3peer_stop ends it (at its next 1 ms tick) and frees everything. Only for
 * tests: no error handling beyond giving up on a connection. */
#ifndef PQ_TESTS_H3PEER_H
#define PQ_TESTS_H3PEER_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "testchain.h"

enum h3peer_mode { H3P_OK, H3P_NO_STATUS, H3P_RESET };

typedef struct h3peer {
	enum h3peer_mode mode;
	size_t body, chunks;
	int gap_ms;
	uint64_t reset_code;
	uint16_t port; /* bound, after h3peer_start */
	atomic_int stop;
	SSL_CTX *ctx;
	SSL *ln;
	pthread_t th;
} h3peer;

static int64_t h3peer_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One millisecond of OpenSSL's events; 0 once the test stopped the peer. */
static int h3peer_tick(h3peer *p, SSL *conn)
{
	if (atomic_load(&p->stop))
		return 0;
	SSL_handle_events(conn);
	usleep(1000);
	return 1;
}

/* Write all n bytes to stream s; 0 when the connection failed or the peer stopped. */
static int h3peer_write(h3peer *p, SSL *conn, SSL *s, const void *d, size_t n)
{
	size_t off = 0;
	while (off < n) {
		size_t w = 0;
		if (SSL_write_ex(s, (const char *)d + off, n - off, &w) == 1)
			off += w;
		else if (SSL_get_error(s, 0) != SSL_ERROR_WANT_WRITE || !h3peer_tick(p, conn))
			return 0;
	}
	return 1;
}

/* A frame header: type, then the length as a two-byte varint (up to 16383). */
static size_t h3peer_frame(uint8_t *out, uint8_t type, size_t len)
{
	out[0] = type;
	out[1] = (uint8_t)(0x40 | len >> 8);
	out[2] = (uint8_t)len;
	return 3;
}

static int h3peer_answer(h3peer *p, SSL *conn, SSL *req)
{
	static const uint8_t head_ok[] = {0x00, 0x00, 0xd9}, head_bare[] = {0x00, 0x00, 0xc2};
	uint8_t buf[16384 + 3];
	size_t n = h3peer_frame(buf, 0x01, 3);
	memcpy(buf + n, p->mode == H3P_NO_STATUS ? head_bare : head_ok, 3);
	if (!h3peer_write(p, conn, req, buf, n + 3))
		return 0;
	size_t left = p->body;
	for (size_t i = 0; i < p->chunks && left; i++) {
		size_t len = i + 1 == p->chunks ? left : p->body / p->chunks;
		int64_t until = h3peer_ms() + (i ? p->gap_ms : 0);
		while (h3peer_ms() < until)
			if (!h3peer_tick(p, conn))
				return 0;
		n = h3peer_frame(buf, 0x00, len);
		memset(buf + n, 'x', len);
		if (!h3peer_write(p, conn, req, buf, n + len))
			return 0;
		left -= len;
		if (p->mode == H3P_RESET) {
			SSL_STREAM_RESET_ARGS ra = {.quic_error_code = p->reset_code};
			return SSL_stream_reset(req, &ra, sizeof ra) == 1;
		}
	}
	return SSL_stream_conclude(req, 0) == 1;
}

/* One connection: its request stream (the client's uni streams are taken and left
 * unread), the answer, then until the client closes it. */
static void h3peer_serve(h3peer *p, SSL *conn)
{
	static const uint8_t control[] = {0x00, 0x04, 0x00}; /* control stream, SETTINGS {} */
	SSL *in[8] = {NULL}, *req = NULL, *ctl = NULL;
	size_t nin = 0, got;
	uint8_t buf[1024];
	SSL_CONN_CLOSE_INFO info;
	if (!SSL_set_default_stream_mode(conn, SSL_DEFAULT_STREAM_MODE_NONE) ||
	    !SSL_set_incoming_stream_policy(conn, SSL_INCOMING_STREAM_POLICY_ACCEPT, 0))
		goto out;
	while (!req) {
		SSL *s = SSL_accept_stream(conn, SSL_ACCEPT_STREAM_NO_BLOCK);
		if (s && SSL_get_stream_type(s) == SSL_STREAM_TYPE_BIDI)
			req = s;
		else if (s && nin < 8)
			in[nin++] = s;
		else if (s)
			SSL_free(s);
		else if (!h3peer_tick(p, conn))
			goto out;
	}
	for (;;) {
		if (SSL_read_ex(req, buf, sizeof buf, &got) == 1)
			continue;
		if (SSL_get_error(req, 0) == SSL_ERROR_ZERO_RETURN)
			break; /* the request's end */
		if (SSL_get_error(req, 0) != SSL_ERROR_WANT_READ || !h3peer_tick(p, conn))
			goto out;
	}
	ctl = SSL_new_stream(conn, SSL_STREAM_FLAG_UNI);
	if (!ctl || !h3peer_write(p, conn, ctl, control, sizeof control) ||
	    !h3peer_answer(p, conn, req))
		goto out;
	while (SSL_get_conn_close_info(conn, &info, sizeof info) != 1 && h3peer_tick(p, conn))
		;
out:
	SSL_free(ctl);
	SSL_free(req);
	for (size_t i = 0; i < nin; i++)
		SSL_free(in[i]);
	SSL_free(conn);
}

static void *h3peer_main(void *arg)
{
	h3peer *p = arg;
	while (!atomic_load(&p->stop)) {
		SSL *conn = SSL_accept_connection(p->ln, SSL_ACCEPT_CONNECTION_NO_BLOCK);
		if (conn) {
			h3peer_serve(p, conn);
		} else {
			SSL_handle_events(p->ln);
			usleep(1000);
		}
	}
	return NULL;
}

static int h3peer_alpn(SSL *s, const unsigned char **out, unsigned char *outlen,
		       const unsigned char *in, unsigned int inlen, void *arg)
{
	(void)s, (void)arg;
	static const unsigned char h3[] = "\x02h3";
	unsigned char *sel;
	if (SSL_select_next_proto(&sel, outlen, h3, sizeof h3 - 1, in, inlen) !=
	    OPENSSL_NPN_NEGOTIATED)
		return SSL_TLSEXT_ERR_ALERT_FATAL;
	*out = sel;
	return SSL_TLSEXT_ERR_OK;
}

static int h3peer_start(h3peer *p)
{
	char chain[300], key[300];
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	BIO *b = NULL;
	snprintf(chain, sizeof chain, "%s/chain.pem", chain_dir);
	snprintf(key, sizeof key, "%s/leaf.key", chain_dir);
	atomic_store(&p->stop, 0);
	p->ctx = SSL_CTX_new(OSSL_QUIC_server_method());
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0 || !p->ctx ||
	    SSL_CTX_use_certificate_chain_file(p->ctx, chain) != 1 ||
	    SSL_CTX_use_PrivateKey_file(p->ctx, key, SSL_FILETYPE_PEM) != 1 ||
	    !(b = BIO_new_dgram(fd, BIO_CLOSE))) {
		fprintf(stderr, "h3peer: cannot set up the server (chain %s)\n", chain);
		if (fd >= 0)
			close(fd);
		SSL_CTX_free(p->ctx);
		return -1;
	}
	SSL_CTX_set_alpn_select_cb(p->ctx, h3peer_alpn, NULL);
	p->port = ntohs(a.sin_port);
	p->ln = SSL_new_listener(p->ctx, SSL_LISTENER_FLAG_NO_VALIDATE);
	if (!p->ln) {
		BIO_free(b);
		SSL_CTX_free(p->ctx);
		return -1;
	}
	SSL_set_bio(p->ln, b, b);
	if (!SSL_set_blocking_mode(p->ln, 0) || !SSL_listen(p->ln) ||
	    pthread_create(&p->th, NULL, h3peer_main, p) != 0) {
		SSL_free(p->ln);
		SSL_CTX_free(p->ctx);
		return -1;
	}
	return 0;
}

static void h3peer_stop(h3peer *p)
{
	atomic_store(&p->stop, 1);
	pthread_join(p->th, NULL);
	SSL_free(p->ln);
	SSL_CTX_free(p->ctx);
}

#endif
