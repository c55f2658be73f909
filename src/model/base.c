#include "model/base.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "pki/alg.h"
#include "pki/chain.h"
#include "tls/ctx.h"
#include "tls/flight.h"

static int find_group(const char *group, const pq_acct_group **g, pq_diag *d)
{
	*g = pq_acct_group_find(group);
	if (!*g)
		return pq_diag_set(d, PQ_EINVAL,
				   "key-exchange group '%s' is unknown to the flight model; accepted: "
				   "X25519, X25519MLKEM768, SecP256r1MLKEM768, MLKEM768, secp256r1, "
				   "secp384r1, SecP384r1MLKEM1024, MLKEM512, MLKEM1024",
				   group ? group : "");
	return 0;
}

/* Puts "what: words" before the message a callee left in *d. */
static int prefix(pq_diag *d, int rc, const char *what, const char *words)
{
	char msg[sizeof d->msg];
	if (!d)
		return rc;
	snprintf(msg, sizeof msg, "%s", pq_diag_msg(d));
	return pq_diag_set(d, rc, "%s: %s%s", what, words, msg);
}

/* The rule's flight for the chain at its own size, and the acct input for resizing. */
static int fill_rule(pq_model_base *b, size_t sig, unsigned share, size_t wbuf, pq_diag *d)
{
	b->chain_der = 0;
	for (size_t i = 0; i < b->n; i++)
		b->chain_der += b->der[i];
	b->acct_in = (pq_acct_in){
	    .der = b->der, .n = b->n, .sig_bytes = sig, .server_share = share, .wbuf = wbuf};
	return pq_acct_flight(&b->acct_in, &b->rule, d);
}

/* ClientHello, server writes and tickets of one in-memory handshake against DIR. */
static int measure(pq_model_base *b, const char *dir, const char *what, size_t wbuf, pq_diag *d)
{
	SSL_CTX *s = NULL, *c = NULL;
	pq_tls_flight f;
	pq_tls_config sc = {.role = PQ_TLS_SERVER, .certs_dir = dir, .tickets = 2, .groups = b->group};
	pq_tls_config cc = {.role = PQ_TLS_CLIENT, .insecure = 1, .groups = b->group};
	int rc = pq_tls_ctx_new(&sc, &s, d);
	if (!rc)
		rc = pq_tls_ctx_new(&cc, &c, d);
	if (!rc && (rc = pq_tls_flight_measure(s, c, &f, d)) < 0)
		prefix(d, rc, what, "a handshake with this chain in memory failed: ");
	if (rc)
		goto out;
	b->measured = 1;
	b->client_hello = f.client_hello.total;
	b->tickets = f.tickets.total;
	if (wbuf == SIZE_MAX) {
		b->writes[0] = f.server.total;
		b->n_writes = 1;
	} else {
		b->n_writes = f.server.n;
		memcpy(b->writes, f.server.len, f.server.n * sizeof f.server.len[0]);
	}
out:
	pq_tls_ctx_free(s);
	pq_tls_ctx_free(c);
	return rc;
}

int pq_model_base_certs(const char *dir, const char *what, const char *group, size_t wbuf,
			pq_model_base *out, pq_diag *d)
{
	const pq_acct_group *g;
	pq_chain_info info;
	pq_model_base b = {0};
	int rc = find_group(group, &g, d);
	if (rc)
		return rc;
	if ((rc = pq_chain_inspect(dir, &info, d)) < 0)
		return prefix(d, rc, what, "");
	if (!info.cv_sig_bytes || !info.leaf_tls_ok || info.emulation[0])
		return pq_diag_set(d, PQ_EUNSUPPORTED,
				   "%s: %s; model it by algorithm and size instead", what,
				   info.emulation[0] ? "the chain is a size emulation"
						     : "its leaf cannot sign a TLS 1.3 handshake");
	if (info.n > PQ_MODEL_BASE_CERTS)
		return pq_diag_set(d, PQ_ERANGE, "%s: %zu certificates (at most %d)", what, info.n,
				   PQ_MODEL_BASE_CERTS);
	snprintf(b.leaf_alg, sizeof b.leaf_alg, "%s", info.cert[0].key_alg);
	snprintf(b.group, sizeof b.group, "%s", g->name);
	b.n = info.n;
	for (size_t i = 0; i < info.n; i++)
		b.der[i] = info.cert[i].der_bytes;
	if ((rc = fill_rule(&b, info.cv_sig_bytes, g->server_share, wbuf, d)) < 0 ||
	    (rc = measure(&b, dir, what, wbuf, d)) < 0)
		return rc;
	*out = b;
	out->acct_in.der = out->der;
	return 0;
}

