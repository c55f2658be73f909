/* The server's first flight as OpenSSL writes it: one handshake between two contexts in
 * memory, recording every write each side makes to its BIO, so the flight model
 * (model/flight.h) counts TCP segments per write as the kernel will send them, not per
 * flight. OpenSSL does not hand the whole flight to the socket at once: the ServerHello
 * and the first records go out in a first write, the rest of the Certificate in a
 * second, CertificateVerify and Finished after signing in a third (the exact split
 * depends on the version and the chain, which is why it is measured here, not assumed).
 *
 * Contract: pq_tls_flight_measure makes one full handshake (a fresh SSL on each side,
 * over a BIO pair large enough that no write is partial) and returns 0 with *out filled,
 * or a negative error with a message in *d. The server context should be made as
 * `pqtls serve` makes it, so the writes are the ones its socket sees. */
#ifndef PQ_TLS_FLIGHT_H
#define PQ_TLS_FLIGHT_H

#include <openssl/ssl.h>
#include <stddef.h>

#include "core/err.h"

#define PQ_TLS_FLIGHT_MAX_WRITES 32

typedef struct pq_tls_writes {
	size_t len[PQ_TLS_FLIGHT_MAX_WRITES]; /* bytes of each write, in order */
	size_t n;			      /* writes recorded (at most the maximum; see total) */
	size_t total;			      /* bytes of all writes, also past the maximum */
} pq_tls_writes;

typedef struct pq_tls_flight {
	pq_tls_writes client_hello; /* the client's first flight */
	pq_tls_writes server;	    /* ServerHello .. Finished */
	pq_tls_writes client_fin;   /* the client's Finished (and certificate, if any) */
	pq_tls_writes tickets;	    /* what the server writes after the client's Finished */
	char group[32], sigalg[32]; /* negotiated */
} pq_tls_flight;

int pq_tls_flight_measure(SSL_CTX *server, SSL_CTX *client, pq_tls_flight *out,
			  pq_diag *d) PQ_MUST_USE;

/* Bytes of the ClientHello flight `client` writes (no server needed): what the model
 * uses when it has no chain to run a whole handshake with. */
int pq_tls_client_hello_bytes(SSL_CTX *client, size_t *out, pq_diag *d) PQ_MUST_USE;

#endif
