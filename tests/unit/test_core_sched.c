/* core/sched: the schedstat text, a thread's meter (its wait only grows, and a thread that
 * gives up its CPU to a busier one waits), setting and reading back a nice value, and a
 * machine split in two (CPU lists, the split, a thread pinned and read back), and a
 * thread's name (set, read back from /proc; too long or empty refused, the name kept). */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <pthread.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/proc.h"
#include "core/sched.h"

static void parse(void **state)
{
	(void)state;
	int64_t w = -1;
	assert_int_equal(pq_sched_parse("812345 67890 42\n", &w), 0);
	assert_int_equal(w, 67890);
	assert_int_equal(pq_sched_parse("812345\n", &w), PQ_EPARSE);
	assert_int_equal(pq_sched_parse("", &w), PQ_EPARSE);
	assert_int_equal(pq_sched_parse("a b c", &w), PQ_EPARSE);
	assert_int_equal(pq_sched_parse("1 99999999999999999999 3", &w), PQ_EPARSE);
	assert_int_equal(pq_sched_delta(10, 25), 15);
	assert_int_equal(pq_sched_delta(-1, 25), -1);
	assert_int_equal(pq_sched_delta(30, 25), -1);
}

static void meter(void **state)
{
	(void)state;
	pq_sched_meter m;
	pq_sched_meter_open(&m);
	if (m.fd < 0) {
		/* a kernel without per-thread schedstat: unknown, never zero */
		assert_int_equal(pq_sched_meter_read(&m), -1);
		return;
	}
	int64_t a = pq_sched_meter_read(&m);
	assert_true(a >= 0);
	for (int i = 0; i < 50; i++)
		sched_yield();
	int64_t b = pq_sched_meter_read(&m);
	assert_true(b >= a);
	assert_int_equal(pq_sched_tid_wait_ns(0), -1);
	assert_true(pq_sched_tid_wait_ns(gettid()) >= b);
	pq_sched_meter_close(&m);
	assert_int_equal(m.fd, -1);
	assert_int_equal(pq_sched_meter_read(&m), -1);
	pq_sched_meter_close(&m); /* twice is harmless */
}

static void *nice_thread(void *arg)
{
	int *out = arg;
	out[0] = pq_sched_set_nice(PQ_SCHED_NICE_KEEP);
	out[1] = pq_sched_set_nice(out[0] + 3 <= PQ_SCHED_NICE_MAX ? out[0] + 3 : out[0]);
	return NULL;
}

/* Nice is per thread: a thread lowered (always allowed) reads its new value back, a keep
 * changes nothing, and the thread that made it is untouched. */
static void nice_value(void **state)
{
	(void)state;
	int before = pq_sched_set_nice(PQ_SCHED_NICE_KEEP);
	assert_true(before >= PQ_SCHED_NICE_MIN && before <= PQ_SCHED_NICE_MAX);
	int got[2];
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, nice_thread, got), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(got[0], before);
	assert_int_equal(got[1], before + 3 <= PQ_SCHED_NICE_MAX ? before + 3 : before);
	assert_int_equal(pq_sched_set_nice(PQ_SCHED_NICE_KEEP), before);
	/* out of range: nothing set */
	assert_int_equal(pq_sched_set_nice(-21), before);
	assert_int_equal(pq_sched_set_nice(20), before);
}

/* In a child that starts a session (so, under autogroups, a group) of its own: a lowering
 * (allowed to anyone) is read back as set, and a raise back needs root. The caller's session
 * is never touched, and the test does not depend on the session it was started in (a process
 * in the kernel's default group, as under some job runners, has no group of its own).
 * Returns 0 when all held, 1 when groups work and one did not, 2 with no autogroups. */
