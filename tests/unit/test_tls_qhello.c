/* tls/qhello: a QUIC server's refusals foreseen from a ClientHello. The server's groups
 * lists it can judge by OpenSSL's names and those it cannot (its default, aliases,
 * removals, DEFAULT); then real ClientHellos (a TLS client over a memory BIO pair, read
 * by a server's ClientHello callback): ALPN in common or not, none offered, a group in
 * common or not, and no verdict on groups from a list it cannot judge. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/ssl.h>

#include "tls/qhello.h"

static void lists(void **state)
{
	(void)state;
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	pq_tls_qhello q;
	assert_non_null(ctx);
	pq_tls_qhello_init(&q, ctx, NULL); /* OpenSSL's default: not seen from here */
	assert_int_equal(q.ngroups, -1);
	pq_tls_qhello_init(&q, ctx, "X25519MLKEM768:x25519");
	assert_int_equal(q.ngroups, 2);
	assert_string_equal(q.groups[0], "X25519MLKEM768");
	assert_string_equal(q.groups[1], "x25519"); /* OpenSSL's own name for it */
	pq_tls_qhello_init(&q, ctx, "*X25519MLKEM768/?*secp256r1:X448");
	assert_int_equal(q.ngroups, 3); /* tuples, key shares, "ignore if unknown" */
	assert_string_equal(q.groups[1], "secp256r1");
	assert_string_equal(q.groups[2], "x448");
	/* An unknown name OpenSSL skips ('?') is not judged either: a group missed here
	 * would foresee a refusal OpenSSL does not make. */
	pq_tls_qhello_init(&q, ctx, "X25519:?nosuchgroup");
	assert_int_equal(q.ngroups, -1);
	pq_tls_qhello_init(&q, ctx, "P-256"); /* an alias: not by name */
	assert_int_equal(q.ngroups, -1);
	pq_tls_qhello_init(&q, ctx, "DEFAULT:-X25519"); /* a list it does not see */
	assert_int_equal(q.ngroups, -1);
	pq_tls_qhello_init(&q, ctx, "X25519:-X25519MLKEM768");
	assert_int_equal(q.ngroups, -1);
	SSL_CTX_free(ctx);
}

typedef struct seen {
	const pq_tls_qhello *q;
	const char *refusal;
	int called;
} seen;

static int on_hello(SSL *s, int *al, void *arg)
{
	(void)al;
	seen *v = arg;
	v->called = 1;
	v->refusal = pq_tls_qhello_refusal(v->q, s);
	return SSL_CLIENT_HELLO_ERROR; /* the verdict is all this test needs */
}

/* What pq_tls_qhello_refusal says of one ClientHello offering `alpn` (wire format, NULL
 * for none) and `groups` to a server whose list is `server_groups`. */
static const char *refusal(const char *server_groups, const char *alpn, const char *groups)
{
	SSL_CTX *sctx = SSL_CTX_new(TLS_server_method()), *cctx = SSL_CTX_new(TLS_client_method());
	assert_true(sctx && cctx);
	pq_tls_qhello q;
	pq_tls_qhello_init(&q, sctx, server_groups);
	seen v = {.q = &q};
	SSL_CTX_set_client_hello_cb(sctx, on_hello, &v);
	assert_int_equal(SSL_CTX_set1_groups_list(cctx, groups), 1);
	if (alpn)
		assert_int_equal(SSL_CTX_set_alpn_protos(cctx, (const unsigned char *)alpn,
							 (unsigned)strlen(alpn)),
				 0);
	SSL *c = SSL_new(cctx), *s = SSL_new(sctx);
	BIO *cb, *sb;
	assert_int_equal(BIO_new_bio_pair(&cb, 0, &sb, 0), 1);
	SSL_set_bio(c, cb, cb);
	SSL_set_bio(s, sb, sb);
	assert_true(SSL_connect(c) <= 0); /* the ClientHello is written, the answer awaited */
	assert_true(SSL_accept(s) <= 0);
	assert_true(v.called);
	SSL_free(c);
	SSL_free(s);
	SSL_CTX_free(cctx);
	SSL_CTX_free(sctx);
	return v.refusal;
}

static void hellos(void **state)
{
	(void)state;
	const char *hq = "\x0ahq-interop", *h3 = "\x02h3", *both = "\x02h3\x0ahq-interop";
	assert_null(refusal("X25519MLKEM768", hq, "X25519MLKEM768"));
	assert_null(refusal("X25519MLKEM768:X25519", both, "secp256r1:X25519"));
	assert_string_equal(refusal("X25519MLKEM768", h3, "X25519MLKEM768"), "no ALPN in common");
	assert_string_equal(refusal("X25519MLKEM768", NULL, "X25519MLKEM768"), "no ALPN in common");
	assert_string_equal(refusal("X25519MLKEM768", hq, "X25519:secp256r1"),
			    "no group in common");
	/* ALPN first: a client wrong on both hears about ALPN (so does OpenSSL's answer). */
	assert_string_equal(refusal("X25519MLKEM768", h3, "X25519"), "no ALPN in common");
	/* A list it cannot judge by name: no verdict on groups. */
	assert_null(refusal("P-256", hq, "X25519"));
	assert_null(refusal(NULL, hq, "X25519"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(lists),
	    cmocka_unit_test(hellos),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
