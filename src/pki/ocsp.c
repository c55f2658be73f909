/* pq_ocsp_make: the leaf's OCSP response, signed by its issuer (pki/ocsp.h). */
#include "pki/ocsp.h"

#include <openssl/ocsp.h>
#include <openssl/x509v3.h>

#include "pki/pad.h"

/* One response: status good for the leaf, a pad extension of n bytes when n > 0
 * (n = -1: none), signed; its DER into *der. */
static int make_once(X509 *leaf, X509 *issuer, EVP_PKEY *key, const pq_alg *alg, long n, int64_t now,
		     unsigned char **der, size_t *len, pq_diag *d)
{
	int rc = PQ_ETLS;
	OCSP_BASICRESP *bs = OCSP_BASICRESP_new();
	OCSP_CERTID *id = OCSP_cert_to_id(EVP_sha1(), leaf, issuer); /* SHA-1: what responders use */
	ASN1_TIME *this_upd = ASN1_TIME_set(NULL, (time_t)now);
	ASN1_TIME *next_upd = ASN1_TIME_set(NULL, (time_t)(now + 7 * 86400));
	EVP_MD_CTX *mctx = EVP_MD_CTX_new();
	OCSP_RESPONSE *resp = NULL;
	unsigned char *pad = n > 0 ? OPENSSL_zalloc((size_t)n) : NULL;
	if (!bs || !id || !this_upd || !next_upd || !mctx || (n > 0 && !pad)) {
		rc = pq_diag_set(d, PQ_ENOMEM, "OCSP response: out of memory");
		goto out;
	}
	if (!OCSP_basic_add1_status(bs, id, V_OCSP_CERTSTATUS_GOOD, 0, NULL, this_upd, next_upd)) {
		rc = pq_diag_ossl(d, PQ_ETLS, "OCSP response: cannot add the leaf's status");
		goto out;
	}
	if (n >= 0) {
		ASN1_OCTET_STRING *os = ASN1_OCTET_STRING_new();
		ASN1_OBJECT *oid = pq_pad_oid();
		X509_EXTENSION *ext = NULL;
		int ok = os && oid && ASN1_OCTET_STRING_set(os, pad, (int)n) &&
			 (ext = X509_EXTENSION_create_by_OBJ(NULL, oid, 0, os)) && OCSP_BASICRESP_add_ext(bs, ext, -1);
		X509_EXTENSION_free(ext);
		ASN1_OBJECT_free(oid);
		ASN1_OCTET_STRING_free(os);
		if (!ok) {
			rc = pq_diag_ossl(d, PQ_ETLS, "OCSP response: cannot add the pad extension");
			goto out;
		}
	}
	const EVP_MD *md = pq_alg_md(alg);
	if (EVP_DigestSignInit_ex(mctx, NULL, md ? EVP_MD_get0_name(md) : NULL, NULL, NULL, key, NULL) != 1 ||
	    !OCSP_basic_sign_ctx(bs, issuer, mctx, NULL, OCSP_NOCERTS)) {
		rc = pq_diag_ossl(d, PQ_ETLS, "OCSP response: the issuer (%s) cannot sign it", alg->name);
		goto out;
	}
	resp = OCSP_response_create(OCSP_RESPONSE_STATUS_SUCCESSFUL, bs);
	int l = resp ? i2d_OCSP_RESPONSE(resp, der) : -1;
	if (l <= 0) {
		rc = pq_diag_ossl(d, PQ_ETLS, "OCSP response: cannot encode it");
		goto out;
	}
	*len = (size_t)l;
	rc = 0;
out:
	OPENSSL_free(pad);
	OCSP_RESPONSE_free(resp);
	EVP_MD_CTX_free(mctx);
	ASN1_TIME_free(next_upd);
	ASN1_TIME_free(this_upd);
	OCSP_CERTID_free(id);
	OCSP_BASICRESP_free(bs);
	return rc;
}

int pq_ocsp_make(X509 *leaf, X509 *issuer, EVP_PKEY *issuer_key, const pq_alg *issuer_alg, size_t extra,
		 int64_t now, unsigned char **der, size_t *len, pq_diag *d)
{
	*der = NULL;
	size_t natural = 0;
	int rc = make_once(leaf, issuer, issuer_key, issuer_alg, -1, now, der, &natural, d);
	if (rc || !extra) {
		*len = natural;
		return rc;
	}
	/* The pad's content n, moved by what is still missing: DER length fields grow by a
	 * byte at 128 and 256, so a few rounds settle it. */
	size_t target = natural + extra;
	long n = (long)extra - 24;
	for (int round = 0; round < 8; round++) {
		OPENSSL_free(*der);
		*der = NULL;
		if (n < 0)
			n = 0;
		if ((rc = make_once(leaf, issuer, issuer_key, issuer_alg, n, now, der, len, d)))
			return rc;
		if (*len == target)
			return 0;
		n += (long)target - (long)*len;
	}
	OPENSSL_free(*der);
	*der = NULL;
	return pq_diag_set(d, PQ_ERANGE,
			   "OCSP response: cannot pad it to exactly %zu bytes (%zu + the emulated %s signature's "
			   "%zu extra)",
			   target, natural, issuer_alg->name, extra);
}

size_t pq_ocsp_entry_bytes(size_t resp)
{
	return resp ? 4 + 1 + 3 + resp : 0;
}
