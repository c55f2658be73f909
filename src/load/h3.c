#include "load/h3.h"

#include <nghttp3/nghttp3.h>
#include <openssl/err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tls/io.h"

#define MAX_IN 8 /* the server's unidirectional streams: control, QPACK x2, a few more */

struct pq_load_h3 {
	nghttp3_conn *conn;
	SSL *ours[4]; /* control, QPACK encoder, QPACK decoder, request */
	int64_t our_id[4];
	SSL *in[MAX_IN];
	int64_t in_id[MAX_IN];
	int in_fin[MAX_IN], nin;
	int req_fin, ended;
	int64_t refused; /* nghttp3 refused the response (its reset_stream code), -1 none */
	char why[96];    /* a failure's words, when they carry a code */
};

enum { CTRL, QENC, QDEC, REQ };

static int on_header(nghttp3_conn *h, int64_t sid, int32_t token, nghttp3_rcbuf *name,
		     nghttp3_rcbuf *value, uint8_t flags, void *user, void *suser)
{
	(void)h, (void)sid, (void)name, (void)flags, (void)suser;
	pq_load_conn *c = user;
	if (token == NGHTTP3_QPACK_TOKEN__STATUS) {
		nghttp3_vec v = nghttp3_rcbuf_get_buf(value);
		int st = 0;
		for (size_t i = 0; i < v.len && i < 3; i++)
			st = st * 10 + (v.base[i] - '0');
		c->rec.status = v.len == 3 ? st : -1;
	}
	return 0;
}

static int on_data(nghttp3_conn *h, int64_t sid, const uint8_t *d, size_t n, void *user, void *suser)
{
	(void)h, (void)sid, (void)d, (void)suser;
	pq_load_conn *c = user;
	c->rec.body_bytes += n;
	return 0;
}

static int on_end(nghttp3_conn *h, int64_t sid, void *user, void *suser)
{
	(void)h, (void)suser;
	pq_load_conn *c = user;
	if (sid == c->h3->our_id[REQ])
		c->h3->ended = 1;
	return 0;
}

/* nghttp3 asks for the request stream to be reset: it found the response malformed (a
 * head without :status is one) and ignores the rest of it. */
static int on_reset(nghttp3_conn *h, int64_t sid, uint64_t code, void *user, void *suser)
{
	(void)h, (void)suser;
	pq_load_conn *c = user;
	if (sid == c->h3->our_id[REQ] && c->h3->refused < 0)
		c->h3->refused = (int64_t)code;
	return 0;
}

/* RFC 9114 8.1 and RFC 9204 6: HTTP/3's error codes by name. */
static const char *h3_error(uint64_t code)
{
	static const char *const h3[] = {
		"H3_NO_ERROR",	      "H3_GENERAL_PROTOCOL_ERROR", "H3_INTERNAL_ERROR",
		"H3_STREAM_CREATION_ERROR", "H3_CLOSED_CRITICAL_STREAM", "H3_FRAME_UNEXPECTED",
		"H3_FRAME_ERROR",     "H3_EXCESSIVE_LOAD",	   "H3_ID_ERROR",
		"H3_SETTINGS_ERROR",  "H3_MISSING_SETTINGS",	   "H3_REQUEST_REJECTED",
		"H3_REQUEST_CANCELLED", "H3_REQUEST_INCOMPLETE",   "H3_MESSAGE_ERROR",
		"H3_CONNECT_ERROR",   "H3_VERSION_FALLBACK",
	};
	static const char *const qpack[] = {"QPACK_DECOMPRESSION_FAILED",
					    "QPACK_ENCODER_STREAM_ERROR",
					    "QPACK_DECODER_STREAM_ERROR"};
	if (code >= 0x100 && code < 0x100 + sizeof h3 / sizeof h3[0])
		return h3[code - 0x100];
	if (code >= 0x200 && code < 0x200 + sizeof qpack / sizeof qpack[0])
		return qpack[code - 0x200];
	return "an error code of its own";
}

/* Why a response nghttp3 refused is none (it checks the head, :status included, and
 * asks for the stream's reset), or NULL. */
static const char *refused_response(pq_load_conn *c)
{
	struct pq_load_h3 *h = c->h3;
	if (h->refused < 0)
		return NULL;
	snprintf(h->why, sizeof h->why, "%s (%s 0x%llx)",
		 c->rec.status == 0 ? "HTTP/3 response head without :status"
				    : "malformed HTTP/3 response",
		 h3_error((uint64_t)h->refused), (unsigned long long)h->refused);
	return h->why;
}

