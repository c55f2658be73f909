/* The link's pure parts: configuration checks, profiles, netem command lines, and the
 * parsers of /proc and tc output. Nothing here needs root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <cmocka.h>

#include "core/buf.h"
#include "net/check.h"
#include "net/link.h"
#include "net/linkcfg.h"
#include "net/listen.h"
#include "net/netem.h"
#include "net/ns.h"
#include "net/profile.h"
#include "net/sh.h"
#include "net/tun.h"

#define MS 1000000LL

static void config_defaults_valid(void **state)
{
	(void)state;
	pq_link_config c;
	pq_link_config_init(&c);
	assert_int_equal(pq_link_config_validate(&c, NULL), 0);
	assert_int_equal(c.mtu, 1500);
	c.dir[0].delay_ns = c.dir[1].delay_ns = 35 * MS;
	assert_int_equal(pq_link_config_rtt_ns(&c), 70 * MS);
	char buf[256];
	pq_link_config_describe(&c, buf, sizeof buf);
	assert_non_null(strstr(buf, "rtt 70.0 ms"));
}

static void expect_bad(pq_link_config *c, const char *needle)
{
	pq_diag d;
	pq_diag_clear(&d);
	assert_true(pq_link_config_validate(c, &d) < 0);
	if (!strstr(pq_diag_msg(&d), needle))
		fail_msg("message '%s' lacks '%s'", pq_diag_msg(&d), needle);
}

static void config_rejects_bad_values(void **state)
{
	(void)state;
	pq_link_config c;
	pq_link_config_init(&c);
	c.dir[0].delay_ns = -1;
	expect_bad(&c, "uplink (client->server) delay");
	pq_link_config_init(&c);
	c.dir[1].delay_ns = 11LL * 1000 * MS;
	expect_bad(&c, "accepted: 0 to");
	pq_link_config_init(&c);
	c.dir[0].loss.p = 1.5;
	expect_bad(&c, "150% is not a probability");
	/* the loss model's inputs are named as the caller names them */
	static const pq_name spec_names[] = {{"burst_loss", "loss-model"}, {NULL, NULL}};
	pq_link_config_init(&c);
	c.names = spec_names;
	c.dir[1].loss.ge_p = 2;
	expect_bad(&c, "downlink (server->client) loss-model p: 200% is not a probability");
	c.dir[1].loss.ge_p = 0.01;
	expect_bad(&c, "loss-model: r (bad -> good) must be above 0");
	pq_link_config_init(&c);
	c.mtu = 500;
	expect_bad(&c, "mtu: 500");
	pq_link_config_init(&c);
	c.dir[0].queue_pkts = 10;
	expect_bad(&c, "needs a rate");
	pq_link_config_init(&c);
	c.dir[1].rate_bps = 1; /* 1bit for 1Mbit: no packet would cross in time */
	expect_bad(&c, "1 bit/s is below the accepted 8 kbit/s");
	pq_link_config_init(&c);
	c.dir[0].rate_bps = 1000000;
	c.dir[0].queue_bytes = 100;
	expect_bad(&c, "cannot hold one 1500-byte packet");
	pq_link_config_init(&c);
	c.dir[0].loss.ge_p = 0.1;
	expect_bad(&c, "stays bad for ever");
	pq_link_config_init(&c);
	c.initcwnd = 5000;
	expect_bad(&c, "initcwnd: 5000");
	static const pq_name names[] = {{"initcwnd", "--initcwnd"}, {NULL, NULL}};
	c.names = names; /* the caller's names, when it gives them */
	expect_bad(&c, "--initcwnd: 5000");
}

