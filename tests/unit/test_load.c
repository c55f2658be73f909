/* load/arrival, load/writers, load/summary, and load/run against peers that misbehave:
 * one that speaks no TLS, one that stalls mid-handshake, one that resets, and a closed
 * port. The peers run in a thread of this process on loopback. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "stats/sample.h"
#include "load/arrival.h"
#include "load/run.h"
#include "load/run_int.h"
#include "load/summary.h"
#include "load/writers.h"

static void arrival_constant_and_poisson(void **state)
{
	(void)state;
	pq_arrival a;
	assert_int_equal(pq_arrival_init(&a, 0, 0, 1), PQ_ERANGE);
	assert_int_equal(pq_arrival_init(&a, NAN, 0, 1), PQ_ERANGE);
	assert_int_equal(pq_arrival_init(&a, 1000, 0, 1), 0);
	assert_int_equal(pq_arrival_peek(&a), 0);
	assert_int_equal(pq_arrival_next(&a), 0);
	assert_int_equal(pq_arrival_next(&a), 1000000);
	for (int i = 0; i < 997; i++)
		(void)pq_arrival_next(&a);
	/* No drift: arrival 999 is at 999 ms exactly. */
	assert_int_equal(pq_arrival_next(&a), 999000000);

	pq_arrival p, q;
	assert_int_equal(pq_arrival_init(&p, 500, 1, 7), 0);
	assert_int_equal(pq_arrival_init(&q, 500, 1, 7), 0);
	int64_t last = 0;
	int uneven = 0;
	for (int i = 0; i < 20000; i++) {
		int64_t t = pq_arrival_next(&p);
		assert_int_equal(t, pq_arrival_next(&q)); /* same seed, same schedule */
		assert_true(t >= last);
		uneven += i > 0 && llabs((t - last) - 2000000) > 500000;
		last = t;
	}
	/* 20000 arrivals at 500/s take about 40 s (sd of the sum ~0.28 s). */
	assert_true(fabs((double)last / 1e9 - 40.0) < 2.0);
	assert_true(uneven > 10000);
}

static pq_load_record sample(uint64_t id, enum pq_load_err err, const char *detail)
{
	pq_load_record r;
	memset(&r, 0, sizeof r);
	r.id = id;
	for (int i = 0; i < PQ_PH_COUNT; i++)
		r.t[i] = -1;
	r.err = err;
	snprintf(r.err_detail, sizeof r.err_detail, "%s", detail);
	return r;
}

static int count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	int n = 0, c;
	if (!f)
		return -1;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static void writers(void **state)
{
	(void)state;
	pq_load_record r[2] = {sample(1, PQ_LERR_NONE, ""), sample(2, PQ_LERR_PROTOCOL, "a, \"b\"")};
	r[0].t[PQ_PH_CONNECT] = 1500;
	strcpy(r[0].group, "X25519MLKEM768");
	/* Handshake done 2 round trips of 70 ms after TCP was established. */
	r[0].min_rtt_us = 70000;
	r[0].t[PQ_PH_HANDSHAKE] = 1500 + 140 * 1000000LL;
	char path[128], tmp[140];
	pq_diag d;
	snprintf(path, sizeof path, "/tmp/pqtls-unit-load.%d.csv", (int)getpid());
	assert_int_equal(pq_load_write_csv(path, "csv", r, 2, &d), 0);
	assert_int_equal(count_lines(path), 3);
	char line[8192];
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof line, f));
	assert_true(strncmp(line, "id,intended_us,start_us,connect_us,", 35) == 0);
	assert_non_null(fgets(line, sizeof line, f));
	assert_non_null(strstr(line, ",1.5,"));
	assert_non_null(strstr(line, ",X25519MLKEM768,"));
	assert_non_null(fgets(line, sizeof line, f));
	assert_non_null(strstr(line, ",protocol,\"a, \"\"b\"\"\","));
	fclose(f);
	unlink(path);
	assert_int_equal(pq_load_write_jsonl(path, "jsonl", r, 2, &d), 0);
	assert_int_equal(count_lines(path), 2);
	f = fopen(path, "r");
	assert_non_null(fgets(line, sizeof line, f));
	assert_non_null(strstr(line, "\"connect_us\":1.5,"));
	assert_non_null(strstr(line, "\"ttfb_us\":null"));
	assert_non_null(strstr(line, "\"min_rtt_us\":70000,"));
	assert_non_null(strstr(line, "\"handshake_rtts\":2.000,"));
	assert_non_null(strstr(line, "\"tls_group\":\"X25519MLKEM768\",")); /* the results database's names */
	assert_non_null(strstr(line, "\"quic_tx_dgrams\":null,"));         /* QUIC only */
	assert_non_null(fgets(line, sizeof line, f));
	assert_non_null(strstr(line, "\"error_detail\":\"a, \\\"b\\\"\""));
	assert_non_null(strstr(line, "\"handshake_rtts\":null")); /* no min RTT known */
	fclose(f);
	unlink(path);
	/* A path that cannot be written: a message, and nothing left behind. */
	assert_true(pq_load_write_csv("/nonexistent/x.csv", "the csv", r, 2, &d) < 0);
	assert_non_null(strstr(d.msg, "/nonexistent/x.csv"));
	assert_non_null(strstr(d.msg, "the csv: ")); /* the caller's name for it */
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	assert_int_equal(access(tmp, F_OK), -1);
	/* Opened before a run: a directory is refused at once; an abandoned run (abort)
	 * leaves neither the file nor its temporary. */
	pq_load_out o;
	assert_int_equal(pq_load_out_open(&o, "/tmp", "--csv", &d), -EISDIR);
	assert_non_null(strstr(d.msg, "--csv: /tmp is a directory"));
	assert_int_equal(pq_load_out_open(&o, path, "--csv", &d), 0);
	char otmp[sizeof o.tmp];
	memcpy(otmp, o.tmp, sizeof otmp);
	assert_int_equal(access(otmp, F_OK), 0);
	pq_load_out_abort(&o);
	assert_int_equal(access(otmp, F_OK), -1);
	assert_int_equal(access(path, F_OK), -1);
}

