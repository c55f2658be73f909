/* One worker: an epoll loop over its listening socket, the stop eventfd and its
 * connections. Each connection is a small state machine driven until OpenSSL wants to
 * read or write; timeouts are found by a scan every 100 ms (connections per worker are
 * thousands at most, so a scan costs less than a timer structure would save). */
#include <errno.h>
#include <malloc.h>
#include <openssl/err.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/sched.h"
#include "http/http.h"
#include "server/internal.h"
#include "tls/io.h"
#include "tls/onewrite.h"

#define CHUNK 16384
#define SCAN_NS (100 * PQ_NS_PER_MS)
#define TRIM_MIN_PEAK 256

/* ST_FIRST: accepted, no byte yet, no TLS object (an idle connection costs only its
 * sconn). */
enum st { ST_FIRST, ST_EARLY, ST_HANDSHAKE, ST_READ, ST_WRITE };

typedef struct sconn {
	int fd;
	SSL *ssl;
	enum st st;
	uint32_t events;
	int64_t deadline;
	int early_counted;
	int early_resp;     /* the response being written is 0.5-RTT data (before the
			     * client's Finished) */
	int close_after_hs; /* that response said Connection: close */
	char *in; /* PQ_HTTP_MAX_HEAD bytes, with the TLS object */
	size_t in_len;
	pq_http_resp resp;
	int head_only;
	char head[256];
	size_t head_len;
	uint64_t sent, total; /* over head || body */
	struct sconn *prev, *next;
	int64_t wait0_ns; /* the worker's wait for a CPU at accept (core/sched.h) */
} sconn;

typedef struct loop {
	pq_worker *w;
	pq_server *srv;
	sconn *conns;
	int listen_paused;
	size_t nconns, peak; /* this worker's connections now, and most since the last trim */
	int trim_left;       /* a trim left connections of the flood open: trim again at none */
	char out[CHUNK];          /* scratch for head + first body bytes */
	char pattern[CHUNK + 64]; /* body bytes at any offset: pattern + off % 64 */
	pq_sched_meter meter;     /* this worker's wait for a CPU */
} loop;

static char listen_tag, stop_tag;

static void unlink_conn(loop *l, sconn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		l->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
}

/* Before the client's Finished: reading early data, completing the handshake, or
 * answering an early request with 0.5-RTT data. */
static int in_handshake(const sconn *c)
{
	return c->st == ST_FIRST || c->st == ST_EARLY || c->st == ST_HANDSHAKE || c->early_resp;
}

static void close_conn(loop *l, sconn *c, int clean)
{
	if (clean && c->ssl && !in_handshake(c))
		SSL_shutdown(c->ssl); /* one non-blocking try: sends close_notify */
	ERR_clear_error();
	if (c->ssl)
		atomic_fetch_sub(&l->srv->tls_conns, 1);
	SSL_free(c->ssl);
	free(c->in);
	close(c->fd);
	pq_server_stats_wait(&l->w->stats, pq_sched_delta(c->wait0_ns, pq_sched_meter_read(&l->meter)));
	unlink_conn(l, c);
	atomic_fetch_sub(&l->srv->open_conns, 1);
	l->nconns--;
	free(c);
}

static void want(loop *l, sconn *c, uint32_t ev)
{
	if (c->events == ev)
		return;
	struct epoll_event e = {.events = ev, .data.ptr = c};
	if (epoll_ctl(l->w->epfd, EPOLL_CTL_MOD, c->fd, &e) == 0)
		c->events = ev;
}

static void drive(loop *l, sconn *c);

static void accept_some(loop *l)
{
	pq_server *srv = l->srv;
	for (int i = 0; i < 64; i++) {
		int fd = accept4(l->w->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)) {
			/* Out of descriptors: the listening socket stays readable, and a
			 * level-triggered loop would spin on it. Stop listening until the next
			 * timeout scan (100 ms), which also frees descriptors. */
			epoll_ctl(l->w->epfd, EPOLL_CTL_DEL, l->w->listen_fd, NULL);
			l->listen_paused = 1;
			l->w->stats.err[PQ_SRV_NO_FDS]++;
			return;
		}
		if (fd < 0)
			return; /* EAGAIN, or a transient error (ECONNABORTED): next wake */
		l->w->stats.accepted++;
		if (atomic_fetch_add(&srv->open_conns, 1) >= srv->cfg.max_conns) {
			atomic_fetch_sub(&srv->open_conns, 1);
			l->w->stats.err[PQ_SRV_OVER_LIMIT]++;
			close(fd);
			continue;
		}
		/* TCP_NODELAY comes from the listening socket: Linux copies it into every
		 * accepted one (test_server asserts it), which saves a system call each. */
		sconn *c = calloc(1, sizeof *c);
		struct epoll_event e = {.events = EPOLLIN, .data.ptr = c};
		if (!c || epoll_ctl(l->w->epfd, EPOLL_CTL_ADD, fd, &e) < 0) {
			free(c);
			close(fd);
			atomic_fetch_sub(&srv->open_conns, 1);
			l->w->stats.err[PQ_SRV_IO]++;
			continue;
		}
		c->fd = fd;
		c->wait0_ns = pq_sched_meter_read(&l->meter);
		c->events = EPOLLIN;
		c->st = ST_FIRST;
		c->deadline = pq_mono_ns() + srv->cfg.handshake_timeout_ns;
		if (++l->nconns > l->peak)
			l->peak = l->nconns;
		c->next = l->conns;
		if (l->conns)
			l->conns->prev = c;
		l->conns = c;
		/* The ClientHello usually travels with the handshake's last ACK, so it is
		 * already here: start at once rather than after another epoll_wait. */
		drive(l, c);
	}
}

