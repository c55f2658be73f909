/* The kernel TCP settings' pure parts (net/ktcp.h): validation against what a kernel
 * offers, the parsers of tc and ip output, and the read-back line. Nothing here needs
 * root; tests/integration/link_ktcp.sh sets and reads back on a real link. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "net/ktcp.h"
#include "net/linkcfg.h"

/* This VM's kernel: no fq, no fq_codel, BBR the default. */
static const pq_ktcp_caps caps_here = {"reno bbr cubic", "bbr", "pfifo_fast pfifo bfifo noqueue"};

static void expect_refused(const pq_ktcp_cfg *c, const char *cc, const pq_ktcp_caps *caps, int code,
			   const char *needle)
{
	static const pq_name names[] = {{"cc", "--cc"}, {"qdisc", "--qdisc"}, {NULL, NULL}};
	pq_diag d;
	pq_diag_clear(&d);
	assert_int_equal(pq_ktcp_validate(c, cc, caps, names, &d), code);
	if (!strstr(pq_diag_msg(&d), needle))
		fail_msg("message '%s' lacks '%s'", pq_diag_msg(&d), needle);
}

static void in_list_whole_words(void **state)
{
	(void)state;
	assert_true(pq_ktcp_in_list("reno bbr cubic", "bbr"));
	assert_true(pq_ktcp_in_list("reno bbr cubic", "cubic"));
	assert_true(pq_ktcp_in_list("reno bbr cubic\n", "cubic"));
	assert_false(pq_ktcp_in_list("reno bbr cubic", "bb"));
	assert_false(pq_ktcp_in_list("reno bbr2 cubic", "bbr"));
	assert_false(pq_ktcp_in_list("pfifo_fast", "pfifo"));
	assert_false(pq_ktcp_in_list("reno", ""));
}

static void validate_accepts_what_the_kernel_has(void **state)
{
	(void)state;
	pq_ktcp_cfg c;
	pq_ktcp_cfg_init(&c);
	assert_int_equal(pq_ktcp_validate(&c, NULL, &caps_here, NULL, NULL), 0);
	assert_int_equal(pq_ktcp_validate(&c, "cubic", &caps_here, NULL, NULL), 0);
	snprintf(c.qdisc, sizeof c.qdisc, "pfifo_fast");
	c.pacing_ss_ratio = 0;
	c.pacing_ca_ratio = 1000;
	assert_int_equal(pq_ktcp_validate(&c, "bbr", &caps_here, NULL, NULL), 0);
}

static void validate_refuses_unknown_cc(void **state)
{
	(void)state;
	pq_ktcp_cfg c;
	pq_ktcp_cfg_init(&c);
	/* A kernel without BBR (reno and cubic only): the message lists what it has. */
	const pq_ktcp_caps no_bbr = {"reno cubic", "cubic", "pfifo_fast"};
	expect_refused(&c, "bbr", &no_bbr, PQ_EUNSUPPORTED, "--cc: this kernel has no congestion control 'bbr' "
			"(it offers: reno cubic, in /proc/sys/net/ipv4/tcp_available_congestion_control)");
	expect_refused(&c, "vegas", &caps_here, PQ_EUNSUPPORTED, "it offers: reno bbr cubic");
}

static void validate_refuses_missing_qdisc(void **state)
{
	(void)state;
	pq_ktcp_cfg c;
	pq_ktcp_cfg_init(&c);
	snprintf(c.qdisc, sizeof c.qdisc, "fq");
	expect_refused(&c, NULL, &caps_here, PQ_EUNSUPPORTED,
		       "--qdisc: this kernel has no 'fq' qdisc (it offers: pfifo_fast pfifo bfifo noqueue)");
	snprintf(c.qdisc, sizeof c.qdisc, "fq_codel");
	expect_refused(&c, "cubic", &caps_here, PQ_EUNSUPPORTED, "no 'fq_codel' qdisc");
	/* Not a kind pqtls sets at all: named with the kinds it does. */
	snprintf(c.qdisc, sizeof c.qdisc, "htb");
	expect_refused(&c, NULL, &caps_here, PQ_EINVAL, "'htb' is not a qdisc pqtls sets (accepted: pfifo_fast");
}

static void ratios_checked_everywhere(void **state)
{
	(void)state;
	pq_ktcp_cfg c;
	pq_ktcp_cfg_init(&c);
	c.pacing_ss_ratio = 1001;
	expect_refused(&c, NULL, &caps_here, PQ_ERANGE, "1001% is out of range (accepted: 0% to 1000%");
	/* The link's own validator asks the same check. */
	pq_link_config lc;
	pq_link_config_init(&lc);
	assert_int_equal(pq_link_config_validate(&lc, NULL), 0);
	lc.tcp.pacing_ca_ratio = -5;
	pq_diag d;
	pq_diag_clear(&d);
	assert_int_equal(pq_link_config_validate(&lc, &d), PQ_ERANGE);
	assert_non_null(strstr(pq_diag_msg(&d), "pacing_ca_ratio: -5%"));
}