static void names(void **state)
{
	(void)state;
	char out[32];
	pq_load_first_name("?*X25519MLKEM768:x25519", out, sizeof out);
	assert_string_equal(out, "x25519mlkem768");
	pq_load_first_name("P-256/X25519", out, sizeof out);
	assert_string_equal(out, "secp256r1");
	pq_load_first_name("ML-DSA-65:ecdsa_secp256r1_sha256", out, sizeof out);
	assert_string_equal(out, "mldsa65");
	pq_load_first_name(NULL, out, sizeof out);
	assert_string_equal(out, "");
	pq_load_norm_name("ecdsa_secp256r1_sha256", out, sizeof out);
	assert_string_equal(out, "ecdsasecp256r1sha256");
}

/* The summary as text, then as JSON, in one string (the caller frees it). */
static char *printed(const pq_load_summary *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	pq_load_summary_print(s, f);
	pq_load_summary_json(s, f);
	fclose(f);
	return buf;
}

static void summary(void **state)
{
	(void)state;
	pq_load_record r[4] = {sample(1, PQ_LERR_NONE, ""), sample(2, PQ_LERR_NONE, ""),
			       sample(3, PQ_LERR_NONE, ""), sample(4, PQ_LERR_TIMEOUT_HANDSHAKE, "x")};
	const char *groups[3] = {"X25519MLKEM768", "X25519MLKEM768", "x25519"};
	for (int i = 0; i < 3; i++) {
		strcpy(r[i].group, groups[i]);
		strcpy(r[i].sigalg, "mldsa65");
		r[i].t[PQ_PH_HANDSHAKE] = (i + 1) * 1000000;
		r[i].t[PQ_PH_END] = (i + 1) * 2000000;
		r[i].hs_bytes[PQ_RX][PQ_HS_CERTIFICATE] = 11000;
	}
	r[2].resumed = 1;
	r[2].sigalg[0] = '\0';
	pq_load_result res = {.recs = r, .n = 4, .wall_ns = PQ_NS_PER_S, .cpu_ns = 3000000};
	pq_load_config cfg = {.tls = {.groups = "X25519MLKEM768:X25519", .sigalgs = "ML-DSA-65"}};
	pq_load_summary s;
	assert_int_equal(pq_load_summarize(&res, &cfg, &s), 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.ok, 3);
	assert_int_equal(s.err[PQ_LERR_TIMEOUT_HANDSHAKE], 1);
	assert_int_equal(s.group_mismatch, 1);
	assert_int_equal(s.sigalg_mismatch, 0); /* resumed: no signature, no mismatch */
	assert_int_equal(s.resumed, 1);
	assert_int_equal(s.ncombos, 2);
	assert_int_equal(s.phase[PQ_PH_HANDSHAKE].n, 3);
	assert_float_equal(s.phase[PQ_PH_HANDSHAKE].p50, 2e6, 1);
	assert_float_equal(s.conns_per_s, 3.0, 1e-9);
	assert_float_equal(s.cpu_us_per_conn, 1000.0, 1e-9);
	assert_float_equal(s.rx_cert_bytes, 11000.0, 1e-9);
	/* The printers write what the summary says. */
	char *buf = printed(&s);
	assert_non_null(strstr(buf, "WARNING: 1 connections negotiated a group other than the asked x25519mlkem768"));
	assert_non_null(strstr(buf, "error: timed out in the TLS handshake: x: 1"));
	assert_non_null(strstr(buf, "\"group_mismatch\":1"));
	free(buf);
}

