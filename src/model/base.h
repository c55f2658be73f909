/* The inputs of the flight model for one chain and group, taken from the stack itself:
 * a chain directory (as `pqtls certs` writes it) is inspected for its certificates'
 * sizes and its leaf's signature, and one handshake in memory with a server made as
 * `pqtls serve` makes it (tls/flight.h) gives the ClientHello, the writes of the
 * server's first flight and the tickets. Without a chain, a leaf algorithm and a count
 * of intermediates describe it, and only the ClientHello is measured (a client alone);
 * the server's writes then come from the rule in pki/acct.h.
 *
 * Contract: functions return 0 with *out filled or a negative error with a message that
 * names the input (`what`: how the caller's user named the directory or algorithm). */
#ifndef PQ_MODEL_BASE_H
#define PQ_MODEL_BASE_H

#include <stddef.h>

#include "core/err.h"
#include "model/flight.h"
#include "model/quic.h"
#include "pki/acct.h"
#include "tls/hello.h"

#define PQ_MODEL_BASE_CERTS 16

typedef struct pq_model_base {
	char leaf_alg[48], group[32];
	size_t der[PQ_MODEL_BASE_CERTS]; /* chain as sent, leaf first */
	size_t n, chain_der;
	pq_acct_in acct_in; /* points into der[]; for pq_model_at_size */
	pq_acct rule;	    /* the flight by the rule, at the chain's own size */
	int measured;	    /* 1: writes, tickets and ee from a handshake */
	size_t writes[PQ_MODEL_MAX_WRITES], n_writes;
	size_t client_hello, tickets;
	int hrr;			   /* the client's offer draws a HelloRetryRequest */
	size_t hrr_bytes, client_hello2;   /* its flight, and the second ClientHello's */
} pq_model_base;

int pq_model_base_certs(const char *dir, const char *what, const char *group, size_t wbuf,
			pq_model_base *out, pq_diag *d) PQ_MUST_USE;

int pq_model_base_alg(const char *leaf_alg, const char *what, int intermediates,
		      const char *group, size_t wbuf, pq_model_base *out, pq_diag *d) PQ_MUST_USE;

/* The client's side as measured for an offer (tls/hello.h): its ClientHello(s) and
 * whether the server asks again replace the ones of the base's own handshake (which
 * offered its group alone). The caller builds the base with the group h negotiated. */
void pq_model_base_hello(pq_model_base *b, const pq_tls_hello *h);

/* The model's network inputs for this base: ClientHello and tickets from it; writes
 * the measured ones when there are, else the rule's. */
void pq_model_base_net(const pq_model_base *b, size_t mss, size_t iw, size_t response,
		       pq_model_in *out);

/* The QUIC view of this base (model/quic.h) for a server flight of `server_msgs` bytes of
 * handshake messages, `server_hello` of them at the Initial level: its ClientHello(s)
 * without their TLS record framing (QUIC carries the messages in CRYPTO frames), OpenSSL's
 * CRYPTO send buffer (PQ_MODEL_QUIC_CRYPTO_BUF) on the rest, behind a Retry when `retry`,
 * and the HRR when the base's offer draws one. */
void pq_model_base_quic(const pq_model_base *b, size_t server_msgs, size_t server_hello, int retry,
			pq_model_quic *out);

#endif
