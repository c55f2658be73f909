#include "load/conn.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "load/conn_int.h"
#include "load/h3.h"
#include "load/qconn.h"
#include "tls/io.h"

static int64_t now(pq_load_conn *c)
{
	return pq_clock_now(c->p->clock);
}

void pq_load_conn_mark(pq_load_conn *c, enum pq_phase ph)
{
	if (c->rec.t[ph] < 0)
		c->rec.t[ph] = now(c) - c->start_abs_ns;
}

/* The next phase's deadline, never past the connection's total one: a peer that makes
 * progress a byte at a time resets the first but not the second. */
static void phase_deadline(pq_load_conn *c)
{
	int64_t t = now(c) + c->p->timeout_ns;
	c->deadline_ns = t < c->end_by_ns ? t : c->end_by_ns;
}

void pq_load_conn_response_bytes(pq_load_conn *c)
{
	if (c->done_requests == 0)
		pq_load_conn_mark(c, PQ_PH_TTFB);
	phase_deadline(c);
}

/* The system's words for a failed connect, with the one case where they mislead: on a
 * blackhole route connect(2) fails with EINVAL, "Invalid argument", which reads like a
 * bad address rather than a route that discards everything. */
static const char *connect_error(int e)
{
	return e == EINVAL ? "Invalid argument (is the route to that address a blackhole?)" : strerror(e);
}

/* The last response is complete and the connection only waits for a ticket (after a
 * 0.5-RTT answer): its measurement is over, so a close or a timeout now is no error. */
static int only_ticket_left(const pq_load_conn *c)
{
	return c->st == PQ_CS_TICKET && c->rec.t[PQ_PH_END] >= 0;
}

void pq_load_conn_start(pq_load_conn *c, const pq_conn_params *p, uint64_t id,
			int64_t intended_ns, SSL_SESSION *session)
{
	memset(c, 0, sizeof *c);
	c->p = p;
	c->fd = -1;
	c->tick_ns = INT64_MAX;
	c->st = PQ_CS_CONNECTING;
	pq_load_record *r = &c->rec;
	r->id = id;
	for (int i = 0; i < PQ_PH_COUNT; i++)
		r->t[i] = -1;
	c->start_abs_ns = now(c);
	r->start_ns = c->start_abs_ns - p->run_start_ns;
	r->intended_ns = intended_ns < 0 ? r->start_ns : intended_ns;
	pq_tls_acct_init(&c->acct, p->clock);
	c->end_by_ns = p->total_timeout_ns > 0 ? c->start_abs_ns + p->total_timeout_ns : INT64_MAX;
	phase_deadline(c);

	c->ssl = SSL_new(p->ctx);
	if (!c->ssl) {
		pq_load_conn_finish(c, PQ_LERR_CONNECT, "cannot create a TLS connection object");
		return;
	}
	SSL_set_app_data(c->ssl, c);
	pq_tls_acct_attach(c->ssl, &c->acct);
	/* SNI and name checks for host names; an IP literal is checked as an IP SAN. An
	 * explicit server name (a server reached by an address its certificate does not
	 * name, as across an emulated link) replaces the host in both. */
	const char *name = p->servername ? p->servername : p->target->host;
	X509_VERIFY_PARAM *vp = SSL_get0_param(c->ssl);
	if (X509_VERIFY_PARAM_set1_ip_asc(vp, name) != 1) {
		SSL_set_tlsext_host_name(c->ssl, name);
		SSL_set1_host(c->ssl, name);
	}
	ERR_clear_error();
	if (session && SSL_set_session(c->ssl, session) == 1)
		r->resume_offered = 1;
	if (p->quic) {
		const char *why = "cannot set up HTTP/3's streams";
		int rc = p->h3 ? pq_load_h3_prepare(c) : 0;
		if (rc == 0)
			rc = pq_load_qconn_open(c, &why);
		if (rc < 0) {
			pq_load_conn_finish(
			    c, rc == -ECONNREFUSED ? PQ_LERR_REFUSED : PQ_LERR_CONNECT, why);
			return;
		}
		/* No connect phase: the handshake's first flight is the first packet. */
		SSL_set_connect_state(c->ssl);
		c->st = PQ_CS_HANDSHAKE;
		(void)pq_load_conn_step(c); /* sends the first flight, sets events and timer */
		return;
	}

	c->fd = socket(p->target->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || pq_addr_nodelay(c->fd) < 0 || !SSL_set_fd(c->ssl, c->fd)) {
		pq_load_conn_finish(c, PQ_LERR_CONNECT, strerror(errno));
		return;
	}
	pq_tls_acct_watch_fd(&c->acct, c->fd);
	if (connect(c->fd, (const struct sockaddr *)&p->target->sa, p->target->len) < 0 &&
	    errno != EINPROGRESS) {
		int e = errno;
		pq_load_conn_finish(c, e == ECONNREFUSED ? PQ_LERR_REFUSED : PQ_LERR_CONNECT,
				    connect_error(e));
		return;
	}
	c->events = EPOLLOUT;
}

