#include "pki/pad.h"

#include <openssl/objects.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>
#include <stdlib.h>
#include <string.h>

#include "pki/der.h"

#define CN_MAX 64	/* RFC 5280 ub-common-name */
#define RESIGN_TRIES 48 /* ECDSA: each signing hits the planned length with p >= 1/4 */

/* One setting of the size knobs: extra CN characters and up to two pad lengths. */
struct knobs {
	int cn_extra;
	long p1, p2; /* -1 = extension absent */
};

struct fit {
	X509 *x;
	const pq_pad_req *r;
	ASN1_OBJECT *oid;
	unsigned char *rnd; /* random pad bytes, enough for any pad below the target */
	size_t rnd_len;
	size_t algid_len, sig_len; /* of the last signing */
	int cn_max;
};

ASN1_OBJECT *pq_pad_oid(void)
{
	return OBJ_txt2obj(PQ_PAD_OID, 1);
}

size_t pq_pad_der_len(X509 *x)
{
	int n = i2d_X509(x, NULL);
	return n > 0 ? (size_t)n : 0;
}

size_t pq_pad_bytes(const X509 *x)
{
	ASN1_OBJECT *oid = pq_pad_oid();
	size_t total = 0;
	for (int i = oid ? X509_get_ext_by_OBJ(x, oid, -1) : -1; i >= 0;
	     i = X509_get_ext_by_OBJ(x, oid, i)) {
		int n = i2d_X509_EXTENSION(X509_get_ext(x, i), NULL);
		total += n > 0 ? (size_t)n : 0;
	}
	ASN1_OBJECT_free(oid);
	return total;
}

static void note_signature(struct fit *f)
{
	const ASN1_BIT_STRING *sig = NULL;
	const X509_ALGOR *alg = NULL;
	X509_get0_signature(&sig, &alg, f->x);
	f->sig_len = sig ? (size_t)sig->length : 0;
	int n = alg ? i2d_X509_ALGOR(alg, NULL) : 0;
	f->algid_len = n > 0 ? (size_t)n : 0;
}

static int add_pad(struct fit *f, size_t off, size_t len)
{
	int ok = 0;
	unsigned char *der = NULL;
	ASN1_OCTET_STRING *inner = ASN1_OCTET_STRING_new(), *val = ASN1_OCTET_STRING_new();
	X509_EXTENSION *e = NULL;
	/* extnValue holds DER: an OCTET STRING wrapping the random bytes. */
	if (!inner || !val || !ASN1_OCTET_STRING_set(inner, f->rnd + off, (int)len))
		goto out;
	int dl = i2d_ASN1_OCTET_STRING(inner, &der);
	if (dl <= 0 || !ASN1_OCTET_STRING_set(val, der, dl))
		goto out;
	e = X509_EXTENSION_create_by_OBJ(NULL, f->oid, 0, val);
	ok = e && X509_add_ext(f->x, e, -1);
out:
	X509_EXTENSION_free(e);
	OPENSSL_free(der);
	ASN1_OCTET_STRING_free(inner);
	ASN1_OCTET_STRING_free(val);
	return ok;
}

static int set_cn(struct fit *f, int extra)
{
	char cn[CN_MAX + 1];
	size_t base = strlen(f->r->cn);
	memcpy(cn, f->r->cn, base);
	for (int i = 0; i < extra; i++)
		cn[base + (size_t)i] = i == 0 ? '-' : (char)('a' + i % 26);
	cn[base + (size_t)extra] = '\0';
	X509_NAME *nm = X509_NAME_new();
	int ok =
	    nm &&
	    X509_NAME_add_entry_by_txt(nm, "CN", MBSTRING_ASC, (unsigned char *)cn, -1, -1, 0) &&
	    X509_set_subject_name(f->x, nm);
	X509_NAME_free(nm);
	return ok;
}

static int apply(struct fit *f, const struct knobs *k)
{
	int i;
	while ((i = X509_get_ext_by_OBJ(f->x, f->oid, -1)) >= 0)
		X509_EXTENSION_free(X509_delete_ext(f->x, i));
	if (f->r->cn && !set_cn(f, k->cn_extra))
		return 0;
	if (k->p1 >= 0 && !add_pad(f, 0, (size_t)k->p1))
		return 0;
	if (k->p2 >= 0 && !add_pad(f, (size_t)(k->p1 > 0 ? k->p1 : 0), (size_t)k->p2))
		return 0;
	return 1;
}

/* The DER size x would have with these knobs and a signature as long as the last one
 * (0 on failure). Only re-encodes the TBS: no signing. */
static size_t predict(struct fit *f, const struct knobs *k)
{
	if (!apply(f, k))
		return 0;
	int tbs = i2d_re_X509_tbs(f->x, NULL);
	if (tbs <= 0)
		return 0;
	return pq_der_tlv((size_t)tbs + f->algid_len + pq_der_tlv(1 + f->sig_len));
}