static void profiles_apply(void **state)
{
	(void)state;
	pq_link_config c;
	assert_int_equal(pq_profile_apply("us-west", "profile", &c, NULL), 0);
	assert_int_equal(pq_link_config_rtt_ns(&c), 70 * MS);
	assert_string_equal(c.profile, "us-west");
	assert_int_equal(pq_profile_apply("trans-pacific", "profile", &c, NULL), 0);
	assert_int_equal(pq_link_config_rtt_ns(&c), 148 * MS);
	assert_int_equal(pq_profile_apply("aws-lossy", "profile", &c, NULL), 0);
	assert_true(c.dir[0].loss.p > 0 && c.dir[1].loss.p > 0);
	/* The aws-* profiles reorder (as the study's netem did) and say so in their entry;
	 * the lossy one asks for a longer server handshake timeout than the default 10 s. */
	assert_true(c.dir[0].reorder && c.dir[1].reorder);
	for (const pq_profile *p = pq_profiles; p->name; p++) {
		assert_int_equal(p->reorder, strncmp(p->name, "aws-", 4) == 0);
		assert_true(p->loss == 0 || p->serve_handshake_timeout_ns > 10000 * MS);
	}
	for (const pq_profile *p = pq_profiles; p->name; p++) {
		assert_int_equal(pq_profile_apply(p->name, "profile", &c, NULL), 0);
		assert_int_equal(pq_link_config_validate(&c, NULL), 0);
	}
	pq_diag d;
	assert_int_equal(pq_profile_apply("mars", "-p", &c, &d), PQ_EINVAL);
	assert_non_null(strstr(pq_diag_msg(&d), "-p: unknown profile")); /* the caller's name */
	assert_non_null(strstr(pq_diag_msg(&d), "unknown profile 'mars'"));
	assert_non_null(strstr(pq_diag_msg(&d), "same-az"));
}

/* The lateness budget (1 ms at p99): over it, a run's self-check says so. */
static void lateness_budget(void **state)
{
	(void)state;
	pq_link_stats st = {.backend = PQ_BACKEND_USERSPACE};
	st.late.n = 100;
	st.late.p99 = 900e3;
	assert_false(pq_link_stats_late_over(&st));
	st.late.p99 = 3.1e6;
	assert_true(pq_link_stats_late_over(&st));
	char line[512];
	pq_link_stats_format(&st, line, sizeof line);
	assert_non_null(strstr(line, "p99 3.1 ms"));
	st.backend = PQ_BACKEND_NETEM; /* netem has no forwarder to be late */
	assert_false(pq_link_stats_late_over(&st));
	st.backend = PQ_BACKEND_USERSPACE;
	st.late.n = 0;
	assert_false(pq_link_stats_late_over(&st));
}

static void netem_command_lines(void **state)
{
	(void)state;
	pq_netem_cmd c;
	char line[1024];
	pq_dir_cfg dc = {.delay_ns = 35 * MS};
	assert_int_equal(pq_netem_qdisc_cmd(&c, "ns-c", "pqv0", &dc, 1500, NULL, NULL), 0);
	pq_sh_join(c.argv, line, sizeof line);
	assert_string_equal(line, "tc -n ns-c qdisc replace dev pqv0 root netem limit 1000 delay 35000us");

	pq_dir_cfg all = {.delay_ns = 74 * MS, .jitter_ns = 2 * MS, .jitter_dist = PQ_DIST_PARETONORMAL,
			  .reorder = 1, .loss = {.p = 0.015}, .rate_bps = 20000000, .queue_bytes = 64 * 1024};
	assert_int_equal(pq_netem_qdisc_cmd(&c, "s", "pqv0", &all, 1500, NULL, NULL), 0);
	pq_sh_join(c.argv, line, sizeof line);
	assert_string_equal(line, "tc -n s qdisc replace dev pqv0 root netem limit 43 delay 74000us 2000us "
				  "distribution paretonormal loss random 1.5% rate 20000000bit");

	pq_dir_cfg ge = {.delay_ns = 1 * MS, .loss = {.ge_p = 0.01, .ge_r = 0.25, .loss_bad = 1, .loss_good = 0},
			 .rate_bps = 1000000, .queue_pkts = 50};
	assert_int_equal(pq_netem_qdisc_cmd(&c, "s", "pqv0", &ge, 1500, NULL, NULL), 0);
	pq_sh_join(c.argv, line, sizeof line);
	assert_string_equal(line, "tc -n s qdisc replace dev pqv0 root netem limit 50 delay 1000us loss gemodel "
				  "1% 25% 100% 0% rate 1000000bit");

	/* netem cannot keep order under jitter: refused, not silently different */
	pq_dir_cfg keep = {.delay_ns = 10 * MS, .jitter_ns = 1 * MS};
	pq_diag d;
	assert_int_equal(pq_netem_qdisc_cmd(&c, "s", "pqv0", &keep, 1500, NULL, &d), PQ_EUNSUPPORTED);
	assert_non_null(strstr(pq_diag_msg(&d), "use reorder to accept that, or backend userspace"));
	static const pq_name names[] = {{"reorder", "--reorder"}, {"backend", "--backend"}, {NULL, NULL}};
	assert_int_equal(pq_netem_qdisc_cmd(&c, "s", "pqv0", &keep, 1500, names, &d), PQ_EUNSUPPORTED);
	assert_non_null(strstr(pq_diag_msg(&d), "--backend userspace"));
	/* a burst as the unit of loss is the userspace forwarder's: refused naming what can */
	pq_dir_cfg burst = {.delay_ns = 10 * MS, .loss = {.p = 0.05, .unit = PQ_LOSS_UNIT_BURST}};
	static const pq_name unit_names[] = {{"loss_unit", "loss-unit"}, {"backend", "backend"}, {NULL, NULL}};
	assert_int_equal(pq_netem_qdisc_cmd(&c, "s", "pqv0", &burst, 1500, unit_names, &d), PQ_EUNSUPPORTED);
	assert_non_null(strstr(pq_diag_msg(&d), "loss-unit burst"));
	assert_non_null(strstr(pq_diag_msg(&d), "backend userspace emulates segment and burst"));

	pq_netem_veth_cmd(&c, "a-c", "a-s", "pqv0");
	pq_sh_join(c.argv, line, sizeof line);
	assert_string_equal(line, "ip -n a-c link add pqv0 type veth peer name pqv0 netns a-s");

	uint64_t b, p, dr;
	assert_int_equal(pq_netem_parse_stats("qdisc netem 8001: root refcnt 2 limit 1000 delay 35ms\n"
					      " Sent 12345 bytes 67 pkt (dropped 3, overlimits 0 requeues 0)\n",
					      &b, &p, &dr), 0);
	assert_int_equal(b, 12345);
	assert_int_equal(p, 67);
	assert_int_equal(dr, 3);
	assert_int_equal(pq_netem_parse_stats("nothing", &b, &p, &dr), PQ_EPARSE);
}

