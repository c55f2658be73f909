/* The self-check's verdict (net/check.c, pq_check_judge) from made-up measurements: the
 * probe's RTT samples and the link's own accounting are injected, so what is judged and
 * what is only reported can be told apart without a link or a clock. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/clock.h"
#include "net/check.h"

#define RTT (70 * PQ_NS_PER_MS)

/* A 70 ms link without jitter, rate or loss. */
static void config(pq_link_config *c)
{
	pq_link_config_init(c);
	c->dir[0].delay_ns = c->dir[1].delay_ns = RTT / 2;
}

/* `n` echo samples, 20 us over the RTT but `bad` of them `tail_ns` over it, into r's
 * kernel-timed RTT (seen 0: what the link took) or the probe's own view (seen 1). */
static void samples(pq_check_result *r, int seen, int n, int bad, int64_t tail_ns)
{
	pq_stats s;
	pq_stats_init(&s);
	for (int i = 0; i < n; i++)
		assert_int_equal(pq_stats_add(&s, (double)(RTT + (i < bad ? tail_ns : 20 * PQ_NS_PER_US))), 0);
	r->rtt_cfg_ns = RTT;
	if (seen)
		pq_check_probe_from(r, &s);
	else
		pq_check_rtt_from(r, &s);
	pq_stats_dispose(&s);
}

/* The echo: the link's RTT as given, and the probe's own view the same. */
static void probe(pq_check_result *r, int n, int bad, int64_t tail_ns)
{
	samples(r, 0, n, bad, tail_ns);
	samples(r, 1, n, bad, tail_ns);
}

/* The forwarder's accounting: `n` releases per direction, `late_p99` at p99. */
static void link_window(pq_check_result *r, uint64_t n, double late_p99)
{
	r->link.late_known = 1;
	r->link.late.n = (size_t)(2 * n);
	r->link.late.p50 = 2000;
	r->link.late.p99 = late_p99;
	r->link.late.max = late_p99 * 3;
	for (int i = 0; i < 2; i++)
		r->link.dir[i].pkts_in = r->link.dir[i].pkts_out = n;
}

/* A 70 ms link's check: the echo as probe(), the link's accounting as link_window()
 * (releases 0: none kept, as netem). */
static void measured(pq_link_config *c, pq_check_result *r, int echoes, int bad, int64_t tail_ns,
		     uint64_t releases, double late_p99)
{
	config(c);
	memset(r, 0, sizeof *r);
	probe(r, echoes, bad, tail_ns);
	if (releases)
		link_window(r, releases, late_p99);
}

/* The case: the probe saw its p99 21 ms over the median (the host was
 * descheduled), the kernel's times and the link's accounts say the link held: the link
 * passes, and the tail is still shown. */
static void a_bad_probe_tail_on_a_good_link_passes(void **state)
{
	(void)state;
	pq_link_config c;
	pq_check_result r;
	char line[1024];
	measured(&c, &r, 200, 0, 0, 200, 40e3);
	samples(&r, 1, 200, 6, 21 * PQ_NS_PER_MS);
	r.host_steal = 0.20;
	r.runq_before = 4;
	r.runq_after = 6;
	assert_true(pq_check_probe_tail_ns(&r) > 20 * PQ_NS_PER_MS);
	pq_check_judge(&r, &c, NULL);
	assert_true(r.rtt_judged);
	assert_true(r.rtt_ok);
	assert_int_equal(r.link_ok, 1);
	assert_true(r.ok);
	pq_check_format(&r, line, sizeof line);
	assert_non_null(strstr(line, "host (not judged): the probe saw median +0.000 ms, p99 +20.980 ms over the link's median"));
	assert_non_null(strstr(line, "steal 20.0%"));
	assert_non_null(strstr(line, "run queue 4 -> 6"));
	assert_non_null(strstr(line, "within budget"));
}

/* A probe starved for CPU sees even its median late (here +84 ms, as a make run on this VM
 * did at 148 ms with a run queue of 22): the kernel's times are what is judged, so the
 * link passes. */
static void a_starved_probes_median_is_noise(void **state)
{
	(void)state;
	pq_link_config c;
	pq_check_result r;
	measured(&c, &r, 200, 0, 0, 200, 40e3);
	samples(&r, 1, 200, 150, 84 * PQ_NS_PER_MS);
	pq_check_judge(&r, &c, NULL);
	assert_true(r.probe_p50_ns > (double)(RTT + 80 * PQ_NS_PER_MS));
	assert_true(r.rtt_ok);
	assert_true(r.ok);
}

/* The link's own lateness over the budget fails the check, however good the probe. */
static void the_links_lateness_is_judged(void **state)
{
	(void)state;
	pq_link_config c;
	pq_check_result r;
	char line[1024];
	measured(&c, &r, 200, 0, 0, 200, 1.5e6);
	pq_check_judge(&r, &c, NULL);
	assert_true(r.rtt_ok);
	assert_int_equal(r.link_ok, 0);
	assert_false(r.ok);
	assert_non_null(strstr(r.link_why, "release lateness p99 1.5 ms over the 1.0 ms budget"));
	pq_check_format(&r, line, sizeof line);
	assert_non_null(strstr(line, "LINK MISSED ITS BUDGET"));
	/* just within */
	link_window(&r, 200, (double)PQ_LINK_LATE_BUDGET_NS);
	pq_check_judge(&r, &c, NULL);
	assert_true(r.ok);
}

