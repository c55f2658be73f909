/* exp/jobs: how many cells a sweep measures at once. The option's values and refusals,
 * the choice for a grid (remote: one at a time; auto: per CPU; never more than the cells),
 * the RTT rule that keeps small-RTT cells alone (a slow link's wire time counted in), the dispatcher's admission test and its
 * back-off when cells come back over their budgets. The workers themselves are measured
 * by tests/integration/sweep_jobs.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "exp/jobs.h"
#include "net/linkcfg.h"

#define MS 1000000LL

static void parse(void **state)
{
	(void)state;
	unsigned j = 99;
	pq_diag d;
	assert_int_equal(pq_exp_jobs_parse("auto", "--jobs", &j, &d), 0);
	assert_int_equal(j, PQ_EXP_JOBS_AUTO);
	assert_int_equal(pq_exp_jobs_parse("1", "--jobs", &j, &d), 0);
	assert_int_equal(j, 1);
	assert_int_equal(pq_exp_jobs_parse("64", "--jobs", &j, &d), 0);
	assert_int_equal(j, 64);
	const char *bad[] = {"0", "-1", "65", "1000000000000", "abc", "4x", "", " 4", "2.5", NULL};
	for (int i = 0; bad[i]; i++) {
		j = 7;
		assert_int_equal(pq_exp_jobs_parse(bad[i], "--jobs", &j, &d), PQ_EINVAL);
		assert_int_equal(j, 7); /* untouched */
		assert_non_null(strstr(pq_diag_msg(&d), "--jobs: '"));
		assert_non_null(strstr(pq_diag_msg(&d), "use auto or 1 to 64"));
	}
	assert_int_equal(pq_exp_jobs_parse(NULL, "--jobs", &j, &d), PQ_EINVAL);
}

static void limit(void **state)
{
	(void)state;
	/* under 10 ms a cell is alone, whatever the cap */
	assert_int_equal(pq_exp_jobs_limit(0, 12), 1);
	assert_int_equal(pq_exp_jobs_limit(1 * MS, 12), 1);
	assert_int_equal(pq_exp_jobs_limit(10 * MS - 1, 12), 1);
	/* then one neighbour per 4 ms (PQ_EXP_JOBS_RTT_PER_JOB_NS), up to the cap */
	assert_int_equal(pq_exp_jobs_limit(10 * MS, 12), 2);
	assert_int_equal(pq_exp_jobs_limit(20 * MS, 12), 5);
	assert_int_equal(pq_exp_jobs_limit(50 * MS, 12), 12);
	assert_int_equal(pq_exp_jobs_limit(50 * MS, 40), 12);
	assert_int_equal(pq_exp_jobs_limit(100 * MS, 40), 25);
	assert_int_equal(pq_exp_jobs_limit(148 * MS, 12), 12);
	assert_int_equal(pq_exp_jobs_limit(148 * MS, 1), 1);
	assert_int_equal(pq_exp_jobs_limit(148 * MS, 0), 1);
}

/* The time scale the limit is asked with: the RTT, plus one initial window of full packets
 * at the slower direction's rate (a slow link's cell waits for the wire, not a CPU). */
static void scale(void **state)
{
	(void)state;
	pq_link_config lc;
	pq_link_config_init(&lc);
	assert_int_equal(pq_exp_jobs_scale_ns(&lc), 0);
	pq_link_config_set_rtt(&lc, 35 * MS);
	assert_int_equal(pq_exp_jobs_scale_ns(&lc), 35 * MS); /* no rate limit */
	lc.dir[PQ_DIR_S2C].rate_bps = 1000000;                /* 1 Mbit/s down: 10 x 1500 B = 120 ms */
	assert_int_equal(pq_exp_jobs_scale_ns(&lc), 155 * MS);
	lc.dir[PQ_DIR_C2S].rate_bps = 2000000; /* the slower direction counts */
	assert_int_equal(pq_exp_jobs_scale_ns(&lc), 155 * MS);
	lc.dir[PQ_DIR_C2S].rate_bps = 500000;
	assert_int_equal(pq_exp_jobs_scale_ns(&lc), 275 * MS);
	lc.mtu = 9000; /* jumbo frames take six times as long */
	assert_int_equal(pq_exp_jobs_scale_ns(&lc), 35 * MS + 1440 * MS);
	lc.dir[0].rate_bps = lc.dir[1].rate_bps = 1000000000ull; /* 1 Gbit/s: the RTT's rule */
	lc.mtu = 0;
	assert_int_equal(pq_exp_jobs_limit(pq_exp_jobs_scale_ns(&lc), 24), 8);
	/* a 6 ms link stays alone at any rate that adds under 4 ms */
	pq_link_config_set_rtt(&lc, 6 * MS);
	lc.dir[0].rate_bps = lc.dir[1].rate_bps = 100000000ull;
	assert_int_equal(pq_exp_jobs_limit(pq_exp_jobs_scale_ns(&lc), 24), 1);
}

