/* QUIC beside TCP, over OpenSSL 3.5's own QUIC stack: what a pq_tls_config means when
 * it is carried by QUIC (pq_tls_config.quic), and what crossed the wire, datagram by
 * datagram, for one connection.
 *
 * The application protocol is the QUIC interop runner's `hq-interop` (ALPN
 * "hq-interop"): the client opens one bidirectional stream, writes "GET /bytes/N\r\n"
 * and concludes it; the server answers N bytes and concludes its side. No HTTP/3.
 *
 * What OpenSSL 3.5's QUIC cannot carry, refused by pq_tls_quic_check naming the input:
 * TLS 1.2 (QUIC is TLS 1.3 only) and 0-RTT (OpenSSL 3.5's QUIC has no early data).
 * Groups, signature algorithms, cipher suites, certificate compression and session
 * tickets (resumption) work as over TCP.
 *
 * Wire accounting (pq_tls_quic_wire): fed every datagram of one connection in order
 * (from the datagram BIO of qbio.h), it counts datagrams and bytes each way until the
 * handshake is marked done, the client's first flight (its Initial datagrams, sent
 * before anything came back), and the server's anti-amplification budget
 * (RFC 9000 8.1: before it has validated the client's address, a server sends at most
 * three times what it received; a Handshake packet from the client validates it).
 * Pure functions of the bytes they are given, so tests feed them hand-made datagrams. */
#ifndef PQ_TLS_QUIC_H
#define PQ_TLS_QUIC_H

#include <openssl/ssl.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/wire.h"
#include "tls/ctx.h"

#define PQ_TLS_QUIC_ALPN "hq-interop"

/* What a datagram holds: one bit per long-header packet type coalesced in it, and one
 * for a short-header (1-RTT) packet. */
enum {
	PQ_QPKT_INITIAL = 1 << 0,
	PQ_QPKT_0RTT = 1 << 1,
	PQ_QPKT_HANDSHAKE = 1 << 2,
	PQ_QPKT_RETRY = 1 << 3,
	PQ_QPKT_SHORT = 1 << 4,
};

/* The packet types in one datagram, read from the unprotected long headers (type bits,
 * connection IDs, token and length fields), walking coalesced packets. A datagram that
 * does not parse returns the types read before the damage (0 when none). */
unsigned pq_tls_quic_types(const uint8_t *d, size_t n);

typedef struct pq_tls_quic_wire {
	int is_server;
	int done;                 /* handshake done: later datagrams count only in total */
	uint64_t dgrams[2], bytes[2]; /* before done, PQ_TX / PQ_RX (acct.h) */
	uint64_t total_dgrams[2], total_bytes[2];
	/* the client's first flight: its datagrams before the first one from the server */
	uint64_t first_dgrams, first_bytes;
	uint32_t first_dgram_bytes; /* the size of the very first client datagram */
	int retry;                /* a Retry packet crossed */
	/* server side: bytes each way before the client's address was validated */
	int validated;
	uint64_t prevalid_tx, prevalid_rx;
	int amp_held; /* see pq_tls_quic_server_held */
} pq_tls_quic_wire;

void pq_tls_quic_wire_init(pq_tls_quic_wire *w, int is_server);
/* One datagram: tx = sent by this end. */
void pq_tls_quic_wire_dgram(pq_tls_quic_wire *w, int tx, const uint8_t *d, size_t n);
void pq_tls_quic_wire_done(pq_tls_quic_wire *w);

/* Server side: did the amplification limit hold the server's flight? True when, at
 * some send before the client's address was validated, the server had sent so much
 * that one more datagram of PQ_WIRE_QUIC_MIN_INITIAL bytes would have passed three times
 * what it had received by then. */
int pq_tls_quic_server_held(const pq_tls_quic_wire *w);

/* Client side: the server's handshake bytes (all it sent before this end's handshake
 * was done) exceeded three times the client's first flight, so the server cannot have
 * sent them all before the client's address was validated: its flight waited for the
 * client at least once. Not judged (0) after a Retry, which validates up front. */
int pq_tls_quic_client_saw_held(const pq_tls_quic_wire *w);

/* Refuse what QUIC cannot carry (cfg->quic set): TLS 1.2, 0-RTT. Names the input. */
int pq_tls_quic_check(const pq_tls_config *cfg, pq_diag *d) PQ_MUST_USE;

/* The SSL_METHOD for a role. */
const SSL_METHOD *pq_tls_quic_method(pq_tls_role role);

/* The server's ALPN choice from a client's list (ALPN wire format: length-prefixed
 * names): 1 and the name it selects (hq-interop) in *out, or 0 when the list has none it
 * speaks. */
int pq_tls_quic_alpn_pick(const unsigned char *in, unsigned int inlen, const unsigned char **out,
			  unsigned char *outlen);

/* ALPN on a QUIC context: the client offers hq-interop, the server selects it (and
 * refuses a client that offers none it speaks, with no_application_protocol). */
int pq_tls_quic_setup(SSL_CTX *ctx, const pq_tls_config *cfg, pq_diag *d) PQ_MUST_USE;

#endif
