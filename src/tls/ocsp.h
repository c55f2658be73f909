/* OCSP stapling in TLS 1.3 (RFC 8446 section 4.4.2.1): the server puts the chain's OCSP
 * response (pki/ocsp.h, DIR/PQ_CHAIN_FILE_OCSP) in the leaf's CertificateEntry as a
 * status_request extension, to clients that asked for it in their ClientHello; a client
 * that asks (pq_tls_config.ocsp) refuses a handshake without one.
 *
 * Contract: both return 0 or a negative error with a message; the server copies the
 * response into the context (freed with it). */
#ifndef PQ_TLS_OCSP_H
#define PQ_TLS_OCSP_H

#include <openssl/ssl.h>

#include "core/err.h"

/* Server: staples the OCSP response in file `path` (DER). `what` names the input. */
int pq_tls_ocsp_server(SSL_CTX *ctx, const char *path, const char *what, pq_diag *d) PQ_MUST_USE;

/* Client: asks for a staple (status_request) and fails the handshake when none comes. */
int pq_tls_ocsp_client(SSL_CTX *ctx, pq_diag *d) PQ_MUST_USE;

#endif