int pq_load_h3_prepare(pq_load_conn *c)
{
	/* Every stream is explicit: no default stream, and the server's unidirectional
	 * streams (control, QPACK) are queued for SSL_accept_stream. */
	if (!SSL_set_default_stream_mode(c->ssl, SSL_DEFAULT_STREAM_MODE_NONE) ||
	    !SSL_set_incoming_stream_policy(c->ssl, SSL_INCOMING_STREAM_POLICY_ACCEPT, 0))
		return PQ_ETLS;
	return 0;
}

static int make_streams(pq_load_conn *c, struct pq_load_h3 *h)
{
	for (int i = 0; i < 4; i++) {
		h->ours[i] = SSL_new_stream(c->ssl, i == REQ ? 0 : SSL_STREAM_FLAG_UNI);
		if (!h->ours[i])
			return PQ_ETLS;
		h->our_id[i] = (int64_t)SSL_get_stream_id(h->ours[i]);
	}
	return 0;
}

int pq_load_h3_start(pq_load_conn *c, const char **why)
{
	struct pq_load_h3 *h = c->h3 = calloc(1, sizeof *h);
	nghttp3_callbacks cb = {.recv_header = on_header, .recv_data = on_data,
				.end_stream = on_end, .reset_stream = on_reset};
	nghttp3_settings set;
	nghttp3_settings_default(&set);
	const char *host = c->p->servername ? c->p->servername : c->p->target->host;
	const char *path = c->p->path ? c->p->path : "/";
#define NV(n, v) {(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, strlen(v), NGHTTP3_NV_FLAG_NONE}
	const nghttp3_nv nva[] = {NV(":method", "GET"), NV(":scheme", "https"),
				  NV(":authority", host), NV(":path", path),
				  NV("user-agent", "pqtls-bench")};
#undef NV
	if (!h) {
		*why = "out of memory for HTTP/3";
		return PQ_ENOMEM;
	}
	h->refused = -1;
	if (make_streams(c, h) < 0) {
		*why = "cannot open the HTTP/3 streams";
		return PQ_ETLS;
	}
	if (nghttp3_conn_client_new(&h->conn, &cb, &set, NULL, c) != 0 ||
	    nghttp3_conn_bind_control_stream(h->conn, h->our_id[CTRL]) != 0 ||
	    nghttp3_conn_bind_qpack_streams(h->conn, h->our_id[QENC], h->our_id[QDEC]) != 0 ||
	    nghttp3_conn_submit_request(h->conn, h->our_id[REQ], nva, sizeof nva / sizeof nva[0],
					NULL, NULL) != 0) {
		*why = "nghttp3 refused the request";
		return PQ_EPROTO;
	}
	return pq_load_h3_pump(c, why) < 0 ? PQ_EPROTO : 0;
}

static SSL *ours_by_id(struct pq_load_h3 *h, int64_t id)
{
	for (int i = 0; i < 4; i++)
		if (h->our_id[i] == id)
			return h->ours[i];
	return NULL;
}

/* Hand nghttp3's output to the streams until it has none or a stream is full. */
static int flush(struct pq_load_h3 *h, const char **why)
{
	for (int i = 0; i < 4; i++)
		nghttp3_conn_unblock_stream(h->conn, h->our_id[i]);
	for (;;) {
		nghttp3_vec v[8];
		int64_t sid = -1;
		int fin = 0;
		nghttp3_ssize n = nghttp3_conn_writev_stream(h->conn, &sid, &fin, v, 8);
		if (n < 0) {
			*why = nghttp3_strerror((int)n);
			return PQ_EPROTO;
		}
		if (sid < 0)
			return 0;
		SSL *s = ours_by_id(h, sid);
		size_t total = 0, w;
		int full = 0;
		for (nghttp3_ssize i = 0; i < n && s && !full; i++) {
			w = 0;
			full = SSL_write_ex(s, v[i].base, v[i].len, &w) != 1 || w < v[i].len;
			total += w;
		}
		ERR_clear_error();
		if (!s) {
			*why = "nghttp3 wrote to a stream that is not ours";
			return PQ_EPROTO;
		}
		if (!full && fin)
			SSL_stream_conclude(s, 0);
		/* OpenSSL keeps its own copy until acknowledged: nghttp3 may let go now. */
		if (nghttp3_conn_add_write_offset(h->conn, sid, total) != 0 ||
		    nghttp3_conn_add_ack_offset(h->conn, sid, total) != 0) {
			*why = "nghttp3 refused the write offset";
			return PQ_EPROTO;
		}
		if (full) {
			nghttp3_conn_block_stream(h->conn, sid);
			return 0;
		}
	}
}

