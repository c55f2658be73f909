/* tls/ctx, tls/acct, tls/certcomp, tls/mem. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <openssl/ssl.h>

#include "core/clock.h"
#include "tls/acct.h"
#include "tls/certcomp.h"
#include "tls/ctx.h"
#include "tls/mem.h"
#include "testchain.h"

static int make_chain(void **state)
{
	(void)state;
	return testchain_make("ecdsa-p256");
}

static void comp_parse(void **state)
{
	(void)state;
	pq_tls_comp c;
	pq_diag d;
	assert_int_equal(pq_tls_comp_parse("off", "--x", &c, &d), 0);
	assert_int_equal(c.n, 0);
	assert_int_equal(pq_tls_comp_parse(NULL, "--x", &c, &d), 0);
	assert_int_equal(c.n, 0);
	assert_int_equal(pq_tls_comp_parse("zstd,zlib", "--x", &c, &d), 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.algs[0], TLSEXT_comp_cert_zstd);
	assert_int_equal(c.algs[1], TLSEXT_comp_cert_zlib);
	assert_int_equal(pq_tls_comp_parse("lzma", "--x", &c, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "'lzma'"));
	assert_int_equal(pq_tls_comp_parse("zlib,zlib", "--x", &c, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "twice"));
	assert_int_equal(pq_tls_comp_parse("zlib,", "--x", &c, &d), PQ_EINVAL);
	assert_int_equal(pq_tls_comp_parse("", "--x", &c, &d), PQ_EINVAL);
}

static void ctx_errors(void **state)
{
	(void)state;
	SSL_CTX *ctx = NULL;
	pq_diag d;
	pq_tls_config cli = {.role = PQ_TLS_CLIENT, .insecure = 1};
	cli.groups = "NoSuchGroup";
	assert_int_equal(pq_tls_ctx_new(&cli, &ctx, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "groups: 'NoSuchGroup'")); /* no names: the field's */
	/* The caller's names for its inputs, when it gives them. */
	static const pq_name names[] = {{"groups", "--groups"}, {NULL, NULL}};
	cli.names = names;
	assert_int_equal(pq_tls_ctx_new(&cli, &ctx, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "--groups: 'NoSuchGroup'"));
	cli.names = NULL;
	cli.groups = NULL;
	cli.sigalgs = "nosig";
	assert_int_equal(pq_tls_ctx_new(&cli, &ctx, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "sigalgs: 'nosig'"));
	cli.sigalgs = NULL;
	/* OpenSSL itself keeps the known names of a list and drops the rest. */
	cli.ciphersuites = "TLS_AES_128_GCM_SHA256:TLS_AES_512_GCM";
	assert_int_equal(pq_tls_ctx_new(&cli, &ctx, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "ciphersuites: 'TLS_AES_512_GCM' in"));
	cli.ciphersuites = "NONE";
	assert_int_equal(pq_tls_ctx_new(&cli, &ctx, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "names no TLS 1.3 cipher suite"));
	cli.ciphersuites = "TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256";
	assert_int_equal(pq_tls_ctx_new(&cli, &ctx, &d), 0);
	pq_tls_ctx_free(ctx);
	ctx = NULL;
	cli.ciphersuites = NULL;
	cli.version = 11;
	assert_int_equal(pq_tls_ctx_new(&cli, &ctx, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "version: 11"));
	cli.version = 0;
	cli.insecure = 0;
	assert_int_equal(pq_tls_ctx_new(&cli, &ctx, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "give ca_file FILE"));
	cli.ca_file = "/nonexistent/root.pem";
	assert_int_equal(pq_tls_ctx_new(&cli, &ctx, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "/nonexistent/root.pem"));
	cli.ca_file = NULL;
	cli.insecure = 1;
	cli.keylog_path = "/nonexistent/dir/keys";
	assert_true(pq_tls_ctx_new(&cli, &ctx, &d) < 0);
	assert_non_null(strstr(d.msg, "keylog_path: "));
	assert_null(ctx);

	pq_tls_config srv = {.role = PQ_TLS_SERVER, .tickets = 2};
	assert_int_equal(pq_tls_ctx_new(&srv, &ctx, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "certs_dir: "));
	srv.certs_dir = "/nonexistent";
	assert_true(pq_tls_ctx_new(&srv, &ctx, &d) < 0);
	assert_non_null(strstr(d.msg, "/nonexistent/chain.pem"));
	assert_null(ctx);
}

