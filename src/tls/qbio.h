/* A datagram tap for OpenSSL's QUIC: a filter BIO over a datagram BIO (BIO_s_datagram
 * on a UDP socket) that passes every BIO_sendmmsg / BIO_recvmmsg through and tells a
 * callback about each datagram that crossed, with its peer address. Everything else
 * (poll descriptors, addresses, capabilities) is forwarded to the BIO below.
 *
 * Contract: pq_tls_qbio_new returns a new filter BIO with `next` pushed below it (the
 * filter then owns next: BIO_free_all frees both), or NULL with `next` untouched. The
 * callback runs inside OpenSSL's QUIC event processing, on the thread that drives it;
 * `peer` may be NULL when the BIO below reports none. */
#ifndef PQ_TLS_QBIO_H
#define PQ_TLS_QBIO_H

#include <openssl/bio.h>
#include <stddef.h>
#include <stdint.h>

typedef void (*pq_tls_qbio_cb)(void *arg, int tx, const BIO_ADDR *peer, const uint8_t *d,
			       size_t n);

BIO *pq_tls_qbio_new(BIO *next, pq_tls_qbio_cb cb, void *arg);

/* Point the tap of b (made by pq_tls_qbio_new) at another callback (NULL: none). Call it
 * only from the thread that drives the QUIC object above. */
void pq_tls_qbio_set_cb(BIO *b, pq_tls_qbio_cb cb, void *arg);

#endif
