#include "pki/cert.h"

#include <openssl/rand.h>
#include <openssl/x509v3.h>

#define SERIAL_BYTES 16

static int set_serial(X509 *x)
{
	unsigned char b[SERIAL_BYTES];
	if (RAND_bytes(b, sizeof b) != 1)
		return 0;
	/* Positive and of fixed length, so every certificate has the same serial size. */
	b[0] = (unsigned char)((b[0] & 0x7f) | 0x40);
	BIGNUM *bn = BN_bin2bn(b, sizeof b, NULL);
	int ok = bn && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) != NULL;
	BN_free(bn);
	return ok;
}

static int add_ext(X509 *x, X509V3_CTX *ctx, int nid, const char *value)
{
	X509_EXTENSION *e = X509V3_EXT_conf_nid(NULL, ctx, nid, value);
	int ok = e && X509_add_ext(x, e, -1);
	X509_EXTENSION_free(e);
	return ok;
}

static int set_name(X509 *x, const char *cn, int issuer_too)
{
	X509_NAME *nm = X509_NAME_new();
	int ok = nm &&
		 X509_NAME_add_entry_by_txt(nm, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1,
					    -1, 0) &&
		 X509_set_subject_name(x, nm) && (!issuer_too || X509_set_issuer_name(x, nm));
	X509_NAME_free(nm);
	return ok;
}

int pq_cert_new(const pq_cert_req *r, X509 **out, pq_diag *d)
{
	int rc = 0;
	X509 *x = X509_new();
	EVP_PKEY *signer = r->issuer ? r->issuer_key : r->key;
	if (!x || !X509_set_version(x, X509_VERSION_3) || !set_serial(x) ||
	    !set_name(x, r->cn, r->issuer == NULL) ||
	    (r->issuer && !X509_set_issuer_name(x, X509_get_subject_name(r->issuer))) ||
	    !X509_time_adj_ex(X509_getm_notBefore(x), 0, 0, &(time_t){(time_t)r->not_before}) ||
	    !X509_time_adj_ex(X509_getm_notAfter(x), r->days, 0,
			      &(time_t){(time_t)r->not_before}) ||
	    !X509_set_pubkey(x, r->key)) {
		rc = pq_diag_ossl(d, PQ_ETLS, "certificate '%s': cannot set its fields", r->cn);
		goto out;
	}
	X509V3_CTX ctx;
	X509V3_set_ctx(&ctx, r->issuer ? r->issuer : x, x, NULL, NULL, 0);
	int ok =
	    r->ca ? add_ext(x, &ctx, NID_basic_constraints, "critical,CA:TRUE") &&
			add_ext(x, &ctx, NID_key_usage, "critical,keyCertSign,cRLSign")
		  : add_ext(x, &ctx, NID_basic_constraints, "critical,CA:FALSE") &&
			add_ext(x, &ctx, NID_key_usage, "critical,digitalSignature") &&
			add_ext(x, &ctx, NID_ext_key_usage, "serverAuth") &&
			add_ext(x, &ctx, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1");
	if (!ok) {
		rc = pq_diag_ossl(d, PQ_ETLS, "certificate '%s': cannot add its extensions", r->cn);
		goto out;
	}
	if (X509_sign(x, signer, r->md) <= 0) {
		rc = pq_diag_ossl(d, PQ_ETLS, "certificate '%s': signing failed", r->cn);
		goto out;
	}
	*out = x;
	x = NULL;
out:
	X509_free(x);
	return rc;
}
