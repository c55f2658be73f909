/* err, buf, stats, rng, clock, text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include <openssl/err.h>
#include <openssl/evp.h>

#include "core/buf.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/rng.h"
#include "core/tcpsegs.h"
#include "core/text.h"
#include "core/wire.h"

/* Stored or peer text in a message: escaped by the report's rule, never cut inside an
 * escape; a long reason cut at a word with "...". */
static void text_shown_and_clip(void **state)
{
	(void)state;
	char b[64];
	assert_string_equal(pq_text_shown("\x1b[2J\a\0x", 7, b, sizeof b), "\\x1b[2J\\x07\\x00x");
	assert_string_equal(pq_text_shown("caf\xc3\xa9 \xff \xe2\x80\xae" "a\\", 13, b, sizeof b),
			    "caf\xc3\xa9 \\xff \\u202ea\\\\");
	assert_string_equal(pq_text_shown("\xc3", 1, b, sizeof b), "\\xc3"); /* a sequence cut short */
	/* cut before an escape that does not fit, with "..." */
	assert_string_equal(pq_text_shown("abcd\x1b", 5, b, 8), "abcd...");
	assert_string_equal(pq_text_shown("abcdefgh", 8, b, 9), "abcdefgh");
	assert_string_equal(pq_text_shown("abcdefghi", 9, b, 9), "abcde...");
	assert_string_equal(pq_text_clip("short", b, 16), "short");
	assert_string_equal(pq_text_clip("the server closed the connection: QUIC error", b, 25), "the server closed the...");
	assert_string_equal(pq_text_clip("handshake failure (alert 40), then more", b, 24), "handshake failure...");
	assert_string_equal(pq_text_clip("averyveryverylongwordwithoutspaces", b, 12), "averyver...");
	assert_true(strlen(pq_text_clip("x x x x x x x x x x x x x x x x", b, 10)) < 10);
}

static void err_table(void **state)
{
	(void)state;
	assert_string_equal(pq_strerror(0), "success");
	assert_string_equal(pq_strerror(PQ_EINVAL), "invalid argument");
	assert_string_equal(pq_strerror(PQ_EMISMATCH),
			    "negotiated parameters differ from those requested");
	assert_string_equal(pq_strerror(-ENOENT), "No such file or directory");
	assert_string_equal(pq_strerror(-99999), "unknown error");
	pq_diag d;
	assert_int_equal(pq_diag_set(&d, PQ_ERANGE, "--x: %d too big", 5), PQ_ERANGE);
	assert_string_equal(pq_diag_msg(&d), "--x: 5 too big");
	pq_diag_clear(&d);
	d.code = PQ_EIO;
	assert_string_equal(pq_diag_msg(&d), "input/output error");
	assert_int_equal(pq_diag_set(NULL, PQ_EIO, "ignored"), PQ_EIO);
}

static void err_ossl_drains_queue(void **state)
{
	(void)state;
	/* Provoke an OpenSSL error: an unknown algorithm. */
	EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(NULL, "NO-SUCH-ALGORITHM", NULL);
	assert_null(c);
	pq_diag d;
	assert_int_equal(pq_diag_ossl(&d, PQ_ETLS, "keygen"), PQ_ETLS);
	assert_non_null(strstr(d.msg, "keygen: "));
	assert_int_equal(ERR_peek_error(), 0);
}

static void buf_cap(void **state)
{
	(void)state;
	pq_buf b;
	pq_buf_init(&b, 10);
	assert_string_equal(pq_buf_str(&b), "");
	assert_int_equal(pq_buf_append(&b, "hello", 5), 0);
	assert_int_equal(pq_buf_printf(&b, "%d", 1234), 0);
	assert_string_equal(pq_buf_str(&b), "hello1234");
	assert_int_equal(pq_buf_append(&b, "xy", 2), PQ_ETOOBIG);
	assert_int_equal(pq_buf_printf(&b, "%s", "xy"), PQ_ETOOBIG);
	assert_int_equal(b.len, 9);
	pq_buf_consume(&b, 5);
	assert_string_equal(pq_buf_str(&b), "1234");
	pq_buf_consume(&b, 100);
	assert_int_equal(b.len, 0);
	pq_buf_dispose(&b);
}

