#include "pki/mtc.h"

#include <openssl/objects.h>

#include "pki/der.h"

unsigned pq_mtc_proof_hashes(uint64_t n)
{
	unsigned h = 0;
	while (h < 64 && (UINT64_C(1) << h) < n)
		h++;
	return h;
}

size_t pq_mtc_proof_bytes(enum pq_mtc_mode mode, uint64_t tree_size, size_t cosig_bytes)
{
	size_t len = 2 + 6 + 6 + 2 + (size_t)PQ_MTC_HASH * pq_mtc_proof_hashes(tree_size) + 2;
	if (mode == PQ_MTC_STANDALONE)
		len += 1 + PQ_MTC_COSIGNER_ID + 2 + cosig_bytes;
	return len;
}

int pq_mtc_cert_size(X509 *x, enum pq_mtc_mode mode, uint64_t tree_size, size_t cosig_bytes,
		     size_t *out, pq_diag *d)
{
	int rc = 0;
	X509_ALGOR *mtc = X509_ALGOR_new();
	ASN1_OBJECT *oid = OBJ_txt2obj(PQ_MTC_OID, 1);
	const X509_ALGOR *own = NULL;
	X509_get0_signature(NULL, &own, x);
	if (!mtc || !oid || !own || !X509_ALGOR_set0(mtc, oid, V_ASN1_UNDEF, NULL)) {
		ASN1_OBJECT_free(oid);
		rc = pq_diag_ossl(d, PQ_ENOMEM, "MTC emulation: cannot build id-alg-mtcProof");
		goto out;
	}
	int tbs = i2d_re_X509_tbs(x, NULL), own_len = i2d_X509_ALGOR(own, NULL),
	    mtc_len = i2d_X509_ALGOR(mtc, NULL);
	if (tbs <= 0 || own_len <= 0 || mtc_len <= 0) {
		rc = pq_diag_ossl(d, PQ_ETLS, "MTC emulation: cannot encode the certificate");
		goto out;
	}
	/* Swap the identifier inside the TBS, then wrap as a Certificate. */
	size_t len = pq_der_tlv(pq_der_content((size_t)tbs) - (size_t)own_len + (size_t)mtc_len);
	*out = pq_der_tlv(len + (size_t)mtc_len +
			  pq_der_tlv(1 + pq_mtc_proof_bytes(mode, tree_size, cosig_bytes)));
out:
	X509_ALGOR_free(mtc);
	return rc;
}