/* Nothing succeeded: no 'nan' per connection in the text, null (not 0) in JSON. */
static void summary_nothing_ok(void **state)
{
	(void)state;
	pq_load_record r[2] = {sample(1, PQ_LERR_REFUSED, "Connection refused"),
			       sample(2, PQ_LERR_REFUSED, "Connection refused")};
	pq_load_result res = {.recs = r, .n = 2, .wall_ns = PQ_NS_PER_S, .cpu_ns = 2500000};
	pq_load_config cfg = {0};
	pq_load_summary s;
	assert_int_equal(pq_load_summarize(&res, &cfg, &s), 0);
	assert_int_equal(s.ok, 0);
	char *buf = printed(&s);
	assert_null(strstr(buf, "nan"));
	assert_non_null(strstr(buf, "client CPU 2.5 ms in all (no connection succeeded)"));
	assert_non_null(strstr(buf, "\"cpu_us_per_conn\":null"));
	free(buf);
}

/* ---- misbehaving peers ---- */

enum peer_kind { PEER_PLAIN, PEER_STALL, PEER_RESET };

typedef struct peer {
	int lfd, stop[2];
	enum peer_kind kind;
	pthread_t th;
	uint16_t port;
} peer;

static void *peer_main(void *arg)
{
	peer *p = arg;
	int held[16], nheld = 0;
	for (;;) {
		struct pollfd pf[2] = {{.fd = p->lfd, .events = POLLIN}, {.fd = p->stop[0], .events = POLLIN}};
		if (poll(pf, 2, 5000) <= 0 || pf[1].revents)
			break;
		int fd = accept(p->lfd, NULL, NULL);
		if (fd < 0)
			continue;
		char buf[2048];
		if (p->kind == PEER_PLAIN) {
			ssize_t n = read(fd, buf, sizeof buf);
			(void)n;
			const char *resp = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
			n = write(fd, resp, strlen(resp));
			close(fd);
		} else if (p->kind == PEER_RESET) {
			ssize_t n = read(fd, buf, sizeof buf); /* the ClientHello */
			(void)n;
			struct linger lg = {1, 0};
			setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
			close(fd);
		} else if (nheld < 16) {
			held[nheld++] = fd; /* read nothing, answer nothing */
		} else {
			close(fd);
		}
	}
	while (nheld)
		close(held[--nheld]);
	return NULL;
}

static void peer_start(peer *p, enum peer_kind kind)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof sa;
	p->kind = kind;
	p->lfd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(p->lfd >= 0);
	assert_int_equal(bind(p->lfd, (struct sockaddr *)&sa, sizeof sa), 0);
	assert_int_equal(listen(p->lfd, 16), 0);
	getsockname(p->lfd, (struct sockaddr *)&sa, &len);
	p->port = ntohs(sa.sin_port);
	assert_int_equal(pipe(p->stop), 0);
	assert_int_equal(pthread_create(&p->th, NULL, peer_main, p), 0);
}

static void peer_stop(peer *p)
{
	ssize_t n = write(p->stop[1], "x", 1);
	(void)n;
	pthread_join(p->th, NULL);
	close(p->lfd);
	close(p->stop[0]);
	close(p->stop[1]);
}

