/* A server that hands its first flight to the socket in one write. OpenSSL writes a
 * handshake flight through a 4 KiB buffer of its own (pki/acct.h), so a large flight
 * reaches TCP in pieces, each ending in a short segment, and a chain that would fit the
 * initial window by its bytes may not by its segments. Here the socket gets a buffering
 * BIO of `bufsize` bytes below OpenSSL's: OpenSSL's pieces collect in it and the flush
 * at the end of the flight sends them in one write (a flight bigger than the buffer
 * goes in buffer-sized writes). After the handshake the buffer is taken away again, so
 * application data is not held back.
 *
 * Contract: attach instead of SSL_set_fd, on a fresh server SSL; detach once
 * SSL_do_handshake has returned 1 (the flight and the tickets are flushed by then).
 * Both return 0 or a negative error with a message in *d. 0-RTT answers (data written
 * before the handshake ends) would wait in the buffer: do not combine with early data. */
#ifndef PQ_TLS_ONEWRITE_H
#define PQ_TLS_ONEWRITE_H

#include <openssl/ssl.h>
#include <stddef.h>

#include "core/err.h"

#define PQ_TLS_ONEWRITE_BUF (256u << 10)

int pq_tls_onewrite_attach(SSL *ssl, int fd, size_t bufsize, pq_diag *d) PQ_MUST_USE;
int pq_tls_onewrite_detach(SSL *ssl, pq_diag *d) PQ_MUST_USE;

#endif