static int group_child(void)
{
	if (setsid() < 0)
		return 1;
	int g0 = pq_sched_group_nice();
	if (g0 == PQ_SCHED_NICE_KEEP)
		return pq_sched_set_group_nice(0) == PQ_SCHED_NICE_KEEP ? 2 : 1;
	int want = g0 < PQ_SCHED_NICE_MAX ? g0 + 1 : g0;
	if (pq_sched_set_group_nice(want) != want || pq_sched_group_nice() != want)
		return 1;
	int back = pq_sched_set_group_nice(g0);
	return back == g0 || geteuid() != 0 ? 0 : 1;
}

/* The session group's line, and a group set and read back (group_child). */
static void group(void **state)
{
	(void)state;
	int n = 99;
	assert_int_equal(pq_sched_group_parse("/autogroup-1008 nice 0\n", &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(pq_sched_group_parse("/autogroup-7 nice -19\n", &n), 0);
	assert_int_equal(n, -19);
	assert_int_equal(pq_sched_group_parse("/autogroup-7 nice 42\n", &n), PQ_EPARSE);
	assert_int_equal(pq_sched_group_parse("nice 0", &n), PQ_EPARSE);
	assert_int_equal(pq_sched_group_parse("", &n), PQ_EPARSE);
	int before = pq_sched_group_nice();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(group_child());
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	char enabled[8];
	pq_proc_read_text("/proc/sys/kernel/sched_autogroup_enabled", enabled, sizeof enabled);
	/* 2 (no groups) only where the kernel does not group by session */
	assert_int_equal(WEXITSTATUS(status), enabled[0] == '1' && access("/proc/self/autogroup", R_OK) == 0 ? 0 : 2);
	assert_int_equal(pq_sched_group_nice(), before); /* the caller's group as it was */
}

/* CPU lists as the kernel writes them, cut at a whole range. */
static void cpulist(void **state)
{
	(void)state;
	cpu_set_t s;
	char buf[32];
	CPU_ZERO(&s);
	pq_sched_cpulist(&s, buf, sizeof buf);
	assert_string_equal(buf, "");
	CPU_SET(0, &s);
	pq_sched_cpulist(&s, buf, sizeof buf);
	assert_string_equal(buf, "0");
	CPU_SET(2, &s);
	CPU_SET(3, &s);
	pq_sched_cpulist(&s, buf, sizeof buf);
	assert_string_equal(buf, "0,2-3");
	pq_sched_cpulist(&s, buf, 4); /* "0,2-3" does not fit: the whole ranges that do */
	assert_string_equal(buf, "0");
	CPU_CLR(0, &s);
	CPU_SET(1, &s);
	pq_sched_cpulist(&s, buf, sizeof buf);
	assert_string_equal(buf, "1-3");
}

/* In a child: the split of what it may use, each half pinned and read back, an empty
 * set refused, and one CPU left nothing to split. 0 all as expected, else the step. */
static int split_child(void)
{
	pq_sched_split sp;
	char list[64], want[64];
	cpu_set_t none;
	if (pq_sched_split_get(&sp) < 0)
		return 1;
	if (CPU_COUNT(&sp.server) != 1 || CPU_COUNT(&sp.client) != CPU_COUNT(&sp.all) - 1)
		return 2;
	cpu_set_t both;
	CPU_AND(&both, &sp.server, &sp.client);
	if (CPU_COUNT(&both) != 0)
		return 3;
	pq_sched_cpulist(&sp.client, want, sizeof want);
	if (pq_sched_pin(0, &sp.client, list, sizeof list) != 0 || strcmp(list, want) != 0)
		return 4;
	CPU_ZERO(&none);
	if (pq_sched_pin(0, &none, list, sizeof list) != -EINVAL || strcmp(list, want) != 0)
		return 5; /* refused, and the set in force unchanged */
	pq_sched_cpulist(&sp.server, want, sizeof want);
	if (pq_sched_pin(0, &sp.server, list, sizeof list) != 0 || strcmp(list, want) != 0)
		return 6;
	if (pq_sched_cpus_of(0, list, sizeof list) != 0 || strcmp(list, want) != 0)
		return 7; /* read back without setting */
	if (pq_sched_split_get(&sp) != PQ_EUNSUPPORTED)
		return 8; /* one CPU: nothing to split */
	return 0;
}

static void split(void **state)
{
	(void)state;
	cpu_set_t mine;
	CPU_ZERO(&mine);
	assert_int_equal(sched_getaffinity(0, sizeof mine, &mine), 0);
	if (CPU_COUNT(&mine) < 2) {
		pq_sched_split sp;
		assert_int_equal(pq_sched_split_get(&sp), PQ_EUNSUPPORTED);
		skip(); /* the rest needs two CPUs */
	}
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(split_child());
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	cpu_set_t after;
	CPU_ZERO(&after);
	assert_int_equal(sched_getaffinity(0, sizeof after, &after), 0);
	assert_true(CPU_EQUAL(&mine, &after)); /* the child's pins were its own */
}

/* The calling thread's set as a list; a thread that is not there: -ESRCH and "" (no
 * kernel's pid_max reaches INT_MAX); a zero-length buffer is not written. */
static void cpus_of(void **state)
{
	(void)state;
	cpu_set_t mine;
	char want[64], list[64] = "x";
	CPU_ZERO(&mine);
	assert_int_equal(sched_getaffinity(0, sizeof mine, &mine), 0);
	pq_sched_cpulist(&mine, want, sizeof want);
	assert_int_equal(pq_sched_cpus_of(0, list, sizeof list), 0);
	assert_string_equal(list, want);
	assert_int_equal(pq_sched_cpus_of(INT_MAX, list, sizeof list), -ESRCH);
	assert_string_equal(list, "");
	list[0] = 'x';
	assert_int_equal(pq_sched_cpus_of(0, list, 0), 0);
	assert_int_equal(list[0], 'x');
}

static void *read_own_comm(void *arg)
{
	char *out = arg, path[64];
	snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)gettid());
	int rc = pq_sched_name_thread(PQ_SCHED_NAME_FWD);
	FILE *f = fopen(path, "r");
	out[0] = '\0';
	if (rc == 0 && f && fgets(out, 32, f))
		out[strcspn(out, "\n")] = '\0';
	if (f)
		fclose(f);
	/* Refused names change nothing. */
	if (pq_sched_name_thread("a-name-of-16-byt") != PQ_EINVAL || pq_sched_name_thread("") != PQ_EINVAL ||
	    pq_sched_name_thread(NULL) != PQ_EINVAL)
		out[0] = '?';
	f = fopen(path, "r");
	char again[32] = "";
	if (f && fgets(again, sizeof again, f) && strcmp(again, PQ_SCHED_NAME_FWD "\n") != 0)
		out[0] = '!';
	if (f)
		fclose(f);
	return NULL;
}

static void thread_name(void **state)
{
	(void)state;
	/* Named in a thread of its own: the test process's first thread keeps its name. */
	char got[32] = "", mine[32] = "";
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, read_own_comm, got), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_string_equal(got, PQ_SCHED_NAME_FWD);
	FILE *f = fopen("/proc/self/comm", "r");
	assert_non_null(f);
	assert_non_null(fgets(mine, sizeof mine, f));
	fclose(f);
	assert_string_not_equal(mine, PQ_SCHED_NAME_FWD "\n");
	/* Every name the project gives fits the kernel's 15 bytes. */
	assert_true(strlen(PQ_SCHED_NAME_FWD) <= 15 && strlen(PQ_SCHED_NAME_SERVER) <= 15 &&
		    strlen(PQ_SCHED_NAME_AWAKE) <= 15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse),
		cmocka_unit_test(meter),
		cmocka_unit_test(nice_value),
		cmocka_unit_test(group),
		cmocka_unit_test(cpulist),
		cmocka_unit_test(cpus_of),
		cmocka_unit_test(split),
		cmocka_unit_test(thread_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
