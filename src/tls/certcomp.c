#include "tls/certcomp.h"

#include <openssl/comp.h>
#include <openssl/crypto.h>
#include <openssl/x509.h>
#include <string.h>

static void put24(unsigned char *p, size_t v)
{
	p[0] = (unsigned char)(v >> 16);
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)v;
}

long pq_tls_certcomp_message(X509 *leaf, STACK_OF(X509) *chain, unsigned char **out)
{
	int n = 1 + (chain ? sk_X509_num(chain) : 0);
	size_t total = 1 + 3;
	for (int i = 0; i < n; i++) {
		int len = i2d_X509(i == 0 ? leaf : sk_X509_value(chain, i - 1), NULL);
		if (len <= 0)
			return PQ_ETLS;
		total += 3 + (size_t)len + 2;
	}
	if (total - 4 >= (1u << 24))
		return PQ_ETOOBIG;
	unsigned char *buf = OPENSSL_malloc(total), *p = buf;
	if (!buf)
		return PQ_ENOMEM;
	*p++ = 0;                 /* certificate_request_context: empty */
	put24(p, total - 4);      /* certificate_list length */
	p += 3;
	for (int i = 0; i < n; i++) {
		X509 *x = i == 0 ? leaf : sk_X509_value(chain, i - 1);
		unsigned char *der = p + 3;
		int len = i2d_X509(x, &der);
		put24(p, (size_t)len);
		p += 3 + (size_t)len;
		*p++ = 0; /* extensions: none */
		*p++ = 0;
	}
	*out = buf;
	return (long)total;
}

static COMP_METHOD *method(int alg)
{
	switch (alg) {
	case TLSEXT_comp_cert_zlib:
		return COMP_zlib_oneshot();
	case TLSEXT_comp_cert_brotli:
		return COMP_brotli_oneshot();
	case TLSEXT_comp_cert_zstd:
		return COMP_zstd_oneshot();
	default:
		return NULL;
	}
}

static const char *alg_name(int alg)
{
	return alg == TLSEXT_comp_cert_zlib ? "zlib" : alg == TLSEXT_comp_cert_brotli ? "brotli" : "zstd";
}

int pq_tls_certcomp_install(SSL_CTX *ctx, const pq_tls_comp *c, const char *what, int *installed,
			    pq_diag *d)
{
	STACK_OF(X509) *chain = NULL;
	X509 *leaf = SSL_CTX_get0_certificate(ctx);
	unsigned char *msg = NULL, *comp = NULL;
	COMP_CTX *cctx = NULL;
	int rc = 0;
	*installed = 0;
	if (!leaf)
		return pq_diag_set(d, PQ_ESTATE, "certificate compression: no certificate loaded");
	SSL_CTX_get0_chain_certs(ctx, &chain);
	long len = pq_tls_certcomp_message(leaf, chain, &msg);
	if (len < 0)
		return pq_diag_ossl(d, (int)len, "certificate compression: cannot encode the chain");
	for (size_t i = 0; i < c->n; i++) {
		COMP_METHOD *m = method(c->algs[i]);
		/* Room for incompressible input: every method adds well under 1 % + 64 B. */
		int cap = (int)(len + len / 64 + 64);
		cctx = m ? COMP_CTX_new(m) : NULL;
		comp = OPENSSL_malloc((size_t)cap);
		if (!cctx || !comp) {
			rc = pq_diag_ossl(d, PQ_EUNSUPPORTED,
					  "%s: %s is not available in this OpenSSL", what,
					  alg_name(c->algs[i]));
			goto out;
		}
		int clen = COMP_compress_block(cctx, comp, cap, msg, (int)len);
		if (clen <= 0) {
			rc = pq_diag_ossl(d, PQ_ETLS, "%s: %s failed on the chain", what,
					  alg_name(c->algs[i]));
			goto out;
		}
		/* Installed even when it did not shrink (zstd on an ML-DSA chain sometimes
		 * stores raw blocks and adds a few bytes): OpenSSL would then quietly send
		 * the plain chain, but a measurement that asked for zstd should see what
		 * zstd does. RFC 8879 allows it. */
		if (SSL_CTX_set1_compressed_cert(ctx, c->algs[i], comp, (size_t)clen, (size_t)len) != 1) {
			rc = pq_diag_ossl(d, PQ_ETLS, "%s: cannot install the %s chain", what,
					  alg_name(c->algs[i]));
			goto out;
		}
		(*installed)++;
		OPENSSL_free(comp);
		comp = NULL;
		COMP_CTX_free(cctx);
		cctx = NULL;
	}
out:
	OPENSSL_free(comp);
	COMP_CTX_free(cctx);
	OPENSSL_free(msg);
	return rc;
}
