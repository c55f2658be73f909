/* check/: the ClientHello parser on real ClientHellos from OpenSSL and on every truncation
 * of one, the cut plans of each shape, the shape list, the outputs, and probes run for
 * real over loopback (a TLS server thread here; a port nobody listens on; a listener that
 * closes; one that never answers). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "check/hello.h"
#include "check/out.h"
#include "check/plan.h"
#include "check/probe.h"
#include "tls/ctx.h"
#include "testchain.h"

static SSL_CTX *cli_ctx, *srv_ctx;

static int setup(void **state)
{
	(void)state;
	pq_diag d = {0};
	if (testchain_make("ecdsa-p256") != 0)
		return -1;
	pq_tls_config cli = {.role = PQ_TLS_CLIENT, .version = 13, .insecure = 1};
	pq_tls_config srv = {.role = PQ_TLS_SERVER, .version = 13, .certs_dir = chain_dir,
			     .groups = "X25519MLKEM768:X25519"};
	if (pq_tls_ctx_new(&cli, &cli_ctx, &d) || pq_tls_ctx_new(&srv, &srv_ctx, &d)) {
		fprintf(stderr, "test_check: %s\n", pq_diag_msg(&d));
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	pq_tls_ctx_free(cli_ctx);
	pq_tls_ctx_free(srv_ctx);
	testchain_remove(state);
	return 0;
}

/* The first ClientHello OpenSSL writes for `groups` and `sni`, into buf. */
static size_t client_hello(const char *groups, const char *sni, uint8_t *buf, size_t cap)
{
	SSL *s = SSL_new(cli_ctx);
	BIO *r = BIO_new(BIO_s_mem()), *w = BIO_new(BIO_s_mem());
	assert_non_null(s);
	SSL_set_bio(s, r, w);
	assert_int_equal(SSL_set1_groups_list(s, groups), 1);
	if (sni)
		assert_int_equal(SSL_set_tlsext_host_name(s, sni), 1);
	SSL_set_connect_state(s);
	assert_true(SSL_do_handshake(s) <= 0);
	int n = BIO_read(w, buf, (int)cap);
	assert_true(n > 0 && (size_t)n < cap);
	SSL_free(s);
	return (size_t)n;
}

static void parse_pq_hello(void **state)
{
	(void)state;
	uint8_t buf[4096];
	pq_chk_hello h;
	pq_diag d = {0};
	size_t n = client_hello("X25519MLKEM768", "localhost", buf, sizeof buf);
	assert_int_equal(pq_chk_hello_parse(buf, n, &h, &d), 0);
	assert_int_equal(h.record_len, n);
	assert_int_equal(h.hs_len, n - 5);
	assert_int_equal(h.nshares, 1);
	assert_int_equal(h.shares[0].group, 0x11EC);
	assert_int_equal(h.shares[0].len, 1216); /* ML-KEM-768 encapsulation key + X25519 */
	assert_true(h.shares[0].off + h.shares[0].len <= n);
	/* key_exchange<1..2^16-1> is preceded by its group and length */
	assert_int_equal(buf[h.shares[0].off - 4] << 8 | buf[h.shares[0].off - 3], 0x11EC);
	assert_int_equal(h.sni_len, 9);
	assert_memory_equal(buf + h.sni_off, "localhost", 9);
	assert_ptr_equal(pq_chk_hello_share(&h, 0x11EC), &h.shares[0]);
	assert_null(pq_chk_hello_share(&h, 0x001D));
}

static void parse_two_shares_no_sni(void **state)
{
	(void)state;
	uint8_t buf[4096];
	pq_chk_hello h;
	size_t n = client_hello("*X25519MLKEM768:*X25519", NULL, buf, sizeof buf);
	assert_int_equal(pq_chk_hello_parse(buf, n, &h, NULL), 0);
	assert_int_equal(h.nshares, 2);
	assert_int_equal(h.shares[1].group, 0x001D);
	assert_int_equal(h.shares[1].len, 32);
	assert_int_equal(h.sni_off, 0);
	assert_int_equal(h.sni_len, 0);
}

