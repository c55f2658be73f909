/* core/awake: the keep-awake process runs apart from its caller (a session of its own,
 * SCHED_IDLE, named pqtls-awake so that tests looking for pqtls processes do not take it
 * for a server), every thread of it at nice 19 (its time is "nice" in /proc/stat, not
 * busy), and stop ends it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/awake.h"

static void read_comm(pid_t pid, char *buf, size_t n)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
	FILE *f = fopen(path, "r");
	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, (int)n, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
}

/* The nice value of every thread of pid (field 19 of each task's stat), or -100 when one
 * differs from the others or none is read. */
static int threads_nice(pid_t pid, int *threads)
{
	char path[96], buf[512];
	int nice = -100;
	*threads = 0;
	for (int tid = pid; tid < pid + 64; tid++) { /* its threads' ids follow it closely */
		snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, tid);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[n] = '\0';
		const char *p = strrchr(buf, ')');
		int v;
		if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %d", &v) != 1)
			return -100;
		if (*threads && v != nice)
			return -100;
		nice = v;
		(*threads)++;
	}
	return nice;
}

static void start_stop(void **state)
{
	(void)state;
	pq_awake a;
	pq_diag d;
	assert_int_equal(pq_awake_start(&a, 2, &d), 0);
	assert_true(a.pid > 0);
	/* it sets itself up after the fork: wait (a few ms) for its name, session and class */
	char comm[32] = "";
	int policy = -1;
	for (int i = 0; i < 500 && (strcmp(comm, "pqtls-awake") || policy != SCHED_IDLE || getsid(a.pid) != a.pid); i++) {
		struct timespec ts = {0, 2000000};
		nanosleep(&ts, NULL);
		read_comm(a.pid, comm, sizeof comm);
		policy = sched_getscheduler(a.pid);
	}
	assert_string_equal(comm, "pqtls-awake");
	assert_int_equal(policy, SCHED_IDLE);
	assert_int_equal(getsid(a.pid), a.pid); /* a session, so a scheduling group, of its own */
	int threads = 0, nice = -100;
	for (int i = 0; i < 500 && (threads < 2 || nice != 19); i++) { /* its second thread starts */
		struct timespec ts = {0, 2000000};
		nanosleep(&ts, NULL);
		nice = threads_nice(a.pid, &threads);
	}
	assert_int_equal(threads, 2);
	assert_int_equal(nice, 19);
	assert_int_not_equal(getsid(0), a.pid);
	pid_t pid = a.pid;
	pq_awake_stop(&a);
	assert_int_equal(a.pid, 0);
	assert_int_equal(kill(pid, 0), -1); /* reaped: gone */
	pq_awake_stop(&a);                  /* not running: nothing */
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(start_stop)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
