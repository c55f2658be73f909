/* Link stages and paths driven by a fake clock: every time below is made up, nothing
 * sleeps, and the seeded rng makes loss and jitter repeatable. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "net/path.h"
#include "net/stage.h"

#define MS 1000000LL

static pq_pkt_pool pool;

static int setup(void **state)
{
	(void)state;
	pq_pkt_pool_init(&pool, 1600, 100000);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	assert_int_equal(pool.live, 0); /* every packet came back */
	pq_pkt_pool_dispose(&pool);
	return 0;
}

static pq_pkt *pkt(uint32_t len)
{
	pq_pkt *p = pq_pkt_get(&pool);
	assert_non_null(p);
	p->len = len;
	return p;
}

static void drain_free(pq_stage *s)
{
	pq_pkt *p;
	while ((p = pq_stage_pop(s, INT64_MAX)))
		pq_pkt_put(&pool, p);
	pq_stage_free(s);
}

static void delay_is_exact_and_fifo(void **state)
{
	(void)state;
	pq_stage *s = pq_stage_delay_new(50 * MS);
	assert_int_equal(pq_stage_next_ns(s), INT64_MAX);
	assert_int_equal(pq_stage_push(s, pkt(100), 0), PQ_STAGE_KEPT);
	assert_int_equal(pq_stage_push(s, pkt(200), 1 * MS), PQ_STAGE_KEPT);
	assert_int_equal(pq_stage_next_ns(s), 50 * MS);
	assert_null(pq_stage_pop(s, 50 * MS - 1));
	pq_pkt *a = pq_stage_pop(s, 50 * MS);
	assert_non_null(a);
	assert_int_equal(a->len, 100);
	assert_int_equal(a->t_ready, 50 * MS);
	assert_null(pq_stage_pop(s, 50 * MS + 999999));
	/* Late caller: the packet still carries the time it was due. */
	pq_pkt *b = pq_stage_pop(s, 80 * MS);
	assert_int_equal(b->t_ready, 51 * MS);
	pq_pkt_put(&pool, a);
	pq_pkt_put(&pool, b);
	drain_free(s);
}

