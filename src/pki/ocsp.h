/* An OCSP staple for the leaf (RFC 6960): a real BasicOCSPResponse, status good, signed by
 * the leaf's issuer with OpenSSL's OCSP API, no certificates included (the client has the
 * issuer from the chain). The server staples it in the leaf's CertificateEntry (TLS 1.3
 * status_request, tls/ocsp.h); pki/build.c writes it as PQ_CHAIN_FILE_OCSP.
 *
 * An issuer whose key stands for a bigger signature (a size emulation, emu-*, or a
 * composite: pq_alg.emu_sig_extra) signs with its real key, and the response gets a pad
 * extension (pki/pad.h's OID) in responseExtensions so that its DER is exactly `extra`
 * bytes longer than the response the real key makes: the size the emulated scheme's
 * signature would give it. */
#ifndef PQ_PKI_OCSP_H
#define PQ_PKI_OCSP_H

#include <openssl/x509.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "pki/alg.h"

/* The DER of the response in *der (OPENSSL_free it), its length in *len. now: Unix
 * seconds of thisUpdate (nextUpdate a week later). `extra`: the pad above. */
int pq_ocsp_make(X509 *leaf, X509 *issuer, EVP_PKEY *issuer_key, const pq_alg *issuer_alg, size_t extra,
		 int64_t now, unsigned char **der, size_t *len, pq_diag *d) PQ_MUST_USE;

/* Bytes an OCSP response of `resp` bytes adds to the leaf's CertificateEntry: the
 * status_request extension's header (4), CertificateStatus's status_type (1) and the
 * response's 3-byte length. 0 for none. */
size_t pq_ocsp_entry_bytes(size_t resp);

#endif