/* Every prefix of a real ClientHello is refused, with the field that ran out named. */
static void parse_every_truncation(void **state)
{
	(void)state;
	uint8_t buf[4096];
	pq_chk_hello h;
	pq_diag d = {0};
	size_t n = client_hello("X25519", "localhost", buf, sizeof buf);
	for (size_t len = 0; len < n; len++) {
		pq_diag_clear(&d);
		assert_int_equal(pq_chk_hello_parse(buf, len, &h, &d), PQ_EPARSE);
		assert_non_null(strstr(pq_diag_msg(&d), "runs past"));
	}
	/* a lying inner length: the key share claims more bytes than its extension holds */
	assert_int_equal(pq_chk_hello_parse(buf, n, &h, NULL), 0);
	buf[h.shares[0].off - 2] = 0xFF;
	pq_diag_clear(&d);
	assert_int_equal(pq_chk_hello_parse(buf, n, &h, &d), PQ_EPARSE);
	assert_non_null(strstr(pq_diag_msg(&d), "key_share"));
}

static void parse_not_a_hello(void **state)
{
	(void)state;
	uint8_t buf[4096];
	pq_diag d = {0};
	pq_chk_hello h;
	size_t n = client_hello("X25519", NULL, buf, sizeof buf);
	buf[0] = 23;
	assert_int_equal(pq_chk_hello_parse(buf, n, &h, &d), PQ_EPARSE);
	assert_non_null(strstr(pq_diag_msg(&d), "not handshake"));
	buf[0] = 22;
	buf[5] = 2;
	assert_int_equal(pq_chk_hello_parse(buf, n, &h, &d), PQ_EPARSE);
	assert_non_null(strstr(pq_diag_msg(&d), "not ClientHello"));
}

static void plans(void **state)
{
	(void)state;
	uint8_t buf[4096];
	pq_chk_hello h;
	pq_chk_plan p;
	size_t n = client_hello("X25519MLKEM768", "localhost", buf, sizeof buf);
	assert_int_equal(pq_chk_hello_parse(buf, n, &h, NULL), 0);

	assert_int_equal(pq_chk_plan_make(PQ_CHK_WHOLE, &h, 0x11EC, 0, &p, NULL), 0);
	assert_int_equal(p.ncuts, 0);
	pq_chk_plan_dispose(&p);

	assert_int_equal(pq_chk_plan_make(PQ_CHK_SPLIT, &h, 0x11EC, 7, &p, NULL), 0);
	assert_int_equal(p.ncuts, 1);
	assert_int_equal(p.cuts[0], n / 2);
	assert_int_equal(p.delay_ns, 0);
	pq_chk_plan_dispose(&p);

	assert_int_equal(pq_chk_plan_make(PQ_CHK_DELAYED, &h, 0x11EC, 7, &p, NULL), 0);
	assert_int_equal(p.ncuts, 1);
	assert_int_equal(p.delay_ns, 7);
	pq_chk_plan_dispose(&p);

	assert_int_equal(pq_chk_plan_make(PQ_CHK_KEY_SHARE, &h, 0x11EC, 0, &p, NULL), 0);
	assert_int_equal(p.ncuts, 1);
	assert_true(p.cuts[0] > h.shares[0].off && p.cuts[0] < h.shares[0].off + h.shares[0].len);
	pq_chk_plan_dispose(&p);

	assert_int_equal(pq_chk_plan_make(PQ_CHK_SNI, &h, 0x11EC, 0, &p, NULL), 0);
	assert_true(p.cuts[0] > h.sni_off && p.cuts[0] < h.sni_off + h.sni_len);
	pq_chk_plan_dispose(&p);

	assert_int_equal(pq_chk_plan_make(PQ_CHK_BYTES, &h, 0x11EC, 0, &p, NULL), 0);
	assert_int_equal(p.ncuts, n - 1);
	for (size_t i = 0; i < p.ncuts; i++)
		assert_int_equal(p.cuts[i], i + 1);
	pq_chk_plan_dispose(&p);
	pq_chk_plan_dispose(&p); /* twice is harmless */
}

