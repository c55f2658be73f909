/* core/child: argument substitution, exit codes, waiting with a deadline or an
 * interrupt, and stopping a process or a whole process group. Children are real forks;
 * the bounds are generous (a loaded 2-core machine). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/child.h"
#include "core/clock.h"

static void substitute(void **state)
{
	(void)state;
	static const pq_name vars[] = {{"server", "10.77.0.2"}, {"client", "10.77.0.1"}, {NULL, NULL}};
	char *in[] = {"--listen", "{server}:4433", "{client}-{server}-{client}", "{x}", "{server",
		      "{}", ""};
	char **out = pq_child_substitute(in, 7, vars);
	assert_non_null(out);
	assert_string_equal(out[0], "--listen");
	assert_string_equal(out[1], "10.77.0.2:4433");
	assert_string_equal(out[2], "10.77.0.1-10.77.0.2-10.77.0.1");
	assert_string_equal(out[3], "{x}"); /* not a var: kept */
	assert_string_equal(out[4], "{server");
	assert_string_equal(out[5], "{}");
	assert_string_equal(out[6], "");
	assert_null(out[7]);
	pq_child_free_argv(out);
	/* Long values are not cut short. */
	char big[3000];
	memset(big, 'v', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	pq_name many[] = {{"v", big}, {NULL, NULL}};
	char *in2[] = {"{v}{v}{v}"};
	out = pq_child_substitute(in2, 1, many);
	assert_int_equal(strlen(out[0]), 3 * (sizeof big - 1));
	pq_child_free_argv(out);
	out = pq_child_substitute(in, 0, NULL);
	assert_non_null(out);
	assert_null(out[0]);
	pq_child_free_argv(out);
}

static pid_t spawn_exit(int code)
{
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0)
		_exit(code);
	return p;
}

/* A child that ignores SIGTERM and waits to be killed; returns once it ignores it. */
static pid_t spawn_stubborn(void)
{
	int fds[2];
	char c;
	if (pipe(fds))
		return -1;
	pid_t p = fork();
	if (p == 0) {
		signal(SIGTERM, SIG_IGN);
		(void)!write(fds[1], "r", 1);
		for (;;)
			pause();
	}
	if (p > 0 && read(fds[0], &c, 1) != 1)
		p = -1;
	close(fds[0]);
	close(fds[1]);
	return p;
}

static void exit_codes_and_waits(void **state)
{
	(void)state;
	int status;
	pid_t p = spawn_exit(7);
	assert_int_equal(pq_child_wait(p, &status, 10 * PQ_NS_PER_S, NULL), 1);
	assert_int_equal(pq_child_exit_code(status), 7);

	p = spawn_stubborn();
	assert_true(p > 0);
	int64_t t0 = pq_mono_ns();
	assert_int_equal(pq_child_wait(p, &status, 30 * PQ_NS_PER_MS, NULL), 0); /* still running */
	assert_true(pq_mono_ns() - t0 >= 30 * PQ_NS_PER_MS);
	/* Without a limit, the interrupt flag ends the wait. */
	volatile sig_atomic_t stop = 1;
	assert_int_equal(pq_child_wait(p, &status, -1, &stop), 0);
	kill(p, SIGKILL);
	assert_int_equal(pq_child_wait(p, &status, 10 * PQ_NS_PER_S, NULL), 1);
	assert_int_equal(pq_child_exit_code(status), 128 + SIGKILL);
	/* Not a child (any more): nothing to wait for. */
	assert_int_equal(pq_child_wait(p, &status, -1, NULL), 1);
}

static void stop_one(void **state)
{
	(void)state;
	pid_t p = spawn_stubborn();
	assert_true(p > 0);
	int64_t t0 = pq_mono_ns();
	pq_child_stop(p, 50 * PQ_NS_PER_MS); /* ignores SIGTERM: SIGKILL after 50 ms */
	assert_true(pq_mono_ns() - t0 >= 50 * PQ_NS_PER_MS);
	assert_int_equal(kill(p, 0), -1);
	assert_int_equal(errno, ESRCH);
	pq_child_stop(0, 0); /* ignored */
}

/* A group leader that exits on SIGTERM, with a child that ignores it: the group's last
 * SIGKILL takes the child too. */
static void stop_group(void **state)
{
	(void)state;
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0); /* the orphan comes back to us */
	pid_t leader = fork();
	assert_true(leader >= 0);
	if (leader == 0) {
		setpgid(0, 0);
		pid_t g = spawn_stubborn();
		(void)!write(fds[1], &g, sizeof g);
		signal(SIGTERM, SIG_DFL);
		for (;;)
			pause(); /* SIGTERM ends it */
	}
	setpgid(leader, leader);
	pid_t grandchild;
	assert_int_equal(read(fds[0], &grandchild, sizeof grandchild), (ssize_t)sizeof grandchild);
	pq_child_stop_group(leader, 5 * PQ_NS_PER_S);
	int status = 0;
	pid_t r = 0;
	for (int i = 0; i < 5000 && r == 0; i++) {
		r = waitpid(grandchild, &status, WNOHANG);
		if (r == 0)
			usleep(1000); /* polling a child the group stop already killed */
	}
	assert_int_equal(r, grandchild);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(substitute),
		cmocka_unit_test(exit_codes_and_waits),
		cmocka_unit_test(stop_one),
		cmocka_unit_test(stop_group),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