static void rate_serialises_back_to_back(void **state)
{
	(void)state;
	/* 1500 bytes at 12 Mbit/s is exactly 1 ms on the wire. */
	assert_int_equal(pq_stage_tx_ns(1500, 12000000), 1 * MS);
	assert_int_equal(pq_stage_tx_ns(1500, 0), 0);
	pq_stage *s = pq_stage_rate_new(12000000, 0, 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(pq_stage_push(s, pkt(1500), 0), PQ_STAGE_KEPT);
	for (int i = 1; i <= 3; i++) {
		assert_int_equal(pq_stage_next_ns(s), i * MS);
		pq_pkt *p = pq_stage_pop(s, i * MS);
		assert_non_null(p);
		assert_int_equal(p->t_ready, i * MS);
		pq_pkt_put(&pool, p);
	}
	/* An idle link starts serialising at the arrival time, not at the last departure. */
	assert_int_equal(pq_stage_push(s, pkt(1500), 10 * MS), PQ_STAGE_KEPT);
	assert_int_equal(pq_stage_next_ns(s), 11 * MS);
	drain_free(s);
}

static void rate_queue_drops_tail(void **state)
{
	(void)state;
	pq_stage *s = pq_stage_rate_new(12000000, 0, 2);
	assert_int_equal(pq_stage_push(s, pkt(1500), 0), PQ_STAGE_KEPT);
	assert_int_equal(pq_stage_push(s, pkt(1500), 0), PQ_STAGE_KEPT);
	pq_pkt *x = pkt(1500);
	assert_int_equal(pq_stage_push(s, x, 0), PQ_STAGE_DROP_QUEUE);
	/* Once the first has left the wire (t = 1 ms) there is room again, even though
	 * nobody has popped it yet. */
	assert_int_equal(pq_stage_push(s, x, 1 * MS), PQ_STAGE_KEPT);
	pq_pkt *y = pkt(1500);
	assert_int_equal(pq_stage_push(s, y, 1 * MS), PQ_STAGE_DROP_QUEUE);
	pq_pkt_put(&pool, y);
	drain_free(s);

	/* Byte limit: 3000 bytes hold two full packets and then only small ones. */
	s = pq_stage_rate_new(12000000, 3000, 0);
	assert_int_equal(pq_stage_push(s, pkt(1500), 0), PQ_STAGE_KEPT);
	assert_int_equal(pq_stage_push(s, pkt(1400), 0), PQ_STAGE_KEPT);
	pq_pkt *big = pkt(1500);
	assert_int_equal(pq_stage_push(s, big, 0), PQ_STAGE_DROP_QUEUE);
	pq_pkt_put(&pool, big);
	assert_int_equal(pq_stage_push(s, pkt(100), 0), PQ_STAGE_KEPT);
	/* pop of the packet on the wire frees its bytes */
	pq_pkt *p = pq_stage_pop(s, 1 * MS);
	assert_non_null(p);
	pq_pkt_put(&pool, p);
	assert_int_equal(pq_stage_push(s, pkt(1400), 1 * MS), PQ_STAGE_KEPT);
	drain_free(s);
}

static void loss_bernoulli_rate(void **state)
{
	(void)state;
	pq_loss_cfg c = {.p = 0.01};
	pq_stage *s = pq_stage_loss_new(&c, 42);
	int n = 200000, lost = 0;
	for (int i = 0; i < n; i++) {
		pq_pkt *p = pkt(100);
		if (pq_stage_push(s, p, i) == PQ_STAGE_DROP_LOSS) {
			lost++;
			pq_pkt_put(&pool, p);
		} else {
			pq_pkt_put(&pool, pq_stage_pop(s, i));
		}
	}
	/* Binomial sd = sqrt(n p (1-p)) ~ 44.5; 5 sd either side. */
	assert_in_range(lost, 2000 - 223, 2000 + 223);
	drain_free(s);

	pq_loss_cfg none = {.p = 0}, all = {.p = 1};
	s = pq_stage_loss_new(&none, 1);
	pq_pkt *p = pkt(1);
	assert_int_equal(pq_stage_push(s, p, 0), PQ_STAGE_KEPT);
	drain_free(s);
	s = pq_stage_loss_new(&all, 1);
	p = pkt(1);
	assert_int_equal(pq_stage_push(s, p, 0), PQ_STAGE_DROP_LOSS);
	pq_pkt_put(&pool, p);
	drain_free(s);
}

static void loss_gilbert_elliott_bursts(void **state)
{
	(void)state;
	/* p = 1 %, r = 25 %: stationary bad share p/(p+r) = 3.85 %, mean burst 1/r = 4. */
	pq_loss_cfg c = {.ge_p = 0.01, .ge_r = 0.25, .loss_bad = 1.0, .loss_good = 0};
	pq_stage *s = pq_stage_loss_new(&c, 7);
	int n = 400000, lost = 0, bursts = 0, prev = 0;
	for (int i = 0; i < n; i++) {
		pq_pkt *p = pkt(100);
		int drop = pq_stage_push(s, p, i) == PQ_STAGE_DROP_LOSS;
		if (drop) {
			lost++;
			pq_pkt_put(&pool, p);
		} else {
			pq_pkt_put(&pool, pq_stage_pop(s, i));
		}
		if (drop && !prev)
			bursts++;
		prev = drop;
	}
	double rate = (double)lost / n, mean_burst = (double)lost / bursts;
	assert_true(rate > 0.033 && rate < 0.044);
	assert_true(mean_burst > 3.5 && mean_burst < 4.5);
	drain_free(s);
}

/* An IPv4 TCP segment with `payload` bytes and TCP flags `flags` (0x08 PSH, 0x10 ACK). */
static pq_pkt *tcp_seg(uint32_t payload, uint8_t flags)
{
	pq_pkt *p = pkt(40 + payload);
	memset(p->data, 0, 40);
	p->data[0] = 0x45;
	p->data[2] = (uint8_t)((40 + payload) >> 8);
	p->data[3] = (uint8_t)(40 + payload);
	p->data[9] = 6;
	p->data[20 + 12] = 5 << 4;
	p->data[20 + 13] = flags;
	return p;
}

/* Pushes a segment; 1 when it was lost. */
static int push_seg(pq_stage *s, uint32_t payload, uint8_t flags, int64_t now)
{
	pq_pkt *p = tcp_seg(payload, flags);
	int drop = pq_stage_push(s, p, now) == PQ_STAGE_DROP_LOSS;
	pq_pkt_put(&pool, drop ? p : pq_stage_pop(s, now));
	return drop;
}

static void loss_burst_shares_one_decision(void **state)
{
	(void)state;
	/* A write of 5 segments, back to back, PSH on its last: every one shares the first's
	 * fate, at 50 % loss, over many writes (lost and kept writes both seen). */
	pq_loss_cfg c = {.p = 0.5, .unit = PQ_LOSS_UNIT_BURST};
	pq_stage *s = pq_stage_loss_new(&c, 11);
	int64_t t = 0;
	int lost_writes = 0, writes = 400;
	for (int w = 0; w < writes; w++, t += 10 * MS) {
		int first = push_seg(s, 1448, 0x10, t);
		for (int i = 1; i < 5; i++)
			assert_int_equal(push_seg(s, i == 4 ? 500 : 1448, i == 4 ? 0x18 : 0x10, t + i * 1000), first);
		lost_writes += first;
	}
	assert_true(lost_writes > 150 && lost_writes < 250);
	/* The burst ends at PSH, at a gap over PQ_LOSS_BURST_GAP_NS and at 64 KiB: after
	 * each, a new decision; with p = 1 for one and a fresh stage per check, count the
	 * decisions by how many times the chain moved. */
	drain_free(s);
	pq_loss_cfg ge = {.ge_p = 1, .ge_r = 1, .loss_bad = 1, .loss_good = 0, .unit = PQ_LOSS_UNIT_BURST};
	s = pq_stage_loss_new(&ge, 3); /* alternates bad (lost), good (kept) per decision */
	assert_int_equal(push_seg(s, 1448, 0x10, 0), 1);
	assert_int_equal(push_seg(s, 1448, 0x18, 1000), 1);       /* same burst, ends it */
	assert_int_equal(push_seg(s, 1448, 0x10, 2000), 0);       /* after PSH: new */
	assert_int_equal(push_seg(s, 1448, 0x10, 2000 + PQ_LOSS_BURST_GAP_NS + 1), 1); /* gap: new */
	for (int i = 1; i < 45; i++) /* 45 x 1448 fit in 64 KiB, 46 do not */
		assert_int_equal(push_seg(s, 1448, 0x10, 2 * MS + i), 1);
	assert_int_equal(push_seg(s, 1448, 0x10, 2 * MS + 45), 0);
	/* An ACK without payload is a burst of one and closes the open one. */
	assert_int_equal(push_seg(s, 0, 0x10, 2 * MS + 46), 1);
	assert_int_equal(push_seg(s, 1448, 0x10, 2 * MS + 47), 0);
	drain_free(s);
	/* The same writes per segment decide each segment alone: some writes split. */
	pq_loss_cfg seg = {.p = 0.5};
	s = pq_stage_loss_new(&seg, 11);
	int split = 0;
	for (int w = 0; w < 100; w++) {
		int first = push_seg(s, 1448, 0x10, w * 10 * MS), diff = 0;
		for (int i = 1; i < 5; i++)
			diff |= push_seg(s, 1448, i == 4 ? 0x18 : 0x10, w * 10 * MS + i) != first;
		split += diff;
	}
	assert_true(split > 80);
	drain_free(s);
}

static void loss_mean_and_gilbert(void **state)
{
	(void)state;
	pq_loss_cfg b = {.p = 0.06}, g = {0};
	assert_true(fabs(pq_loss_mean(&b) - 0.06) < 1e-12);
	pq_loss_gilbert(&g, 0.06, 3);
	assert_true(fabs(g.ge_r - 1.0 / 3) < 1e-12);
	assert_true(fabs(pq_loss_mean(&g) - 0.06) < 1e-12);
	pq_loss_gilbert(&g, 0.5, 0.5); /* a burst below 1 counts as 1 */
	assert_true(fabs(g.ge_r - 1) < 1e-12 && fabs(pq_loss_mean(&g) - 0.5) < 1e-12);
	/* the most a burst reaches: there the good state's exit is certain */
	assert_true(fabs(pq_loss_gilbert_most(3) - 0.75) < 1e-12);
	assert_true(fabs(pq_loss_gilbert_most(0.5) - 0.5) < 1e-12);
	pq_loss_gilbert(&g, pq_loss_gilbert_most(3), 3);
	assert_true(fabs(g.ge_p - 1) < 1e-12 && fabs(pq_loss_mean(&g) - 0.75) < 1e-12);
	pq_loss_cfg half = {.ge_p = 0.1, .ge_r = 0.1, .loss_bad = 0.5, .loss_good = 0.1};
	assert_true(fabs(pq_loss_mean(&half) - 0.3) < 1e-12);
}

static void jitter_keep_order_and_reorder(void **state)
{
	(void)state;
	for (int reorder = 0; reorder <= 1; reorder++) {
		pq_stage *s = pq_stage_jitter_new(20 * MS, 5 * MS, PQ_DIST_NORMAL, reorder, 3);
		int n = 2000, inversions = 0;
		for (int i = 0; i < n; i++) {
			pq_pkt *p = pkt(100);
			p->t_in = i * 100000LL; /* one packet every 100 us */
			assert_int_equal(pq_stage_push(s, p, p->t_in), PQ_STAGE_KEPT);
		}
		int64_t last_t = INT64_MIN, last_in = -1;
		double sum = 0;
		pq_pkt *p;
		while ((p = pq_stage_pop(s, INT64_MAX))) {
			assert_true(p->t_ready >= last_t); /* released in time order */
			assert_true(p->t_ready >= p->t_in);
			if (p->t_in < last_in)
				inversions++;
			last_in = p->t_in;
			last_t = p->t_ready;
			sum += (double)(p->t_ready - p->t_in);
			pq_pkt_put(&pool, p);
		}
		if (reorder) {
			assert_true(inversions > 100);
			assert_true(fabs(sum / n - 20 * MS) < 1 * MS);
		} else {
			assert_int_equal(inversions, 0);
			/* keeping order can only raise delays */
			assert_true(sum / n >= 20 * MS - 1 * MS);
		}
		pq_stage_free(s);
	}
	/* Uniform stays within base +- jitter. */
	pq_stage *s = pq_stage_jitter_new(10 * MS, 2 * MS, PQ_DIST_UNIFORM, 1, 9);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(pq_stage_push(s, pkt(1), 0), PQ_STAGE_KEPT);
	pq_pkt *p;
	while ((p = pq_stage_pop(s, INT64_MAX))) {
		assert_in_range(p->t_ready, 8 * MS, 12 * MS);
		pq_pkt_put(&pool, p);
	}
	pq_stage_free(s);
}

static void path_composes_exact_times(void **state)
{
	(void)state;
	pq_dir_cfg c = {.delay_ns = 10 * MS, .rate_bps = 12000000, .queue_pkts = 2};
	pq_path path;
	assert_int_equal(pq_path_init(&path, &c, 1, &pool, NULL), 0);
	assert_int_equal(path.n, 2);
	for (int i = 0; i < 3; i++)
		pq_path_push(&path, pkt(1500), 0);
	assert_int_equal(path.stats.drop_queue, 1);
	assert_int_equal(pq_path_next_ns(&path), 1 * MS);
	/* Nothing before 11 ms (1 ms on the wire + 10 ms of delay). */
	assert_null(pq_path_pop(&path, 5 * MS));
	assert_int_equal(pq_path_next_ns(&path), 11 * MS);
	/* Woken late at 30 ms: both come out with the times they were due. */
	pq_pkt *a = pq_path_pop(&path, 30 * MS), *b = pq_path_pop(&path, 30 * MS);
	assert_int_equal(a->t_ready, 11 * MS);
	assert_int_equal(b->t_ready, 12 * MS);
	assert_null(pq_path_pop(&path, 30 * MS));
	assert_int_equal(path.stats.pkts_in, 3);
	assert_int_equal(path.stats.pkts_out, 2);
	assert_int_equal(path.stats.bytes_out, 3000);
	pq_pkt_put(&pool, a);
	pq_pkt_put(&pool, b);
	pq_path_push(&path, pkt(1500), 40 * MS); /* held at dispose: goes back to the pool */
	pq_path_dispose(&path);
}

static void path_counts_loss(void **state)
{
	(void)state;
	pq_dir_cfg c = {.delay_ns = 1 * MS, .loss = {.p = 1.0}};
	pq_path path;
	assert_int_equal(pq_path_init(&path, &c, 1, &pool, NULL), 0);
	pq_path_push(&path, pkt(10), 0);
	assert_int_equal(path.stats.drop_loss, 1);
	assert_int_equal(pq_path_next_ns(&path), INT64_MAX);
	pq_path_dispose(&path);
}

static void pool_limit(void **state)
{
	(void)state;
	pq_pkt_pool small;
	pq_pkt_pool_init(&small, 64, 2);
	pq_pkt *a = pq_pkt_get(&small), *b = pq_pkt_get(&small);
	assert_non_null(a);
	assert_non_null(b);
	assert_null(pq_pkt_get(&small));
	pq_pkt_put(&small, a);
	assert_ptr_equal(pq_pkt_get(&small), a); /* reused, not allocated */
	pq_pkt_put(&small, a);
	pq_pkt_put(&small, b);
	pq_pkt_put(&small, NULL);
	pq_pkt_pool_dispose(&small);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(delay_is_exact_and_fifo, setup, teardown),
		cmocka_unit_test_setup_teardown(rate_serialises_back_to_back, setup, teardown),
		cmocka_unit_test_setup_teardown(rate_queue_drops_tail, setup, teardown),
		cmocka_unit_test_setup_teardown(loss_bernoulli_rate, setup, teardown),
		cmocka_unit_test_setup_teardown(loss_gilbert_elliott_bursts, setup, teardown),
		cmocka_unit_test_setup_teardown(jitter_keep_order_and_reorder, setup, teardown),
		cmocka_unit_test_setup_teardown(path_composes_exact_times, setup, teardown),
		cmocka_unit_test_setup_teardown(path_counts_loss, setup, teardown),
		cmocka_unit_test(pool_limit),
		cmocka_unit_test_setup_teardown(loss_burst_shares_one_decision, setup, teardown),
		cmocka_unit_test(loss_mean_and_gilbert),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
