#include "tls/quic.h"

#include <string.h>

#include "tls/acct.h"

/* RFC 9000 16: a variable-length integer at d[*at], at most n bytes. Returns 0 and moves
 * *at past it, or -1 when it runs past the end. */
static int varint(const uint8_t *d, size_t n, size_t *at, uint64_t *v)
{
	if (*at >= n)
		return -1;
	size_t len = (size_t)1 << (d[*at] >> 6);
	if (n - *at < len)
		return -1;
	uint64_t x = d[*at] & 0x3f;
	for (size_t i = 1; i < len; i++)
		x = x << 8 | d[*at + i];
	*at += len;
	*v = x;
	return 0;
}

/* The length of the long-header packet at d (n bytes left in the datagram) and its type
 * bit, or 0 when it does not parse. */
static size_t long_packet(const uint8_t *d, size_t n, unsigned *type)
{
	static const unsigned bits[4] = {PQ_QPKT_INITIAL, PQ_QPKT_0RTT, PQ_QPKT_HANDSHAKE,
					 PQ_QPKT_RETRY};
	size_t at = 5; /* first byte, version */
	if (n < 7)
		return 0;
	uint32_t version = (uint32_t)d[1] << 24 | (uint32_t)d[2] << 16 | (uint32_t)d[3] << 8 | d[4];
	if (version == 0)
		return n; /* Version Negotiation: the rest of the datagram, no type of ours */
	for (int cid = 0; cid < 2; cid++) {
		if (at >= n || d[at] > 20 || n - at - 1 < d[at])
			return 0;
		at += 1u + d[at];
	}
	unsigned t = (d[0] >> 4) & 3;
	*type = bits[t];
	if (t == 3)
		return n; /* Retry: token and integrity tag fill the datagram */
	uint64_t v;
	if (t == 0) { /* Initial: a token before the length */
		if (varint(d, n, &at, &v) < 0 || v > n - at)
			return 0;
		at += (size_t)v;
	}
	if (varint(d, n, &at, &v) < 0 || v > n - at)
		return 0;
	return at + (size_t)v;
}

unsigned pq_tls_quic_types(const uint8_t *d, size_t n)
{
	unsigned types = 0;
	while (n > 0) {
		if (!(d[0] & 0x80))
			return types | PQ_QPKT_SHORT; /* a short header runs to the end */
		unsigned t = 0;
		size_t len = long_packet(d, n, &t);
		if (len == 0)
			return types;
		types |= t;
		d += len;
		n -= len;
	}
	return types;
}

void pq_tls_quic_wire_init(pq_tls_quic_wire *w, int is_server)
{
	memset(w, 0, sizeof *w);
	w->is_server = is_server;
}

void pq_tls_quic_wire_dgram(pq_tls_quic_wire *w, int tx, const uint8_t *d, size_t n)
{
	int dir = tx ? PQ_TX : PQ_RX;
	unsigned types = pq_tls_quic_types(d, n);
	w->total_dgrams[dir]++;
	w->total_bytes[dir] += n;
	if (types & PQ_QPKT_RETRY)
		w->retry = 1;
	if (!w->done) {
		w->dgrams[dir]++;
		w->bytes[dir] += n;
	}
	int client_tx = w->is_server ? !tx : tx;
	if (client_tx && w->total_dgrams[w->is_server ? PQ_TX : PQ_RX] == 0) {
		if (w->first_dgrams++ == 0)
			w->first_dgram_bytes = (uint32_t)n;
		w->first_bytes += n;
	}
	if (!w->is_server)
		return;
	/* RFC 9000 8.1: a Handshake packet from the client proves its address, and so does
	 * the token of a Retry, which its next Initial carries. */
	if (!tx && ((types & PQ_QPKT_HANDSHAKE) || w->retry))
		w->validated = 1;
	if (!w->validated && tx) {
		w->prevalid_tx += n;
		/* No room left for one more full datagram: the limit, not the flight, ended
		 * this burst. Judged at each send, as the budget grows with what arrives. */
		if (w->prevalid_tx + PQ_WIRE_QUIC_MIN_INITIAL > PQ_WIRE_QUIC_AMP_FACTOR * w->prevalid_rx)
			w->amp_held = 1;
	} else if (!w->validated) {
		w->prevalid_rx += n;
	}
}

void pq_tls_quic_wire_done(pq_tls_quic_wire *w)
{
	w->done = 1;
}

int pq_tls_quic_server_held(const pq_tls_quic_wire *w)
{
	return w->amp_held;
}

int pq_tls_quic_client_saw_held(const pq_tls_quic_wire *w)
{
	return !w->retry && w->first_bytes > 0 &&
	       w->bytes[PQ_RX] > PQ_WIRE_QUIC_AMP_FACTOR * w->first_bytes;
}

int pq_tls_quic_check(const pq_tls_config *cfg, pq_diag *d)
{
	if (cfg->version == 12)
		return pq_diag_set(d, PQ_EUNSUPPORTED, "%s 1.2: QUIC carries TLS 1.3 only (RFC 9001)",
				   pq_name_of(cfg->names, "version"));
	if (cfg->max_early_data > 0)
		return pq_diag_set(d, PQ_EUNSUPPORTED,
				   "%s: OpenSSL 3.5's QUIC has no 0-RTT (early data); use it over TCP",
				   pq_name_of(cfg->names, "max_early_data"));
	return 0;
}

const SSL_METHOD *pq_tls_quic_method(pq_tls_role role)
{
	return role == PQ_TLS_SERVER ? OSSL_QUIC_server_method() : OSSL_QUIC_client_method();
}

static const unsigned char alpn_wire[] = "\x0a" PQ_TLS_QUIC_ALPN;
static const unsigned char alpn_h3[] = "\x02h3";

int pq_tls_quic_alpn_pick(const unsigned char *in, unsigned int inlen, const unsigned char **out,
			  unsigned char *outlen)
{
	unsigned char *sel, len;
	if (SSL_select_next_proto(&sel, &len, alpn_wire, sizeof alpn_wire - 1, in, inlen) !=
	    OPENSSL_NPN_NEGOTIATED)
		return 0;
	*out = sel;
	*outlen = len;
	return 1;
}

static int select_alpn(SSL *ssl, const unsigned char **out, unsigned char *outlen,
		       const unsigned char *in, unsigned int inlen, void *arg)
{
	(void)ssl, (void)arg;
	return pq_tls_quic_alpn_pick(in, inlen, out, outlen) ? SSL_TLSEXT_ERR_OK
							     : SSL_TLSEXT_ERR_ALERT_FATAL;
}

int pq_tls_quic_setup(SSL_CTX *ctx, const pq_tls_config *cfg, pq_diag *d)
{
	if (cfg->role == PQ_TLS_SERVER) {
		SSL_CTX_set_alpn_select_cb(ctx, select_alpn, NULL);
		return 0;
	}
	/* SSL_CTX_set_alpn_protos returns 0 on success. */
	const unsigned char *alpn = cfg->quic_h3 ? alpn_h3 : alpn_wire;
	size_t len = cfg->quic_h3 ? sizeof alpn_h3 - 1 : sizeof alpn_wire - 1;
	if (SSL_CTX_set_alpn_protos(ctx, alpn, (unsigned)len) != 0)
		return pq_diag_ossl(d, PQ_ETLS, "cannot offer ALPN %s",
				    cfg->quic_h3 ? "h3" : PQ_TLS_QUIC_ALPN);
	return 0;
}
