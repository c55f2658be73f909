/* core/awake: the keep-awake process runs apart from its caller (a session of its own,
 * SCHED_IDLE, named pqtls-awake so that tests looking for pqtls processes do not take it
 * for a server), every thread of it at nice 19 (its time is "nice" in /proc/stat, not
 * busy), and stop ends it. The polling way, on a made-up /sys tree and request file: held
 * (0 written and read back) where the driver's first state polls, dropped by stop, and
 * refused, saying why, without a driver, with a first state that halts or is disabled, and
 * with a request file that is missing or reads nothing back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
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
	pq_awake_init(&a);
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

/* A made-up /sys/devices/system/cpu: driver, first state's name and disable; NULL: no file. */
static void fake_sys(const char *dir, const char *driver, const char *state0, const char *disable)
{
	char p[512];
	const char *dirs[] = {"cpuidle", "cpu0", "cpu0/cpuidle", "cpu0/cpuidle/state0"};
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, dirs[i]);
		assert_true(mkdir(p, 0700) == 0 || errno == EEXIST);
	}
	const char *files[][2] = {{"cpuidle/current_driver", driver},
				  {"cpu0/cpuidle/state0/name", state0},
				  {"cpu0/cpuidle/state0/disable", disable}};
	for (size_t i = 0; i < 3; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, files[i][0]);
		unlink(p);
		if (!files[i][1])
			continue;
		FILE *f = fopen(p, "w");
		assert_non_null(f);
		fprintf(f, "%s\n", files[i][1]);
		fclose(f);
	}
}

/* The tree fake_sys made, removed. */
static void unmake_sys(const char *dir)
{
	char p[600];
	const char *rm[] = {"cpu0/cpuidle/state0", "cpu0/cpuidle", "cpu0", "cpuidle", ""};
	fake_sys(dir, NULL, NULL, NULL);
	for (size_t i = 0; i < sizeof rm / sizeof rm[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, rm[i]);
		rmdir(p);
	}
}

static void poll_held(void **state)
{
	(void)state;
	char dir[] = "/tmp/pqtls-awake-XXXXXX", qos[600];
	assert_non_null(mkdtemp(dir));
	fake_sys(dir, "haltpoll", "POLL", "0");
	snprintf(qos, sizeof qos, "%s/qos", dir);
	int fd = open(qos, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	pq_awake a;
	pq_diag d;
	pq_awake_init(&a);
	pq_awake_paths p = {.cpu_dir = dir, .qos = qos};
	assert_int_equal(pq_awake_poll_start(&a, &p, &d), 0);
	assert_true(a.qos_fd >= 0);
	assert_int_equal(a.pid, 0); /* no spinners */
	struct stat st;
	assert_int_equal(stat(qos, &st), 0);
	assert_int_equal(st.st_size, 4); /* one s32: 0 us */
	int held = a.qos_fd;
	pq_awake_stop(&a);
	assert_int_equal(a.qos_fd, -1);
	assert_int_equal(fcntl(held, F_GETFD), -1); /* the request's descriptor is closed */
	unlink(qos);
	unmake_sys(dir);
}

/* pq_awake_poll_start on the tree fake_sys made, expecting code and a message part. */
static void refused(const char *dir, const char *qos, int code, const char *part)
{
	pq_awake a;
	pq_diag d;
	pq_awake_init(&a);
	pq_awake_paths p = {.cpu_dir = dir, .qos = qos};
	assert_int_equal(pq_awake_poll_start(&a, &p, &d), code);
	if (!strstr(d.msg, part))
		fail_msg("\"%s\" does not say \"%s\"", d.msg, part);
	assert_int_equal(a.qos_fd, -1);
	assert_int_equal(a.pid, 0);
}

static void poll_refused(void **state)
{
	(void)state;
	char dir[] = "/tmp/pqtls-awake-XXXXXX", missing[600];
	assert_non_null(mkdtemp(dir));
	snprintf(missing, sizeof missing, "%s/no-such-file", dir);
	fake_sys(dir, NULL, "POLL", "0");
	refused(dir, "/dev/null", PQ_EUNSUPPORTED, "no cpuidle driver is active");
	fake_sys(dir, "none", "POLL", "0");
	refused(dir, "/dev/null", PQ_EUNSUPPORTED, "no cpuidle driver is active");
	fake_sys(dir, "psci_idle", "WFI", "0"); /* ARM: state 0 halts */
	refused(dir, "/dev/null", PQ_EUNSUPPORTED, "the cpuidle driver psci_idle has no polling idle state (its first state is \"WFI\", not POLL)");
	fake_sys(dir, "haltpoll", NULL, "0");
	refused(dir, "/dev/null", PQ_EUNSUPPORTED, "(its first state is \"unreadable\", not POLL)");
	fake_sys(dir, "intel_idle", "POLL", "1");
	refused(dir, "/dev/null", PQ_EUNSUPPORTED, "the polling idle state of intel_idle is disabled");
	fake_sys(dir, "haltpoll", "POLL", "0");
	refused(dir, missing, -ENOENT, "cannot hold a CPU latency request: ");
	refused(dir, missing, -ENOENT, "no-such-file: No such file or directory");
	refused(dir, "/dev/null", PQ_EIO, "a CPU latency request of 0 us on /dev/null did not take: nothing read back");
	unmake_sys(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(start_stop), cmocka_unit_test(poll_held),
					   cmocka_unit_test(poll_refused)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
