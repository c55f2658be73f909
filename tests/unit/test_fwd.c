/* The forwarder thread on socket pairs instead of TUN devices (it only reads and writes
 * whole datagrams, so a SOCK_SEQPACKET pair behaves like a TUN here): a packet crosses
 * with its delay, the thread runs in the class asked for, and when the real-time class is
 * refused it still forwards, in the normal class, with a note saying why. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/clock.h"
#include "core/sched.h"
#include "net/fwd.h"

#define DELAY_NS (10 * PQ_NS_PER_MS)

static void test_spin_lead(void **state)
{
	(void)state;
	assert_int_equal(pq_fwd_spin_ns(-1), PQ_FWD_DEFAULT_EARLY_NS);
	assert_int_equal(pq_fwd_spin_ns(0), 0);
	assert_int_equal(pq_fwd_spin_ns(5000), 5000);
	assert_int_equal(pq_fwd_spin_ns(11 * PQ_NS_PER_MS), PQ_FWD_DEFAULT_EARLY_NS);
}

/* The real-time thread's spin budget, with made-up times: spent within a window, it says
 * no until the next window; the normal class has no budget. */
static void test_spin_budget(void **state)
{
	(void)state;
	const int64_t w = PQ_FWD_RT_SPIN_WINDOW_NS, budget = w * PQ_FWD_RT_SPIN_SHARE / 100;
	pq_fwd_spin s;
	pq_fwd_spin_init(&s, 1, NULL);
	int64_t t = 5 * PQ_NS_PER_S;
	assert_true(pq_fwd_spin_ok(&s, t));
	pq_fwd_spin_charge(&s, budget - 1);
	assert_true(pq_fwd_spin_ok(&s, t + 1000));
	pq_fwd_spin_charge(&s, 1);
	assert_false(pq_fwd_spin_ok(&s, t + 2000));
	assert_false(pq_fwd_spin_ok(&s, t + w - 1)); /* same window */
	assert_true(pq_fwd_spin_ok(&s, t + w));      /* a new one */
	pq_fwd_spin_charge(&s, -5);                    /* a clock step back charges nothing */
	assert_int_equal(s.spent, 0);
	pq_fwd_spin_charge(&s, 10 * budget);
	assert_false(pq_fwd_spin_ok(&s, t + w + 1));
	assert_true(pq_fwd_spin_ok(&s, t + 5 * w)); /* after idle windows, a fresh one */

	pq_fwd_spin_init(&s, 0, NULL);
	pq_fwd_spin_charge(&s, 100 * w);
	assert_true(pq_fwd_spin_ok(&s, t));
}

/* The budget the machine's forwarders share: two forwarders' spin counts against one
 * pool (in a forked child too: the mapping is shared), each still within its own budget;
 * a new window of the clock starts it afresh; the normal class takes no part. */
static void test_spin_pool(void **state)
{
	(void)state;
	const int64_t w = PQ_FWD_RT_SPIN_WINDOW_NS, pool_budget = w * PQ_FWD_POOL_SPIN_SHARE / 100;
	pq_fwd_spin_pool *p = pq_fwd_spin_pool_new();
	assert_non_null(p);
	pq_fwd_spin a, b, n;
	pq_fwd_spin_init(&a, 1, p);
	pq_fwd_spin_init(&b, 1, p);
	pq_fwd_spin_init(&n, 0, p);
	int64_t t = 7 * w; /* a window's start */
	assert_true(pq_fwd_spin_ok(&a, t));
	assert_true(pq_fwd_spin_ok(&b, t));
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) { /* another process's forwarder: half the pool */
		pq_fwd_spin_charge(&b, pool_budget / 2);
		_exit(0);
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(p->spent, pool_budget / 2);
	pq_fwd_spin_charge(&a, pool_budget / 2 - 1);
	assert_true(pq_fwd_spin_ok(&a, t + 10));
	pq_fwd_spin_charge(&a, 1);
	assert_true(a.spent < a.budget);          /* its own budget has room... */
	assert_false(pq_fwd_spin_ok(&a, t + 20)); /* ...the machine's has none */
	assert_false(pq_fwd_spin_ok(&b, t + 20));
	assert_true(pq_fwd_spin_ok(&n, t + 20)); /* the normal class: no budget */
	assert_true(pq_fwd_spin_ok(&b, t + w));  /* the clock's next window */
	assert_int_equal(p->spent, 0);
	pq_fwd_spin_pool_free(p);
	pq_fwd_spin_pool_free(NULL);
}

/* Starts a forwarder with rt_prio between two socket pairs, sends one datagram client ->
 * server and returns 0 when it arrived intact, no earlier than the link's delay; sets
 * *policy to the thread's scheduling class. Usable from a forked child (no cmocka). */
