#include "tls/io.h"

#include <errno.h>
#include <openssl/err.h>

#include "core/err.h"

pq_tls_io pq_tls_io_status(const SSL *ssl, int r, pq_tls_status *st)
{
	int err_no = errno;
	*st = (pq_tls_status){.io = PQ_TLS_IO_OK, .reason = ""};
	if (r > 0)
		return st->io;
	int e = SSL_get_error(ssl, r);
	st->sys_errno = err_no;
	st->queued = pq_ossl_peek(0, &st->reason);
	st->why = st->queued ? ERR_GET_REASON(st->queued) : 0;
	if (e == SSL_ERROR_WANT_READ)
		st->io = PQ_TLS_IO_WANT_READ;
	else if (e == SSL_ERROR_WANT_WRITE)
		st->io = PQ_TLS_IO_WANT_WRITE;
	else if (e == SSL_ERROR_ZERO_RETURN)
		st->io = PQ_TLS_IO_CLOSED;
	else if (st->why == SSL_R_UNEXPECTED_EOF_WHILE_READING)
		st->io = PQ_TLS_IO_EOF;
	else if (st->queued && ERR_SYSTEM_ERROR(st->queued)) {
		/* A system call failed inside OpenSSL (its queue holds the errno, with no
		 * reason text): a reset or a system error, not a TLS failure. */
		st->sys_errno = st->why;
		st->io = st->why == ECONNRESET || st->why == EPIPE ? PQ_TLS_IO_RESET : PQ_TLS_IO_SYSCALL;
	} else if (st->queued)
		st->io = PQ_TLS_IO_TLS;
	else if (e == SSL_ERROR_SYSCALL)
		st->io = err_no == 0 ? PQ_TLS_IO_EOF
			 : err_no == ECONNRESET || err_no == EPIPE ? PQ_TLS_IO_RESET
								   : PQ_TLS_IO_SYSCALL;
	else
		st->io = PQ_TLS_IO_TLS; /* SSL_ERROR_SSL with an empty queue, or a WANT_* this
					   project never asks for (X509 lookup, async) */
	return st->io;
}

const char *pq_tls_io_name(pq_tls_io io)
{
	static const char *const names[] = {
		[PQ_TLS_IO_OK] = "ok",		   [PQ_TLS_IO_WANT_READ] = "want-read",
		[PQ_TLS_IO_WANT_WRITE] = "want-write", [PQ_TLS_IO_CLOSED] = "closed",
		[PQ_TLS_IO_EOF] = "eof",	   [PQ_TLS_IO_RESET] = "reset",
		[PQ_TLS_IO_SYSCALL] = "syscall",   [PQ_TLS_IO_TLS] = "tls",
	};
	return (unsigned)io < sizeof names / sizeof names[0] ? names[io] : "unknown";
}
