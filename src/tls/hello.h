/* The client's side of the key exchange, measured in memory: which groups a client
 * offers and which of them carry a key share, what a server accepting `server_groups`
 * makes of that (its own key share, or a HelloRetryRequest first), and the bytes each
 * ClientHello flight hands to TCP.
 *
 * The offer is two lists, as a sweep spells it: `groups`, every group offered in order
 * ("X25519MLKEM768:X25519"), and `shares`, the ones whose key share the first ClientHello
 * carries ("X25519", or "X25519MLKEM768:X25519" for both; NULL = the first offered).
 * pq_tls_groups_offer writes them as one OpenSSL groups list ('*' marks a share:
 * "X25519MLKEM768:*X25519"). Server lists are OpenSSL's own syntax: "A:B" is one tuple
 * (a share for either is taken as it is), "A/B" prefers A even at the cost of a
 * HelloRetryRequest.
 *
 * Contract: pq_tls_groups_offer returns 0, or PQ_EINVAL naming `what` (a share not
 * offered, a list too long for buf). pq_tls_hello_measure makes one TLS 1.3 handshake
 * in memory (a throwaway P-256 certificate on the server; the chain does not change the
 * ClientHellos) and returns 0 with *out filled, or a negative error with a message (no
 * group in common names both lists). */
#ifndef PQ_TLS_HELLO_H
#define PQ_TLS_HELLO_H

#include <stddef.h>

#include "core/err.h"

int pq_tls_groups_offer(const char *groups, const char *shares, const char *what, char *buf,
			size_t n, pq_diag *d) PQ_MUST_USE;

typedef struct pq_tls_hello {
	size_t client_hello[2]; /* bytes the client writes: its first flight, and the one
				   after a HelloRetryRequest (0 when none) */
	size_t hrr_bytes;       /* bytes of the HelloRetryRequest flight, 0 when none */
	int hrr;
	char group[32];         /* negotiated */
} pq_tls_hello;

/* offer: an OpenSSL groups list (as pq_tls_groups_offer writes it); server_groups: NULL
 * for OpenSSL's default. */
int pq_tls_hello_measure(const char *offer, const char *server_groups, pq_tls_hello *out,
			 pq_diag *d) PQ_MUST_USE;

#endif