static void handshake_done(pq_load_conn *c)
{
	pq_load_record *r = &c->rec;
	pq_load_conn_mark(c, PQ_PH_HANDSHAKE);
	pq_tls_quic_wire_done(&c->wire);
	snprintf(r->version, sizeof r->version, "%s", SSL_get_version(c->ssl));
	pq_tls_acct_names(c->ssl, r->group, sizeof r->group, r->sigalg, sizeof r->sigalg);
	const SSL_CIPHER *cipher = SSL_get_current_cipher(c->ssl);
	snprintf(r->cipher, sizeof r->cipher, "%s", cipher ? SSL_CIPHER_standard_name(cipher) : "");
	r->resumed = (uint8_t)SSL_session_reused(c->ssl);
	r->early_accepted = SSL_get_early_data_status(c->ssl) == SSL_EARLY_DATA_ACCEPTED;
}

/* After the handshake: the first request, or (handshake only) a ticket, or the end. */
static void after_handshake(pq_load_conn *c)
{
	phase_deadline(c);
	if (c->rec.early_sent && c->rec.early_accepted) {
		c->done_requests = 0;
		c->st = PQ_CS_READ; /* the first request already went as 0-RTT data */
	} else if (c->p->requests > 0) {
		c->st = PQ_CS_WRITE;
	} else if (c->p->want_ticket && !c->ticket_seen &&
		   SSL_version(c->ssl) == TLS1_3_VERSION) {
		c->st = PQ_CS_TICKET;
	} else {
		pq_load_conn_finish(c, PQ_LERR_NONE, NULL);
	}
}

/* Consume n response bytes from buf. Returns 1 when the response is complete. */
static int response_bytes(pq_load_conn *c, const char *buf, size_t n)
{
	if (!c->head_done) {
		size_t room = sizeof c->head - c->head_len;
		size_t k = n < room ? n : room;
		memcpy(c->head + c->head_len, buf, k);
		c->head_len += k;
		int64_t cl;
		int hl = pq_http_parse_response(c->head, c->head_len, &c->rec.status, &cl, &c->keep_alive);
		if (hl == 0)
			return 0;
		if (hl < 0) {
			pq_load_conn_finish(c, PQ_LERR_HTTP,
					    hl == PQ_ETOOBIG ? "response head over 8 KiB"
							     : "malformed response head");
			return 0;
		}
		c->head_done = 1;
		c->body_left = cl;
		/* Bytes of this read past the head are body. */
		size_t extra = c->head_len - (size_t)hl;
		c->head_len = 0;
		return response_bytes(c, buf + (k - extra), n - (k - extra));
	}
	if (c->body_left < 0) {
		c->rec.body_bytes += n;
		return 0;
	}
	size_t take = (uint64_t)c->body_left < n ? (size_t)c->body_left : n;
	c->rec.body_bytes += take;
	c->body_left -= (int64_t)take;
	return c->body_left == 0;
}

static void response_done(pq_load_conn *c)
{
	if (c->done_requests == 0)
		pq_load_conn_mark(c, PQ_PH_TTLB);
	if (c->p->quic) {
		/* hq-interop has no status line: a stream that ended cleanly with the body
		 * asked for counts as 200. HTTP/3 has its :status. */
		if (c->p->expect_body != UINT64_MAX && c->rec.body_bytes != c->p->expect_body &&
		    (!c->p->h3 || c->rec.status == 200)) {
			char detail[80];
			snprintf(detail, sizeof detail, "stream ended after %llu of %llu body bytes",
				 (unsigned long long)c->rec.body_bytes,
				 (unsigned long long)c->p->expect_body);
			pq_load_conn_finish(c, PQ_LERR_HTTP, detail);
			return;
		}
		if (!c->p->h3)
			c->rec.status = 200;
	}
	c->done_requests++;
	c->rec.requests = (uint32_t)c->done_requests;
	c->head_done = 0;
	if (c->rec.status >= 400) {
		char detail[32];
		snprintf(detail, sizeof detail, "HTTP status %d", c->rec.status);
		pq_load_conn_finish(c, PQ_LERR_HTTP, detail);
		return;
	}
	if (c->done_requests >= c->p->requests || !c->keep_alive) {
		if (c->done_requests < c->p->requests) {
			pq_load_conn_finish(c, PQ_LERR_HTTP,
					    "server closed keep-alive before all requests");
		} else if (c->p->want_ticket && !c->ticket_seen && c->rec.early_accepted) {
			/* A 0-RTT request answered as 0.5-RTT data arrives before the server
			 * has the client's Finished, so before its NewSessionTickets: the run
			 * needs a fresh ticket (0-RTT tickets are single-use), so wait for it.
			 * The connection's measurement ends here. */
			pq_load_conn_mark(c, PQ_PH_END);
			c->st = PQ_CS_TICKET;
			phase_deadline(c);
		} else {
			pq_load_conn_finish(c, PQ_LERR_NONE, NULL);
		}
		return;
	}
	c->req_sent = 0;
	c->st = PQ_CS_WRITE;
	phase_deadline(c);
}

