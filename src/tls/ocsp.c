#include "tls/ocsp.h"

#include <errno.h>
#include <openssl/err.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ctx_idx = -1;
static pthread_once_t idx_once = PTHREAD_ONCE_INIT;

struct staple {
	unsigned char *der;
	size_t len;
};

static void staple_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl, void *argp)
{
	(void)parent, (void)ad, (void)idx, (void)argl, (void)argp;
	struct staple *p = ptr;
	if (p)
		free(p->der);
	free(p);
}

static void idx_init(void)
{
	ctx_idx = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, staple_free);
}

/* Called when the client asked for a status: OpenSSL takes (and frees) a copy. */
static int srv_status(SSL *s, void *arg)
{
	(void)arg;
	const struct staple *p = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(s), ctx_idx);
	unsigned char *copy = p ? OPENSSL_memdup(p->der, p->len) : NULL;
	if (!copy)
		return SSL_TLSEXT_ERR_NOACK;
	if (!SSL_set_tlsext_status_ocsp_resp(s, copy, (long)p->len)) {
		OPENSSL_free(copy);
		return SSL_TLSEXT_ERR_NOACK;
	}
	return SSL_TLSEXT_ERR_OK;
}

static int read_file(const char *path, const char *what, struct staple *p, pq_diag *d)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return pq_diag_set(d, -errno, "%s: cannot read %s: %s", what, path, strerror(errno));
	long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
	int rc = 0;
	if (n <= 0 || n > 0xffffff - 1 || fseek(f, 0, SEEK_SET) != 0)
		rc = pq_diag_set(d, PQ_EPARSE, "%s: %s is empty or larger than a CertificateStatus holds", what, path);
	else if (!(p->der = malloc((size_t)n)))
		rc = pq_diag_set(d, PQ_ENOMEM, "out of memory");
	else if (fread(p->der, 1, (size_t)n, f) != (size_t)n)
		rc = pq_diag_set(d, PQ_EIO, "%s: cannot read %s", what, path);
	p->len = (size_t)n;
	fclose(f);
	return rc;
}

int pq_tls_ocsp_server(SSL_CTX *ctx, const char *path, const char *what, pq_diag *d)
{
	pthread_once(&idx_once, idx_init);
	struct staple *p = calloc(1, sizeof *p);
	if (!p)
		return pq_diag_set(d, PQ_ENOMEM, "out of memory");
	int rc = read_file(path, what, p, d);
	if (!rc && !SSL_CTX_set_ex_data(ctx, ctx_idx, p))
		rc = pq_diag_ossl(d, PQ_ETLS, "cannot attach the OCSP staple");
	if (rc) {
		staple_free(NULL, p, NULL, 0, 0, NULL);
		return rc;
	}
	if (!SSL_CTX_set_tlsext_status_cb(ctx, srv_status))
		return pq_diag_ossl(d, PQ_ETLS, "cannot install the OCSP staple");
	return 0;
}

/* The client's check: a staple arrived (its content is the lab's own response). */
static int cli_status(SSL *s, void *arg)
{
	(void)arg;
	const unsigned char *resp = NULL;
	long len = SSL_get_tlsext_status_ocsp_resp(s, &resp);
	if (len > 0 && resp)
		return 1;
	ERR_raise_data(ERR_LIB_SSL, SSL_R_CALLBACK_FAILED,
		       "an OCSP staple was asked for (status_request) and the server sent none");
	return 0;
}

int pq_tls_ocsp_client(SSL_CTX *ctx, pq_diag *d)
{
	if (!SSL_CTX_set_tlsext_status_type(ctx, TLSEXT_STATUSTYPE_ocsp) ||
	    !SSL_CTX_set_tlsext_status_cb(ctx, cli_status))
		return pq_diag_ossl(d, PQ_ETLS, "cannot ask for an OCSP staple");
	return 0;
}
