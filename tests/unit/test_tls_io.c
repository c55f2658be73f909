/* tls/io: one test per I/O status, each made for real (memory BIO pairs, a socket pair,
 * a loopback TCP connection), so the map is checked against what OpenSSL 3.5 reports. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "tls/ctx.h"
#include "tls/io.h"
#include "testchain.h"

static SSL_CTX *srv_ctx, *cli_ctx;

static int setup(void **state)
{
	(void)state;
	pq_diag d = {0};
	if (testchain_make("ecdsa-p256") != 0)
		return -1;
	pq_tls_config srv = {.role = PQ_TLS_SERVER, .certs_dir = chain_dir};
	pq_tls_config cli = {.role = PQ_TLS_CLIENT, .insecure = 1};
	if (pq_tls_ctx_new(&srv, &srv_ctx, &d) || pq_tls_ctx_new(&cli, &cli_ctx, &d)) {
		fprintf(stderr, "test_tls_io: %s\n", pq_diag_msg(&d));
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	pq_tls_ctx_free(srv_ctx);
	pq_tls_ctx_free(cli_ctx);
	return testchain_remove(state);
}

/* A client and a server joined by a memory BIO pair with `buf` bytes each way (0 =
 * OpenSSL's default). */
static void pair(SSL **c, SSL **s, size_t buf)
{
	BIO *bc, *bs;
	*c = SSL_new(cli_ctx);
	*s = SSL_new(srv_ctx);
	assert_true(*c && *s && BIO_new_bio_pair(&bc, buf, &bs, buf));
	SSL_set_bio(*c, bc, bc);
	SSL_set_bio(*s, bs, bs);
	SSL_set_connect_state(*c);
	SSL_set_accept_state(*s);
}

/* Steps both sides until both have finished the handshake; returns the client's last
 * status (OK). */
static pq_tls_io handshake(SSL *c, SSL *s)
{
	pq_tls_status st;
	int cd = 0, sd = 0;
	pq_tls_io io = PQ_TLS_IO_TLS;
	for (int i = 0; i < 16 && !(cd && sd); i++) {
		if (!cd) {
			io = pq_tls_io_status(c, SSL_do_handshake(c), &st);
			cd = io == PQ_TLS_IO_OK;
			assert_true(cd || io == PQ_TLS_IO_WANT_READ);
		}
		if (!sd) {
			pq_tls_io sio = pq_tls_io_status(s, SSL_do_handshake(s), &st);
			sd = sio == PQ_TLS_IO_OK;
			assert_true(sd || sio == PQ_TLS_IO_WANT_READ);
		}
	}
	assert_true(cd && sd);
	return io;
}

static void ok_and_want_read(void **state)
{
	(void)state;
	SSL *c, *s;
	pq_tls_status st;
	pair(&c, &s, 0);
	/* The client has sent its ClientHello and waits for the server's flight. */
	assert_int_equal(pq_tls_io_status(c, SSL_do_handshake(c), &st), PQ_TLS_IO_WANT_READ);
	assert_int_equal(st.io, PQ_TLS_IO_WANT_READ);
	assert_int_equal(st.queued, 0);
	assert_int_equal(handshake(c, s), PQ_TLS_IO_OK);
	assert_int_equal(pq_tls_io_status(c, 1, &st), PQ_TLS_IO_OK);
	assert_string_equal(st.reason, "");
	SSL_free(c);
	SSL_free(s);
}

static void want_write(void **state)
{
	(void)state;
	SSL *c, *s;
	pq_tls_status st;
	pair(&c, &s, 64); /* a ClientHello is far longer than 64 bytes */
	assert_int_equal(pq_tls_io_status(c, SSL_do_handshake(c), &st), PQ_TLS_IO_WANT_WRITE);
	SSL_free(c);
	SSL_free(s);
}

static void closed(void **state)
{
	(void)state;
	SSL *c, *s;
	pq_tls_status st;
	char b[16];
	pair(&c, &s, 0);
	handshake(c, s);
	assert_true(SSL_shutdown(s) >= 0); /* close_notify */
	assert_int_equal(pq_tls_io_status(c, SSL_read(c, b, sizeof b), &st), PQ_TLS_IO_CLOSED);
	SSL_free(c);
	SSL_free(s);
}

/* A system call that failed inside OpenSSL leaves its errno in the queue with no reason
 * text: a reset (or a system error), not a TLS failure named "unknown". */