static void run_against(uint16_t port, int64_t timeout_ns, pq_load_result *res)
{
	pq_load_config cfg = {.tls = {.insecure = 1}, .connections = 3, .concurrency = 1,
			      .requests_per_conn = 1, .timeout_ns = timeout_ns, .seed = 1};
	char addr[32];
	pq_diag d;
	snprintf(addr, sizeof addr, "127.0.0.1:%u", port);
	assert_int_equal(pq_addr_parse(addr, "t", 0, &cfg.target, &d), 0);
	assert_int_equal(pq_load_run(&cfg, res, &d), 0);
	/* The first connection fails and nothing has worked: the run stops there. */
	assert_int_equal(res->n, 1);
	assert_int_equal(res->stopped_early, 1);
}

static void run_plain_tcp_peer(void **state)
{
	(void)state;
	peer p;
	pq_load_result res;
	peer_start(&p, PEER_PLAIN);
	run_against(p.port, 5 * PQ_NS_PER_S, &res);
	assert_int_equal(res.recs[0].err, PQ_LERR_PROTOCOL);
	assert_non_null(strstr(res.recs[0].err_detail, "wrong version number (is it a TLS server?)"));
	assert_true(res.recs[0].t[PQ_PH_CONNECT] >= 0);
	pq_load_result_dispose(&res);
	peer_stop(&p);
}

typedef struct sink_seen {
	int calls, fail_at;
	uint64_t last_id;
} sink_seen;

static int test_sink(void *arg, const pq_load_record *rec, pq_diag *d)
{
	sink_seen *k = arg;
	k->calls++;
	k->last_id = rec->id;
	if (k->calls == k->fail_at)
		return pq_diag_set(d, PQ_EIO, "sink: cannot write record %llu", (unsigned long long)rec->id);
	return 0;
}

/* Records go to the sink as they finish; with no_keep none stays in the result; a
 * sink's failure fails the run with its message. */
static void run_sink_and_no_keep(void **state)
{
	(void)state;
	peer p;
	peer_start(&p, PEER_PLAIN);
	pq_load_config cfg = {.tls = {.insecure = 1}, .connections = 3, .concurrency = 1,
			      .requests_per_conn = 1, .timeout_ns = 5 * PQ_NS_PER_S, .seed = 1};
	char addr[32];
	pq_diag d;
	pq_load_result res;
	sink_seen k = {0};
	snprintf(addr, sizeof addr, "127.0.0.1:%u", p.port);
	assert_int_equal(pq_addr_parse(addr, "t", 0, &cfg.target, &d), 0);
	cfg.sink = test_sink;
	cfg.sink_arg = &k;
	cfg.no_keep = 1;
	assert_int_equal(pq_load_run(&cfg, &res, &d), 0);
	assert_int_equal(k.calls, 1); /* stopped early after the first failure */
	assert_int_equal(res.n, 0);
	assert_null(res.recs);
	assert_int_equal(res.measured, 1);
	pq_load_result_dispose(&res);
	/* Kept as well when asked: the sink and the result see the same record. */
	cfg.no_keep = 0;
	k = (sink_seen){0};
	assert_int_equal(pq_load_run(&cfg, &res, &d), 0);
	assert_int_equal(res.n, 1);
	assert_int_equal(res.recs[0].id, k.last_id);
	pq_load_result_dispose(&res);
	k = (sink_seen){.fail_at = 1};
	assert_int_equal(pq_load_run(&cfg, &res, &d), PQ_EIO);
	assert_non_null(strstr(d.msg, "sink: cannot write record"));
	pq_load_result_dispose(&res);
	peer_stop(&p);
}

static void run_stalling_peer(void **state)
{
	(void)state;
	peer p;
	pq_load_result res;
	peer_start(&p, PEER_STALL);
	run_against(p.port, 300 * PQ_NS_PER_MS, &res);
	assert_int_equal(res.recs[0].err, PQ_LERR_TIMEOUT_HANDSHAKE);
	assert_true(res.recs[0].t[PQ_PH_CLIENT_HELLO] >= 0); /* it did send its ClientHello */
	assert_true(res.recs[0].t[PQ_PH_SERVER_HELLO] < 0);
	pq_load_result_dispose(&res);
	peer_stop(&p);
}

static void run_resetting_peer(void **state)
{
	(void)state;
	peer p;
	pq_load_result res;
	peer_start(&p, PEER_RESET);
	run_against(p.port, 5 * PQ_NS_PER_S, &res);
	assert_int_equal(res.recs[0].err, PQ_LERR_RESET);
	pq_load_result_dispose(&res);
	peer_stop(&p);
}