/* The wire facts: the MSS rule and TLS 1.3 record framing. */
static void wire_facts(void **state)
{
	(void)state;
	assert_int_equal(pq_wire_mss(1500), 1448);
	assert_int_equal(PQ_WIRE_MSS_DEFAULT, 1448);
	assert_int_equal(pq_wire_mss(9000), 8948);
	assert_int_equal(pq_wire_mss(53), 1);
	assert_int_equal(pq_wire_mss(52), 0);
	assert_int_equal(pq_wire_mss(0), 0);
	assert_int_equal(pq_wire_mss(-1), 0);
	assert_int_equal(PQ_WIRE_TLS_RECORD_OVERHEAD, 22);
	assert_int_equal(pq_wire_records(1), 23);
}

static void rng_deterministic(void **state)
{
	(void)state;
	pq_rng a, b;
	pq_rng_seed(&a, 42);
	pq_rng_seed(&b, 42);
	for (int i = 0; i < 100; i++)
		assert_true(pq_rng_u64(&a) == pq_rng_u64(&b));
	/* Bernoulli(0.1) over 100k draws lands within 5 sigma of 10k. */
	int hits = 0;
	double sum = 0;
	for (int i = 0; i < 100000; i++) {
		hits += pq_rng_bernoulli(&a, 0.1);
		sum += pq_rng_exp(&a, 2.0);
		double u = pq_rng_uniform(&a);
		assert_true(u >= 0 && u < 1);
	}
	assert_true(fabs((double)hits - 10000) < 5 * sqrt(100000 * 0.1 * 0.9));
	assert_float_equal(sum / 100000, 2.0, 0.05);
	assert_int_equal(pq_rng_bernoulli(&a, 0), 0);
}

static void clock_fake(void **state)
{
	(void)state;
	pq_clock c;
	pq_clock_fake_init(&c, 1000);
	assert_int_equal(pq_clock_now(&c), 1000);
	c.fake_ns += 5;
	assert_int_equal(pq_clock_now(&c), 1005);
	int64_t t0 = pq_clock_now(&pq_clock_mono);
	assert_true(pq_clock_now(&pq_clock_mono) >= t0);
}

/* Two writes on a loopback connection, the second after the first has been read: two
 * data segments; a pipe is no TCP socket and says 0. */
static void tcp_segments(void **state)
{
	(void)state;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof a;
	int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0), p[2];
	char buf[8];
	assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&a, &len), 0);
	int one = 1; /* no Nagle: the second write does not wait for the first's ACK */
	assert_int_equal(setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one), 0);
	assert_int_equal(connect(c, (struct sockaddr *)&a, sizeof a), 0);
	int s = accept(l, NULL, NULL);
	assert_true(s >= 0);
	assert_int_equal(pq_tcp_data_segs_out(c), 0);
	assert_int_equal(write(c, "ab", 2), 2);
	assert_int_equal(read(s, buf, sizeof buf), 2);
	assert_int_equal(write(c, "cd", 2), 2);
	assert_int_equal(read(s, buf, sizeof buf), 2);
	assert_int_equal(pq_tcp_data_segs_out(c), 2);
	assert_int_equal(pq_tcp_segs_sent_once(c), 2); /* nothing sent again on loopback here */
	assert_int_equal(pipe(p), 0);
	assert_int_equal(pq_tcp_data_segs_out(p[0]), 0);
	assert_int_equal(pq_tcp_segs_sent_once(p[0]), 0); /* not a TCP socket */
	close(p[0]), close(p[1]), close(s), close(c), close(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(err_table),	     cmocka_unit_test(err_ossl_drains_queue),
		cmocka_unit_test(buf_cap),	     cmocka_unit_test(text_shown_and_clip),
		cmocka_unit_test(rng_deterministic), cmocka_unit_test(wire_facts), cmocka_unit_test(clock_fake),
		cmocka_unit_test(tcp_segments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