static void choose(void **state)
{
	(void)state;
	pq_exp_grid g;
	memset(&g, 0, sizeof g);
	char why[200];
	unsigned base = 99;
	assert_int_equal(pq_exp_jobs_choose(&g, PQ_EXP_JOBS_AUTO, "--jobs", 2, 100, &base, why, sizeof why),
			 2 * PQ_EXP_JOBS_PER_CPU);
	assert_int_equal(base, 2 * PQ_EXP_JOBS_PER_CPU);
	assert_non_null(strstr(why, "auto"));
	assert_null(strstr(why, "lost packets")); /* no cell stalls */
	assert_int_equal(pq_exp_jobs_choose(&g, PQ_EXP_JOBS_AUTO, "--jobs", 64, 1000, &base, why, sizeof why),
			 PQ_EXP_JOBS_MAX);
	assert_int_equal(base, PQ_EXP_JOBS_MAX);
	assert_int_equal(pq_exp_jobs_choose(&g, 8, "--jobs", 2, 100, &base, why, sizeof why), 8);
	assert_int_equal(base, 8); /* a count asked for is every cell's */
	/* never more than the cells */
	assert_int_equal(pq_exp_jobs_choose(&g, 8, "--jobs", 2, 3, &base, why, sizeof why), 3);
	assert_int_equal(base, 3);
	assert_non_null(strstr(why, "3 cells to measure"));
	assert_int_equal(pq_exp_jobs_choose(&g, 8, "--jobs", 2, 0, &base, why, sizeof why), 1);
	/* a remote server: one at a time unless asked, with the reason */
	strcpy(g.server, "example.test:443");
	assert_int_equal(pq_exp_jobs_choose(&g, PQ_EXP_JOBS_AUTO, "--jobs", 2, 100, &base, why, sizeof why), 1);
	assert_int_equal(base, 1);
	assert_non_null(strstr(why, "remote"));
	assert_int_equal(pq_exp_jobs_choose(&g, 4, "--jobs", 2, 100, &base, why, sizeof why), 4);
}

static void may_start(void **state)
{
	(void)state;
	size_t l[4] = {10, 10, 1, 2};
	assert_true(pq_exp_jobs_may_start(l, 0, 1, 8));  /* a solo cell on an idle machine */
	assert_false(pq_exp_jobs_may_start(l, 1, 1, 8)); /* ... not beside another */
	assert_true(pq_exp_jobs_may_start(l, 2, 10, 8)); /* two of 10 running: a third */
	assert_false(pq_exp_jobs_may_start(l, 2, 10, 2)); /* the cap */
	assert_false(pq_exp_jobs_may_start(l, 3, 10, 8)); /* a solo cell runs: nothing beside it */
	size_t m[2] = {2, 10};
	assert_false(pq_exp_jobs_may_start(m, 2, 10, 8)); /* the 2-cell limit of one in flight */
	assert_true(pq_exp_jobs_may_start(m + 1, 1, 10, 8));
}

static void cpu_fits(void **state)
{
	(void)state;
	assert_true(pq_exp_jobs_cpu_fits(0, 0, 5.0, 1.0));   /* alone, however costly */
	assert_true(pq_exp_jobs_cpu_fits(0.4, 2, 0.5, 1.0));
	assert_false(pq_exp_jobs_cpu_fits(0.6, 2, 0.5, 1.0)); /* the endpoints would wait */
	assert_true(pq_exp_jobs_cpu_fits(0.02 * 11, 11, 0.02, 1.0)); /* cheap cells: many */
}