static void listen_parse(void **state)
{
	(void)state;
	const char *tcp =
		"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
		"   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1\n"
		"   1: 0200004D:1151 0100004D:C350 01 00000000:00000000 00:00000000 00000000     0        0 2 1\n";
	assert_int_equal(pq_listen_parse(tcp, 8080, 0), 1);
	assert_int_equal(pq_listen_parse(tcp, 4433, 0), 0); /* established, not listening */
	assert_int_equal(pq_listen_parse(tcp, 5201, 0), 0);
	const char *tcp6 =
		"  sl  local_address                         remote_address                        st\n"
		"   0: 00000000000000000000000000000000:1151 00000000000000000000000000000000:0000 0A 0\n";
	assert_int_equal(pq_listen_parse(tcp6, 4433, 0), 1);
	assert_int_equal(pq_listen_parse("", 1, 0), 0);
	/* UDP: a bound, unconnected socket reads 07; a connected one (01) is a client's. */
	const char *udp =
		"   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n"
		"  100: 0200004D:1151 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 3 2 0 0\n"
		"  101: 0100004D:C350 0200004D:1151 01 00000000:00000000 00:00000000 00000000     0        0 4 2 0 0\n";
	assert_int_equal(pq_listen_parse(udp, 4433, 1), 1);
	assert_int_equal(pq_listen_parse(udp, 50000, 1), 0);
	assert_int_equal(pq_listen_parse(udp, 4433, 0), 0); /* not a TCP listener */
	assert_int_equal(pq_listen_parse(tcp, 8080, 1), 0);
}

static void tun_counters(void **state)
{
	(void)state;
	const char *dev = "Inter-|   Receive                                                |  Transmit\n"
			  " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop "
			  "fifo colls carrier compressed\n"
			  "    lo:       0       0    0    0    0     0          0         0        0       0    0    0 "
			  "   0     0       0          0\n"
			  "   pq0: 1000      10    0    2    0     0          0         0     3000      30    0    7 "
			  "   0     0       0          0\n";
	pq_tun_counters c;
	assert_int_equal(pq_tun_counters_parse(dev, "pq0", &c), 0);
	assert_int_equal(c.rx_packets, 10);
	assert_int_equal(c.rx_dropped, 2);
	assert_int_equal(c.tx_packets, 30);
	assert_int_equal(c.tx_dropped, 7);
	assert_int_equal(pq_tun_counters_parse(dev, "eth9", &c), PQ_EINVAL);
}

