/* For the unit tests of load/conn: a scripted peer on loopback, stepped by hand in the
 * test's own thread (no thread, no sleep), and a loop that steps a client connection
 * and the peer in turn. The peer listens on 127.0.0.1 (a port of the kernel's choice);
 * with a server SSL_CTX it speaks TLS, without one plain TCP. Once it has a connection
 * it answers every request (a read ending in an empty line) with `reply`, up to
 * `replies` of them, then does what `after` says: keep the connection, close it with a
 * close_notify, close it without one, or reset it.
 *
 * Contract: tpeer_open binds and listens (0, or -1 and the test fails);
 * tpeer_accept takes the pending connection (0, or -1 when none came within wait_ms);
 * tpeer_step moves the peer on without blocking; tpeer_close frees everything.
 * tpump steps both until the client is done or a real-time limit passed (a failure
 * bound only: every step waits for the other side's bytes, never for time). Only for
 * tests. */
#ifndef PQ_TESTS_TPEER_H
#define PQ_TESTS_TPEER_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "load/conn.h"

enum tpeer_after { TP_KEEP, TP_CLOSE_NOTIFY, TP_CLOSE, TP_RESET };

typedef struct tpeer {
	SSL_CTX *ctx; /* the caller's; NULL: plain TCP */
	const char *reply;
	size_t reply_len;
	int replies; /* 0 = 1 */
	enum tpeer_after after;
	int ls, fd;
	uint16_t port;
	SSL *ssl;
	int answered, ended;
} tpeer;

static inline int tpeer_open(tpeer *p)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof a;
	p->fd = -1;
	p->ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (p->ls < 0 || bind(p->ls, (struct sockaddr *)&a, sizeof a) || listen(p->ls, 4) ||
	    getsockname(p->ls, (struct sockaddr *)&a, &len))
		return -1;
	p->port = ntohs(a.sin_port);
	if (p->reply && !p->reply_len)
		p->reply_len = strlen(p->reply);
	return 0;
}

static inline void tpeer_end(tpeer *p, enum tpeer_after how)
{
	if (how == TP_KEEP || p->fd < 0)
		return;
	if (how == TP_CLOSE_NOTIFY && p->ssl)
		(void)SSL_shutdown(p->ssl);
	if (how == TP_RESET) {
		struct linger l = {.l_onoff = 1, .l_linger = 0};
		setsockopt(p->fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
	}
	SSL_free(p->ssl);
	p->ssl = NULL;
	close(p->fd);
	p->fd = -1;
	p->ended = 1;
}

static inline int tpeer_accept(tpeer *p, int wait_ms)
{
	struct pollfd pf = {.fd = p->ls, .events = POLLIN};
	if (poll(&pf, 1, wait_ms) != 1)
		return -1;
	p->fd = accept4(p->ls, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (p->fd < 0)
		return -1;
	if (p->ctx) {
		p->ssl = SSL_new(p->ctx);
		SSL_set_fd(p->ssl, p->fd);
		SSL_set_accept_state(p->ssl);
	}
	return 0;
}

static inline void tpeer_send(tpeer *p)
{
	size_t off = 0;
	for (int spins = 0; off < p->reply_len && spins < 1000; spins++) {
		ssize_t w = p->ssl ? SSL_write(p->ssl, p->reply + off, (int)(p->reply_len - off))
				   : write(p->fd, p->reply + off, p->reply_len - off);
		if (w > 0)
			off += (size_t)w;
		else
			poll(&(struct pollfd){.fd = p->fd, .events = POLLOUT}, 1, 10);
	}
	ERR_clear_error();
	if (++p->answered >= (p->replies ? p->replies : 1))
		tpeer_end(p, p->after);
}

static inline void tpeer_step(tpeer *p)
{
	char b[4096];
	if (p->ended || (p->fd < 0 && tpeer_accept(p, 0) < 0))
		return;
	if (!p->ssl) { /* plain TCP: say its piece at once */
		if (p->reply && !p->answered)
			tpeer_send(p);
		return;
	}
	if (!SSL_is_init_finished(p->ssl)) {
		(void)SSL_do_handshake(p->ssl);
		ERR_clear_error();
		return;
	}
	int r = SSL_read(p->ssl, b, sizeof b);
	ERR_clear_error();
	if (r >= 4 && !memcmp(b + r - 4, "\r\n\r\n", 4) && p->reply)
		tpeer_send(p);
}

static inline void tpeer_close(tpeer *p)
{
	tpeer_end(p, TP_CLOSE);
	if (p->ls >= 0)
		close(p->ls);
	p->ls = -1;
}

/* Steps c and p (may be NULL) until c is done; 0, or -1 when limit_ms of real time
 * passed first. A fake clock (the connection's) moves 1 ms a round, so that phases
 * come out in order and distinct without any real waiting. */
static inline int tpump(pq_load_conn *c, tpeer *p, pq_clock *fake, int limit_ms)
{
	int64_t end = pq_mono_ns() + limit_ms * PQ_NS_PER_MS;
	while (c->st != PQ_CS_DONE) {
		if (pq_mono_ns() > end)
			return -1;
		struct pollfd pf[2] = {{.fd = c->fd, .events = (short)c->events},
				       {.fd = p && !p->ended ? (p->fd >= 0 ? p->fd : p->ls) : -1,
					.events = POLLIN}};
		poll(pf, 2, 5);
		if (p)
			tpeer_step(p);
		if (fake)
			fake->fake_ns += PQ_NS_PER_MS;
		if (pf[0].revents)
			(void)pq_load_conn_step(c);
		else if (c->tick_ns != INT64_MAX && pq_clock_now(c->p->clock) >= c->tick_ns)
			(void)pq_load_conn_tick(c);
	}
	return 0;
}

#endif