static void ctl(void **state)
{
	(void)state;
	pq_exp_jobs_ctl c;
	pq_exp_jobs_ctl_init(&c, 4);
	assert_int_equal(c.cap, 4);
	/* a marked cell before `cap` cells finished since the start does not cut yet */
	assert_int_equal(pq_exp_jobs_ctl_done(&c, 1, 1), 0);
	assert_int_equal(pq_exp_jobs_ctl_done(&c, 0, 1), 0);
	assert_int_equal(pq_exp_jobs_ctl_done(&c, 0, 1), 0);
	assert_int_equal(pq_exp_jobs_ctl_done(&c, 1, 1), -1); /* the fourth: cut to 3 */
	assert_int_equal(c.cap, 3);
	/* the cells that were in flight at the cut count once: two more marks, no cut */
	assert_int_equal(pq_exp_jobs_ctl_done(&c, 1, 1), 0);
	assert_int_equal(pq_exp_jobs_ctl_done(&c, 1, 1), 0);
	assert_int_equal(pq_exp_jobs_ctl_done(&c, 1, 1), -1);
	assert_int_equal(c.cap, 2);
	for (int i = 0; i < 10; i++)
		(void)pq_exp_jobs_ctl_done(&c, 1, 1);
	assert_int_equal(c.cap, 1); /* never under one */
	/* 2 x cap clean cells in a row raise it by one, up to the max */
	assert_int_equal(pq_exp_jobs_ctl_done(&c, 0, 1), 0);
	assert_int_equal(pq_exp_jobs_ctl_done(&c, 0, 1), 1);
	assert_int_equal(c.cap, 2);
	for (int i = 0; i < 100; i++)
		(void)pq_exp_jobs_ctl_done(&c, 0, 1);
	assert_int_equal(c.cap, 4);
	pq_exp_jobs_ctl_init(&c, 0);
	assert_int_equal(c.cap, 1);
}

/* Marks while other work fills the machine: the cap stays, and they do not count as clean. */
static void ctl_others(void **state)
{
	(void)state;
	pq_exp_jobs_ctl c;
	pq_exp_jobs_ctl_init(&c, 4);
	for (int i = 0; i < 100; i++)
		assert_int_equal(pq_exp_jobs_ctl_done(&c, 1, 0), 0);
	assert_int_equal(c.cap, 4); /* ours it would have gone to 1 */
	assert_int_equal(pq_exp_jobs_ctl_done(&c, 1, 1), -1);
	assert_int_equal(c.cap, 3); /* ours again: down as before */
	for (int i = 0; i < 5; i++)
		(void)pq_exp_jobs_ctl_done(&c, i % 2 ? 1 : 0, 0); /* never 2 x cap clean in a row */
	assert_int_equal(c.cap, 3);
	/* the verdict: the workers' share of the machine's busy ticks */
	assert_true(pq_exp_jobs_ours(60, 100));
	assert_true(pq_exp_jobs_ours(50, 100));
	assert_false(pq_exp_jobs_ours(49, 100));
	assert_false(pq_exp_jobs_ours(0, 1000));
	assert_true(pq_exp_jobs_ours(0, PQ_EXP_JOBS_OURS_MIN_TICKS - 1)); /* too little to tell */
}

