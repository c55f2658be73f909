/* One client connection of `pqtls bench`, non-blocking: TCP connect (or a UDP socket for
 * QUIC, where there is no connect phase: t[PQ_PH_CONNECT] stays -1), TLS handshake
 * (optionally resuming a session, optionally with 0-RTT data), K HTTP requests, close,
 * recording every step into a pq_load_record.
 *
 * Contract: pq_load_conn_start opens the socket; the caller polls c->fd for the events
 * pq_load_conn_step returns (EPOLLIN/EPOLLOUT) and calls step again when they arrive,
 * until it returns 0 (done: the record is final and the socket closed). Time comes only
 * from params->clock. */
#ifndef PQ_LOAD_CONN_H
#define PQ_LOAD_CONN_H

#include <openssl/ssl.h>
#include <stddef.h>
#include <stdint.h>

#include "core/clock.h"
#include "http/http.h"
#include "load/record.h"
#include "net/addr.h"
#include "tls/acct.h"
#include "tls/quic.h"

typedef struct pq_conn_params {
	const pq_addr *target;
	const char *servername; /* SNI and the name verified; NULL = the target host */
	SSL_CTX *ctx;
	pq_clock *clock;
	int64_t run_start_ns;  /* the run's time origin (record times are relative to it) */
	const char *request;   /* full HTTP request text, sent K times */
	size_t request_len;
	int requests;          /* K; 0 = handshake only */
	int want_ticket;       /* handshake-only: wait for a NewSessionTicket before closing */
	int early_data;        /* send the first request as 0-RTT when the session allows */
	int64_t timeout_ns;    /* per phase: connect, handshake, each response */
	int64_t total_timeout_ns; /* from start to end, every phase and the body; 0 = none */
	const char *cap_name;  /* the caller's name for the Certificate size cap, for hints */
	int quic;              /* over QUIC (ctx made with tls.quic): UDP, hq-interop, one
				* request on the first bidirectional stream */
	uint64_t expect_body;  /* QUIC: the body length the path asks for (/bytes/N);
				* UINT64_MAX = not known (another path) */
	int h3;                /* QUIC: HTTP/3 (load/h3.h, ALPN h3) instead of hq-interop */
	const char *path;      /* HTTP/3: the request's :path */
} pq_conn_params;

enum pq_conn_state {
	PQ_CS_CONNECTING,
	PQ_CS_EARLY,
	PQ_CS_HANDSHAKE,
	PQ_CS_TICKET,
	PQ_CS_WRITE,
	PQ_CS_READ,
	PQ_CS_DONE
};

typedef struct pq_load_conn {
	const pq_conn_params *p;
	int fd;
	SSL *ssl;
	enum pq_conn_state st;
	int64_t start_abs_ns, deadline_ns;
	int64_t end_by_ns; /* start + total timeout; INT64_MAX without one */
	pq_tls_acct acct;
	pq_load_record rec;
	int ticket_seen;
	int done_requests;
	size_t req_sent;
	/* response parsing */
	char head[PQ_HTTP_MAX_HEAD];
	size_t head_len;
	int head_done, keep_alive;
	int64_t body_left; /* -1: until the server closes */
	uint32_t events;   /* what the caller should wait for */
	int64_t tick_ns;   /* QUIC: OpenSSL's next timer (absolute): step again then, even
			    * without an event; INT64_MAX = none (and always so over TCP) */
	pq_tls_quic_wire wire; /* QUIC: every datagram of this connection */
	struct pq_load_h3 *h3; /* HTTP/3 state (load/h3.c), NULL until its request */
	void *user;        /* the caller's (the runner keeps its slot here) */
	int64_t wait0_ns;  /* the caller's thread's wait for a CPU at the start (core/sched.h) */
} pq_load_conn;

/* Opens the socket and starts connecting (wait for c->events), or ends at once with the
 * error in the record (c->st == PQ_CS_DONE). intended_ns < 0: the intended start is the
 * actual one (closed loop). `session` (may be NULL) is offered for resumption. */
void pq_load_conn_start(pq_load_conn *c, const pq_conn_params *p, uint64_t id,
			int64_t intended_ns, SSL_SESSION *session);

/* Advance after an event; returns the epoll events to wait for, 0 when done. */
uint32_t pq_load_conn_step(pq_load_conn *c);

/* Bytes of the response arrived: the first ones mark TTFB (of the first request), and
 * every read starts the phase timeout again, so that --timeout means "no progress for
 * T" however long the body takes (the total timeout still bounds it). */
void pq_load_conn_response_bytes(pq_load_conn *c);

/* QUIC: c->tick_ns has come; lets OpenSSL handle its timers and goes on. Returns the
 * events to wait for, 0 when done. */
uint32_t pq_load_conn_tick(pq_load_conn *c);

/* Called when c->deadline_ns has passed: ends the connection with a timeout error (the
 * phase's, or the total one when that is what ran out). */
void pq_load_conn_timeout(pq_load_conn *c);

/* Ends a connection still running when the run ends (its duration, or a signal);
 * `why` says which. */
void pq_load_conn_cut(pq_load_conn *c, const char *why);

/* A NewSessionTicket arrived on this connection (from the runner's session callback). */
void pq_load_conn_ticket(pq_load_conn *c);

#endif
