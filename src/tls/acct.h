/* Per-connection TLS accounting from OpenSSL's message callback: bytes of each handshake
 * message in each direction, TLS record bytes on the wire, HelloRetryRequest, alerts,
 * and the monotonic times at which the ClientHello left, the ServerHello arrived and
 * the peer's Finished arrived; on the client, each ClientHello's bytes and (given the
 * socket) the TCP data segments sent by the time each ServerHello came back.
 *
 * Contract: pq_tls_acct_attach points the SSL's message callback at *a (which must
 * outlive the SSL); pq_tls_acct_msg is the pure part, fed one callback at a time, so
 * tests drive it with hand-made messages. Times come from a->clock. */
#ifndef PQ_TLS_ACCT_H
#define PQ_TLS_ACCT_H

#include <openssl/ssl.h>
#include <stddef.h>
#include <stdint.h>

#include "core/clock.h"

enum { PQ_TX = 0, PQ_RX = 1 };

/* Handshake types we report, indexed as below (RFC 8446 numbers, RFC 8879 for 25). */
enum pq_hs {
	PQ_HS_CLIENT_HELLO,
	PQ_HS_SERVER_HELLO,
	PQ_HS_NEW_SESSION_TICKET,
	PQ_HS_END_OF_EARLY_DATA,
	PQ_HS_ENCRYPTED_EXTENSIONS,
	PQ_HS_CERTIFICATE,
	PQ_HS_COMPRESSED_CERTIFICATE,
	PQ_HS_SERVER_KEY_EXCHANGE, /* TLS 1.2 */
	PQ_HS_CERTIFICATE_REQUEST,
	PQ_HS_SERVER_HELLO_DONE,   /* TLS 1.2 */
	PQ_HS_CERTIFICATE_VERIFY,
	PQ_HS_CLIENT_KEY_EXCHANGE, /* TLS 1.2 */
	PQ_HS_FINISHED,
	PQ_HS_OTHER,
	PQ_HS_COUNT
};

typedef struct pq_tls_acct {
	pq_clock *clock;
	uint32_t hs_bytes[2][PQ_HS_COUNT]; /* summed, each including its 4-byte header */
	uint16_t hs_count[2][PQ_HS_COUNT];
	uint64_t record_bytes[2];          /* TLS records incl. 5-byte headers */
	uint32_t records[2];
	int hrr;                           /* the server sent a HelloRetryRequest */
	int alert_rx, alert_tx;            /* last alert description, -1 = none */
	int alert_rx_fatal;
	int64_t t_client_hello_ns;         /* first ClientHello handed to the socket layer */
	int64_t t_server_hello_ns;         /* last ServerHello (the real one after an HRR) */
	int64_t t_peer_finished_ns;
	uint32_t ch_bytes[2];              /* client: the first ClientHello, the one after an HRR */
	uint32_t segs_at_sh[2];            /* client: tcpi_data_segs_out when the HRR (or the
					      ServerHello) and then the ServerHello arrived */
	int n_sh;                          /* ServerHellos (an HRR included) seen, capped at 2 */
	int fd;                            /* the socket, for segs_at_sh; -1 = none */
} pq_tls_acct;

void pq_tls_acct_init(pq_tls_acct *a, pq_clock *clock);
void pq_tls_acct_attach(SSL *ssl, pq_tls_acct *a);
/* Count the client's TCP segments per ClientHello on this socket. */
void pq_tls_acct_watch_fd(pq_tls_acct *a, int fd);
/* The TCP data segments the first ClientHello (which = 0) and the second (which = 1,
 * after an HRR: its flight, the ChangeCipherSpec with it) took; 0 when unknown. */
uint32_t pq_tls_acct_ch_segs(const pq_tls_acct *a, int which);
/* What a connection negotiated, as text: its key-exchange group and the peer's signature
 * scheme, each "" when there is none (before the handshake, or a resumption). */
void pq_tls_acct_names(SSL *ssl, char *group, size_t group_n, char *sigalg, size_t sigalg_n);
void pq_tls_acct_msg(pq_tls_acct *a, int write_p, int content_type, const unsigned char *buf,
		     size_t len, int is_server);

/* Index for a handshake type number (PQ_HS_OTHER when not reported). */
enum pq_hs pq_tls_hs_index(int type);
/* Short column names: "client_hello", "certificate", ... */
const char *pq_tls_hs_name(enum pq_hs i);

#endif
