/* One certificate of a lab chain, built the way a small CA would: short DNs, a random
 * 16-byte serial, UTCTime validity, and only the extensions TLS and `openssl verify`
 * need (basicConstraints and keyUsage; a leaf adds extendedKeyUsage serverAuth and
 * subjectAltName localhost, 127.0.0.1, ::1). */
#ifndef PQ_PKI_CERT_H
#define PQ_PKI_CERT_H

#include <openssl/x509.h>
#include <stdint.h>

#include "core/err.h"

typedef struct pq_cert_req {
	const char *cn;	      /* subject CN */
	int ca;		      /* 1: CA certificate; 0: TLS server leaf */
	EVP_PKEY *key;	      /* subject key */
	X509 *issuer;	      /* NULL: self-signed with `key` */
	EVP_PKEY *issuer_key; /* signing key (ignored when self-signed) */
	const EVP_MD *md;     /* signing digest; NULL for ML-DSA, SLH-DSA, Ed25519 */
	int64_t not_before;   /* Unix seconds (injected: a cached chain stays stable) */
	int days;	      /* validity; keep not_before + days before 2050 (UTCTime) */
} pq_cert_req;

/* A new signed certificate in *out (caller frees with X509_free). */
int pq_cert_new(const pq_cert_req *r, X509 **out, pq_diag *d) PQ_MUST_USE;

#endif