static void queued_system_error(void **state)
{
	(void)state;
	SSL *c, *s;
	pq_tls_status st;
	pair(&c, &s, 0);
	ERR_clear_error(); /* what earlier tests left */
	ERR_raise(ERR_LIB_SYS, ECONNRESET);
	assert_int_equal(pq_tls_io_status(c, -1, &st), PQ_TLS_IO_RESET);
	assert_int_equal(st.sys_errno, ECONNRESET);
	ERR_clear_error();
	ERR_raise(ERR_LIB_SYS, EACCES);
	assert_int_equal(pq_tls_io_status(c, -1, &st), PQ_TLS_IO_SYSCALL);
	assert_int_equal(st.sys_errno, EACCES);
	ERR_clear_error();
	SSL_free(c);
	SSL_free(s);
}

/* The peer ends the byte stream (its write side) without close_notify. */
static void eof(void **state)
{
	(void)state;
	int sv[2];
	pq_tls_status st;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	SSL *c = SSL_new(cli_ctx);
	assert_true(c && SSL_set_fd(c, sv[0]));
	assert_int_equal(shutdown(sv[1], SHUT_WR), 0);
	assert_int_equal(pq_tls_io_status(c, SSL_connect(c), &st), PQ_TLS_IO_EOF);
	assert_non_null(strstr(st.reason, "unexpected eof"));
	SSL_free(c);
	close(sv[0]);
	close(sv[1]);
}

/* A loopback TCP peer that aborts (SO_LINGER 0: an RST) before the client reads. */
static void reset(void **state)
{
	(void)state;
	pq_tls_status st;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof a;
	int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(l >= 0 && c >= 0);
	assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&a, &len), 0);
	assert_int_equal(connect(c, (struct sockaddr *)&a, sizeof a), 0);
	int p = accept(l, NULL, NULL);
	assert_true(p >= 0);
	struct linger lg = {1, 0};
	assert_int_equal(setsockopt(p, SOL_SOCKET, SO_LINGER, &lg, sizeof lg), 0);
	close(p);
	SSL *ssl = SSL_new(cli_ctx);
	assert_true(ssl && SSL_set_fd(ssl, c));
	assert_int_equal(pq_tls_io_status(ssl, SSL_connect(ssl), &st), PQ_TLS_IO_RESET);
	assert_true(st.sys_errno == ECONNRESET || st.sys_errno == EPIPE);
	SSL_free(ssl);
	close(c);
	close(l);
}

/* A descriptor that is not open: the write fails with EBADF. */
static void syscall_error(void **state)
{
	(void)state;
	pq_tls_status st;
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	close(sv[0]);
	close(sv[1]);
	SSL *c = SSL_new(cli_ctx);
	assert_true(c && SSL_set_fd(c, sv[0]));
	assert_int_equal(pq_tls_io_status(c, SSL_connect(c), &st), PQ_TLS_IO_SYSCALL);
	assert_int_equal(st.sys_errno, EBADF);
	SSL_free(c);
}

/* Plain HTTP to a TLS server: a TLS failure, with OpenSSL's reason. */
static void tls_failure(void **state)
{
	(void)state;
	pq_tls_status st;
	int sv[2];
	static const char http[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(write(sv[1], http, sizeof http - 1), (ssize_t)(sizeof http - 1));
	SSL *s = SSL_new(srv_ctx);
	assert_true(s && SSL_set_fd(s, sv[0]));
	assert_int_equal(pq_tls_io_status(s, SSL_accept(s), &st), PQ_TLS_IO_TLS);
	assert_int_not_equal(st.queued, 0);
	assert_int_equal(st.why, SSL_R_HTTP_REQUEST);
	assert_string_not_equal(st.reason, "");
	SSL_free(s);
	close(sv[0]);
	close(sv[1]);
}

static void names(void **state)
{
	(void)state;
	assert_string_equal(pq_tls_io_name(PQ_TLS_IO_WANT_WRITE), "want-write");
	assert_string_equal(pq_tls_io_name(PQ_TLS_IO_TLS), "tls");
	assert_string_equal(pq_tls_io_name((pq_tls_io)99), "unknown");
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN); /* the reset test may write into an aborted connection */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ok_and_want_read), cmocka_unit_test(want_write),
		cmocka_unit_test(closed),	    cmocka_unit_test(eof),
		cmocka_unit_test(queued_system_error),
		cmocka_unit_test(reset),	    cmocka_unit_test(syscall_error),
		cmocka_unit_test(tls_failure),	    cmocka_unit_test(names),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