static void parse_tc_and_ip(void **state)
{
	(void)state;
	char kind[16] = "";
	assert_int_equal(pq_ktcp_parse_qdisc("qdisc pfifo_fast 0: root refcnt 2 bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 "
					     "1 1 1 1 1\n",
					     kind, sizeof kind),
			 0);
	assert_string_equal(kind, "pfifo_fast");
	assert_int_equal(pq_ktcp_parse_qdisc("qdisc ingress ffff: parent ffff:fff1 ----------------\n"
					     "qdisc noqueue 0: root refcnt 2\n",
					     kind, sizeof kind),
			 0);
	assert_string_equal(kind, "noqueue");
	assert_int_equal(pq_ktcp_parse_qdisc("qdisc ingress ffff: parent ffff:fff1\n", kind, sizeof kind), PQ_EPARSE);
	assert_int_equal(pq_ktcp_parse_qdisc("", kind, sizeof kind), PQ_EPARSE);
	const char *route = "10.77.0.2 dev pq0 scope link src 10.77.0.1 quickack 1 congctl cubic \n";
	assert_int_equal(pq_ktcp_parse_route_metric(route, "quickack"), 1);
	assert_int_equal(pq_ktcp_parse_route_metric("10.77.0.1 dev pq0 src 10.77.0.2 initcwnd 20 \n", "initcwnd"), 20);
	assert_int_equal(pq_ktcp_parse_route_metric("10.77.0.2 dev pq0 scope link src 10.77.0.1 \n", "quickack"), 0);
}

static void describe_and_format(void **state)
{
	(void)state;
	pq_ktcp_cfg c;
	pq_ktcp_cfg_init(&c);
	char buf[256] = "rtt 50.0 ms";
	pq_ktcp_cfg_describe(&c, buf, sizeof buf);
	assert_string_equal(buf, "rtt 50.0 ms");
	c.pacing_ss_ratio = 100;
	c.quickack = PQ_KTCP_ON;
	c.gso = PQ_KTCP_OFF;
	pq_ktcp_cfg_describe(&c, buf, sizeof buf);
	assert_string_equal(buf, "rtt 50.0 ms, pacing 100% in slow start, quickack on, gso off");
	pq_ktcp_state s = {.cc = "cubic", .initcwnd = 10, .mss = 1448, .pacing_bps = 579200, .qdisc = "pfifo_fast",
			   .pacing_ss_ratio = 200, .pacing_ca_ratio = 120, .quickack = 0,
			   .tso = {0, 0}, .gso = {1, 1}};
	pq_ktcp_state_format(&s, buf, sizeof buf);
	assert_non_null(strstr(buf, "cc cubic, initcwnd 10, mss 1448, pacing rate 579.2 kB/s, qdisc pfifo_fast, "
				    "pacing 200%/120%"));
	assert_non_null(strstr(buf, "tso off/off, gso on/on"));
	s.client_rwnd = 64512;
	s.client_rmem[0] = 4096;
	s.client_rmem[1] = 131072;
	s.client_rmem[2] = 33554432;
	pq_ktcp_state_format(&s, buf, sizeof buf);
	assert_non_null(strstr(buf, "client rwnd 64512 (tcp_rmem 4096 131072 33554432)"));
}

/* tcp_rmem as /proc reads it; anything but exactly the integers asked for is refused. */
static void parse_ints(void **state)
{
	(void)state;
	int v[3] = {0};
	assert_int_equal(pq_ktcp_parse_ints("4096\t131072\t33554432\n", v, 3), 0);
	assert_int_equal(v[0], 4096);
	assert_int_equal(v[1], 131072);
	assert_int_equal(v[2], 33554432);
	assert_int_equal(pq_ktcp_parse_ints("4096 131072\n", v, 3), PQ_EPARSE);
	assert_int_equal(pq_ktcp_parse_ints("4096 131072 6291456 7", v, 3), PQ_EPARSE);
	assert_int_equal(pq_ktcp_parse_ints("4096 x 6291456", v, 3), PQ_EPARSE);
	assert_int_equal(pq_ktcp_parse_ints("", v, 1), PQ_EPARSE);
	assert_int_equal(pq_ktcp_parse_ints("99999999999", v, 1), PQ_EPARSE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(in_list_whole_words),
		cmocka_unit_test(validate_accepts_what_the_kernel_has),
		cmocka_unit_test(validate_refuses_unknown_cc),
		cmocka_unit_test(validate_refuses_missing_qdisc),
		cmocka_unit_test(ratios_checked_everywhere),
		cmocka_unit_test(parse_tc_and_ip),
		cmocka_unit_test(describe_and_format),
		cmocka_unit_test(parse_ints),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