/* One controller per class: a mark lowers only its own class's cap. */
static void caps(void **state)
{
	(void)state;
	pq_exp_jobs_caps k;
	pq_exp_jobs_caps_init(&k, 24);
	assert_int_equal(pq_exp_jobs_caps_of(&k, 1), 1);
	assert_int_equal(pq_exp_jobs_caps_of(&k, 2), 2);
	assert_int_equal(pq_exp_jobs_caps_of(&k, 10), 10);
	assert_int_equal(pq_exp_jobs_caps_of(&k, 24), 24);
	assert_int_equal(pq_exp_jobs_caps_of(&k, 40), 24); /* above the sweep's concurrency: clamped */
	assert_int_equal(pq_exp_jobs_caps_of(&k, 0), 1);
	/* cells alone that go over their budget: fewer at once cannot help, and no other
	 * class pays for them (before, 228 such cells took every cap from 24 to 14) */
	for (int i = 0; i < 500; i++)
		assert_int_equal(pq_exp_jobs_caps_done(&k, 1, 1, 1), 0);
	assert_int_equal(pq_exp_jobs_caps_of(&k, 24), 24);
	assert_int_equal(pq_exp_jobs_caps_of(&k, 2), 2);
	/* a 10 ms class's marks: that class goes to one at once, the 200 ms one stays */
	for (int i = 0; i < 10; i++)
		(void)pq_exp_jobs_caps_done(&k, 2, 1, 1);
	assert_int_equal(pq_exp_jobs_caps_of(&k, 2), 1);
	assert_int_equal(pq_exp_jobs_caps_of(&k, 10), 10);
	assert_int_equal(pq_exp_jobs_caps_of(&k, 24), 24);
	/* a class's own marks lower it as a single controller does: once per cap cells */
	for (int i = 0; i < 9; i++)
		assert_int_equal(pq_exp_jobs_caps_done(&k, 10, 1, 1), 0);
	assert_int_equal(pq_exp_jobs_caps_done(&k, 10, 1, 1), -1);
	assert_int_equal(pq_exp_jobs_caps_of(&k, 10), 9);
	/* clean cells of that class bring it back, never above its limit */
	for (int i = 0; i < 100; i++)
		(void)pq_exp_jobs_caps_done(&k, 10, 0, 1);
	assert_int_equal(pq_exp_jobs_caps_of(&k, 10), 10);
	/* a worker lost: the ceiling and the caps above it come down */
	pq_exp_jobs_caps_lower_max(&k);
	assert_int_equal(k.max, 23);
	assert_int_equal(pq_exp_jobs_caps_of(&k, 24), 23);
	assert_int_equal(pq_exp_jobs_caps_of(&k, 23), 23);
	assert_int_equal(pq_exp_jobs_caps_of(&k, 10), 10);
	pq_exp_jobs_caps_init(&k, 1);
	pq_exp_jobs_caps_lower_max(&k);
	assert_int_equal(k.max, 1);
	assert_int_equal(pq_exp_jobs_caps_of(&k, 5), 1);
}

static void summary_add(void **state)
{
	(void)state;
	pq_exp_run_summary a, b;
	pq_exp_run_summary_init(&a);
	pq_exp_run_summary_init(&b);
	b.cells_run = 3, b.conns = 30, b.cells_link_over = 1, b.cells_link_known = 3;
	b.late_p99_max_ns = 2e6, b.runq_max = 4, b.nice = -19, b.wait_max_us = 100;
	pq_exp_run_summary_add(&a, &b);
	b.late_p99_max_ns = 1e6, b.runq_max = 7, b.nice = -5;
	pq_exp_run_summary_add(&a, &b);
	assert_int_equal(a.cells_run, 6);
	assert_int_equal(a.conns, 60);
	assert_int_equal(a.cells_link_over, 2);
	assert_true(a.late_p99_max_ns == 2e6);
	assert_int_equal(a.runq_max, 7);
	assert_int_equal(a.nice, -5); /* the largest, as a single run keeps it */
	assert_true(a.wait_max_us == 100);
	assert_true(a.probe_tail_max_ns == -1); /* none known stays unknown */
}

/* The dispatcher's order: one cell of the quickest link first (the scout whose CPU per
 * connection sizes the rest), then link by link, the link with the longest cell first,
 * ties in run order, each link's cells in their own order; a resumed sweep's gaps change
 * nothing. */
