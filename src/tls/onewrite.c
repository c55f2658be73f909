#include "tls/onewrite.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <stdint.h>

int pq_tls_onewrite_attach(SSL *ssl, int fd, size_t bufsize, pq_diag *d)
{
	BIO *sock = BIO_new_socket(fd, BIO_NOCLOSE), *buf = BIO_new(BIO_f_buffer());
	if (!sock || !buf || bufsize > INT32_MAX || !BIO_set_write_buffer_size(buf, (long)bufsize) ||
	    !BIO_up_ref(sock)) {
		BIO_free(sock);
		BIO_free(buf);
		return pq_diag_ossl(d, PQ_ENOMEM, "one-write flight: cannot make a %zu-byte buffer",
				    bufsize);
	}
	/* The socket is the read side and the end of the write chain: two references. */
	BIO_push(buf, sock);
	SSL_set_bio(ssl, sock, buf);
	return 0;
}

int pq_tls_onewrite_detach(SSL *ssl, pq_diag *d)
{
	BIO *buf = SSL_get_wbio(ssl), *sock = SSL_get_rbio(ssl);
	if (!buf || buf == sock)
		return 0; /* not attached, or already detached */
	if (BIO_wpending(buf) > 0 && BIO_flush(buf) <= 0)
		return pq_diag_ossl(d, PQ_EIO, "one-write flight: %ld bytes still buffered after the handshake",
				    (long)BIO_wpending(buf));
	if (!BIO_up_ref(sock))
		return pq_diag_ossl(d, PQ_ENOMEM, "one-write flight: cannot take the socket back");
	SSL_set0_wbio(ssl, sock); /* frees the buffer, and its reference to the socket */
	return 0;
}