/* Waiting for a request: the idle timeout until its first byte; from then on the whole
 * head must arrive within the header timeout, however it trickles (a byte every few
 * seconds must not hold the connection forever). */
static void read_deadline(loop *l, sconn *c, int64_t now)
{
	int64_t ht = l->srv->cfg.header_timeout_ns ? l->srv->cfg.header_timeout_ns
						   : PQ_SERVER_HEADER_TIMEOUT_NS;
	c->deadline = now + (c->in_len ? ht : l->srv->cfg.idle_timeout_ns);
}

static void on_handshake(loop *l, sconn *c)
{
	const char *sig = NULL;
	if (!SSL_get0_signature_name(c->ssl, &sig))
		sig = NULL;
	pq_server_stats_handshake(&l->w->stats, SSL_get_version(c->ssl),
				  SSL_get0_group_name(c->ssl), sig, SSL_session_reused(c->ssl));
	if (SSL_get_early_data_status(c->ssl) == SSL_EARLY_DATA_ACCEPTED && !c->early_counted) {
		c->early_counted = 1;
		l->w->stats.early_data++;
	}
	c->st = ST_READ;
	read_deadline(l, c, pq_mono_ns());
	/* The flight and tickets are flushed; application data goes straight out. A
	 * failure leaves the buffer in place, which still sends (on OpenSSL's flushes). */
	if (l->srv->cfg.flight_one_write && pq_tls_onewrite_detach(c->ssl, NULL) < 0)
		l->w->stats.err[PQ_SRV_IO]++;
}

/* Consumes a parsed request (hl > 0 bytes, parsed into req) or a bad one (hl < 0, or a
 * full buffer without a complete head) from c->in and prepares the response. */
static void prepare(loop *l, sconn *c, int hl, const pq_http_req *req)
{
	if (hl > 0) {
		pq_http_route(req, &c->resp);
		c->resp.keep_alive &= !l->srv->cfg.close_each;
		c->head_only = req->head == 1;
		memmove(c->in, c->in + hl, c->in_len - (size_t)hl);
		c->in_len -= (size_t)hl;
	} else {
		/* Malformed or oversize: answer 400 and close; nothing after it is read. */
		pq_http_bad_request(&c->resp);
		c->head_only = 0;
		c->in_len = 0;
		l->w->stats.err[PQ_SRV_BAD_REQUEST]++;
	}
	int n = pq_http_format_head(&c->resp, c->head, sizeof c->head);
	c->head_len = n > 0 ? (size_t)n : 0;
	c->sent = 0;
	c->total = c->head_len + (c->head_only ? 0 : c->resp.body_len);
	c->st = ST_WRITE;
}

/* The bytes at offset c->sent of head || body, at most CHUNK of them. Rebuilt the same
 * way on a retry, as SSL_write requires after WANT_WRITE. */
static const char *next_chunk(loop *l, sconn *c, size_t *len)
{
	uint64_t left = c->total - c->sent;
	size_t n = left < CHUNK ? (size_t)left : CHUNK;
	if (c->sent >= c->head_len && !c->resp.page) {
		*len = n;
		return l->pattern + (c->sent - c->head_len) % 64;
	}
	size_t k = 0;
	if (c->sent < c->head_len) {
		k = c->head_len - (size_t)c->sent;
		memcpy(l->out, c->head + c->sent, k);
	}
	uint64_t boff = c->sent + k - c->head_len;
	if (c->resp.page)
		memcpy(l->out + k, c->resp.page + boff, n - k);
	else
		memcpy(l->out + k, l->pattern + boff % 64, n - k);
	*len = n;
	return l->out;
}