static void ctx_server_client(void **state)
{
	(void)state;
	SSL_CTX *ctx = NULL;
	pq_diag d;
	pq_tls_config srv = {.role = PQ_TLS_SERVER, .certs_dir = chain_dir, .tickets = 2,
			     .cert_comp = "zstd,brotli", .groups = "X25519MLKEM768:X25519"};
	assert_int_equal(pq_tls_ctx_new(&srv, &ctx, &d), 0);
	assert_true(SSL_CTX_get_num_tickets(ctx) == 2);
	pq_tls_ctx_free(ctx);
	srv.tickets = 99;
	assert_int_equal(pq_tls_ctx_new(&srv, &ctx, &d), PQ_ERANGE);
	srv.tickets = 0;
	srv.max_early_data = 100;
	assert_int_equal(pq_tls_ctx_new(&srv, &ctx, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "max_early_data needs tickets"));
	char ca[300];
	snprintf(ca, sizeof ca, "%s/root.pem", chain_dir);
	pq_tls_config cli = {.role = PQ_TLS_CLIENT, .ca_file = ca, .max_cert_list = 1000};
	ctx = NULL;
	assert_int_equal(pq_tls_ctx_new(&cli, &ctx, &d), 0);
	assert_int_equal(SSL_CTX_get_max_cert_list(ctx), 1000);
	pq_tls_ctx_free(ctx);
}

/* A fake CPU clock: every reading is 1 us later, so each timed call costs exactly 1 us
 * and a side's total counts its calls. */
static int64_t fake_cpu_now;
static int64_t fake_cpu(void)
{
	return fake_cpu_now += 1000;
}

static void mem_handshakes(void **state)
{
	(void)state;
	SSL_CTX *s = NULL, *c = NULL, *picky = NULL;
	pq_diag d;
	pq_tls_config srv = {.role = PQ_TLS_SERVER, .certs_dir = chain_dir, .tickets = 2};
	pq_tls_config cli = {.role = PQ_TLS_CLIENT, .insecure = 1};
	assert_int_equal(pq_tls_ctx_new(&srv, &s, &d), 0);
	assert_int_equal(pq_tls_ctx_new(&cli, &c, &d), 0);
	pq_tls_mem_result r;
	assert_int_equal(pq_tls_mem_handshakes(s, c, 5, fake_cpu, &r, &d), 0);
	assert_int_equal(r.handshakes, 5);
	assert_string_equal(r.group, "X25519MLKEM768");
	assert_string_equal(r.sigalg, "ecdsa_secp256r1_sha256");
	/* Server per handshake: SSL_new, SSL_free and two SSL_do_handshake calls (the
	 * ClientHello in, then the client's Finished in and the tickets out). */
	assert_int_equal(r.server_ns, 5 * 4 * 1000);
	assert_int_equal(r.client_ns, 5 * 2 * 1000);
	/* The thread's own CPU clock: real, positive times. */
	assert_int_equal(pq_tls_mem_handshakes(s, c, 3, NULL, &r, &d), 0);
	assert_true(r.server_ns > 0 && r.client_ns > 0);
	/* A client that offers no group the server has: the handshake fails, named. */
	pq_tls_config only = {.role = PQ_TLS_CLIENT, .insecure = 1, .groups = "ffdhe2048"};
	pq_tls_config srv2 = srv;
	srv2.groups = "X25519";
	SSL_CTX *s2 = NULL;
	assert_int_equal(pq_tls_ctx_new(&only, &picky, &d), 0);
	assert_int_equal(pq_tls_ctx_new(&srv2, &s2, &d), 0);
	assert_int_equal(pq_tls_mem_handshakes(s2, picky, 2, NULL, &r, &d), PQ_ETLS);
	assert_non_null(strstr(d.msg, "in-memory handshake: the"));
	assert_int_equal(r.handshakes, 0);
	pq_tls_ctx_free(s2);
	pq_tls_ctx_free(picky);
	pq_tls_ctx_free(s);
	pq_tls_ctx_free(c);
}

/* Our Certificate message body is byte for byte the length OpenSSL computes itself. */
static void certcomp_matches_openssl(void **state)
{
	(void)state;
	SSL_CTX *ctx = NULL;
	pq_diag d;
	pq_tls_config srv = {.role = PQ_TLS_SERVER, .certs_dir = chain_dir, .tickets = 2};
	assert_int_equal(pq_tls_ctx_new(&srv, &ctx, &d), 0);
	STACK_OF(X509) *chain = NULL;
	SSL_CTX_get0_chain_certs(ctx, &chain);
	unsigned char *msg = NULL, *theirs = NULL;
	long len = pq_tls_certcomp_message(SSL_CTX_get0_certificate(ctx), chain, &msg);
	assert_true(len > 500);
	size_t orig = 0;
	size_t clen = SSL_CTX_get1_compressed_cert(ctx, TLSEXT_comp_cert_zlib, &theirs, &orig);
	assert_true(clen > 0);
	assert_int_equal(orig, (size_t)len);
	pq_tls_comp c = {{TLSEXT_comp_cert_zlib, TLSEXT_comp_cert_zstd}, 2};
	int installed = -1;
	assert_int_equal(pq_tls_certcomp_install(ctx, &c, "comp", &installed, &d), 0);
	assert_int_equal(installed, 2);
	OPENSSL_free(msg);
	OPENSSL_free(theirs);
	pq_tls_ctx_free(ctx);

	SSL_CTX *empty = SSL_CTX_new(TLS_server_method());
	assert_int_equal(pq_tls_certcomp_install(empty, &c, "comp", &installed, &d), PQ_ESTATE);
	SSL_CTX_free(empty);
}

