/* Server-side certificate compression (RFC 8879) for every key type.
 *
 * OpenSSL 3.5 only sends a CompressedCertificate it compressed in advance, and its own
 * SSL_CTX_compress_certs skips provider key types (ML-DSA): it fails with "Error
 * compressing certs" and the chain then always goes uncompressed. So pqtls builds the
 * TLS 1.3 Certificate message body itself (context 0, each certificate with empty
 * extensions, as OpenSSL would send it), compresses it with OpenSSL's COMP methods and
 * installs it with SSL_CTX_set1_compressed_cert, for each algorithm asked.
 *
 * Contract: call after the chain and key are loaded. Returns 0 (every algorithm asked
 * is installed, also one that did not make the message smaller; *installed counts them)
 * or a negative error with *d naming the algorithm. */
#ifndef PQ_TLS_CERTCOMP_H
#define PQ_TLS_CERTCOMP_H

#include <openssl/ssl.h>

#include "core/err.h"
#include "tls/ctx.h"

/* `what` names the setting in messages (the caller's name for it). */
int pq_tls_certcomp_install(SSL_CTX *ctx, const pq_tls_comp *c, const char *what, int *installed,
			    pq_diag *d) PQ_MUST_USE;

/* The uncompressed Certificate message body for leaf + chain, into a new buffer
 * (OPENSSL_free it); returns its length or a negative error. */
long pq_tls_certcomp_message(X509 *leaf, STACK_OF(X509) *chain, unsigned char **out) PQ_MUST_USE;

#endif