/* Handle a non-positive OpenSSL result. Returns 1 to keep the connection, 0 if closed. */
static int ssl_fail(loop *l, sconn *c, int r)
{
	pq_tls_status ts;
	pq_tls_io io = pq_tls_io_status(c->ssl, r, &ts);
	pq_server_stats *st = &l->w->stats;
	if (io == PQ_TLS_IO_WANT_READ) {
		want(l, c, EPOLLIN);
		return 1;
	}
	if (io == PQ_TLS_IO_WANT_WRITE) {
		want(l, c, EPOLLOUT);
		return 1;
	}
	if (in_handshake(c)) {
		/* A peer that hangs up mid-handshake is a reset, not a TLS failure. */
		if (io == PQ_TLS_IO_TLS && ts.queued) {
			st->err[PQ_SRV_HANDSHAKE]++;
			pq_server_stats_reason(st, *ts.reason ? ts.reason : NULL);
		} else {
			st->err[PQ_SRV_RESET]++;
		}
	} else if (!(io == PQ_TLS_IO_CLOSED || (c->st == ST_READ && c->in_len == 0))) {
		/* A client that ends its connection between requests is not an error. */
		st->err[PQ_SRV_IO]++;
	}
	close_conn(l, c, io == PQ_TLS_IO_CLOSED);
	return 0;
}

/* ST_FIRST: the TLS object and the request buffer are made when the first byte is
 * here (MSG_PEEK leaves it for OpenSSL), so a flood of silent connections holds no TLS
 * state. Returns 1 to go on (now in the handshake), 0 to wait or when closed. */
static int first_byte(loop *l, sconn *c)
{
	char b;
	ssize_t k = recv(c->fd, &b, 1, MSG_PEEK);
	if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return 0;
	if (k <= 0) { /* closed or reset before a byte: as a hang-up mid-handshake */
		l->w->stats.err[PQ_SRV_RESET]++;
		close_conn(l, c, 0);
		return 0;
	}
	c->ssl = SSL_new(l->srv->ctx);
	if (c->ssl)
		atomic_fetch_add(&l->srv->tls_conns, 1);
	c->in = malloc(PQ_HTTP_MAX_HEAD);
	int bio_ok = c->ssl && (l->srv->cfg.flight_one_write
				    ? pq_tls_onewrite_attach(c->ssl, c->fd, PQ_TLS_ONEWRITE_BUF, NULL) == 0
				    : SSL_set_fd(c->ssl, c->fd) == 1);
	if (!bio_ok || !c->in) {
		l->w->stats.err[PQ_SRV_IO]++;
		close_conn(l, c, 0);
		return 0;
	}
	SSL_set_accept_state(c->ssl);
	c->st = l->srv->cfg.tls.max_early_data ? ST_EARLY : ST_HANDSHAKE;
	return 1;
}

static void drive(loop *l, sconn *c)
{
	for (;;) {
		int r;
		switch (c->st) {
		case ST_FIRST:
			if (!first_byte(l, c))
				return;
			break;
		case ST_EARLY: {
			/* A whole request in the early data is answered at once, as 0.5-RTT
			 * data right behind the server's flight: that is what 0-RTT saves,
			 * a round trip to the first response byte. (Like any 0-RTT server,
			 * this one answers a request it cannot yet know is not a replay.) */
			pq_http_req req;
			int hl = c->in_len && !c->close_after_hs
					 ? pq_http_parse_request(c->in, c->in_len, &req)
					 : 0;
			if (hl != 0) {
				prepare(l, c, hl, &req);
				c->early_resp = 1;
				break;
			}
			if (c->in_len == PQ_HTTP_MAX_HEAD) {
				c->st = ST_HANDSHAKE;
				break;
			}
			size_t n = 0;
			r = SSL_read_early_data(c->ssl, c->in + c->in_len, PQ_HTTP_MAX_HEAD - c->in_len, &n);
			if (r == SSL_READ_EARLY_DATA_ERROR) {
				ssl_fail(l, c, 0);
				return;
			}
			/* After a response that closes (a 400, "Connection: close"), the rest
			 * of the early data is read and dropped, as over 1-RTT nothing after
			 * it would be read at all. */
			c->in_len = c->close_after_hs ? 0 : c->in_len + n;
			if (r == SSL_READ_EARLY_DATA_FINISH)
				c->st = ST_HANDSHAKE;
			break;
		}
		case ST_HANDSHAKE:
			r = SSL_do_handshake(c->ssl);
			if (r != 1) {
				ssl_fail(l, c, r);
				return;
			}
			on_handshake(l, c);
			break;
		case ST_READ: {
			if (c->close_after_hs) {
				close_conn(l, c, 1);
				return;
			}
			pq_http_req req;
			int hl = pq_http_parse_request(c->in, c->in_len, &req);
			if (hl != 0 || c->in_len == PQ_HTTP_MAX_HEAD) {
				prepare(l, c, hl, &req);
				break;
			}
			r = SSL_read(c->ssl, c->in + c->in_len, (int)(PQ_HTTP_MAX_HEAD - c->in_len));
			if (r <= 0) {
				ssl_fail(l, c, r);
				return;
			}
			c->in_len += (size_t)r;
			if (c->in_len == (size_t)r) /* the head's first bytes start its clock */
				read_deadline(l, c, pq_mono_ns());
			break;
		}
		case ST_WRITE: {
			if (c->sent == c->total) {
				l->w->stats.requests++;
				l->w->stats.body_bytes += c->head_only ? 0 : c->resp.body_len;
				if (c->early_resp) {
					/* Back to the early data, then the client's Finished. */
					c->early_resp = 0;
					c->close_after_hs |= !c->resp.keep_alive;
					c->st = ST_EARLY;
					break;
				}
				if (!c->resp.keep_alive) {
					close_conn(l, c, 1);
					return;
				}
				c->st = ST_READ;
				read_deadline(l, c, pq_mono_ns()); /* pipelined bytes: a head begun */
				want(l, c, EPOLLIN);
				break;
			}
			size_t len;
			const char *p = next_chunk(l, c, &len);
			if (c->early_resp) {
				size_t w = 0;
				r = SSL_write_early_data(c->ssl, p, len, &w) == 1 ? (int)w : 0;
			} else {
				r = SSL_write(c->ssl, p, (int)len);
			}
			if (r <= 0) {
				ssl_fail(l, c, r);
				return;
			}
			c->sent += (uint64_t)r;
			/* A slow reader of a large body is making progress, not idling. */
			c->deadline = pq_mono_ns() + l->srv->cfg.idle_timeout_ns;
			break;
		}
		}
	}
}

