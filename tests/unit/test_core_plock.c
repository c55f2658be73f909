/* core/plock: one process at a time holds it, across forks; a holder that is killed
 * gives it up; a process waiting for it gets it once the holder releases it, not before;
 * the empty lock does nothing; a lock that is no descriptor is refused with the reason.
 * Orderings are asserted, not durations (a loaded 2-core machine). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/clock.h"
#include "core/plock.h"

/* The state letter of pid (R, S, D, Z ...) from /proc, '?' unread. */
static char state_of(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return '?';
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

static void none_does_nothing(void **state)
{
	(void)state;
	pq_plock l = PQ_PLOCK_NONE;
	pq_diag d;
	int64_t w = -1;
	assert_int_equal(pq_plock_hold(&l, &pq_clock_mono, &w, &d), 0);
	assert_int_equal(w, 0);
	assert_int_equal(pq_plock_held_elsewhere(&l, &d), 0);
	pq_plock_release(&l);
	pq_plock_free(&l);
	assert_int_equal(l.fd, -1);
}

static void bad_descriptor_refused(void **state)
{
	(void)state;
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	close(fds[0]);
	close(fds[1]);
	pq_plock l = {.fd = fds[0]}; /* closed: no descriptor now */
	pq_diag d;
	assert_true(pq_plock_hold(&l, &pq_clock_mono, NULL, &d) < 0);
	assert_non_null(strstr(pq_diag_msg(&d), "workers' lock"));
	assert_true(pq_plock_held_elsewhere(&l, &d) < 0);
}

/* The child holds only after the parent let go: it waits in the kernel meanwhile. */
static void one_at_a_time(void **state)
{
	(void)state;
	pq_plock l;
	pq_diag d;
	assert_int_equal(pq_plock_new(&l, &d), 0);
	assert_int_equal(pq_plock_hold(&l, &pq_clock_mono, NULL, &d), 0);
	assert_int_equal(pq_plock_hold(&l, &pq_clock_mono, NULL, &d), 0); /* again: no-op */
	int up[2];
	assert_int_equal(pipe(up), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(up[0]);
		char c = (char)('0' + pq_plock_held_elsewhere(&l, &d));
		if (write(up[1], &c, 1) != 1)
			_exit(2);
		int64_t waited = 0;
		if (pq_plock_hold(&l, &pq_clock_mono, &waited, &d) < 0)
			_exit(3);
		int64_t got = pq_clock_now(&pq_clock_mono);
		if (write(up[1], &got, sizeof got) != (ssize_t)sizeof got ||
		    write(up[1], &waited, sizeof waited) != (ssize_t)sizeof waited)
			_exit(4);
		_exit(0);
	}
	close(up[1]);
	char c = 0;
	assert_int_equal(read(up[0], &c, 1), 1);
	assert_int_equal(c, '1'); /* the child sees the parent's hold */
	/* the child's next step is the wait: once it sleeps, it sleeps there */
	for (int i = 0; i < 5000 && state_of(pid) != 'S'; i++)
		usleep(1000);
	assert_int_equal(state_of(pid), 'S');
	int64_t released = pq_clock_now(&pq_clock_mono);
	pq_plock_release(&l);
	int64_t got = 0, waited = -1;
	assert_int_equal(read(up[0], &got, sizeof got), (ssize_t)sizeof got);
	assert_int_equal(read(up[0], &waited, sizeof waited), (ssize_t)sizeof waited);
	assert_true(got >= released);
	assert_true(waited > 0);
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(up[0]);
	pq_plock_free(&l);
}

/* A holder killed with the lock held gives it up: the others do not wait for ever. */
static void killed_holder_lets_go(void **state)
{
	(void)state;
	pq_plock l;
	pq_diag d;
	assert_int_equal(pq_plock_new(&l, &d), 0);
	int up[2];
	assert_int_equal(pipe(up), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(up[0]);
		if (pq_plock_hold(&l, &pq_clock_mono, NULL, &d) < 0)
			_exit(3);
		char c = 'h';
		if (write(up[1], &c, 1) != 1)
			_exit(2);
		pause();
		_exit(0);
	}
	close(up[1]);
	char c = 0;
	assert_int_equal(read(up[0], &c, 1), 1);
	assert_int_equal(pq_plock_held_elsewhere(&l, &d), 1);
	kill(pid, SIGKILL);
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(pq_plock_held_elsewhere(&l, &d), 0);
	assert_int_equal(pq_plock_hold(&l, &pq_clock_mono, NULL, &d), 0);
	pq_plock_release(&l);
	close(up[0]);
	pq_plock_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(none_does_nothing),
		cmocka_unit_test(bad_descriptor_refused),
		cmocka_unit_test(one_at_a_time),
		cmocka_unit_test(killed_holder_lets_go),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
