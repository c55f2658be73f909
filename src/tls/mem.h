/* Full TLS handshakes between two contexts in one thread, over a memory BIO pair: what
 * OpenSSL itself costs per handshake on each side, with no sockets, kernel or peer
 * process. bench/handshake-rate.sh sets a server's CPU per handshake over TCP against
 * this.
 *
 * Contract: pq_tls_mem_handshakes makes n handshakes (a fresh SSL on each side each
 * time) and returns 0 with *out filled, or a negative error with a message in *d (a
 * handshake that fails names the side and OpenSSL's reason). Each side's time is the
 * sum, over the calls made on its behalf (SSL_new, every SSL_do_handshake, SSL_free),
 * of the difference of `cpu` around the call; pass NULL for this thread's CPU clock.
 * The server's time includes its NewSessionTickets. */
#ifndef PQ_TLS_MEM_H
#define PQ_TLS_MEM_H

#include <openssl/ssl.h>
#include <stdint.h>

#include "core/err.h"

typedef int64_t (*pq_tls_cpu_fn)(void);

typedef struct pq_tls_mem_result {
	uint64_t handshakes;
	int64_t server_ns, client_ns; /* CPU time of each side's calls, summed */
	char group[32], sigalg[32];   /* negotiated in the last handshake */
} pq_tls_mem_result;

int pq_tls_mem_handshakes(SSL_CTX *server, SSL_CTX *client, uint64_t n, pq_tls_cpu_fn cpu,
			  pq_tls_mem_result *out, pq_diag *d) PQ_MUST_USE;

/* One SSL_do_handshake on one side of an in-memory handshake: 1 when that side is done,
 * 0 when it waits for its peer, or a negative error naming `side` and OpenSSL's reason. */
int pq_tls_mem_step(SSL *ssl, const char *side, pq_diag *d) PQ_MUST_USE;

#endif