int pq_model_base_alg(const char *leaf_alg, const char *what, int intermediates,
		      const char *group, size_t wbuf, pq_model_base *out, pq_diag *d)
{
	const pq_acct_group *g;
	const pq_alg *a;
	pq_model_base b = {0};
	SSL_CTX *c = NULL;
	int rc = find_group(group, &g, d);
	if (!rc)
		rc = pq_alg_lookup(leaf_alg, what, &a, d);
	if (rc)
		return rc;
	if (intermediates < 0 || intermediates + 1 > PQ_MODEL_BASE_CERTS)
		return pq_diag_set(d, PQ_ERANGE, "%d intermediates (accepted: 0 to %d)", intermediates,
				   PQ_MODEL_BASE_CERTS - 1);
	snprintf(b.leaf_alg, sizeof b.leaf_alg, "%s", a->name);
	snprintf(b.group, sizeof b.group, "%s", g->name);
	/* Only the count matters for the split: every certificate costs 5 bytes of framing;
	 * the leaf takes whatever size is asked for. */
	b.n = (size_t)intermediates + 1;
	for (size_t i = 0; i < b.n; i++)
		b.der[i] = 1;
	size_t sig = a->sig_bytes; /* a composite's counts its classical part */
	if ((rc = fill_rule(&b, sig, g->server_share, wbuf, d)) < 0)
		return rc;
	pq_tls_config cc = {.role = PQ_TLS_CLIENT, .insecure = 1, .groups = g->name};
	if ((rc = pq_tls_ctx_new(&cc, &c, d)) == 0)
		rc = pq_tls_client_hello_bytes(c, &b.client_hello, d);
	pq_tls_ctx_free(c);
	if (rc)
		return rc;
	*out = b;
	out->acct_in.der = out->der;
	return 0;
}

void pq_model_base_hello(pq_model_base *b, const pq_tls_hello *h)
{
	b->client_hello = h->client_hello[0];
	b->hrr = h->hrr;
	b->hrr_bytes = h->hrr_bytes;
	b->client_hello2 = h->client_hello[1];
}

void pq_model_base_net(const pq_model_base *b, size_t mss, size_t iw, size_t response,
		       pq_model_in *out)
{
	*out = (pq_model_in){.mss = mss,
			     .iw = iw,
			     .client_hello = b->client_hello,
			     .server_writes = b->measured ? b->writes : b->rule.writes,
			     .n_server_writes = b->measured ? b->n_writes : b->rule.n_writes,
			     .tickets = b->tickets,
			     .response = response,
			     .hrr = b->hrr,
			     .hrr_bytes = b->hrr_bytes,
			     .client_hello2 = b->client_hello2};
}

/* The TLS record header a ClientHello's flight carries over TCP, not over QUIC. */
static size_t unframed(size_t tcp_bytes)
{
	return tcp_bytes > 5 ? tcp_bytes - 5 : 0;
}

void pq_model_base_quic(const pq_model_base *b, size_t server_msgs, size_t server_hello, int retry,
			pq_model_quic *out)
{
	pq_model_quic_flight(unframed(b->client_hello), server_msgs, out);
	pq_model_quic_crypto(out, server_hello, PQ_MODEL_QUIC_CRYPTO_BUF);
	if (retry)
		pq_model_quic_retry(out);
	if (b->hrr)
		pq_model_quic_hrr(out, unframed(b->client_hello2));
}