static void acct_messages(void **state)
{
	(void)state;
	pq_clock clk;
	pq_clock_fake_init(&clk, 1000);
	pq_tls_acct a;
	pq_tls_acct_init(&a, &clk);
	unsigned char hdr[5] = {0x16, 3, 3, 0x01, 0x00};
	pq_tls_acct_msg(&a, 1, SSL3_RT_HEADER, hdr, 5, 0);
	assert_int_equal(a.record_bytes[PQ_TX], 5 + 256);
	assert_int_equal(a.records[PQ_TX], 1);

	unsigned char ch[40] = {1, 0, 0, 36};
	clk.fake_ns = 2000;
	pq_tls_acct_msg(&a, 1, SSL3_RT_HANDSHAKE, ch, sizeof ch, 0);
	assert_int_equal(a.hs_bytes[PQ_TX][PQ_HS_CLIENT_HELLO], 40);
	assert_int_equal(a.t_client_hello_ns, 2000);
	clk.fake_ns = 2500; /* a second ClientHello (after HRR) keeps the first time */
	pq_tls_acct_msg(&a, 1, SSL3_RT_HANDSHAKE, ch, sizeof ch, 0);
	assert_int_equal(a.t_client_hello_ns, 2000);
	assert_int_equal(a.hs_count[PQ_TX][PQ_HS_CLIENT_HELLO], 2);
	assert_int_equal(a.ch_bytes[0], 40);
	assert_int_equal(a.ch_bytes[1], 40);
	assert_int_equal(pq_tls_acct_ch_segs(&a, 0), 0); /* no socket watched */

	unsigned char sh[60] = {2, 0, 0, 56, 3, 3};
	static const unsigned char hrr[32] = {
		0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C,
		0x02, 0x1E, 0x65, 0xB8, 0x91, 0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB,
		0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C};
	memcpy(sh + 6, hrr, 32);
	clk.fake_ns = 3000;
	pq_tls_acct_msg(&a, 0, SSL3_RT_HANDSHAKE, sh, sizeof sh, 0);
	assert_int_equal(a.hrr, 1);
	assert_int_equal(a.t_server_hello_ns, 0);
	sh[6] = 0;
	clk.fake_ns = 4000;
	pq_tls_acct_msg(&a, 0, SSL3_RT_HANDSHAKE, sh, sizeof sh, 0);
	assert_int_equal(a.t_server_hello_ns, 4000);

	unsigned char cc[100] = {25, 0, 0, 96};
	pq_tls_acct_msg(&a, 0, SSL3_RT_HANDSHAKE, cc, sizeof cc, 0);
	assert_int_equal(a.hs_bytes[PQ_RX][PQ_HS_COMPRESSED_CERTIFICATE], 100);
	unsigned char odd[4] = {99, 0, 0, 0};
	pq_tls_acct_msg(&a, 0, SSL3_RT_HANDSHAKE, odd, 4, 0);
	assert_int_equal(a.hs_bytes[PQ_RX][PQ_HS_OTHER], 4);
	pq_tls_acct_msg(&a, 0, SSL3_RT_HANDSHAKE, odd, 3, 0); /* too short: ignored */
	assert_int_equal(a.hs_count[PQ_RX][PQ_HS_OTHER], 1);

	unsigned char close_notify[2] = {1, 0}, fatal[2] = {2, 40};
	pq_tls_acct_msg(&a, 0, SSL3_RT_ALERT, close_notify, 2, 0);
	assert_int_equal(a.alert_rx, -1);
	pq_tls_acct_msg(&a, 0, SSL3_RT_ALERT, fatal, 2, 0);
	assert_int_equal(a.alert_rx, 40);
	assert_int_equal(a.alert_rx_fatal, 1);

	assert_string_equal(pq_tls_hs_name(PQ_HS_CERTIFICATE_VERIFY), "certificate_verify");
	assert_int_equal(pq_tls_hs_index(20), PQ_HS_FINISHED);
	assert_int_equal(pq_tls_hs_index(200), PQ_HS_OTHER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(comp_parse),	     cmocka_unit_test(ctx_errors),
		cmocka_unit_test(ctx_server_client), cmocka_unit_test(certcomp_matches_openssl),
		cmocka_unit_test(acct_messages),
		cmocka_unit_test(mem_handshakes),
	};
	return cmocka_run_group_tests(tests, make_chain, testchain_remove);
}
