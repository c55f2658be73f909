/* Exact-size padding of a certificate, the way arXiv 2604.24869 sized its chains: a
 * non-critical extension under a private OID whose value is random bytes from
 * RAND_bytes (so RFC 8879 compression cannot erase it).
 *
 * The size is exact to the byte. Lengthening the pad by one byte usually grows the DER by
 * one byte, but where a length field needs another length byte (content 127->128,
 * 255->256, 65535->65536 at any nesting level) the size jumps by two; such a size is
 * reached with two pad extensions, or for a leaf also by lengthening its subject CN.
 * Sizes where the TBSCertificate or the Certificate itself would need a length that DER
 * skips (e.g. a 65,540-byte TBS) cannot exist; those targets are refused, naming the
 * nearest sizes that can. */
#ifndef PQ_PKI_PAD_H
#define PQ_PKI_PAD_H

#include <openssl/x509.h>
#include <stddef.h>

#include "core/err.h"

#define PQ_PAD_OID "1.3.6.1.4.1.55555.1.1"
/* DER bytes of a pad extension with an empty pad: the least padding can add. */
#define PQ_PAD_EXT_MIN 18

typedef struct pq_pad_req {
	EVP_PKEY *key;	  /* the issuer's key, to re-sign */
	const EVP_MD *md; /* its digest, NULL for ML-DSA/SLH-DSA/Ed25519 */
	size_t target;	  /* wanted DER size of the whole certificate */
	const char *cn;	  /* when not NULL, the subject CN may grow from this base */
	const char *what; /* for messages: the caller's name, "pad_leaf_to 20000 (leaf)" */
} pq_pad_req;

/* Makes the signed certificate x exactly r->target DER bytes (re-signing it). x must be
 * signed already and carry at least one extension. On failure (PQ_ERANGE: target below
 * x's natural size or not encodable) x is left modified and must be discarded. */
int pq_pad_fit(X509 *x, const pq_pad_req *r, pq_diag *d) PQ_MUST_USE;

/* DER bytes of x (0 on encoding failure). */
size_t pq_pad_der_len(X509 *x);

/* Total DER bytes of the pad extensions in x (whole Extension TLVs), 0 when none. */
size_t pq_pad_bytes(const X509 *x);

/* The pad OID as an object (owned by the caller), NULL on allocation failure. */
ASN1_OBJECT *pq_pad_oid(void);

#endif
