/* The one-write flight (tls/onewrite.h) over a real socket pair: the writes the server
 * makes to its socket during a handshake, counted at the socket BIO, are OpenSSL's three
 * pieces without it and one with it, and the connection carries data afterwards. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
/* cmocka needs the headers above. */
#include <cmocka.h>

#include "pki/alg.h"
#include "pki/chain.h"
#include "tls/ctx.h"
#include "tls/mem.h"
#include "tls/onewrite.h"

static char dir[] = "/tmp/pqtls-onewrite-XXXXXX";
static char chain[300];

static int setup(void **state)
{
	(void)state;
	pq_chain_spec spec;
	pq_diag d = {0};
	if (!mkdtemp(dir))
		return -1;
	snprintf(chain, sizeof chain, "%s/c", dir);
	pq_chain_spec_init(&spec);
	if (pq_alg_lookup("ecdsa-p256", "sig", &spec.leaf, &d))
		return -1;
	spec.root = spec.inter = spec.leaf;
	spec.pad_chain_to = 11000; /* a 12.5 KB flight: 4,096 + 8,xxx + 176 from OpenSSL */
	return pq_chain_make(&spec, chain, 0, NULL, &d);
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static long count_writes(BIO *b, int oper, const char *argp, size_t len, int argi, long argl,
			 int ret, size_t *processed)
{
	(void)argp, (void)len, (void)argi, (void)argl;
	if (oper == (BIO_CB_WRITE | BIO_CB_RETURN) && ret > 0 && processed && *processed)
		(*(int *)BIO_get_callback_arg(b))++;
	return ret;
}

/* Writes the server makes to its socket for its first flight. */
static int handshake_writes(int one_write)
{
	SSL_CTX *sctx = NULL, *cctx = NULL;
	pq_diag d = {0};
	int sv[2], writes = 0, s_done = 0, c_done = 0;
	pq_tls_config sc = {.role = PQ_TLS_SERVER, .certs_dir = chain, .tickets = 2,
			    .groups = "X25519MLKEM768"};
	pq_tls_config cc = {.role = PQ_TLS_CLIENT, .insecure = 1, .groups = "X25519MLKEM768"};
	assert_int_equal(pq_tls_ctx_new(&sc, &sctx, &d), 0);
	assert_int_equal(pq_tls_ctx_new(&cc, &cctx, &d), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	int big = 1 << 20; /* room for any flight, so no write is partial */
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
	setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
	SSL *s = SSL_new(sctx), *c = SSL_new(cctx);
	if (one_write)
		assert_int_equal(pq_tls_onewrite_attach(s, sv[0], PQ_TLS_ONEWRITE_BUF, &d), 0);
	else
		assert_int_equal(SSL_set_fd(s, sv[0]), 1);
	assert_int_equal(SSL_set_fd(c, sv[1]), 1);
	BIO *sock = SSL_get_rbio(s);
	BIO_set_callback_ex(sock, count_writes);
	BIO_set_callback_arg(sock, (char *)&writes);
	SSL_set_accept_state(s);
	SSL_set_connect_state(c);
	assert_int_equal(pq_tls_mem_step(c, "client", &d), 0); /* ClientHello */
	assert_int_equal(pq_tls_mem_step(s, "server", &d), 0); /* the first flight */
	int flight_writes = writes;
	for (int i = 0; i < 16 && !(s_done && c_done); i++) {
		if (!c_done)
			assert_true((c_done = pq_tls_mem_step(c, "client", &d)) >= 0);
		if (!s_done)
			assert_true((s_done = pq_tls_mem_step(s, "server", &d)) >= 0);
	}
	assert_true(s_done && c_done);
	assert_int_equal(pq_tls_onewrite_detach(s, &d), 0);
	/* Data after the handshake goes out at once, with no flush. */
	char buf[16] = {0};
	assert_int_equal(SSL_write(s, "hello", 5), 5);
	int r = 0;
	for (int i = 0; i < 16 && r <= 0; i++)
		r = SSL_read(c, buf, sizeof buf);
	assert_int_equal(r, 5);
	assert_memory_equal(buf, "hello", 5);
	SSL_free(s);
	SSL_free(c);
	close(sv[0]);
	close(sv[1]);
	pq_tls_ctx_free(sctx);
	pq_tls_ctx_free(cctx);
	return flight_writes;
}

static void pieces_without(void **state)
{
	(void)state;
	/* 4,096 bytes, the rest of the Certificate, CertificateVerify and Finished. */
	int w = handshake_writes(0);
	print_message("without: %d writes\n", w);
	assert_int_equal(w, 3);
}

static void one_with(void **state)
{
	(void)state;
	int w = handshake_writes(1);
	print_message("with: %d writes\n", w);
	assert_int_equal(w, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(pieces_without), cmocka_unit_test(one_with)};
	return cmocka_run_group_tests(tests, setup, teardown);
}