static void order(void **state)
{
	(void)state;
	/* cells 0-2 on a 0 ms link, 3-5 at 200 ms, 6-7 at 50 ms, 8-9 at 200 ms under BBR */
	const char *key[] = {"l0", "l0", "l0", "l200", "l200", "l200", "l50", "l50", "l200b", "l200b"};
	const double est[] = {0.1, 0.2, 0.1, 12, 18, 12, 5, 5, 18, 12};
	size_t todo[] = {2, 0, 1, 5, 3, 4, 6, 7, 9, 8};
	assert_int_equal(pq_exp_jobs_order(todo, 10, key, est), 0);
	const size_t want[] = {2, 5, 3, 4, 9, 8, 6, 7, 0, 1};
	assert_memory_equal(todo, want, sizeof want);
	/* one link: nothing moves */
	size_t one[] = {3, 5, 4};
	assert_int_equal(pq_exp_jobs_order(one, 3, key, est), 0);
	assert_int_equal(one[0], 3);
	assert_int_equal(one[1], 5);
	assert_int_equal(one[2], 4);
	/* the longest cell counts, not the link's sum: a link of one 10 s cell goes before one
	 * of three 5 s cells (after the latter's scout) */
	const char *k2[] = {"a", "a", "a", "b"};
	const double e2[] = {5, 5, 5, 10};
	size_t t2[] = {0, 1, 2, 3};
	assert_int_equal(pq_exp_jobs_order(t2, 4, k2, e2), 0);
	const size_t w2[] = {0, 3, 1, 2};
	assert_memory_equal(t2, w2, sizeof w2);
	/* a quickest link of one cell: its scout is all of it */
	size_t t3[] = {3, 0, 1, 2};
	const double e3[] = {5, 5, 5, 1};
	assert_int_equal(pq_exp_jobs_order(t3, 4, k2, e3), 0);
	const size_t w3[] = {3, 0, 1, 2};
	assert_memory_equal(t3, w3, sizeof w3);
	assert_int_equal(pq_exp_jobs_order(t2, 0, k2, e2), 0);
}

/* The dispatcher's run, played: cells start in order while the classes in flight allow. */
static void play(void **state)
{
	(void)state;
	/* four cells of 10 s that may run 4 at once: 10 s; at 2 at once: 20 s */
	const double e[] = {10, 10, 10, 10};
	const size_t l4[] = {4, 4, 4, 4}, l2[] = {2, 2, 2, 2}, o[] = {0, 1, 2, 3};
	assert_true(pq_exp_jobs_play(o, 4, e, l4, 4) == 10);
	assert_true(pq_exp_jobs_play(o, 4, e, l2, 4) == 20);
	assert_true(pq_exp_jobs_play(o, 4, e, l4, 1) == 40); /* one worker */
	/* one cell of class 1 (alone) between them: the others wait for it, it for them */
	const size_t mixed[] = {4, 4, 1, 4};
	assert_true(pq_exp_jobs_play(o, 4, e, mixed, 4) == 30);
	assert_true(pq_exp_jobs_play(o, 0, e, l4, 4) == 0);
}

/* Of longest-first and grouped by class, the order that plays out sooner. */
static void order_played(void **state)
{
	(void)state;
	/* links alternating between classes by their longest cells, as the loss preset's
	 * 195.6 ms (24 at once) and 78.6 ms (15) links do: a (4 at once), b (2), c (4), d (2),
	 * each of two cells, and a quick scout link q. Longest first, each b or d cell holds
	 * the a and c cells beside it to two at once: 37 s; grouped, 28 s */
	const char *key[] = {"a", "a", "b", "b", "c", "c", "d", "d", "q"};
	const double est[] = {10, 10, 9.5, 9.5, 9, 9, 8.5, 8.5, 1};
	const size_t lim[] = {4, 4, 2, 2, 4, 4, 2, 2, 4};
	size_t lf[9], best[9];
	for (size_t i = 0; i < 9; i++)
		lf[i] = best[i] = i;
	assert_int_equal(pq_exp_jobs_order(lf, 9, key, est), 0);
	double t_lf = pq_exp_jobs_play(lf, 9, est, lim, 4), played = 0;
	assert_true(t_lf == 37);
	assert_int_equal(pq_exp_jobs_order_played(best, 9, key, est, lim, 4, &played), 0);
	assert_true(played == 28);
	assert_true(played == pq_exp_jobs_play(best, 9, est, lim, 4));
	/* the scout first, then a and c (4 at once), then b and d, longest first in each */
	const size_t want[] = {8, 0, 1, 4, 5, 2, 3, 6, 7};
	assert_memory_equal(best, want, sizeof want);
	/* one class: the two orders are one, longest first stays */
	const size_t one[] = {4, 4, 4, 4, 4, 4, 4, 4, 4};
	size_t t1[9];
	for (size_t i = 0; i < 9; i++)
		t1[i] = i;
	assert_int_equal(pq_exp_jobs_order_played(t1, 9, key, est, one, 4, NULL), 0);
	assert_memory_equal(t1, lf, sizeof lf);
}

