#include "tls/sigpad.h"

#include <openssl/err.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Per connection: did the client offer the extension? Per context: carry and name. */
static int offered_idx = -1, ctx_idx = -1;
static pthread_once_t idx_once = PTHREAD_ONCE_INIT;

struct sigpad {
	size_t carry;
	char alg[64];
	unsigned char *zeros; /* carry - 4 */
};

static void sigpad_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl, void *argp)
{
	(void)parent, (void)ad, (void)idx, (void)argl, (void)argp;
	struct sigpad *p = ptr;
	if (p)
		free(p->zeros);
	free(p);
}

static void idx_init(void)
{
	offered_idx = SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL);
	ctx_idx = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, sigpad_free);
}

static int srv_add(SSL *s, unsigned int type, unsigned int context, const unsigned char **out, size_t *outlen,
		   X509 *x, size_t chainidx, int *al, void *arg)
{
	(void)type, (void)x, (void)al, (void)arg;
	const struct sigpad *p = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(s), ctx_idx);
	if (!p || !(context & SSL_EXT_TLS1_3_CERTIFICATE) || chainidx != 0)
		return 0; /* only the leaf's entry carries it */
	*out = p->zeros;
	*outlen = p->carry - 4;
	return 1;
}

static int srv_parse(SSL *s, unsigned int type, unsigned int context, const unsigned char *in, size_t inlen,
		     X509 *x, size_t chainidx, int *al, void *arg)
{
	(void)type, (void)in, (void)x, (void)chainidx, (void)arg;
	if ((context & SSL_EXT_CLIENT_HELLO) && inlen == 0) {
		SSL_set_ex_data(s, offered_idx, (void *)1);
		return 1;
	}
	*al = SSL_AD_DECODE_ERROR;
	return 0;
}

/* After the ClientHello's extensions are parsed: refuse a client that cannot take the pad. */
static int srv_cert_cb(SSL *s, void *arg)
{
	(void)arg;
	const struct sigpad *p = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(s), ctx_idx);
	if (SSL_get_ex_data(s, offered_idx))
		return 1;
	ERR_raise_data(ERR_LIB_SSL, SSL_R_CALLBACK_FAILED,
		       "the chain is a size emulation of %s (an Ed25519 key padded to its sizes), not a real "
		       "signature; only a client offering the signature pad extension (pqtls bench, sweep) can "
		       "take it",
		       p ? p->alg : "?");
	return 0;
}

int pq_tls_sigpad_server(SSL_CTX *ctx, size_t carry, const char *alg, pq_diag *d)
{
	pthread_once(&idx_once, idx_init);
	if (carry < 4 || carry - 4 > PQ_TLS_SIGPAD_MAX)
		return pq_diag_set(d, PQ_ERANGE, "signature pad: %zu bytes is outside 4..%u", carry,
				   PQ_TLS_SIGPAD_MAX + 4);
	struct sigpad *p = calloc(1, sizeof *p);
	unsigned char *z = calloc(1, carry - 4 + 1);
	if (!p || !z) {
		free(p);
		free(z);
		return pq_diag_set(d, PQ_ENOMEM, "out of memory");
	}
	*p = (struct sigpad){.carry = carry, .zeros = z};
	snprintf(p->alg, sizeof p->alg, "%s", alg ? alg : "");
	if (!SSL_CTX_set_ex_data(ctx, ctx_idx, p)) {
		sigpad_free(NULL, p, NULL, 0, 0, NULL);
		return pq_diag_ossl(d, PQ_ETLS, "cannot attach the signature pad");
	}
	if (SSL_CTX_add_custom_ext(ctx, PQ_TLS_SIGPAD_EXT, SSL_EXT_CLIENT_HELLO | SSL_EXT_TLS1_3_CERTIFICATE,
				   srv_add, NULL, NULL, srv_parse, NULL) != 1)
		return pq_diag_ossl(d, PQ_ETLS, "cannot add the signature pad extension");
	SSL_CTX_set_cert_cb(ctx, srv_cert_cb, NULL);
	return 0;
}

static int cli_add(SSL *s, unsigned int type, unsigned int context, const unsigned char **out, size_t *outlen,
		   X509 *x, size_t chainidx, int *al, void *arg)
{
	(void)s, (void)type, (void)x, (void)chainidx, (void)al, (void)arg;
	if (!(context & SSL_EXT_CLIENT_HELLO))
		return 0;
	*out = NULL;
	*outlen = 0;
	return 1;
}

static int cli_parse(SSL *s, unsigned int type, unsigned int context, const unsigned char *in, size_t inlen,
		     X509 *x, size_t chainidx, int *al, void *arg)
{
	(void)s, (void)type, (void)in, (void)inlen, (void)x, (void)arg;
	if ((context & SSL_EXT_TLS1_3_CERTIFICATE) && chainidx == 0)
		return 1; /* the pad: its bytes mean nothing */
	*al = SSL_AD_ILLEGAL_PARAMETER;
	return 0;
}

int pq_tls_sigpad_client(SSL_CTX *ctx, pq_diag *d)
{
	if (SSL_CTX_add_custom_ext(ctx, PQ_TLS_SIGPAD_EXT, SSL_EXT_CLIENT_HELLO | SSL_EXT_TLS1_3_CERTIFICATE,
				   cli_add, NULL, NULL, cli_parse, NULL) != 1)
		return pq_diag_ossl(d, PQ_ETLS, "cannot add the signature pad extension");
	return 0;
}
