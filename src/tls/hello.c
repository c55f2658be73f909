#include "tls/hello.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "tls/groups.h"
#include "tls/mem.h"

int pq_tls_groups_offer(const char *groups, const char *shares, const char *what, char *buf,
			size_t n, pq_diag *d)
{
	size_t at = 0, first = strcspn(groups, ":");
	if (!groups[0] || (shares && !shares[0]))
		return pq_diag_set(d, PQ_EINVAL, "%s: an empty list (e.g. X25519MLKEM768:X25519)", what);
	for (const char *p = shares; p && *p;) {
		size_t l = strcspn(p, ":");
		if (!pq_tls_groups_has(groups, p, l))
			return pq_diag_set(d, PQ_EINVAL,
					   "%s: the key share '%.*s' is not among the groups offered (%s)",
					   what, (int)l, p, groups);
		p += l;
		if (*p == ':')
			p++;
	}
	for (const char *p = groups; *p;) {
		size_t l = strcspn(p, ":");
		int share = shares ? pq_tls_groups_has(shares, p, l) : p == groups && l == first;
		int k = snprintf(buf + at, at < n ? n - at : 0, "%s%s%.*s", at ? ":" : "",
				 share ? "*" : "", (int)l, p);
		if (k < 0 || at + (size_t)k >= n)
			return pq_diag_set(d, PQ_EINVAL, "%s: '%s' is too long", what, groups);
		at += (size_t)k;
		p += l;
		if (*p == ':')
			p++;
	}
	return 0;
}

/* A P-256 key and a self-signed certificate for it, in the server context. */
static int throwaway_cert(SSL_CTX *s, pq_diag *d)
{
	EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	X509 *x = X509_new();
	int rc = PQ_ETLS;
	if (!k || !x || !X509_set_version(x, 2) || !ASN1_INTEGER_set(X509_get_serialNumber(x), 1) ||
	    !X509_gmtime_adj(X509_getm_notBefore(x), 0) ||
	    !X509_gmtime_adj(X509_getm_notAfter(x), 3600) || !X509_set_pubkey(x, k) ||
	    !X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
					(const unsigned char *)"localhost", -1, -1, 0) ||
	    !X509_set_issuer_name(x, X509_get_subject_name(x)) || !X509_sign(x, k, EVP_sha256()) ||
	    SSL_CTX_use_certificate(s, x) != 1 || SSL_CTX_use_PrivateKey(s, k) != 1)
		rc = pq_diag_ossl(d, PQ_ETLS, "in-memory ClientHello: cannot make a certificate");
	else
		rc = 0;
	X509_free(x);
	EVP_PKEY_free(k);
	return rc;
}

static int contexts(const char *offer, const char *server_groups, SSL_CTX **c, SSL_CTX **s,
		    pq_diag *d)
{
	*c = SSL_CTX_new(TLS_client_method());
	*s = SSL_CTX_new(TLS_server_method());
	if (!*c || !*s)
		return pq_diag_ossl(d, PQ_ENOMEM, "in-memory ClientHello: cannot make the contexts");
	SSL_CTX_set_min_proto_version(*c, TLS1_3_VERSION);
	SSL_CTX_set_min_proto_version(*s, TLS1_3_VERSION);
	SSL_CTX_set_verify(*c, SSL_VERIFY_NONE, NULL);
	SSL_CTX_set_num_tickets(*s, 0);
	if (SSL_CTX_set1_groups_list(*c, offer) != 1)
		return pq_diag_ossl(d, PQ_EINVAL, "groups '%s': a group this OpenSSL does not know", offer);
	if (server_groups && SSL_CTX_set1_groups_list(*s, server_groups) != 1)
		return pq_diag_ossl(d, PQ_EINVAL, "server groups '%s': a group this OpenSSL does not know",
				    server_groups);
	return throwaway_cert(*s, d);
}