/* An unplanned drop (a TUN queue, the buffer pool) fails it; configured loss and queue
 * overflows do not. */
static void unplanned_drops_fail_planned_ones_do_not(void **state)
{
	(void)state;
	pq_link_config c;
	pq_check_result r;
	measured(&c, &r, 200, 0, 0, 200, 30e3);
	r.link.dir[1].drop_queue = 7;
	pq_check_judge(&r, &c, NULL);
	assert_true(r.ok);
	r.link.dir[0].drop_unplanned = 1;
	pq_check_judge(&r, &c, NULL);
	assert_false(r.ok);
	assert_non_null(strstr(r.link_why, "1 unplanned drops"));
}

/* A 1 Gbit/s link's rate: 990 Mbit/s delivered of 1.5 Gbit/s offered is within 3 %; 950 is
 * a miss, and so is an unknown offer (0); 950 delivered of the 960 a probe starved of a CPU
 * could offer is within (judged against what was offered, which the line says), 198 of 509
 * is not (a forwarder starved too, its queue overflowing), nor is 1.05 Gbit/s however
 * little was offered. */
static void a_starved_probes_offer_is_the_rate_judged(void **state)
{
	(void)state;
	pq_link_config c;
	pq_check_result r;
	measured(&c, &r, 200, 0, 0, 200, 30e3);
	c.dir[1].rate_bps = 1000000000ULL;
	r.dir[1].measured_rate = 1;
	r.dir[1].rate_bps = 990e6;
	r.dir[1].offered_bps = 1.5e9;
	pq_check_judge(&r, &c, NULL);
	assert_false(r.dir[1].offered_short);
	assert_true(r.dir[1].rate_ok);
	assert_true(r.ok);
	r.dir[1].rate_bps = 950e6;
	pq_check_judge(&r, &c, NULL);
	assert_false(r.ok);
	r.dir[1].offered_bps = 0;
	pq_check_judge(&r, &c, NULL);
	assert_false(r.ok);
	r.dir[1].offered_bps = 960e6;
	pq_check_judge(&r, &c, NULL);
	assert_true(r.dir[1].offered_short);
	assert_true(r.ok);
	char line[1024];
	pq_check_format(&r, line, sizeof line);
	assert_non_null(strstr(line, "rate down 950.000 Mbit/s (-5.00%; the probe, starved of a CPU, offered only 960.000 "
				     "Mbit/s: judged against that) OK"));
	r.dir[1].rate_bps = 198e6;
	r.dir[1].offered_bps = 509e6;
	pq_check_judge(&r, &c, NULL);
	assert_false(r.ok);
	pq_check_format(&r, line, sizeof line);
	assert_non_null(strstr(line, "judged against that) MISSED"));
	r.dir[1].rate_bps = 1.05e9;
	pq_check_judge(&r, &c, NULL);
	assert_false(r.ok);
}

/* The rate from arrivals: 1500-byte packets every 12 us are 1 Gbit/s to the bit; a push
 * whose first and last 40 ms came at half the rate (a jittery link spreading its ends)
 * reads low unless those ends are left out; too short a span keeps them; under two
 * arrivals, nothing. */
/* A direction is pushed for a second, a fast one (the forwarder busy throughout) for
 * PQ_CHECK_FAST_PUSH_NS, under the kernel's 950 ms; a length asked for is kept. */
static void the_push_is_short_on_fast_links(void **state)
{
	(void)state;
	assert_int_equal(pq_check_push_ns(0, 1000000), PQ_NS_PER_S);
	assert_int_equal(pq_check_push_ns(0, PQ_LINK_FAST_BPS - 1), PQ_NS_PER_S);
	assert_int_equal(pq_check_push_ns(0, PQ_LINK_FAST_BPS), PQ_CHECK_FAST_PUSH_NS);
	assert_int_equal(pq_check_push_ns(0, 1000000000ULL), PQ_CHECK_FAST_PUSH_NS);
	assert_true(PQ_CHECK_FAST_PUSH_NS < 950 * PQ_NS_PER_MS);
	assert_int_equal(pq_check_push_ns(250 * PQ_NS_PER_MS, 1000000000ULL), 250 * PQ_NS_PER_MS);
	pq_check_opts o;
	pq_check_opts_init(&o);
	assert_int_equal(o.rate_ns, 0);
}

