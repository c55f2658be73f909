#include "load/qconn.h"

#include <errno.h>
#include <stdio.h>
#include <openssl/bio.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/text.h"
#include "tls/qbio.h"

static void on_dgram(void *arg, int tx, const BIO_ADDR *peer, const uint8_t *d, size_t n)
{
	(void)peer; /* the socket is connected: every datagram is the server's */
	pq_load_conn *c = arg;
	pq_tls_quic_wire_dgram(&c->wire, tx, d, n);
}

/* The target as OpenSSL's address type, for SSL_set1_initial_peer_addr. */
static BIO_ADDR *peer_addr(const pq_addr *t)
{
	BIO_ADDR *a = BIO_ADDR_new();
	const struct sockaddr *sa = (const struct sockaddr *)&t->sa;
	int ok = 0;
	if (a && sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;
		ok = BIO_ADDR_rawmake(a, AF_INET, &in->sin_addr, sizeof in->sin_addr, in->sin_port);
	} else if (a && sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;
		ok = BIO_ADDR_rawmake(a, AF_INET6, &in6->sin6_addr, sizeof in6->sin6_addr,
				      in6->sin6_port);
	}
	if (!ok) {
		BIO_ADDR_free(a);
		return NULL;
	}
	return a;
}

int pq_load_qconn_open(pq_load_conn *c, const char **why)
{
	const pq_addr *t = c->p->target;
	BIO *sock = NULL, *tap = NULL;
	BIO_ADDR *peer = NULL;
	int rc = 0;
	pq_tls_quic_wire_init(&c->wire, 0);
	c->fd = socket(t->sa.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	/* connect(2) on UDP only fixes the peer: the kernel then drops other senders' datagrams
	 * and reports an ICMP port unreachable as ECONNREFUSED. */
	if (c->fd < 0 || connect(c->fd, (const struct sockaddr *)&t->sa, t->len) < 0) {
		int e = errno;
		*why = strerror(e);
		return e == ECONNREFUSED ? -ECONNREFUSED : -e;
	}
	sock = BIO_new_dgram(c->fd, BIO_NOCLOSE);
	tap = sock ? pq_tls_qbio_new(sock, on_dgram, c) : NULL;
	peer = peer_addr(t);
	if (!tap || !peer) {
		*why = "cannot make the QUIC datagram BIO";
		rc = PQ_ETLS;
		goto out;
	}
	SSL_set_bio(c->ssl, tap, tap); /* the SSL owns tap and sock now */
	sock = tap = NULL;
	if (!SSL_set1_initial_peer_addr(c->ssl, peer) || !SSL_set_blocking_mode(c->ssl, 0)) {
		*why = "cannot set up the QUIC connection (peer address, non-blocking mode)";
		rc = PQ_ETLS;
	}
out:
	BIO_free_all(tap ? tap : sock);
	BIO_ADDR_free(peer);
	return rc;
}

void pq_load_qconn_timer(pq_load_conn *c)
{
	struct timeval tv;
	int inf = 1;
	c->tick_ns = INT64_MAX;
	if (c->ssl && SSL_get_event_timeout(c->ssl, &tv, &inf) && !inf)
		c->tick_ns = pq_clock_now(c->p->clock) + (int64_t)tv.tv_sec * PQ_NS_PER_S +
			     (int64_t)tv.tv_usec * PQ_NS_PER_US;
}

void pq_load_qconn_record(pq_load_conn *c)
{
	pq_load_record *r = &c->rec;
	const pq_tls_quic_wire *w = &c->wire;
	r->quic = 1;
	r->quic_retry = (uint8_t)w->retry;
	r->quic_amp_held = (uint8_t)pq_tls_quic_client_saw_held(w);
	for (int i = 0; i < 2; i++) {
		r->quic_dgrams[i] = (uint32_t)w->dgrams[i];
		r->quic_bytes[i] = w->bytes[i];
	}
	r->quic_first_dgrams = (uint32_t)w->first_dgrams;
	r->quic_first_bytes = (uint32_t)w->first_bytes;
	r->quic_first_dgram_bytes = w->first_dgram_bytes;
}

/* RFC 9000 20.1: the transport error codes below the crypto range. */
static const char *const transport_errors[] = {
	"NO_ERROR",	       "INTERNAL_ERROR",	    "CONNECTION_REFUSED",
	"FLOW_CONTROL_ERROR",  "STREAM_LIMIT_ERROR",	    "STREAM_STATE_ERROR",
	"FINAL_SIZE_ERROR",    "FRAME_ENCODING_ERROR",	    "TRANSPORT_PARAMETER_ERROR",
	"CONNECTION_ID_LIMIT_ERROR", "PROTOCOL_VIOLATION",  "INVALID_TOKEN",
	"APPLICATION_ERROR",   "CRYPTO_BUFFER_EXCEEDED",    "KEY_UPDATE_ERROR",
	"AEAD_LIMIT_REACHED",  "NO_VIABLE_PATH",
};

enum pq_load_err pq_load_qconn_peer_close(pq_load_conn *c, int in_handshake, const char *when,
					  char *buf, size_t n)
{
	SSL_CONN_CLOSE_INFO info;
	if (!c->ssl || SSL_get_conn_close_info(c->ssl, &info, sizeof info) != 1 ||
	    (info.flags & SSL_CONN_CLOSE_FLAG_LOCAL))
		return PQ_LERR_NONE;
	uint64_t e = info.error_code;
	int transport = (info.flags & SSL_CONN_CLOSE_FLAG_TRANSPORT) != 0;
	/* the peer's reason phrase, escaped (it is the peer's bytes) and cut only with "..." */
	char reason[96] = "";
	if (info.reason && info.reason_len)
		pq_text_shown(info.reason, info.reason_len, reason, sizeof reason);
	const char *sep = reason[0] ? ": " : "";
	if (transport && e >= OSSL_QUIC_ERR_CRYPTO_ERR_BEGIN && e <= OSSL_QUIC_ERR_CRYPTO_ERR_END &&
	    in_handshake) {
		/* RFC 9001 4.8: a TLS alert travels as the crypto error 0x100 + alert. */
		snprintf(buf, n, "%s (QUIC CONNECTION_CLOSE 0x%llx%s%s)",
			 SSL_alert_desc_string_long((int)(e - OSSL_QUIC_ERR_CRYPTO_ERR_BEGIN)),
			 (unsigned long long)e, sep, reason);
		return PQ_LERR_ALERT;
	}
	const char *name = !transport ? "application error"
			   : e < sizeof transport_errors / sizeof transport_errors[0]
				   ? transport_errors[e]
				   : "transport error";
	snprintf(buf, n, "QUIC %s 0x%llx %s%s%s", name, (unsigned long long)e, when, sep, reason);
	return PQ_LERR_CLOSED;
}