static void plans_missing_parts(void **state)
{
	(void)state;
	uint8_t buf[4096];
	pq_chk_hello h;
	pq_chk_plan p = {0};
	pq_diag d = {0};
	size_t n = client_hello("X25519", NULL, buf, sizeof buf);
	assert_int_equal(pq_chk_hello_parse(buf, n, &h, NULL), 0);
	assert_int_equal(pq_chk_plan_make(PQ_CHK_SNI, &h, 0x001D, 0, &p, &d), PQ_EINVAL);
	assert_non_null(strstr(pq_diag_msg(&d), "no SNI"));
	assert_int_equal(pq_chk_plan_make(PQ_CHK_KEY_SHARE, &h, 0x11EC, 0, &p, &d), PQ_EINVAL);
	assert_non_null(strstr(pq_diag_msg(&d), "0x11EC"));
	assert_int_equal(pq_chk_plan_make((pq_chk_shape)99, &h, 0x001D, 0, &p, &d), PQ_EINVAL);
	assert_null(p.cuts);
}

static void shapes_parse(void **state)
{
	(void)state;
	unsigned m = 0;
	pq_diag d = {0};
	assert_int_equal(pq_chk_shapes_parse("all", "--shapes", &m, &d), 0);
	assert_int_equal(m, (1u << PQ_CHK_SHAPES) - 1);
	assert_int_equal(pq_chk_shapes_parse("sni,whole", "--shapes", &m, &d), 0);
	assert_int_equal(m, (1u << PQ_CHK_SNI) | (1u << PQ_CHK_WHOLE));
	assert_int_equal(pq_chk_shapes_parse("whole,nope", "--shapes", &m, &d), PQ_EINVAL);
	assert_non_null(strstr(pq_diag_msg(&d), "--shapes: 'nope'"));
	assert_non_null(strstr(pq_diag_msg(&d), "key-share"));
	assert_int_equal(pq_chk_shapes_parse("whole,", "--shapes", &m, &d), PQ_EINVAL);
	assert_int_equal(pq_chk_shapes_parse("", "--shapes", &m, &d), PQ_EINVAL);
}