static void ns_names(void **state)
{
	(void)state;
	pid_t pid;
	unsigned n;
	char side;
	assert_int_equal(pq_ns_parse_name("pqtls-1234-7-s", &pid, &n, &side), 0);
	assert_int_equal(pid, 1234);
	assert_int_equal(n, 7);
	assert_int_equal(side, 's');
	assert_int_equal(pq_ns_parse_name("pqtls-1234-7-x", &pid, &n, &side), PQ_EINVAL);
	assert_int_equal(pq_ns_parse_name("pqtls-1234-7-cc", &pid, &n, &side), PQ_EINVAL);
	assert_int_equal(pq_ns_parse_name("other-1-1-c", &pid, &n, &side), PQ_EINVAL);
	assert_int_equal(pq_ns_parse_name("pqtls-0-1-c", &pid, &n, &side), PQ_EINVAL);
}

static void wilson_interval(void **state)
{
	(void)state;
	double lo, hi;
	pq_check_wilson(100, 10000, &lo, &hi); /* 1 % of 10000 */
	assert_true(lo > 0.0075 && lo < 0.01);
	assert_true(hi > 0.01 && hi < 0.0130);
	pq_check_wilson(0, 1000, &lo, &hi);
	assert_true(lo == 0 && hi > 0 && hi < 0.01);
	pq_check_wilson(0, 0, &lo, &hi);
	assert_true(lo == 0 && hi == 1);
}

static void sh_failure_quotes_command(void **state)
{
	(void)state;
	char *ok[] = {"true", NULL};
	assert_int_equal(pq_sh_run(ok, NULL, NULL, NULL), 0);
	char *cat[] = {"cat", NULL};
	pq_buf out;
	pq_buf_init(&out, 1024);
	assert_int_equal(pq_sh_run(cat, "hello\n", &out, NULL), 0);
	assert_string_equal(pq_buf_str(&out), "hello\n");
	pq_buf_dispose(&out);
	char *bad[] = {"sh", "-c", "echo nope >&2; exit 3", NULL};
	pq_diag d;
	assert_int_equal(pq_sh_run(bad, NULL, NULL, &d), PQ_ECHILD);
	assert_non_null(strstr(pq_diag_msg(&d), "'sh -c echo nope >&2; exit 3'"));
	assert_non_null(strstr(pq_diag_msg(&d), "nope"));
	/* a tool that cannot be started is named with the reason, before anything ran */
	char *missing[] = {"/nonexistent/tool", NULL};
	assert_int_equal(pq_sh_run(missing, NULL, NULL, &d), PQ_ECHILD);
	assert_string_equal(pq_diag_msg(&d), "cannot run /nonexistent/tool: No such file or directory");
	char *unknown[] = {"pqtls-no-such-tool", NULL};
	assert_int_equal(pq_sh_run(unknown, NULL, NULL, &d), PQ_ECHILD);
	assert_non_null(strstr(pq_diag_msg(&d), "cannot run pqtls-no-such-tool"));
	/* pqtls ignores SIGPIPE (main.c); the tool gets the default back, as from a shell: a
	 * shell that inherited it ignored could not take it back, and would live on here */
	void (*was)(int) = signal(SIGPIPE, SIG_IGN);
	char *pipe_kill[] = {"sh", "-c", "kill -PIPE $$; exit 0", NULL};
	assert_int_equal(pq_sh_run(pipe_kill, NULL, NULL, &d), PQ_ECHILD);
	signal(SIGPIPE, was);
}

/* One RTT split: the halves add up to the RTT, the odd nanosecond going client->server. */
static void rtt_split(void **state)
{
	(void)state;
	pq_link_config c;
	pq_link_config_init(&c);
	pq_link_config_set_rtt(&c, 70 * MS + 1);
	assert_int_equal(pq_link_config_rtt_ns(&c), 70 * MS + 1);
	assert_int_equal(c.dir[PQ_DIR_C2S].delay_ns, 35 * MS + 1);
	assert_int_equal(c.dir[PQ_DIR_S2C].delay_ns, 35 * MS);
	assert_int_equal(pq_profile_apply("us-west", "profile", &c, NULL), 0);
	assert_int_equal(c.dir[PQ_DIR_C2S].delay_ns, c.dir[PQ_DIR_S2C].delay_ns);
}