static int forward_late(int rt_prio, int64_t batch_ns, int64_t fault_ns, pq_fwd *f, int *policy)
{
	int c[2], s[2], rc = 1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, c) ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, s))
		return 2;
	pq_link_config cfg;
	pq_link_config_init(&cfg);
	cfg.dir[0].delay_ns = cfg.dir[1].delay_ns = DELAY_NS;
	const int64_t comp[2] = {0, 0};
	pq_fwd_tune tune = {.early_ns = -1, .nice = 0, .rt_prio = rt_prio, .batch_ns = batch_ns, .fault_late_ns = fault_ns};
	pq_diag d;
	if (pq_fwd_start(f, &cfg, comp, c[1], s[1], NULL, &tune, &d)) {
		close(c[0]);
		close(s[0]);
		return 3;
	}
	struct sched_param sp;
	if (pthread_getschedparam(f->thread, policy, &sp))
		*policy = -1;
	const char msg[] = "a datagram as a TUN would carry it";
	int64_t t0 = pq_mono_ns();
	if (write(c[0], msg, sizeof msg) == (ssize_t)sizeof msg) {
		/* generous: only a missing packet fails, never a slow machine */
		struct pollfd pfd = {.fd = s[0], .events = POLLIN};
		char buf[128];
		if (poll(&pfd, 1, 10000) == 1 && read(s[0], buf, sizeof buf) == (ssize_t)sizeof msg &&
		    !memcmp(buf, msg, sizeof msg) && pq_mono_ns() - t0 >= DELAY_NS + fault_ns)
			rc = 0;
	}
	pq_diag d2;
	(void)pq_fwd_stop(f, &d2);
	close(c[0]);
	close(s[0]);
	return rc;
}

/* A forwarder that is not running has no wait for a CPU (core/sched.h reads it). */
static void test_schedstat_wait(void **state)
{
	(void)state;
	pq_fwd f;
	memset(&f, 0, sizeof f);
	assert_int_equal(pq_fwd_wait_ns(&f), -1);
}

static int forward_one(int rt_prio, int64_t batch_ns, pq_fwd *f, int *policy)
{
	return forward_late(rt_prio, batch_ns, 0, f, policy);
}

/* The lateness the forwarder accounts is measured against the path's schedule: a release
 * held back 3 ms (the test fault) counts at least 3 ms late, in the link's life and in the
 * window a cell would take, and a taken window leaves an empty one. Only lower bounds:
 * a slow machine can add lateness, never remove it. */
static void test_lateness_is_against_the_schedule(void **state)
{
	(void)state;
	pq_fwd f;
	int policy;
	pq_fwd_stats st;
	pq_late_win w;
	pq_summary s;
	const int64_t fault = 3 * PQ_NS_PER_MS;
	assert_int_equal(forward_late(PQ_FWD_DEFAULT_RT_PRIO, 0, fault, &f, &policy), 0);
	assert_int_equal(f.fault_late_ns, fault);
	pq_fwd_stats_get(&f, &st);
	assert_int_equal(st.late.n, 1);
	assert_true(st.late.p50 >= (double)fault);
	pq_path_stats dir[2];
	pq_fwd_window_take(&f, &w, dir);
	assert_int_equal(dir[0].pkts_out, 1); /* the counts at the same instant */
	pq_late_win_summary(&w, &s);
	assert_int_equal(s.n, 1);
	assert_true(s.max >= (double)fault);
	pq_late_win_dispose(&w);
	pq_fwd_window_take(&f, &w, dir);
	assert_int_equal(w.n, 0);
	assert_true(w.s.cap >= 4096); /* the next window's room was made before the lock */
	pq_late_win_dispose(&w);
	pq_fwd_dispose(&f);
	/* a negative fault is none */
	assert_int_equal(forward_late(0, 0, -1, &f, &policy), 0);
	assert_int_equal(f.fault_late_ns, 0);
	pq_fwd_dispose(&f);
}