/* Finds p1 (the other knobs fixed) with predict == target; 1 when found. */
static int solve_p1(struct fit *f, size_t target, struct knobs *k)
{
	k->p1 = 0;
	size_t len = predict(f, k);
	if (!len || len > target)
		return 0;
	/* Each pad byte adds one DER byte except at length jumps: a few Newton steps, then
	 * the neighbours, cover the jumps. */
	for (int it = 0; it < 8 && len != target; it++) {
		k->p1 += (long)target - (long)len;
		if (k->p1 < 0)
			k->p1 = 0;
		if (!(len = predict(f, k)))
			return 0;
	}
	if (len == target)
		return 1;
	long mid = k->p1;
	for (long dp = -4; dp <= 4; dp++) {
		k->p1 = mid + dp;
		if (k->p1 >= 0 && predict(f, k) == target)
			return 1;
	}
	return 0;
}

/* Chooses knobs reaching target with the current signature length; 1 when found. */
static int search(struct fit *f, size_t target, struct knobs *k)
{
	*k = (struct knobs){0, -1, -1};
	size_t len = predict(f, k);
	if (len == target)
		return 1;
	if (!len || len > target)
		return 0;
	for (k->cn_extra = 1; k->cn_extra <= f->cn_max; k->cn_extra++) {
		len = predict(f, k);
		if (len == target)
			return 1;
		if (!len || len > target)
			break;
	}
	/* Pad extensions, alone or beside a small second one or a longer CN; every
	 * combination that can shift where the length jumps fall. */
	static const long second[] = {-1, 0, 1, 2, 5, 20, 40};
	for (int c = 0; c <= (f->cn_max < 3 ? f->cn_max : 3); c++)
		for (size_t i = 0; i < sizeof second / sizeof second[0]; i++) {
			*k = (struct knobs){c, 0, second[i]};
			if (solve_p1(f, target, k))
				return 1;
		}
	return 0;
}

static int sign(struct fit *f, pq_diag *d)
{
	if (X509_sign(f->x, f->r->key, f->r->md) <= 0)
		return pq_diag_ossl(d, PQ_ETLS, "%s: signing the padded certificate failed",
				    f->r->what);
	note_signature(f);
	return 0;
}

/* Refusal that names the nearest sizes the search can reach. */
static int unreachable(struct fit *f, size_t natural, pq_diag *d)
{
	size_t t = f->r->target, below = 0, above = 0;
	struct knobs k;
	for (size_t dt = 1; dt <= 8 && (!below || !above); dt++) {
		if (!below && t - dt >= natural && search(f, t - dt, &k))
			below = t - dt;
		if (!above && search(f, t + dt, &k))
			above = t + dt;
	}
	return pq_diag_set(d, PQ_ERANGE,
			   "%s: no DER encoding of this certificate is exactly %zu bytes (a "
			   "length field changes size there); nearest sizes that exist: %zu and "
			   "%zu",
			   f->r->what, t, below, above);
}

int pq_pad_fit(X509 *x, const pq_pad_req *r, pq_diag *d)
{
	struct fit f = {.x = x, .r = r};
	int rc = 0;
	size_t now = pq_pad_der_len(x), natural;
	if (now == 0)
		return pq_diag_ossl(d, PQ_ETLS, "%s: cannot encode the certificate", r->what);
	if (r->target == now)
		return 0; /* already signed at that size (natural or padded earlier) */
	f.cn_max = r->cn ? CN_MAX - (int)strlen(r->cn) : 0;
	if (f.cn_max < 0)
		f.cn_max = 0;
	f.oid = pq_pad_oid();
	f.rnd_len = r->target;
	f.rnd = malloc(f.rnd_len);
	if (!f.oid || !f.rnd) {
		rc = pq_diag_set(d, PQ_ENOMEM, "%s: out of memory", r->what);
		goto out;
	}
	if (RAND_bytes(f.rnd, (int)f.rnd_len) != 1) {
		rc = pq_diag_ossl(d, PQ_ETLS, "%s: no random bytes for the pad", r->what);
		goto out;
	}
	note_signature(&f);
	/* x may carry pads from an earlier fit: natural means without them. */
	natural = predict(&f, &(struct knobs){0, -1, -1});
	if (r->target < natural) {
		rc = pq_diag_set(d, PQ_ERANGE,
				 "%s: below the certificate's natural size; the smallest size is "
				 "%zu bytes",
				 r->what, natural);
		goto out;
	}
	/* Signature lengths vary only for ECDSA: re-sign with the same knobs until the
	 * planned length comes up, and re-plan with the new length a few times. */
	for (int round = 0; round < 4; round++) {
		struct knobs k;
		if (!search(&f, r->target, &k)) {
			rc = f.r->target < natural + PQ_PAD_EXT_MIN && !r->cn
				 ? pq_diag_set(d, PQ_ERANGE,
					       "%s: a pad extension adds at least %d bytes; "
					       "sizes that exist: %zu (natural) or from %zu",
					       r->what, PQ_PAD_EXT_MIN, natural,
					       natural + PQ_PAD_EXT_MIN)
				 : unreachable(&f, natural, d);
			goto out;
		}
		for (int t = 0; t < RESIGN_TRIES; t++) {
			if (!apply(&f, &k)) {
				rc = pq_diag_ossl(d, PQ_ETLS, "%s: cannot add the pad", r->what);
				goto out;
			}
			if ((rc = sign(&f, d)))
				goto out;
			if (pq_pad_der_len(x) == r->target)
				goto out;
		}
	}
	rc = pq_diag_set(d, PQ_ERANGE, "%s: the signature length kept changing; %zu bytes not hit",
			 r->what, r->target);
out:
	ASN1_OBJECT_free(f.oid);
	free(f.rnd);
	return rc;
}