static void run_refused_and_bad_config(void **state)
{
	(void)state;
	peer p;
	pq_load_result res;
	peer_start(&p, PEER_PLAIN);
	uint16_t port = p.port;
	peer_stop(&p); /* nothing listens there now */
	run_against(port, PQ_NS_PER_S, &res);
	assert_int_equal(res.recs[0].err, PQ_LERR_REFUSED);
	pq_load_result_dispose(&res);

	pq_load_config cfg = {.tls = {.insecure = 1}, .concurrency = 1, .timeout_ns = PQ_NS_PER_S};
	pq_diag d;
	assert_int_equal(pq_load_run(&cfg, &res, &d), PQ_EINVAL); /* no count, no duration */
	assert_non_null(strstr(d.msg, "give connections N or duration_ns T"));
	static const pq_name names[] = {{"connections", "-n"}, {"duration_ns", "-t"}, {NULL, NULL}};
	cfg.names = names;
	assert_int_equal(pq_load_run(&cfg, &res, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "give -n N or -t T"));
	cfg.names = NULL;
	cfg.connections = 1;
	cfg.concurrency = 0;
	assert_int_equal(pq_load_run(&cfg, &res, &d), PQ_ERANGE);
	cfg.concurrency = 1;
	cfg.path = "no-slash";
	assert_int_equal(pq_load_run(&cfg, &res, &d), PQ_EINVAL);
	cfg.path = NULL;
	cfg.tls.groups = "Nope";
	assert_int_equal(pq_load_run(&cfg, &res, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "groups: 'Nope'"));
	pq_load_result_dispose(&res);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The percentile of the sorted v by pq_stats' definition lies between v[lo] and v[lo+1]:
 * the bucketed one may be off by PQ_LOAD_REL_ERR of those. */
static void assert_near_rank(const double *v, size_t n, double q, double got)
{
	double pos = q / 100.0 * (double)(n - 1);
	size_t lo = (size_t)floor(pos), hi = lo + 1 < n ? lo + 1 : lo;
	double a = v[lo] * (1 - PQ_LOAD_REL_ERR) * (1 - 1e-12), b = v[hi] * (1 + PQ_LOAD_REL_ERR) * (1 + 1e-12);
	if (got < a || got > b)
		fail_msg("p%g: %.3f not in [%.3f, %.3f] (n %zu)", q, got, a, b, n);
}

/* Seeded samples spread over six decades (10 us .. 10 s in ns): small runs summarise
 * exactly as pq_stats does; large ones within the stated error, in bounded memory. */
static void acc_bounded_and_accurate(void **state)
{
	(void)state;
	const size_t sizes[] = {PQ_LOAD_EXACT_MAX, 1000000};
	pq_load_config cfg = {.rate = 0};
	for (size_t k = 0; k < 2; k++) {
		size_t n = sizes[k];
		double *v = malloc(n * sizeof *v);
		assert_non_null(v);
		pq_load_acc *a;
		assert_int_equal(pq_load_acc_new(&a, &cfg), 0);
		uint64_t x = 88172645463325252ull + k;
		pq_stats exact;
		pq_stats_init(&exact);
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
			double u = (double)(x >> 11) / 9007199254740992.0;
			v[i] = floor(1e4 * pow(10, 6 * u * u)); /* skewed towards the low end */
			pq_load_record r = sample(i + 1, PQ_LERR_NONE, "");
			/* latency = t[END] = i: grows through the run */
			r.intended_ns = r.start_ns = (int64_t)i;
			r.t[PQ_PH_HANDSHAKE] = (int64_t)v[i];
			r.t[PQ_PH_END] = (int64_t)i;
			assert_int_equal(pq_load_acc_add(a, &r), 0);
			assert_int_equal(pq_stats_add(&exact, v[i]), 0);
		}
		/* The stated bound, checked at its worst (every series past the exact part
		 * has its buckets; before, exact values up to PQ_LOAD_EXACT_MAX). */
		assert_true(pq_load_acc_bytes(a) < 2u << 20);
		pq_load_result res = {.wall_ns = PQ_NS_PER_S, .cpu_ns = 1};
		pq_load_summary s;
		assert_int_equal(pq_load_acc_finish(a, &res, &s), 0);
		pq_load_acc_free(a);
		pq_summary e;
		pq_stats_summary(&exact, &e);
		qsort(v, n, sizeof *v, cmp_dbl);
		const pq_summary *m = &s.phase[PQ_PH_HANDSHAKE];
		assert_int_equal(m->n, n);
		assert_true(m->min == e.min && m->max == e.max);
		if (n <= PQ_LOAD_EXACT_MAX) { /* exact: the same numbers, bit for bit */
			assert_true(m->p50 == e.p50 && m->p90 == e.p90 && m->p99 == e.p99 &&
				    m->p999 == e.p999 && m->mean == e.mean && m->sd == e.sd);
			/* the medians of 0 .. n/10-1 and of the last tenth */
			assert_true(s.latency_first_p50 == (double)(n / 10 - 1) / 2);
			assert_true(s.latency_last_p50 == (double)(n - 1) - (double)(n / 10 - 1) / 2);
		} else {
			assert_near_rank(v, n, 50, m->p50);
			assert_near_rank(v, n, 90, m->p90);
			assert_near_rank(v, n, 99, m->p99);
			assert_near_rank(v, n, 99.9, m->p999);
			assert_float_equal(m->mean, e.mean, e.mean * 1e-9);
			assert_float_equal(m->sd, e.sd, e.sd * 1e-6);
			/* Not exact any more: the buckets are visible somewhere. */
			assert_true(m->p50 != e.p50 || m->p90 != e.p90 || m->p99 != e.p99);
			/* The first and last tenths by intended start, from the sample, are
			 * within one sampling stride (n / PQ_LOAD_EXACT_MAX * 2) of the exact
			 * medians n/20 and n - n/20. */
			double stride = 2.0 * (double)n / PQ_LOAD_EXACT_MAX;
			assert_float_equal(s.latency_first_p50, (double)n / 20, stride);
			assert_float_equal(s.latency_last_p50, (double)n - (double)n / 20, stride);
		}
		pq_stats_dispose(&exact);
		free(v);
	}
}

