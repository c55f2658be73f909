/* Size-emulated signatures on the wire (pki/alg.h, PQ_ALG_SIZE_EMU): the bytes an emulated
 * scheme's CertificateVerify has beyond the real Ed25519 signature travel in the server's
 * first flight as an extension of the leaf's CertificateEntry (RFC 8446 section 4.4.2),
 * type PQ_TLS_SIGPAD_EXT from the private-use range, 4 bytes of header and carry - 4 zero
 * bytes. So the flight has the emulated scheme's byte count to the byte, on TCP and QUIC
 * alike (pki/acct.h, pq_acct_in.cv_carry, models it).
 *
 * TLS 1.3 lets a server put an extension there only when the client offered it in its
 * ClientHello (OpenSSL enforces it both ways), so the client (pqtls's, pq_tls_config's
 * sig_pad) offers it empty, 4 bytes more in its ClientHello, and a server with an
 * emulated chain refuses a client that did not offer it: a stock client would get a
 * flight short of the scheme's, and would "verify" a signature that is not the scheme's.
 *
 * The chain directory says what to carry: PQ_CHAIN_FILE_SIGPAD ("<carry> <algorithm>"),
 * written by pki/build.c for a size-emulated leaf, read by pq_chain_sigpad_read. */
#ifndef PQ_TLS_SIGPAD_H
#define PQ_TLS_SIGPAD_H

#include <openssl/ssl.h>
#include <stddef.h>

#include "core/err.h"

#define PQ_TLS_SIGPAD_EXT 0xff5a /* RFC 8446 4.2: 65280..65535 are for private use */
#define PQ_TLS_SIGPAD_MAX 0xffff /* an extension's length field */

/* Server: sends carry bytes in the leaf's CertificateEntry to clients that offer the
 * extension, refuses the handshake of clients that do not. `alg` names the emulated
 * scheme in the refusal (copied). */
int pq_tls_sigpad_server(SSL_CTX *ctx, size_t carry, const char *alg, pq_diag *d) PQ_MUST_USE;

/* Client: offers the extension and accepts it in the leaf's CertificateEntry. */
int pq_tls_sigpad_client(SSL_CTX *ctx, pq_diag *d) PQ_MUST_USE;

#endif
