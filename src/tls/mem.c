#include "tls/mem.h"

#include <openssl/err.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tls/acct.h"
#include "tls/io.h"

/* A full handshake takes four flights; allow many more steps for partial writes into
 * the pair's buffers (large chains) before calling it stuck. */
#define MAX_STEPS 64

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int pq_tls_mem_step(SSL *ssl, const char *side, pq_diag *d)
{
	int r = SSL_do_handshake(ssl);
	if (r == 1)
		return 1;
	pq_tls_status st;
	pq_tls_io io = pq_tls_io_status(ssl, r, &st);
	if (io == PQ_TLS_IO_WANT_READ || io == PQ_TLS_IO_WANT_WRITE)
		return 0;
	return pq_diag_ossl(d, PQ_ETLS, "in-memory handshake: the %s failed", side);
}

/* pq_tls_mem_step, timed. */
static int step(SSL *ssl, pq_tls_cpu_fn cpu, int64_t *ns, const char *side, pq_diag *d)
{
	int64_t t0 = cpu();
	int r = pq_tls_mem_step(ssl, side, d);
	*ns += cpu() - t0;
	return r;
}

static int one(SSL_CTX *server, SSL_CTX *client, pq_tls_cpu_fn cpu, pq_tls_mem_result *out,
	       pq_diag *d)
{
	SSL *s = NULL, *c = NULL;
	BIO *bs = NULL, *bc = NULL;
	int rc = 0, s_done = 0, c_done = 0;
	int64_t t0 = cpu();
	s = SSL_new(server);
	out->server_ns += cpu() - t0;
	c = SSL_new(client);
	if (!s || !c || !BIO_new_bio_pair(&bs, 0, &bc, 0)) {
		rc = pq_diag_ossl(d, PQ_ENOMEM, "in-memory handshake: cannot create the SSL objects");
		goto out;
	}
	SSL_set_bio(s, bs, bs);
	SSL_set_bio(c, bc, bc);
	bs = bc = NULL; /* owned by the SSL objects now */
	SSL_set_accept_state(s);
	SSL_set_connect_state(c);
	for (int i = 0; i < MAX_STEPS && !(s_done && c_done); i++) {
		if (!c_done && (rc = step(c, cpu, &out->client_ns, "client", d)) < 0)
			goto out;
		c_done |= rc;
		if (!s_done && (rc = step(s, cpu, &out->server_ns, "server", d)) < 0)
			goto out;
		s_done |= rc;
	}
	if (!(s_done && c_done)) {
		rc = pq_diag_set(d, PQ_ESTATE, "in-memory handshake: no progress after %d steps", MAX_STEPS);
		goto out;
	}
	pq_tls_acct_names(c, out->group, sizeof out->group, out->sigalg, sizeof out->sigalg);
	out->handshakes++;
	rc = 0;
out:
	BIO_free(bs);
	BIO_free(bc);
	t0 = cpu();
	SSL_free(s);
	out->server_ns += cpu() - t0;
	SSL_free(c);
	ERR_clear_error();
	return rc;
}

int pq_tls_mem_handshakes(SSL_CTX *server, SSL_CTX *client, uint64_t n, pq_tls_cpu_fn cpu,
			  pq_tls_mem_result *out, pq_diag *d)
{
	memset(out, 0, sizeof *out);
	if (!cpu)
		cpu = thread_cpu_ns;
	for (uint64_t i = 0; i < n; i++) {
		int rc = one(server, client, cpu, out, d);
		if (rc < 0)
			return rc;
	}
	return 0;
}