/* A stream whose writes fail (a full disk) is reported, naming the output. */
static void out_check_write_error(void **state)
{
	(void)state;
	pq_load_out o = {.what = "--csv", .path = "full.csv"};
	o.f = fopen("/dev/full", "w");
	if (!o.f)
		skip();
	pq_diag d;
	assert_int_equal(pq_load_out_check(&o, &d), 0);
	pq_load_record r = sample(1, PQ_LERR_NONE, "");
	for (int i = 0; i < 200; i++) /* more than a stdio buffer: a write reaches the disk */
		pq_load_csv_row(o.f, &r);
	assert_true(pq_load_out_check(&o, &d) < 0);
	assert_non_null(strstr(d.msg, "--csv: cannot write full.csv: "));
	fclose(o.f);
}


/* The loop sleeps until the earliest thing due; unset times (0, INT64_MAX) are not due. */
static void due_min(void **state)
{
	(void)state;
	int64_t now = 5 * PQ_NS_PER_S, due = now + PQ_LOAD_IDLE_MAX_NS;
	assert_true(pq_load_due_min(due, 0) == due);         /* no deadline set */
	assert_true(pq_load_due_min(due, -1) == due);
	assert_true(pq_load_due_min(due, INT64_MAX) == due); /* no QUIC timer */
	assert_true(pq_load_due_min(due, now + 1000) == now + 1000);
	assert_true(pq_load_due_min(due, now - 1000) == now - 1000); /* overdue: at once */
	assert_true(pq_load_due_min(due, due + 1) == due);
	assert_true(PQ_LOAD_IDLE_MAX_NS <= PQ_NS_PER_S); /* a stop flag is seen within a second */
}

int main(void)
{
	/* As main.c does: a peer closing mid-write must give EPIPE, not end the test. */
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(due_min),
		cmocka_unit_test(arrival_constant_and_poisson),
		cmocka_unit_test(writers),
		cmocka_unit_test(names),
		cmocka_unit_test(summary),
		cmocka_unit_test(summary_nothing_ok),
		cmocka_unit_test(run_plain_tcp_peer),
		cmocka_unit_test(run_stalling_peer),
		cmocka_unit_test(run_sink_and_no_keep),
		cmocka_unit_test(acc_bounded_and_accurate),
		cmocka_unit_test(out_check_write_error),
		cmocka_unit_test(run_resetting_peer),
		cmocka_unit_test(run_refused_and_bad_config),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
