/* The server over QUIC: one thread, one UDP socket under OpenSSL 3.5's QUIC listener,
 * an epoll loop that wakes on the socket, the stop eventfd or OpenSSL's next timer.
 * Each accepted connection answers one hq-interop request on the client's first
 * bidirectional stream (the connection's default stream), concludes it and, once the
 * answer is acknowledged, closes the connection (or sees the client close it first).
 *
 * A new connection is counted against max_conns at its ClientHello (or its accept, if
 * that comes first). Past the limit its ClientHello is held, so the server sends it no
 * flight, and it is closed at once: OpenSSL 3.5's listener has no way to refuse a
 * connection before it is made. A ClientHello the server is bound to refuse
 * (tls/qhello.h) is held once, so that the client hears the TLS alert.
 *
 * The amplification view is kept per client address from the datagram tap (tls/qbio.h):
 * a client's counts are final once its address is validated, and go into the stats
 * then. (OpenSSL 3.5 has no call that gives a connection's peer address, so the
 * accounting is by address, not by connection object.) */
#include <errno.h>
#include <openssl/err.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/sched.h"
#include "http/http.h"
#include "server/internal.h"
#include "tls/io.h"
#include "tls/qbio.h"
#include "tls/qhello.h"
#include "tls/quic.h"

#define CHUNK 16384
#define SCAN_NS (100 * PQ_NS_PER_MS)
/* A validated client address is forgotten after this much silence (its counts are in
 * the stats already; a later connection from the same port starts afresh). */
#define PEER_IDLE_NS (2 * PQ_NS_PER_S)
#define DRAIN_NS (1 * PQ_NS_PER_S)

/* Q_DRAIN: failed; kept for DRAIN_NS so the engine sends its CONNECTION_CLOSE and
 * answers the client's retransmissions with it (RFC 9000 10.2: the closing state);
 * freed at once, the close would often never leave. */
enum qst { Q_HANDSHAKE, Q_READ, Q_WRITE, Q_CLOSE, Q_DRAIN };

/* What the server decided about a connection before it was accepted, in its SSL's app
 * data: counted against max_conns, or over it; its ClientHello held once. */
enum { QF_COUNTED = 1, QF_OVER = 2, QF_HELD = 4 };

typedef struct qconn {
	SSL *ssl;
	enum qst st;
	int64_t deadline;
	char in[300];
	size_t in_len;
	pq_http_resp resp;
	uint64_t sent;
	int counted; /* in srv->open_conns */
	struct qconn *next;
	int64_t wait0_ns; /* the worker's wait for a CPU when OpenSSL handed it over (core/sched.h) */
} qconn;

typedef struct qpeer {
	unsigned char key[20]; /* family, port, address */
	size_t key_len;
	pq_tls_quic_wire wire;
	int counted;
	int64_t seen_ns;
	struct qpeer *next;
} qpeer;

typedef struct qloop {
	pq_worker *w;
	pq_server *srv;
	qconn *conns;
	qpeer *peers;
	char pattern[CHUNK + 64];
	pq_sched_meter meter; /* this worker's wait for a CPU */
	pq_tls_qhello hello;  /* the refusals foreseen in a ClientHello */
	int retick;           /* a ClientHello was held: let OpenSSL go on at once */
} qloop;

static char udp_tag, stop_tag;

static size_t addr_key(const BIO_ADDR *a, unsigned char *key)
{
	size_t len = 0;
	unsigned short port = BIO_ADDR_rawport(a);
	key[0] = (unsigned char)BIO_ADDR_family(a);
	memcpy(key + 1, &port, sizeof port);
	if (!BIO_ADDR_rawaddress(a, NULL, &len) || len > 16 || !BIO_ADDR_rawaddress(a, key + 3, &len))
		return 0;
	return 3 + len;
}

