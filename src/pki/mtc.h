/* Merkle Tree Certificate SIZE EMULATION (draft-ietf-plants-merkle-tree-certs), not an
 * MTC implementation: nothing here builds a log, a proof or a cosignature.
 *
 * An MTC is an X.509 certificate whose signatureAlgorithm is id-alg-mtcProof
 * (1.3.6.1.4.1.44363.47.0, no parameters) and whose signatureValue BIT STRING holds
 *   MTCProof { extensions<0..2^16-1>, uint48 start, uint48 end,
 *              HashValue inclusion_proof<0..2^16-1>, SubtreeSignature signatures<0..2^16-1> }
 *   SubtreeSignature { TrustAnchorID cosigner_id<1..2^8-1>; opaque signature<0..2^16-1> }
 * so with no proof extensions, 32-byte hashes and h = ceil(log2 tree_size):
 *   MTCProof = 2 + 6 + 6 + (2 + 32 h) + (2 + sum over cosignatures (1 + 4 + 2 + sig))
 * (cosigner IDs taken as 4-byte relative OIDs). Standalone certificates carry one
 * cosignature; landmark-relative ones none. The certificate's DER size is that of the
 * subscriber's TBSCertificate with the mtcProof AlgorithmIdentifier, that identifier
 * again, and the BIT STRING (1 unused-bits byte + MTCProof). */
#ifndef PQ_PKI_MTC_H
#define PQ_PKI_MTC_H

#include <openssl/x509.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define PQ_MTC_OID "1.3.6.1.4.1.44363.47.0"
#define PQ_MTC_HASH 32
#define PQ_MTC_COSIGNER_ID 4

enum pq_mtc_mode { PQ_MTC_NONE = 0, PQ_MTC_STANDALONE, PQ_MTC_LANDMARK };

/* ceil(log2 n): hashes in an inclusion proof for a subtree of n entries (0 for n <= 1). */
unsigned pq_mtc_proof_hashes(uint64_t n);

/* Bytes of the MTCProof structure. cosig_bytes: one cosignature's size (standalone). */
size_t pq_mtc_proof_bytes(enum pq_mtc_mode mode, uint64_t tree_size, size_t cosig_bytes);

/* DER size of the MTC that would replace the signed certificate x (same TBS content,
 * mtcProof instead of x's signature). */
int pq_mtc_cert_size(X509 *x, enum pq_mtc_mode mode, uint64_t tree_size, size_t cosig_bytes,
		     size_t *out, pq_diag *d) PQ_MUST_USE;

#endif