static void test_forwards_in_the_class_asked(void **state)
{
	(void)state;
	pq_fwd f;
	int policy = -1;
	assert_int_equal(forward_one(PQ_FWD_DEFAULT_RT_PRIO, 0, &f, &policy), 0);
	if (f.rt_prio) {
		assert_int_equal(f.rt_prio, PQ_FWD_DEFAULT_RT_PRIO);
		assert_int_equal(policy, SCHED_FIFO);
		assert_string_equal(f.sched_note, "");
	} else { /* refused here (no CAP_SYS_NICE): the fallback, said */
		assert_int_equal(policy, SCHED_OTHER);
		assert_non_null(strstr(f.sched_note, "refused"));
	}
	pq_fwd_stats st;
	pq_fwd_stats_get(&f, &st);
	assert_int_equal(st.dir[0].pkts_out, 1);
	assert_int_equal(st.late.n, 1);
	pq_fwd_dispose(&f);

	assert_int_equal(f.batch_ns, 0);
	pq_fwd_dispose(&f);

	/* a batch window: one packet still crosses (alone, nothing to batch); the window
	 * is clamped to its maximum */
	assert_int_equal(forward_one(PQ_FWD_DEFAULT_RT_PRIO, 10 * PQ_NS_PER_MS, &f, &policy), 0);
	assert_int_equal(f.batch_ns, PQ_FWD_BATCH_MAX_NS);
	pq_fwd_dispose(&f);
	assert_int_equal(forward_one(PQ_FWD_DEFAULT_RT_PRIO, -5, &f, &policy), 0);
	assert_int_equal(f.batch_ns, 0);
	pq_fwd_dispose(&f);

	assert_int_equal(forward_one(0, 0, &f, &policy), 0);
	assert_int_equal(f.rt_prio, 0);
	assert_int_equal(policy, SCHED_OTHER);
	assert_string_equal(f.sched_note, "");
	assert_int_equal(f.early_ns, PQ_FWD_DEFAULT_EARLY_NS);
	pq_fwd_dispose(&f);
}

/* Without CAP_SYS_NICE and with no RLIMIT_RTPRIO the kernel refuses SCHED_FIFO: the
 * forwarder must still start, in the normal class, and say why. A child drops the
 * privilege (as root: becomes nobody) so this process keeps its own. */
static void test_refused_falls_back_with_a_note(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = {0, 0};
		if (setrlimit(RLIMIT_RTPRIO, &rl) || (geteuid() == 0 && setuid(65534)))
			_exit(10);
		pq_fwd f;
		int policy = -1, rc = forward_one(20, 0, &f, &policy);
		int ok = rc == 0 && f.rt_prio == 0 && policy == SCHED_OTHER &&
			 strstr(f.sched_note, "SCHED_FIFO priority 20 refused") &&
			 f.early_ns == PQ_FWD_DEFAULT_EARLY_NS;
		if (rc != 3) /* a failed start disposed of itself */
			pq_fwd_dispose(&f);
		_exit(ok ? 0 : 20 + rc);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* The thread pinned to one CPU and read back (a browser's cell puts it beside the server,
 * core/sched.h); an empty set refused by the kernel, leaving it where it was; a stopped
 * forwarder has no thread to pin. */
static void test_pin(void **state)
{
	(void)state;
	int c[2], s[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, c), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, s), 0);
	pq_link_config cfg;
	pq_link_config_init(&cfg);
	const int64_t comp[2] = {0, 0};
	pq_fwd_tune tune = {.early_ns = -1, .nice = 0, .rt_prio = 0};
	pq_fwd f;
	pq_diag d;
	char list[64], want[64];
	assert_int_equal(pq_fwd_start(&f, &cfg, comp, c[1], s[1], NULL, &tune, &d), 0);
	cpu_set_t mine, one, none;
	CPU_ZERO(&mine);
	assert_int_equal(sched_getaffinity(0, sizeof mine, &mine), 0);
	int first = 0;
	while (!CPU_ISSET(first, &mine))
		first++;
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	snprintf(want, sizeof want, "%d", first);
	assert_int_equal(pq_fwd_pin(&f, &one, list, sizeof list), 0);
	assert_string_equal(list, want);
	CPU_ZERO(&none);
	assert_int_equal(pq_fwd_pin(&f, &none, list, sizeof list), -EINVAL);
	assert_string_equal(list, want);
	pq_sched_cpulist(&mine, want, sizeof want);
	assert_int_equal(pq_fwd_pin(&f, &mine, list, sizeof list), 0);
	assert_string_equal(list, want);
	cpu_set_t after;
	CPU_ZERO(&after);
	assert_int_equal(sched_getaffinity(0, sizeof after, &after), 0);
	assert_true(CPU_EQUAL(&mine, &after)); /* the caller's own CPUs untouched */
	pq_diag d2;
	(void)pq_fwd_stop(&f, &d2);
	assert_int_equal(pq_fwd_pin(&f, &one, list, sizeof list), PQ_ESTATE);
	assert_string_equal(list, "");
	pq_fwd_dispose(&f);
	close(c[0]);
	close(s[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pin),
		cmocka_unit_test(test_spin_lead),
		cmocka_unit_test(test_spin_budget),
		cmocka_unit_test(test_spin_pool),
		cmocka_unit_test(test_forwards_in_the_class_asked),
		cmocka_unit_test(test_lateness_is_against_the_schedule),
		cmocka_unit_test(test_schedstat_wait),
		cmocka_unit_test(test_refused_falls_back_with_a_note),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