static void queue_and_burst_parsing(void **state)
{
	(void)state;
	pq_dir_cfg dc = {0};
	pq_diag d;
	assert_int_equal(pq_linkcfg_parse_queue("100p", "q", &dc, &d), 0);
	assert_int_equal(dc.queue_pkts, 100);
	assert_int_equal(pq_linkcfg_parse_queue("64KiB", "q", &dc, &d), 0);
	assert_int_equal(dc.queue_bytes, 65536);
	assert_int_equal(dc.queue_pkts, 0); /* one limit at a time */
	assert_int_equal(pq_linkcfg_parse_queue("20packets", "q", &dc, &d), 0);
	assert_int_equal(dc.queue_pkts, 20);
	assert_int_equal(dc.queue_bytes, 0);
	assert_int_equal(pq_linkcfg_parse_queue("0p", "--queue", &dc, &d), PQ_ERANGE);
	assert_non_null(strstr(d.msg, "--queue: '0p' is out of range"));
	assert_int_equal(pq_linkcfg_parse_queue("lots", "--queue", &dc, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "neither a size"));
	assert_int_equal(pq_linkcfg_parse_queue("0", "--queue", &dc, &d), PQ_ERANGE);

	pq_loss_cfg l = {.p = 0.5};
	assert_int_equal(pq_linkcfg_parse_burst("1%,25%", "b", &l, &d), 0);
	assert_float_equal(l.p, 0, 1e-12);
	assert_float_equal(l.ge_p, 0.01, 1e-12);
	assert_float_equal(l.ge_r, 0.25, 1e-12);
	assert_float_equal(l.loss_bad, 1, 1e-12);
	assert_float_equal(l.loss_good, 0, 1e-12);
	assert_int_equal(pq_linkcfg_parse_burst("1%,25%,50%,1%", "b", &l, &d), 0);
	assert_float_equal(l.loss_bad, 0.5, 1e-12);
	assert_float_equal(l.loss_good, 0.01, 1e-12);
	assert_int_equal(pq_linkcfg_parse_burst("1%", "--burst-loss", &l, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "--burst-loss: '1%' needs at least P and R"));
	assert_int_equal(pq_linkcfg_parse_burst("1%,2%,3%,4%,5%", "--burst-loss", &l, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "more than 4 values"));
	assert_int_equal(pq_linkcfg_parse_burst("1%,x", "--burst-loss", &l, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "'x' is not a probability"));
}

/* A fast link: 100 Mbit/s or more in either direction; no rate limit is not fast (the
 * forwarder is then as fast as the machine, and nothing paces it). */
static void fast_links(void **state)
{
	(void)state;
	pq_link_config c;
	pq_link_config_init(&c);
	assert_false(pq_link_config_fast(&c));
	c.dir[PQ_DIR_S2C].rate_bps = PQ_LINK_FAST_BPS - 1;
	assert_false(pq_link_config_fast(&c));
	c.dir[PQ_DIR_C2S].rate_bps = PQ_LINK_FAST_BPS;
	assert_true(pq_link_config_fast(&c));
	c.dir[PQ_DIR_C2S].rate_bps = 1000000;
	c.dir[PQ_DIR_S2C].rate_bps = 1000000000ULL;
	assert_true(pq_link_config_fast(&c));
}

/* Whether netem is usable is asked once per process: a second question, in a namespace
 * that does not exist either and with no `tc` on the PATH, gets the first answer and its
 * why, and starts nothing. */
static void netem_probe_once(void **state)
{
	(void)state;
	pq_diag d1, d2;
	pq_diag_clear(&d1);
	pq_diag_clear(&d2);
	assert_int_equal(pq_netem_available("pqtls-test-no-such-ns-1", &d1), 0);
	assert_true(d1.msg[0] != '\0');
	const char *old = getenv("PATH");
	char *saved = old ? strdup(old) : NULL;
	assert_int_equal(setenv("PATH", "/nonexistent", 1), 0);
	assert_int_equal(pq_netem_available("pqtls-test-no-such-ns-2", &d2), 0);
	if (saved) {
		assert_int_equal(setenv("PATH", saved, 1), 0);
		free(saved);
	}
	assert_string_equal(d2.msg, d1.msg);
	assert_null(strstr(d2.msg, "no-such-ns-2"));
	assert_int_equal(d2.code, d1.code);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(config_defaults_valid), cmocka_unit_test(config_rejects_bad_values),
		cmocka_unit_test(profiles_apply),	 cmocka_unit_test(netem_command_lines),
		cmocka_unit_test(listen_parse),		 cmocka_unit_test(tun_counters),
		cmocka_unit_test(ns_names),		 cmocka_unit_test(wilson_interval),
		cmocka_unit_test(sh_failure_quotes_command), cmocka_unit_test(rtt_split),
		cmocka_unit_test(lateness_budget),
		cmocka_unit_test(queue_and_burst_parsing),
		cmocka_unit_test(fast_links),
		cmocka_unit_test(netem_probe_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