static uint32_t step_read(pq_load_conn *c)
{
	char buf[16384];
	for (;;) {
		int r = SSL_read(c->ssl, buf, sizeof buf);
		if (r <= 0) {
			pq_tls_status st;
			pq_tls_io io = pq_tls_io_status(c->ssl, r, &st);
			/* A response without Content-Length ends with the connection: a
			 * close_notify, or an end that OpenSSL did not report as a TLS error. */
			if (c->head_done && c->body_left < 0 &&
			    (io == PQ_TLS_IO_CLOSED ||
			     (!st.queued && (io == PQ_TLS_IO_EOF || io == PQ_TLS_IO_RESET ||
					     io == PQ_TLS_IO_SYSCALL)))) {
				c->keep_alive = 0;
				response_done(c);
				return c->events;
			}
			return pq_load_conn_fail_status(c, &st);
		}
		pq_load_conn_response_bytes(c);
		if (response_bytes(c, buf, (size_t)r)) {
			response_done(c);
			return c->st == PQ_CS_DONE ? 0 : EPOLLOUT; /* EPOLLOUT: next request */
		}
		if (c->st == PQ_CS_DONE)
			return 0;
	}
}

static uint32_t step(pq_load_conn *c)
{
	for (;;) {
		int r;
		switch (c->st) {
		case PQ_CS_CONNECTING: {
			int soerr = 0;
			socklen_t len = sizeof soerr;
			getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &soerr, &len);
			if (soerr) {
				pq_load_conn_finish(
				    c, soerr == ECONNREFUSED ? PQ_LERR_REFUSED : PQ_LERR_CONNECT,
				    connect_error(soerr));
				return 0;
			}
			pq_load_conn_mark(c, PQ_PH_CONNECT);
			phase_deadline(c);
			SSL_set_connect_state(c->ssl);
			SSL_SESSION *s = SSL_get_session(c->ssl);
			c->st = c->p->early_data && c->p->requests > 0 && s &&
					SSL_SESSION_get_max_early_data(s) > 0
				? PQ_CS_EARLY
				: PQ_CS_HANDSHAKE;
			break;
		}
		case PQ_CS_EARLY: {
			size_t w = 0;
			r = SSL_write_early_data(c->ssl, c->p->request + c->req_sent,
						 c->p->request_len - c->req_sent, &w);
			if (r != 1)
				return pq_load_conn_ssl_fail(c, r);
			c->req_sent += w;
			if (c->req_sent == c->p->request_len) {
				c->rec.early_sent = 1;
				pq_load_conn_mark(c, PQ_PH_REQUEST);
				c->st = PQ_CS_HANDSHAKE;
			}
			break;
		}
		case PQ_CS_HANDSHAKE:
			r = SSL_connect(c->ssl);
			if (r != 1)
				return pq_load_conn_ssl_fail(c, r);
			handshake_done(c);
			if (c->rec.early_sent && !c->rec.early_accepted) {
				c->req_sent = 0; /* rejected 0-RTT: send the request again */
				c->rec.t[PQ_PH_REQUEST] = -1;
			}
			after_handshake(c);
			if (c->st == PQ_CS_DONE)
				return 0;
			break;
		case PQ_CS_TICKET: {
			char b[256];
			r = SSL_read(c->ssl, b, sizeof b);
			/* The ticket callback runs inside SSL_read. */
			if (c->ticket_seen) {
				pq_load_conn_finish(c, PQ_LERR_NONE, NULL);
				return 0;
			}
			pq_tls_status st;
			if (pq_tls_io_status(c->ssl, r, &st) == PQ_TLS_IO_OK)
				break;
			if (only_ticket_left(c) && st.io != PQ_TLS_IO_WANT_READ) {
				/* closed: done, just no ticket */
				pq_load_conn_finish(c, PQ_LERR_NONE, NULL);
				return 0;
			}
			return pq_load_conn_fail_status(c, &st);
			break;
		}
		case PQ_CS_WRITE:
			if (c->p->h3) {
				const char *why = "";
				if (pq_load_h3_start(c, &why) < 0) {
					pq_load_conn_finish(c, PQ_LERR_HTTP, why);
					return 0;
				}
				pq_load_conn_mark(c, PQ_PH_REQUEST);
				c->st = PQ_CS_READ;
				break;
			}
			r = SSL_write(c->ssl, c->p->request + c->req_sent,
				      (int)(c->p->request_len - c->req_sent));
			if (r <= 0)
				return pq_load_conn_ssl_fail(c, r);
			c->req_sent += (size_t)r;
			if (c->req_sent == c->p->request_len) {
				pq_load_conn_mark(c, PQ_PH_REQUEST);
				c->st = PQ_CS_READ;
				/* hq-interop: the request ends with its stream; the answer is the
				 * body alone, up to the server's end of the stream. */
				if (c->p->quic && !SSL_stream_conclude(c->ssl, 0))
					return pq_load_conn_ssl_fail(c, 0);
				if (c->p->quic) {
					c->head_done = 1;
					c->body_left = -1;
				}
			}
			break;
		case PQ_CS_READ: {
			if (c->p->h3) {
				const char *why = "";
				int rc = pq_load_h3_pump(c, &why);
				if (rc < 0)
					pq_load_conn_finish(c, PQ_LERR_HTTP, why);
				else if (rc == 1)
					response_done(c);
				return c->st == PQ_CS_DONE ? 0 : EPOLLIN;
			}
			uint32_t ev = step_read(c);
			if (c->st != PQ_CS_WRITE)
				return ev;
			break;
		}
		case PQ_CS_DONE:
			return 0;
		}
	}
}

