/* One map of OpenSSL's I/O status: what a non-positive (or any) result of SSL_read,
 * SSL_write, SSL_do_handshake and friends means, for the load client, the server and
 * the in-memory handshakes alike.
 *
 * Contract: call pq_tls_io_status right after the SSL call, with its result r (errno
 * and OpenSSL's error queue still as the call left them). It reads both, leaves the
 * queue in place (pq_diag_ossl drains it for a message) and returns the status, also
 * stored in st->io:
 *   OK          r > 0
 *   WANT_READ   wait until the socket (or BIO) is readable, then call again
 *   WANT_WRITE  wait until it is writable, then call again
 *   CLOSED      the peer sent close_notify
 *   EOF         the connection ended without close_notify (OpenSSL 3's
 *               "unexpected eof while reading", or a system call that read 0 bytes)
 *   RESET       the connection was reset (ECONNRESET, EPIPE)
 *   SYSCALL     another system error: st->sys_errno
 *   TLS         a TLS failure: st->reason (OpenSSL's reason text, "" when none)
 * st->queued is the packed code of the oldest queued error (0 when none), whatever the
 * status: an EOF that OpenSSL reported as an error has one. */
#ifndef PQ_TLS_IO_H
#define PQ_TLS_IO_H

#include <openssl/ssl.h>

typedef enum pq_tls_io {
	PQ_TLS_IO_OK,
	PQ_TLS_IO_WANT_READ,
	PQ_TLS_IO_WANT_WRITE,
	PQ_TLS_IO_CLOSED,
	PQ_TLS_IO_EOF,
	PQ_TLS_IO_RESET,
	PQ_TLS_IO_SYSCALL,
	PQ_TLS_IO_TLS,
} pq_tls_io;

typedef struct pq_tls_status {
	pq_tls_io io;
	int sys_errno;	      /* errno after the call (SYSCALL, RESET) */
	unsigned long queued; /* oldest queued OpenSSL error, 0 = none */
	int why;	      /* its reason code (ERR_GET_REASON), 0 = none */
	const char *reason;   /* its text, never NULL */
} pq_tls_status;

pq_tls_io pq_tls_io_status(const SSL *ssl, int r, pq_tls_status *st);

/* "ok", "want-read", ... for messages and tests. */
const char *pq_tls_io_name(pq_tls_io io);

#endif