static void expire(loop *l, int64_t now)
{
	sconn *next;
	for (sconn *c = l->conns; c; c = next) {
		next = c->next;
		if (now < c->deadline)
			continue;
		enum pq_server_err why = in_handshake(c)			  ? PQ_SRV_HS_TIMEOUT
					 : c->st == ST_READ && c->in_len > 0 ? PQ_SRV_HEADER_TIMEOUT
									      : PQ_SRV_IDLE_TIMEOUT;
		l->w->stats.err[why]++;
		close_conn(l, c, 0);
	}
}

/* After a flood (this worker's connections down to a quarter of their peak, a peak of
 * hundreds), hand freed memory back to the system: glibc keeps it in its arenas
 * otherwise, and the server's RSS would stay at the flood's height. The flood's last
 * connections, still open at that trim, are given back once they have all closed too:
 * they can be a couple of hundred (a quarter of the peak when a scan comes late), below
 * the peak that starts a trim, and each held tens of kilobytes of TLS state. */
static void give_back(loop *l)
{
	if (l->peak >= TRIM_MIN_PEAK && l->nconns <= l->peak / 4) {
		malloc_trim(0);
		l->peak = l->nconns;
		l->trim_left = l->nconns > 0;
	} else if (l->trim_left && l->nconns == 0) {
		malloc_trim(0);
		l->trim_left = 0;
	}
}

void *pq_worker_main(void *arg)
{
	pq_worker *w = arg;
	(void)pq_sched_name_thread(PQ_SCHED_NAME_SERVER); /* a name only: failing costs nothing */
	loop *l = calloc(1, sizeof *l);
	struct epoll_event evs[128];
	if (!l)
		return NULL;
	l->w = w;
	l->srv = w->srv;
	pq_sched_meter_open(&l->meter);
	pq_http_body_fill(l->pattern, 0, sizeof l->pattern);
	if (pq_worker_open(w, &listen_tag, &stop_tag) < 0)
		goto out;
	int64_t next_scan = pq_mono_ns() + SCAN_NS;
	for (int stop = 0; !stop;) {
		int n = epoll_wait(w->epfd, evs, 128, 100);
		for (int i = 0; i < n; i++) {
			void *p = evs[i].data.ptr;
			if (p == &stop_tag)
				stop = 1;
			else if (p == &listen_tag)
				accept_some(l);
			else
				drive(l, p);
		}
		int64_t now = pq_mono_ns();
		if (now >= next_scan) {
			expire(l, now);
			give_back(l);
			if (l->listen_paused) {
				struct epoll_event again = {.events = EPOLLIN, .data.ptr = &listen_tag};
				l->listen_paused = epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->listen_fd, &again) < 0;
			}
			next_scan = now + SCAN_NS;
		}
	}
out:
	while (l->conns)
		close_conn(l, l->conns, 0);
	pq_worker_close(w);
	pq_sched_meter_close(&l->meter);
	free(l);
	return NULL;
}