uint32_t pq_load_conn_step(pq_load_conn *c)
{
	c->events = step(c);
	if (c->p->quic && c->st != PQ_CS_DONE)
		pq_load_qconn_timer(c);
	return c->events;
}

uint32_t pq_load_conn_tick(pq_load_conn *c)
{
	if (c->ssl)
		SSL_handle_events(c->ssl);
	ERR_clear_error();
	return pq_load_conn_step(c);
}

void pq_load_conn_timeout(pq_load_conn *c)
{
	static const enum pq_load_err kind[] = {
		[PQ_CS_CONNECTING] = PQ_LERR_TIMEOUT_CONNECT, [PQ_CS_EARLY] = PQ_LERR_TIMEOUT_HANDSHAKE,
		[PQ_CS_HANDSHAKE] = PQ_LERR_TIMEOUT_HANDSHAKE, [PQ_CS_TICKET] = PQ_LERR_TIMEOUT_RESPONSE,
		[PQ_CS_WRITE] = PQ_LERR_TIMEOUT_RESPONSE,      [PQ_CS_READ] = PQ_LERR_TIMEOUT_RESPONSE,
		[PQ_CS_DONE] = PQ_LERR_NONE};
	char detail[64];
	if (only_ticket_left(c)) {
		pq_load_conn_finish(c, PQ_LERR_NONE, NULL); /* no ticket came */
		return;
	}
	static const char *const where[] = {
		[PQ_CS_CONNECTING] = "TCP connect", [PQ_CS_EARLY] = "the handshake",
		[PQ_CS_HANDSHAKE] = "the handshake", [PQ_CS_TICKET] = "waiting for a ticket",
		[PQ_CS_WRITE] = "the request",     [PQ_CS_READ] = "the response",
		[PQ_CS_DONE] = "the end"};
	if (c->st != PQ_CS_DONE && now(c) >= c->end_by_ns) {
		snprintf(detail, sizeof detail, "not finished %lld ms after it started (in %s)",
			 (long long)(c->p->total_timeout_ns / PQ_NS_PER_MS), where[c->st]);
		pq_load_conn_finish(c, PQ_LERR_TIMEOUT_TOTAL, detail);
		return;
	}
	snprintf(detail, sizeof detail, "no progress for %lld ms",
		 (long long)(c->p->timeout_ns / PQ_NS_PER_MS));
	pq_load_conn_finish(c, kind[c->st], detail);
}

void pq_load_conn_cut(pq_load_conn *c, const char *why)
{
	if (only_ticket_left(c))
		/* measured; only the ticket did not come */
		pq_load_conn_finish(c, PQ_LERR_NONE, NULL);
	else
		pq_load_conn_finish(c, PQ_LERR_CUT_OFF, why);
}

void pq_load_conn_ticket(pq_load_conn *c)
{
	c->ticket_seen = 1;
}