/* A loopback listener: its port, and its fd in *fd. */
static int listener(int *fd)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof a;
	*fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(*fd >= 0);
	assert_int_equal(bind(*fd, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(listen(*fd, 16), 0);
	assert_int_equal(getsockname(*fd, (struct sockaddr *)&a, &len), 0);
	return ntohs(a.sin_port);
}

struct server {
	int lfd, conns;
	enum { TLS, CLOSE, MUTE } kind;
	int mute_fd;
};

/* Serves s->conns connections, one at a time, as s->kind says. */
static void *serve(void *arg)
{
	struct server *s = arg;
	for (int i = 0; i < s->conns; i++) {
		int fd = accept(s->lfd, NULL, NULL);
		if (fd < 0)
			break;
		if (s->kind == MUTE) {
			s->mute_fd = fd; /* held open, never answered */
			continue;
		}
		if (s->kind == TLS) {
			SSL *ssl = SSL_new(srv_ctx);
			SSL_set_fd(ssl, fd);
			if (SSL_accept(ssl) == 1)
				SSL_shutdown(ssl);
			SSL_free(ssl);
			ERR_clear_error();
		}
		close(fd);
	}
	return NULL;
}

static pq_chk_config config(int port, int64_t timeout_ns)
{
	pq_chk_config c = {.ctx = cli_ctx, .servername = "localhost", .timeout_ns = timeout_ns,
			   .delay_ns = 0, .hrr_share = "X448", .clock = &pq_clock_mono};
	char a[32];
	snprintf(a, sizeof a, "127.0.0.1:%d", port);
	assert_int_equal(pq_addr_parse(a, "target", 0, &c.target, NULL), 0);
	return c;
}

/* Starts s serving in *th on a fresh loopback port; the probes' config for it. */
static pq_chk_config start(struct server *s, pthread_t *th, int64_t timeout_ns)
{
	int port = listener(&s->lfd);
	assert_int_equal(pthread_create(th, NULL, serve, s), 0);
	return config(port, timeout_ns);
}

static void probes_pass(void **state)
{
	(void)state;
	struct server s = {.conns = 3, .kind = TLS};
	pthread_t th;
	pq_chk_config c = start(&s, &th, 10 * PQ_NS_PER_S);
	pq_chk_result r;
	pq_diag d = {0};

	pq_chk_probe whole = {.shape = PQ_CHK_WHOLE, .group = "X25519MLKEM768"};
	assert_int_equal(pq_chk_probe_run(&c, &whole, &r, &d), 0);
	assert_true(r.passed);
	assert_int_equal(r.fail, PQ_CHK_OK);
	assert_string_equal(r.group, "X25519MLKEM768");
	assert_false(r.hrr);
	assert_int_equal(r.ch_writes[0], 1);
	assert_true(r.ch_bytes[0] > 1216);
	assert_true(r.rx_bytes > 1120); /* the server's share alone is 1120 bytes */

	pq_chk_probe ks = {.shape = PQ_CHK_KEY_SHARE, .group = "X25519MLKEM768"};
	assert_int_equal(pq_chk_probe_run(&c, &ks, &r, &d), 0);
	assert_true(r.passed);
	assert_int_equal(r.ch_writes[0], 2);
	assert_int_equal(r.ch_segs[0], 2); /* each write sent before the next */

	/* The server accepts X25519MLKEM768 and X25519 but not X448: it must ask again. */
	pq_chk_probe hrr = {.shape = PQ_CHK_HRR, .group = "X25519MLKEM768"};
	assert_int_equal(pq_chk_probe_run(&c, &hrr, &r, &d), 0);
	assert_true(r.passed);
	assert_true(r.hrr);
	assert_string_equal(r.offered, "X25519MLKEM768:*X448");
	assert_true(r.ch_bytes[1] > r.ch_bytes[0]);
	assert_int_equal(r.ch_writes[1], 1);
	pthread_join(th, NULL);
	close(s.lfd);
}

static void probe_wrong_group(void **state)
{
	(void)state;
	/* A server that accepts X448 takes the hrr probe's share: no HRR, and the probe says so. */
	struct server s = {.conns = 1, .kind = TLS};
	pthread_t th;
	pq_chk_config c = start(&s, &th, 10 * PQ_NS_PER_S);
	c.hrr_share = "X25519";
	pq_chk_result r;
	pq_chk_probe hrr = {.shape = PQ_CHK_HRR, .group = "X25519MLKEM768"};
	assert_int_equal(pq_chk_probe_run(&c, &hrr, &r, NULL), 0);
	assert_true(r.completed);
	assert_false(r.passed);
	assert_int_equal(r.fail, PQ_CHK_GROUP);
	assert_non_null(strstr(r.detail, "not X25519MLKEM768"));
	pthread_join(th, NULL);
	close(s.lfd);
}

static void probe_refused(void **state)
{
	(void)state;
	int lfd;
	int port = listener(&lfd);
	close(lfd); /* nobody listens there now */
	pq_chk_config c = config(port, 5 * PQ_NS_PER_S);
	pq_chk_result r;
	pq_chk_probe p = {.shape = PQ_CHK_WHOLE, .group = "X25519"};
	assert_int_equal(pq_chk_probe_run(&c, &p, &r, NULL), 0);
	assert_false(r.passed);
	assert_int_equal(r.fail, PQ_CHK_REFUSED);
	assert_true(pq_chk_no_server(&r));
	assert_string_equal(pq_chk_fail_name(r.fail), "refused");
}

static void probe_closed(void **state)
{
	(void)state;
	struct server s = {.conns = 1, .kind = CLOSE};
	pthread_t th;
	pq_chk_config c = start(&s, &th, 5 * PQ_NS_PER_S);
	pq_chk_result r;
	pq_chk_probe p = {.shape = PQ_CHK_SPLIT, .group = "X25519"};
	assert_int_equal(pq_chk_probe_run(&c, &p, &r, NULL), 0);
	pthread_join(th, NULL);
	assert_false(r.passed);
	assert_true(r.fail == PQ_CHK_CLOSED || r.fail == PQ_CHK_RESET);
	assert_false(pq_chk_no_server(&r));
	close(s.lfd);
}

/* A server that takes the ClientHello and says nothing: the probe ends at its timeout
 * (200 ms here, a generous multiple of a loopback round trip) and names it. */
static void probe_mute(void **state)
{
	(void)state;
	struct server s = {.conns = 1, .kind = MUTE, .mute_fd = -1};
	pthread_t th;
	pq_chk_config c = start(&s, &th, 200 * PQ_NS_PER_MS);
	pq_chk_result r;
	pq_chk_probe p = {.shape = PQ_CHK_WHOLE, .group = "X25519"};
	assert_int_equal(pq_chk_probe_run(&c, &p, &r, NULL), 0);
	pthread_join(th, NULL);
	assert_int_equal(r.fail, PQ_CHK_TIMEOUT);
	assert_true(pq_chk_no_server(&r));
	assert_non_null(strstr(r.detail, "0 bytes received"));
	close(s.mute_fd);
	close(s.lfd);
}

static void probe_unknown_group(void **state)
{
	(void)state;
	pq_chk_config c = config(9, PQ_NS_PER_S);
	pq_chk_result r;
	pq_diag d = {0};
	pq_chk_probe p = {.shape = PQ_CHK_WHOLE, .group = "NOPE512"};
	assert_int_equal(pq_chk_probe_run(&c, &p, &r, &d), PQ_EINVAL);
	assert_non_null(strstr(pq_diag_msg(&d), "NOPE512"));
}

static char *capture(int json, const pq_chk_summary *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	if (json)
		assert_int_equal(pq_chk_json(f, s), 0);
	else
		assert_int_equal(pq_chk_table(f, s), 0);
	fclose(f);
	return buf;
}

static void outputs(void **state)
{
	(void)state;
	pq_chk_result r[2] = {
		{.probe = {PQ_CHK_HRR, "X25519MLKEM768"}, .passed = 1, .completed = 1, .hrr = 1,
		 .group = "X25519MLKEM768", .ch_bytes = {261, 1421}, .ch_writes = {1, 1},
		 .ch_segs = {1, 1}, .handshake_ns = 2500000},
		{.probe = {PQ_CHK_SPLIT, "X25519"}, .fail = PQ_CHK_CLOSED, .ch_bytes = {235},
		 .ch_writes = {2}, .ch_segs = {2}, .detail = "closed it"},
	};
	pq_chk_summary s = {.target = "h:1", .servername = "h", .results = r, .n = 2, .planned = 2};
	assert_int_equal(pq_chk_passed(&s), 1);
	char *t = capture(0, &s);
	assert_non_null(strstr(t, "X25519MLKEM768   hrr        pass   X25519MLKEM768   yes  261+1421"));
	assert_non_null(strstr(t, "FAIL"));
	assert_non_null(strstr(t, "closed it"));
	assert_non_null(strstr(t, "1 of 2 probes passed\n"));
	free(t);
	char *j = capture(1, &s);
	assert_non_null(strstr(j, "\"all_passed\":false"));
	assert_non_null(strstr(j, "\"client_hello\":[{\"bytes\":261,\"writes\":1,\"segments\":1},"
				  "{\"bytes\":1421,\"writes\":1,\"segments\":1}]"));
	assert_non_null(strstr(j, "\"fail\":\"closed\",\"detail\":\"closed it\""));
	free(j);
	s.stopped = 1;
	s.n = 1;
	t = capture(0, &s);
	assert_non_null(strstr(t, "the others were not run"));
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_pq_hello),	  cmocka_unit_test(parse_two_shares_no_sni),
		cmocka_unit_test(parse_every_truncation), cmocka_unit_test(parse_not_a_hello),
		cmocka_unit_test(plans),		  cmocka_unit_test(plans_missing_parts),
		cmocka_unit_test(shapes_parse),		  cmocka_unit_test(probes_pass),
		cmocka_unit_test(probe_wrong_group),	  cmocka_unit_test(probe_refused),
		cmocka_unit_test(probe_closed),		  cmocka_unit_test(probe_mute),
		cmocka_unit_test(probe_unknown_group),	  cmocka_unit_test(outputs),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