/* Moves what `from` wrote to `to`'s input; returns the bytes moved. */
static size_t move(BIO *from, BIO *to)
{
	char buf[8192];
	size_t sum = 0;
	int n;
	while ((n = BIO_read(from, buf, sizeof buf)) > 0) {
		BIO_write(to, buf, n);
		sum += (size_t)n;
	}
	return sum;
}

/* RFC 8446 4.1.3: a HelloRetryRequest is a ServerHello with this random. The first
 * record of the server's answer starts with it (type 2 at byte 5, random at byte 11). */
static int is_hrr(const unsigned char *rec, size_t len)
{
	static const unsigned char hrr_random[8] = {0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11};
	return len >= 11 + 8 && rec[0] == 22 && rec[5] == 2 && memcmp(rec + 11, hrr_random, 8) == 0;
}

static int exchange(SSL *c, SSL *s, BIO *c_in, BIO *c_out, BIO *s_in, BIO *s_out,
		    pq_tls_hello *out, pq_diag *d)
{
	int rc;
	if ((rc = pq_tls_mem_step(c, "client", d)) < 0)
		return rc;
	out->client_hello[0] = move(c_out, s_in);
	if ((rc = pq_tls_mem_step(s, "server", d)) < 0)
		return rc;
	char *answer = NULL;
	long len = BIO_get_mem_data(s_out, &answer);
	out->hrr = len > 0 && is_hrr((const unsigned char *)answer, (size_t)len);
	size_t answer_bytes = move(s_out, c_in);
	if ((rc = pq_tls_mem_step(c, "client", d)) < 0)
		return rc;
	if (out->hrr) {
		out->hrr_bytes = answer_bytes;
		out->client_hello[1] = move(c_out, s_in);
		if ((rc = pq_tls_mem_step(s, "server", d)) < 0)
			return rc;
		(void)move(s_out, c_in);
		if ((rc = pq_tls_mem_step(c, "client", d)) < 0)
			return rc;
	}
	const char *g = SSL_get0_group_name(c);
	snprintf(out->group, sizeof out->group, "%s", g ? g : "");
	return 0;
}

/* An SSL on two memory BIOs (owned by it), or NULL. */
static SSL *endpoint(SSL_CTX *ctx, BIO **in, BIO **out)
{
	SSL *s = SSL_new(ctx);
	BIO *i = BIO_new(BIO_s_mem()), *o = BIO_new(BIO_s_mem());
	if (!s || !i || !o) {
		SSL_free(s);
		BIO_free(i);
		BIO_free(o);
		return NULL;
	}
	SSL_set_bio(s, i, o);
	*in = i;
	*out = o;
	return s;
}

int pq_tls_hello_measure(const char *offer, const char *server_groups, pq_tls_hello *out,
			 pq_diag *d)
{
	SSL_CTX *cc = NULL, *sc = NULL;
	SSL *c = NULL, *s = NULL;
	BIO *c_in, *c_out, *s_in, *s_out;
	pq_tls_hello h = {0};
	int rc = contexts(offer, server_groups, &cc, &sc, d);
	if (rc < 0)
		goto out;
	if (!(c = endpoint(cc, &c_in, &c_out)) || !(s = endpoint(sc, &s_in, &s_out))) {
		rc = pq_diag_ossl(d, PQ_ENOMEM, "in-memory ClientHello: cannot make the connections");
		goto out;
	}
	SSL_set_connect_state(c);
	SSL_set_accept_state(s);
	if ((rc = exchange(c, s, c_in, c_out, s_in, s_out, &h, d)) < 0) {
		rc = pq_diag_prefix(d, rc, "client groups %s, server groups %s", offer,
				    server_groups ? server_groups : "(OpenSSL's default)");
		goto out;
	}
	*out = h;
out:
	SSL_free(c);
	SSL_free(s);
	SSL_CTX_free(cc);
	SSL_CTX_free(sc);
	ERR_clear_error();
	return rc;
}
