#include "tls/flight.h"

#include "tls/acct.h"
#include "tls/mem.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <stdio.h>
#include <string.h>

/* Big enough for any chain TLS can carry in practice (the Certificate message is at
 * most 16 MiB, but chains beyond a few hundred KiB are not what this lab models). */
#define PAIR_BUF (4u << 20)
/* Each phase is one SSL_do_handshake per side; allow a few calls for OpenSSL's
 * internal retries before calling it stuck. */
#define MAX_CALLS 8

static long record_write(BIO *b, int oper, const char *argp, size_t len, int argi, long argl,
			 int ret, size_t *processed)
{
	(void)argp, (void)len, (void)argi, (void)argl;
	pq_tls_writes **cur = (pq_tls_writes **)BIO_get_callback_arg(b);
	if (oper == (BIO_CB_WRITE | BIO_CB_RETURN) && ret > 0 && processed && *processed && *cur) {
		pq_tls_writes *w = *cur;
		if (w->n < PQ_TLS_FLIGHT_MAX_WRITES)
			w->len[w->n++] = *processed;
		w->total += *processed;
	}
	return ret;
}

/* The four phases: client hello, server flight, client finished, server tickets. The
 * writes of each go to their own record, selected through *cur_s / *cur_c. */
static int run(SSL *s, SSL *c, pq_tls_writes **cur_s, pq_tls_writes **cur_c, pq_tls_flight *out,
	       pq_diag *d)
{
	int rc, c_done = 0, s_done = 0;
	*cur_c = &out->client_hello;
	if ((rc = pq_tls_mem_step(c, "client", d)) < 0)
		return rc;
	*cur_s = &out->server;
	if ((rc = pq_tls_mem_step(s, "server", d)) < 0)
		return rc;
	*cur_c = &out->client_fin;
	for (int i = 0; i < MAX_CALLS && !c_done; i++)
		if ((c_done = pq_tls_mem_step(c, "client", d)) < 0)
			return c_done;
	*cur_s = &out->tickets;
	for (int i = 0; i < MAX_CALLS && !s_done; i++)
		if ((s_done = pq_tls_mem_step(s, "server", d)) < 0)
			return s_done;
	if (!c_done || !s_done)
		return pq_diag_set(d, PQ_ESTATE,
				   "in-memory handshake: the %s did not finish after its peer's "
				   "flight (a HelloRetryRequest, or client authentication, is not "
				   "modelled)",
				   c_done ? "server" : "client");
	return 0;
}

int pq_tls_flight_measure(SSL_CTX *server, SSL_CTX *client, pq_tls_flight *out, pq_diag *d)
{
	SSL *s = SSL_new(server), *c = SSL_new(client);
	BIO *bs = NULL, *bc = NULL;
	pq_tls_writes *cur_s = NULL, *cur_c = NULL;
	int rc;
	memset(out, 0, sizeof *out);
	if (!s || !c || !BIO_new_bio_pair(&bs, PAIR_BUF, &bc, PAIR_BUF)) {
		rc = pq_diag_ossl(d, PQ_ENOMEM, "in-memory handshake: cannot create the SSL objects");
		goto out;
	}
	BIO_set_callback_ex(bs, record_write);
	BIO_set_callback_arg(bs, (char *)&cur_s);
	BIO_set_callback_ex(bc, record_write);
	BIO_set_callback_arg(bc, (char *)&cur_c);
	SSL_set_bio(s, bs, bs);
	SSL_set_bio(c, bc, bc);
	bs = bc = NULL; /* owned by the SSL objects now */
	SSL_set_accept_state(s);
	SSL_set_connect_state(c);
	if ((rc = run(s, c, &cur_s, &cur_c, out, d)) < 0)
		goto out;
	pq_tls_acct_names(c, out->group, sizeof out->group, out->sigalg, sizeof out->sigalg);
	rc = 0;
out:
	BIO_free(bs);
	BIO_free(bc);
	SSL_free(s);
	SSL_free(c);
	ERR_clear_error();
	return rc;
}

int pq_tls_client_hello_bytes(SSL_CTX *client, size_t *out, pq_diag *d)
{
	SSL *c = SSL_new(client);
	BIO *rb = BIO_new(BIO_s_mem()), *wb = BIO_new(BIO_s_mem());
	int rc = 0;
	if (!c || !rb || !wb) {
		BIO_free(rb);
		BIO_free(wb);
		rc = pq_diag_ossl(d, PQ_ENOMEM, "ClientHello size: cannot create the SSL objects");
		goto out;
	}
	SSL_set_bio(c, rb, wb);
	SSL_set_connect_state(c);
	if ((rc = pq_tls_mem_step(c, "client", d)) < 0)
		goto out;
	*out = (size_t)BIO_pending(wb);
	rc = 0;
out:
	SSL_free(c);
	ERR_clear_error();
	return rc;
}