/* Each trial's cells by class where every grid point keeps one class. */
static void order_classes(void **state)
{
	(void)state;
	/* ttlb's aws-fast in small: trial 0 (cells 0-5) and trial 1 (6-11), points p (3 at
	 * once) and q (alone), two arms each, shuffled among each other per trial */
	const size_t group[] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1};
	const char *point[] = {"q", "p", "q", "p", "r", "r", "p", "q", "r", "q", "r", "p"};
	const size_t lim[] = {1, 3, 1, 3, 3, 3, 3, 1, 3, 1, 3, 3};
	size_t todo[12];
	for (size_t i = 0; i < 12; i++)
		todo[i] = i;
	/* a dispatcher that waits for the cells in flight before each q: 4 times, then 2 */
	const double est[] = {1, 2, 1, 2, 2, 2, 2, 1, 2, 1, 2, 2};
	double before = pq_exp_jobs_play(todo, 12, est, lim, 3);
	assert_int_equal(pq_exp_jobs_order_classes(todo, 12, group, point, lim), 2);
	const size_t want[] = {1, 3, 4, 5, 0, 2, 6, 8, 10, 11, 7, 9};
	assert_memory_equal(todo, want, sizeof want);
	assert_true(pq_exp_jobs_play(todo, 12, est, lim, 3) < before);
	/* three classes in one trial: largest first, each in its run order */
	const size_t g1[] = {5, 5, 5, 5, 5};
	const char *pt[] = {"a", "b", "c", "a", "b"};
	const size_t l3[] = {1, 4, 2, 1, 4};
	size_t t3[] = {0, 1, 2, 3, 4};
	assert_int_equal(pq_exp_jobs_order_classes(t3, 5, g1, pt, l3), 1);
	const size_t w3[] = {1, 4, 2, 0, 3};
	assert_memory_equal(t3, w3, sizeof w3);
	/* a point whose arms differ in class (a browser beside pqtls's client): that trial
	 * keeps its order, the other is regrouped */
	const char *mixed[] = {"q", "p", "q", "p", "r", "r", "p", "q", "r", "q", "r", "p"};
	size_t lm[12];
	memcpy(lm, lim, sizeof lm);
	lm[0] = 3; /* one arm of q in trial 0 may run at 3 */
	size_t t4[12];
	for (size_t i = 0; i < 12; i++)
		t4[i] = i;
	assert_int_equal(pq_exp_jobs_order_classes(t4, 12, group, mixed, lm), 1);
	const size_t w4[] = {0, 1, 2, 3, 4, 5, 6, 8, 10, 11, 7, 9};
	assert_memory_equal(t4, w4, sizeof w4);
	/* one class, nothing to do; no cells at all */
	const size_t same[] = {3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3};
	size_t t5[12];
	for (size_t i = 0; i < 12; i++)
		t5[i] = i;
	assert_int_equal(pq_exp_jobs_order_classes(t5, 12, group, point, same), 0);
	for (size_t i = 0; i < 12; i++)
		assert_int_equal(t5[i], i);
	assert_int_equal(pq_exp_jobs_order_classes(t5, 0, group, point, same), 0);
}

/* The CPU share expected of a link none of whose cells has ended. */
static void share_guess(void **state)
{
	(void)state;
	/* nothing ended yet: half the budget, two cells at once */
	assert_true(pq_exp_jobs_share_guess(-1, 20, 12, 1.0) == 0.5);
	/* 6 ms per connection (a 0 ms cell's, measured here), 20 connections of a 12 s cell
	 * (200 ms): a hundredth of a CPU, so the time-scale rule decides */
	double s = pq_exp_jobs_share_guess(0.006, 20, 12, 1.0);
	assert_true(s > 0.0099 && s < 0.0101);
	assert_true(pq_exp_jobs_cpu_fits(23 * s, 23, s, 1.0));
	/* a sanitizer's 60 ms per connection at 50 ms (a 3 s cell): two at once, not a dozen */
	double a = pq_exp_jobs_share_guess(0.06, 20, 3.1, 1.0);
	assert_true(pq_exp_jobs_cpu_fits(a, 1, a, 1.0));
	assert_false(pq_exp_jobs_cpu_fits(2 * a, 2, a, 1.0));
	/* an estimate under 50 ms counts as 50 ms: no division by nothing */
	assert_true(pq_exp_jobs_share_guess(0.001, 10, 0, 1.0) == 0.001 * 10 / 0.05);
}

