/* The client's first flight for each key-share choice, measured from OpenSSL in memory
 * (tls/hello.h): its bytes on TCP, its segments at an MSS, the smallest MTU that carries
 * it in one segment (below it the ClientHello splits), and what a server that prefers
 * X25519MLKEM768 (and takes the others) makes of it: its share, or a HelloRetryRequest
 * and a second ClientHello.
 *
 * The ClientHellos carry no SNI (a host name adds 9 bytes plus its length) and no
 * session ticket. pq_model_hellos fills rows[0..PQ_MODEL_HELLOS-1] in table order and
 * returns 0, or a negative error with a message naming the choice. */
#ifndef PQ_MODEL_HELLO_H
#define PQ_MODEL_HELLO_H

#include <stddef.h>
#include <stdio.h>

#include "core/err.h"

#define PQ_MODEL_HELLOS 8
/* The server the rows are measured against: X25519MLKEM768 first, in a tuple of its own. */
#define PQ_MODEL_HELLO_SERVER "X25519MLKEM768/X25519:SecP256r1MLKEM768:SecP384r1MLKEM1024:MLKEM768"

typedef struct pq_model_hello_row {
	const char *label;  /* "wrong guess (X25519 share)" */
	const char *groups; /* offered, in order */
	const char *shares; /* carrying a key share */
	size_t bytes;       /* the first ClientHello's flight on TCP */
	size_t segments;    /* at the MSS given */
	size_t one_segment_mtu; /* bytes + IPv4/TCP/timestamp headers */
	int hrr;            /* the server asks again */
	size_t bytes2;      /* the second ClientHello's flight, after an HRR */
	char group[32];     /* negotiated with that server */
} pq_model_hello_row;

int pq_model_hellos(size_t mss, pq_model_hello_row rows[PQ_MODEL_HELLOS], pq_diag *d) PQ_MUST_USE;

/* The rows as a JSON array (NULL when out of memory; cJSON_Delete it), and as a table. */
struct cJSON *pq_model_hellos_json(const pq_model_hello_row rows[PQ_MODEL_HELLOS]);
void pq_model_hellos_print(FILE *f, const pq_model_hello_row rows[PQ_MODEL_HELLOS], size_t mss);

#endif