/* The tap: every datagram the listener's socket moved, with its peer. */
static void on_dgram(void *arg, int tx, const BIO_ADDR *peer, const uint8_t *d, size_t n)
{
	qloop *l = arg;
	unsigned char key[20];
	size_t kl = peer ? addr_key(peer, key) : 0;
	if (!kl)
		return;
	qpeer *p = l->peers;
	while (p && (p->key_len != kl || memcmp(p->key, key, kl) != 0))
		p = p->next;
	if (!p) {
		if (tx || !(p = calloc(1, sizeof *p)))
			return; /* we never answer an address we have not heard */
		memcpy(p->key, key, kl);
		p->key_len = kl;
		pq_tls_quic_wire_init(&p->wire, 1);
		p->next = l->peers;
		l->peers = p;
	}
	p->seen_ns = pq_mono_ns();
	pq_tls_quic_wire_dgram(&p->wire, tx, d, n);
	if (p->wire.validated && !p->counted) {
		p->counted = 1;
		pq_server_stats *st = &l->w->stats;
		st->quic_prevalid_tx += p->wire.prevalid_tx;
		st->quic_prevalid_rx += p->wire.prevalid_rx;
		st->quic_amp_held += pq_tls_quic_server_held(&p->wire) != 0;
	}
}

static void forget_peers(qloop *l, int64_t now)
{
	for (qpeer **pp = &l->peers; *pp;) {
		qpeer *p = *pp;
		if (now - p->seen_ns > PEER_IDLE_NS) {
			*pp = p->next;
			free(p);
		} else {
			pp = &p->next;
		}
	}
}

static unsigned qflags(SSL *s)
{
	return (unsigned)(uintptr_t)SSL_get_app_data(s);
}

static void set_qflags(SSL *s, unsigned f)
{
	SSL_set_app_data(s, (void *)(uintptr_t)f);
}

/* Count a new connection against max_conns, once: QF_COUNTED, or QF_OVER past it. */
static unsigned admit(pq_server *srv, SSL *s)
{
	unsigned f = qflags(s);
	if (f & (QF_COUNTED | QF_OVER))
		return f;
	if (atomic_fetch_add(&srv->open_conns, 1) < srv->cfg.max_conns) {
		f |= QF_COUNTED;
	} else {
		atomic_fetch_sub(&srv->open_conns, 1);
		f |= QF_OVER;
	}
	set_qflags(s, f);
	return f;
}

/* OpenSSL reads a ClientHello (inside SSL_handle_events, before the connection is
 * accepted). SSL_CLIENT_HELLO_RETRY holds it: the engine still acknowledges the client's
 * Initial in the same tick, and calls again at its next one. A connection over the limit
 * stays held until accept_some closes it (no flight, no signature, for a connection
 * refused). One the server is bound to refuse is held once: until then it has sent that
 * client nothing, and OpenSSL drops the close of a connection that has sent nothing
 * (tls/qhello.h); after the ACK, its alert goes out as a CONNECTION_CLOSE. */
static int hello_cb(SSL *s, int *al, void *arg)
{
	(void)al;
	qloop *l = arg;
	unsigned f = admit(l->srv, s);
	if (f & QF_OVER)
		return SSL_CLIENT_HELLO_RETRY;
	if (!(f & QF_HELD) && pq_tls_qhello_refusal(&l->hello, s)) {
		set_qflags(s, f | QF_HELD);
		l->retick = 1;
		return SSL_CLIENT_HELLO_RETRY;
	}
	return SSL_CLIENT_HELLO_SUCCESS;
}