/* Why a read from stream s failed: the server reset the stream (with its code), or the
 * connection ended. */
static const char *read_failed(pq_load_conn *c, SSL *s)
{
	struct pq_load_h3 *h = c->h3;
	uint64_t code = 0;
	if (SSL_get_stream_read_state(s) != SSL_STREAM_STATE_RESET_REMOTE ||
	    SSL_get_stream_read_error_code(s, &code) != 1)
		return "the connection ended before the HTTP/3 response";
	if (s == h->ours[REQ])
		snprintf(h->why, sizeof h->why, "the server reset the request stream (%s 0x%llx)",
			 h3_error(code), (unsigned long long)code);
	else
		snprintf(h->why, sizeof h->why,
			 "the server reset its HTTP/3 stream %llu (%s 0x%llx)",
			 (unsigned long long)SSL_get_stream_id(s), h3_error(code),
			 (unsigned long long)code);
	return h->why;
}

/* Feed one stream's bytes to nghttp3 until it has none now. */
static int drain(pq_load_conn *c, SSL *s, int64_t id, int *fin, const char **why)
{
	struct pq_load_h3 *h = c->h3;
	uint8_t buf[16384];
	while (!*fin) {
		size_t got = 0;
		int r = SSL_read_ex(s, buf, sizeof buf, &got);
		if (r != 1) {
			pq_tls_status st;
			pq_tls_io io = pq_tls_io_status(s, r, &st);
			ERR_clear_error();
			if (io == PQ_TLS_IO_WANT_READ || io == PQ_TLS_IO_WANT_WRITE)
				return 0;
			if (io != PQ_TLS_IO_CLOSED) {
				*why = read_failed(c, s);
				return PQ_EPROTO;
			}
			*fin = 1;
		}
		if (got && s == h->ours[REQ])
			pq_load_conn_response_bytes(c);
		nghttp3_ssize n = nghttp3_conn_read_stream(h->conn, id, buf, got, *fin);
		if (n < 0) {
			*why = nghttp3_strerror((int)n);
			return PQ_EPROTO;
		}
	}
	return 0;
}

static int pump_once(pq_load_conn *c, const char **why)
{
	struct pq_load_h3 *h = c->h3;
	SSL *s;
	int rc;
	while (h->nin < MAX_IN && (s = SSL_accept_stream(c->ssl, SSL_ACCEPT_STREAM_NO_BLOCK))) {
		h->in[h->nin] = s;
		h->in_id[h->nin++] = (int64_t)SSL_get_stream_id(s);
	}
	ERR_clear_error();
	for (int i = 0; i < h->nin; i++)
		if ((rc = drain(c, h->in[i], h->in_id[i], &h->in_fin[i], why)) < 0)
			return rc;
	if ((rc = drain(c, h->ours[REQ], h->our_id[REQ], &h->req_fin, why)) < 0 ||
	    (rc = flush(h, why)) < 0)
		return rc;
	SSL_handle_events(c->ssl); /* send what was written now, not at OpenSSL's next timer */
	ERR_clear_error();
	const char *bad = refused_response(c);
	if (bad) {
		*why = bad;
		return PQ_EPROTO;
	}
	return h->ended;
}

/* Again while a round read datagrams: what SSL_handle_events (or a read) took from the
 * socket after its stream was drained sits in OpenSSL's buffers, where no poll sees it,
 * and when OpenSSL has acknowledged it already no timer of its own comes before the idle
 * timeout to step the connection again. */
int pq_load_h3_pump(pq_load_conn *c, const char **why)
{
	int rc;
	uint64_t rx;
	do {
		rx = c->wire.total_dgrams[PQ_RX];
		rc = pump_once(c, why);
	} while (rc == 0 && c->wire.total_dgrams[PQ_RX] != rx);
	return rc;
}

void pq_load_h3_free(pq_load_conn *c)
{
	struct pq_load_h3 *h = c->h3;
	if (!h)
		return;
	nghttp3_conn_del(h->conn);
	for (int i = 0; i < 4; i++)
		SSL_free(h->ours[i]);
	for (int i = 0; i < h->nin; i++)
		SSL_free(h->in[i]);
	free(h);
	c->h3 = NULL;
}