/* CPU per connection by response size: a small cell is not guessed by a megabyte's. */
static void conn_cpu(void **state)
{
	(void)state;
	pq_exp_jobs_conn_cpu seen[3] = {{0}};
	size_t n = 0;
	/* none ended: -1, so the guess is half the budget */
	assert_true(pq_exp_jobs_conn_cpu_for(seen, n, 0) == -1);
	pq_exp_jobs_conn_cpu_learn(seen, &n, 3, 1048576, -1); /* unknown: ignored */
	assert_int_equal(n, 0);
	/* full ttlb: a 1 MiB response at 1 Mbit/s, 0.25 s a connection; its handshakes
	 * (no response: -1 reads as 0) 13 and 15 ms */
	pq_exp_jobs_conn_cpu_learn(seen, &n, 3, 1048576, 0.25);
	pq_exp_jobs_conn_cpu_learn(seen, &n, 3, -1, 0.013);
	pq_exp_jobs_conn_cpu_learn(seen, &n, 3, 0, 0.015);
	assert_int_equal(n, 2);
	/* a lossy link's first cell of 10 KiB: the handshakes', not the megabyte's */
	assert_true(pq_exp_jobs_conn_cpu_for(seen, n, 10240) == 0.015);
	assert_true(pq_exp_jobs_conn_cpu_for(seen, n, -1) == 0.015);
	assert_true(pq_exp_jobs_conn_cpu_for(seen, n, 1048576) == 0.25);
	assert_true(pq_exp_jobs_conn_cpu_for(seen, n, 4194304) == 0.25);
	/* 20 connections of a 4 s cell: 7.5 % of a CPU, where the megabyte's 0.25 s said 1.25
	 * and waited for an empty machine */
	double g = pq_exp_jobs_share_guess(pq_exp_jobs_conn_cpu_for(seen, n, 10240), 20, 4, 1.0);
	assert_true(g > 0.0749 && g < 0.0751);
	assert_true(pq_exp_jobs_cpu_fits(0.3, 10, g, 1.0));
	assert_false(pq_exp_jobs_cpu_fits(0.3, 10, pq_exp_jobs_share_guess(0.25, 20, 4, 1.0), 1.0));
	/* smaller than anything ended: the most of any (a cautious guess) */
	pq_exp_jobs_conn_cpu one[1] = {{0}};
	size_t n1 = 0;
	pq_exp_jobs_conn_cpu_learn(one, &n1, 1, 102400, 0.04);
	assert_true(pq_exp_jobs_conn_cpu_for(one, n1, 1024) == 0.04);
	/* full: a new size counts with the largest below it, or the smallest entry */
	pq_exp_jobs_conn_cpu_learn(seen, &n, 3, 512000, 0.1);
	assert_int_equal(n, 3);
	pq_exp_jobs_conn_cpu_learn(seen, &n, 3, 600000, 0.2); /* into 512000's */
	assert_int_equal(n, 3);
	assert_true(pq_exp_jobs_conn_cpu_for(seen, n, 512000) == 0.2);
	pq_exp_jobs_conn_cpu_learn(one, &n1, 1, 1024, 0.5); /* below all: into the smallest */
	assert_true(pq_exp_jobs_conn_cpu_for(one, n1, 102400) == 0.5);
	pq_exp_jobs_conn_cpu_learn(one, &n1, 0, 1024, 0.9); /* no room at all: nothing */
	assert_int_equal(n1, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse),    cmocka_unit_test(limit), cmocka_unit_test(scale), cmocka_unit_test(choose),
		cmocka_unit_test(may_start), cmocka_unit_test(cpu_fits), cmocka_unit_test(ctl), cmocka_unit_test(ctl_others), cmocka_unit_test(caps), cmocka_unit_test(order), cmocka_unit_test(play), cmocka_unit_test(order_played), cmocka_unit_test(order_classes), cmocka_unit_test(share_guess), cmocka_unit_test(conn_cpu),
		cmocka_unit_test(summary_add),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