static void the_rate_leaves_out_the_pushs_ends(void **state)
{
	(void)state;
	enum { N = 90000 };
	int64_t *t = malloc(N * sizeof *t);
	uint64_t *b = malloc(N * sizeof *b);
	assert_non_null(t);
	assert_non_null(b);
	for (size_t i = 0; i < N; i++) {
		t[i] = (int64_t)i * 12000;
		b[i] = 1500;
	}
	assert_float_equal(pq_check_rate_from_arrivals(t, b, N, 0), 1e9, 1e-3);
	/* spread the ends: the first and last 40 ms of packets at half the rate */
	size_t k = 40000000 / 24000, n = 0;
	int64_t now = 0;
	for (size_t i = 0; i < N; i++) {
		int edge = i < k || i >= N - k;
		t[n] = now;
		b[n++] = 1500;
		now += edge ? 24000 : 12000;
	}
	double whole = pq_check_rate_from_arrivals(t, b, n, 0);
	assert_true(whole < 0.97e9);
	assert_float_equal(pq_check_rate_from_arrivals(t, b, n, 40000000), 1e9, 1e6); /* within 0.1 % */
	/* a 0.5 ms push with 1 ms ends: kept */
	assert_float_equal(pq_check_rate_from_arrivals(t, b, 42, 1000000), pq_check_rate_from_arrivals(t, b, 42, 0), 1e-9);
	assert_true(pq_check_rate_from_arrivals(t, b, 1, 0) == 0);
	free(t);
	free(b);
}

/* The probe's median is still judged: a link 1 ms long is wrong whatever the forwarder says. */
static void the_probes_median_is_judged(void **state)
{
	(void)state;
	pq_link_config c;
	pq_check_result r;
	measured(&c, &r, 200, 150, PQ_NS_PER_MS, 200, 30e3);
	pq_check_judge(&r, &c, NULL);
	assert_false(r.rtt_ok);
	assert_false(r.ok);
}

/* Loss: with the link's accounting, what the loss stage dropped is compared with the
 * configured rate (1 % of 20000 packets: inside; 3 %: outside), not the probes. */
static void loss_counted_by_the_link(void **state)
{
	(void)state;
	pq_link_config c;
	pq_check_result r;
	measured(&c, &r, 200, 0, 0, 20000, 30e3);
	c.dir[0].loss.p = 0.01;
	r.dir[0].probes_sent = 4000;
	r.dir[0].probes_got = 3000; /* the probes alone would say 25 % */
	r.link.dir[0].drop_loss = 205;
	pq_check_judge(&r, &c, NULL);
	assert_true(r.dir[0].measured_loss);
	assert_true(r.dir[0].loss_by_link);
	assert_float_equal(r.dir[0].loss, 205.0 / 20000, 1e-12);
	assert_true(r.dir[0].loss_ok);
	assert_true(r.ok);
	r.link.dir[0].drop_loss = 600;
	pq_check_judge(&r, &c, NULL);
	assert_false(r.dir[0].loss_ok);
	assert_false(r.ok);
}

/* Without the link's accounting (netem keeps no schedule): the probes count the loss, a
 * lost echo on a lossless link fails, and the link's verdict is "not known", not a pass. */
static void without_accounting_the_probes_decide(void **state)
{
	(void)state;
	pq_link_config c;
	pq_check_result r;
	char line[1024];
	measured(&c, &r, 199, 0, 0, 0, 0);
	r.backend = PQ_BACKEND_NETEM;
	r.rtt_lost = 1;
	pq_check_judge(&r, &c, NULL);
	assert_int_equal(r.link_ok, -1);
	assert_false(r.rtt_ok);
	r.rtt_lost = 0;
	pq_check_judge(&r, &c, NULL);
	assert_true(r.ok);
	pq_check_format(&r, line, sizeof line);
	assert_non_null(strstr(line, "lateness not kept by the netem backend"));
	c.dir[1].loss.p = 0.05;
	r.dir[1].probes_sent = 4000;
	r.dir[1].probes_got = 3800;
	pq_check_judge(&r, &c, NULL);
	assert_false(r.dir[1].loss_by_link);
	assert_true(r.dir[1].loss_ok);
}

/* No echo came back at all: nothing to judge the RTT by, so it fails. */
static void no_echo_fails(void **state)
{
	(void)state;
	pq_link_config c;
	pq_check_result r;
	measured(&c, &r, 0, 0, 0, 200, 30e3);
	r.rtt_lost = 200;
	pq_check_judge(&r, &c, NULL);
	assert_false(r.ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_bad_probe_tail_on_a_good_link_passes),
		cmocka_unit_test(a_starved_probes_median_is_noise),
		cmocka_unit_test(the_links_lateness_is_judged),
		cmocka_unit_test(unplanned_drops_fail_planned_ones_do_not),
		cmocka_unit_test(the_probes_median_is_judged),
		cmocka_unit_test(a_starved_probes_offer_is_the_rate_judged),
		cmocka_unit_test(the_rate_leaves_out_the_pushs_ends),
		cmocka_unit_test(the_push_is_short_on_fast_links),
		cmocka_unit_test(loss_counted_by_the_link),
		cmocka_unit_test(without_accounting_the_probes_decide),
		cmocka_unit_test(no_echo_fails),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