static void close_conn(qloop *l, qconn *c)
{
	for (qconn **pp = &l->conns; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	ERR_clear_error();
	SSL_free(c->ssl);
	if (c->counted)
		atomic_fetch_sub(&l->srv->open_conns, 1);
	pq_server_stats_wait(&l->w->stats, pq_sched_delta(c->wait0_ns, pq_sched_meter_read(&l->meter)));
	free(c);
}

/* Over the connection limit: closed at once, as over TCP, and kept while the close is
 * sent (and sent again to what the client still sends). The server has sent it nothing
 * but acknowledgements, so the close goes in an Initial packet, where OpenSSL turns an
 * application close into the transport error APPLICATION_ERROR and drops its reason
 * (RFC 9000 10.2.3; ssl/quic/quic_txp.c): that code is what the client sees. */
static void refuse(qloop *l, qconn *c)
{
	SSL_SHUTDOWN_EX_ARGS args = {.quic_error_code = 0,
				     .quic_reason = "over the connection limit"};
	l->w->stats.err[PQ_SRV_OVER_LIMIT]++;
	(void)SSL_shutdown_ex(c->ssl, SSL_SHUTDOWN_FLAG_RAPID | SSL_SHUTDOWN_FLAG_NO_STREAM_FLUSH,
			      &args, sizeof args);
	c->st = Q_DRAIN;
	c->deadline = pq_mono_ns() + DRAIN_NS;
}

static void accept_some(qloop *l)
{
	pq_server *srv = l->srv;
	SSL *ssl;
	while ((ssl = SSL_accept_connection(srv->listener, SSL_ACCEPT_CONNECTION_NO_BLOCK))) {
		l->w->stats.accepted++;
		unsigned f = admit(srv, ssl);
		qconn *c = calloc(1, sizeof *c);
		if (!c) {
			if (f & QF_COUNTED)
				atomic_fetch_sub(&srv->open_conns, 1);
			l->w->stats.err[PQ_SRV_IO]++;
			SSL_free(ssl);
			continue;
		}
		c->ssl = ssl;
		c->counted = (f & QF_COUNTED) != 0;
		c->wait0_ns = pq_sched_meter_read(&l->meter);
		c->next = l->conns;
		l->conns = c;
		if (f & QF_OVER) {
			refuse(l, c);
			continue;
		}
		c->st = Q_HANDSHAKE;
		c->deadline = pq_mono_ns() + srv->cfg.handshake_timeout_ns;
	}
	ERR_clear_error();
}

/* A failed call: 1 to keep waiting, 0 when the connection failed (counted, and left
 * to drain). */
static int q_fail(qloop *l, qconn *c, int r)
{
	pq_tls_status ts;
	pq_tls_io io = pq_tls_io_status(c->ssl, r, &ts);
	if (io == PQ_TLS_IO_WANT_READ || io == PQ_TLS_IO_WANT_WRITE)
		return 1;
	pq_server_stats *st = &l->w->stats;
	if (c->st == Q_HANDSHAKE && io == PQ_TLS_IO_TLS && ts.queued) {
		st->err[PQ_SRV_HANDSHAKE]++;
		pq_server_stats_reason(st, *ts.reason ? ts.reason : NULL);
	} else if (c->st == Q_HANDSHAKE) {
		st->err[PQ_SRV_RESET]++;
	} else {
		st->err[PQ_SRV_IO]++;
	}
	c->st = Q_DRAIN;
	c->deadline = pq_mono_ns() + DRAIN_NS;
	return 0;
}

static void on_handshake(qloop *l, qconn *c)
{
	const char *sig = NULL;
	if (!SSL_get0_signature_name(c->ssl, &sig))
		sig = NULL;
	pq_server_stats_handshake(&l->w->stats, SSL_get_version(c->ssl),
				  SSL_get0_group_name(c->ssl), sig, SSL_session_reused(c->ssl));
	c->st = Q_READ;
	c->deadline = pq_mono_ns() + (l->srv->cfg.header_timeout_ns ? l->srv->cfg.header_timeout_ns
								  : PQ_SERVER_HEADER_TIMEOUT_NS);
}

/* Read the request line; 1 when it is parsed (or answered as bad), 0 to wait. */
static int read_request(qloop *l, qconn *c)
{
	size_t got = 0;
	int fin = 0;
	if (c->in_len < sizeof c->in) {
		int r = SSL_read_ex(c->ssl, c->in + c->in_len, sizeof c->in - c->in_len, &got);
		if (r != 1) {
			pq_tls_status ts;
			if (pq_tls_io_status(c->ssl, r, &ts) != PQ_TLS_IO_CLOSED) {
				(void)q_fail(l, c, r); /* waiting, or failed and draining */
				return 0;
			}
			fin = 1; /* the client concluded its stream */
		}
		c->in_len += got;
	}
	pq_http_req req;
	int hl = pq_http_parse_hq(c->in, c->in_len, fin, &req);
	if (hl == 0)
		return 0;
	if (hl > 0) {
		pq_http_route(&req, &c->resp);
		l->w->stats.requests++;
	} else {
		pq_http_bad_request(&c->resp);
		l->w->stats.err[PQ_SRV_BAD_REQUEST]++;
	}
	c->sent = 0;
	c->st = Q_WRITE;
	c->deadline = pq_mono_ns() + l->srv->cfg.idle_timeout_ns;
	return 1;
}

/* hq-interop answers carry the body alone: no status line, no headers. A bad request
 * gets its page text. */
static int write_response(qloop *l, qconn *c)
{
	while (c->sent < c->resp.body_len) {
		uint64_t left = c->resp.body_len - c->sent;
		size_t n = left < CHUNK ? (size_t)left : CHUNK, w = 0;
		const char *p = c->resp.page ? c->resp.page + c->sent : l->pattern + c->sent % 64;
		int r = SSL_write_ex(c->ssl, p, n, &w);
		if (r != 1) {
			(void)q_fail(l, c, r);
			return 0;
		}
		c->sent += w;
		l->w->stats.body_bytes += w;
	}
	if (!SSL_stream_conclude(c->ssl, 0)) {
		(void)q_fail(l, c, 0);
		return 0;
	}
	c->st = Q_CLOSE;
	return 1;
}

/* Advance a connection as far as it goes now. */
static void drive(qloop *l, qconn *c)
{
	for (;;) {
		int r;
		switch (c->st) {
		case Q_DRAIN:
			return; /* expire() frees it */
		case Q_HANDSHAKE:
			r = SSL_do_handshake(c->ssl);
			if (r != 1) {
				(void)q_fail(l, c, r);
				return;
			}
			on_handshake(l, c);
			break;
		case Q_READ:
			if (read_request(l, c) <= 0)
				return;
			break;
		case Q_WRITE:
			if (write_response(l, c) <= 0)
				return;
			break;
		case Q_CLOSE: {
			/* HTTP/0.9's end: once the client has acknowledged the whole answer
			 * (OpenSSL flushes the stream first), close the connection; the client
			 * may close first (it has the stream's end), which ends it as well.
			 * 1: fully shut down, after QUIC's closing period. */
			SSL_CONN_CLOSE_INFO info;
			r = SSL_shutdown_ex(c->ssl, 0, NULL, 0);
			if (r != 0 || (SSL_get_conn_close_info(c->ssl, &info, sizeof info) == 1 &&
				       !(info.flags & SSL_CONN_CLOSE_FLAG_LOCAL)))
				close_conn(l, c);
			ERR_clear_error();
			return;
		}
		}
	}
}

static void expire(qloop *l, int64_t now)
{
	qconn *next;
	for (qconn *c = l->conns; c; c = next) {
		next = c->next;
		if (now < c->deadline)
			continue;
		if (c->st == Q_DRAIN) {
			close_conn(l, c); /* counted when it failed */
			continue;
		}
		l->w->stats.err[c->st == Q_HANDSHAKE ? PQ_SRV_HS_TIMEOUT
			       : c->st == Q_READ     ? PQ_SRV_HEADER_TIMEOUT
						     : PQ_SRV_IDLE_TIMEOUT]++;
		/* One best-effort CONNECTION_CLOSE, so the client does not wait out its own
		 * idle timeout. */
		(void)SSL_shutdown_ex(c->ssl, SSL_SHUTDOWN_FLAG_RAPID, NULL, 0);
		close_conn(l, c);
	}
	forget_peers(l, now);
}

/* How long epoll may sleep: until OpenSSL's next timer, at most until the next scan. */
static int wait_ms(const qloop *l, int64_t now, int64_t next_scan)
{
	struct timeval tv;
	int inf = 1;
	int64_t until = next_scan - now;
	if (l->retick)
		return 0;
	if (SSL_get_event_timeout(l->srv->listener, &tv, &inf) && !inf) {
		int64_t t = (int64_t)tv.tv_sec * PQ_NS_PER_S + (int64_t)tv.tv_usec * PQ_NS_PER_US;
		until = t < until ? t : until;
	}
	return until <= 0 ? 0 : (int)((until + PQ_NS_PER_MS - 1) / PQ_NS_PER_MS);
}

void *pq_qworker_main(void *arg)
{
	pq_worker *w = arg;
	pq_server *srv = w->srv;
	(void)pq_sched_name_thread(PQ_SCHED_NAME_SERVER); /* a name only: failing costs nothing */
	qloop *l = calloc(1, sizeof *l);
	struct epoll_event evs[16];
	if (!l)
		return NULL;
	l->w = w;
	l->srv = srv;
	pq_sched_meter_open(&l->meter);
	pq_http_body_fill(l->pattern, 0, sizeof l->pattern);
	pq_tls_qbio_set_cb(srv->qtap, on_dgram, l);
	pq_tls_qhello_init(&l->hello, srv->ctx, srv->cfg.tls.groups);
	SSL_CTX_set_client_hello_cb(srv->ctx, hello_cb, l);
	if (pq_worker_open(w, &udp_tag, &stop_tag) < 0)
		goto out;
	int64_t next_scan = pq_mono_ns() + SCAN_NS;
	for (int stop = 0; !stop;) {
		int64_t now = pq_mono_ns();
		int n = epoll_wait(w->epfd, evs, 16, wait_ms(l, now, next_scan));
		for (int i = 0; i < n; i++)
			stop |= evs[i].data.ptr == &stop_tag;
		l->retick = 0;
		SSL_handle_events(srv->listener);
		ERR_clear_error();
		accept_some(l);
		qconn *next;
		for (qconn *c = l->conns; c; c = next) {
			next = c->next;
			drive(l, c);
		}
		now = pq_mono_ns();
		if (now >= next_scan) {
			expire(l, now);
			next_scan = now + SCAN_NS;
		}
	}
out:
	while (l->conns)
		close_conn(l, l->conns);
	pq_tls_qbio_set_cb(srv->qtap, NULL, NULL);
	SSL_CTX_set_client_hello_cb(srv->ctx, NULL, NULL);
	while (l->peers) {
		qpeer *p = l->peers;
		l->peers = p->next;
		free(p);
	}
	pq_worker_close(w);
	pq_sched_meter_close(&l->meter);
	free(l);
	return NULL;
}

int pq_server_quic_listen(pq_server *s, int fd, pq_diag *d)
{
	BIO *sock = BIO_new_dgram(fd, BIO_NOCLOSE);
	BIO *tap = sock ? pq_tls_qbio_new(sock, NULL, NULL) : NULL;
	uint64_t flags = s->cfg.quic_retry ? 0 : SSL_LISTENER_FLAG_NO_VALIDATE;
	SSL *ln = tap ? SSL_new_listener(s->ctx, flags) : NULL;
	int rc = 0;
	if (!ln) {
		rc = pq_diag_ossl(d, PQ_ETLS, "cannot make a QUIC listener");
		goto out;
	}
	SSL_set_bio(ln, tap, tap); /* the listener owns tap (and sock below it) now */
	if (!SSL_set_blocking_mode(ln, 0) || !SSL_listen(ln)) {
		rc = pq_diag_ossl(d, PQ_ETLS, "cannot listen for QUIC on %s", s->address);
		goto out;
	}
	s->listener = ln;
	s->qtap = tap;
	ln = NULL;
	sock = tap = NULL;
out:
	if (ln) {
		SSL_free(ln);
	} else {
		BIO_free_all(tap ? tap : sock);
	}
	return rc;
}
