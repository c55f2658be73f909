/* exp/srvproc.c: a cell's server that cannot be started is refused with the program's
 * name and the reason, before anything is measured, and leaves no descriptor or child
 * behind. (The server that starts is every sweep's: tests/integration; one that dies is
 * test_exp_server_dies.c.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exp/srvproc.h"

static int open_fds(void)
{
	int n = 0;
	DIR *dir = opendir("/proc/self/fd");
	assert_non_null(dir);
	while (readdir(dir))
		n++;
	closedir(dir);
	return n;
}

/* Starting exe is refused with rc and a message holding `says`; nothing left open or
 * running. */
static void refused(const char *exe, int rc, const char *says, pq_exp_srv *s)
{
	pq_server_config cfg;
	memset(&cfg, 0, sizeof cfg);
	pq_diag d;
	int before = open_fds();
	assert_int_equal(pq_exp_srv_start(s, &cfg, exe, &d), rc);
	if (!strstr(pq_diag_msg(&d), says))
		fail_msg("'%s' says '%s', not '%s'", exe, pq_diag_msg(&d), says);
	assert_int_equal(s->pid, 0);
	assert_int_equal(s->ctl, -1);
	assert_int_equal(s->res, -1);
	assert_int_equal(open_fds(), before); /* both pipes closed */
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1); /* no child started */
	assert_int_equal(errno, ECHILD);
}

static void missing_program_is_named(void **state)
{
	(void)state;
	pq_exp_srv s;
	refused("/nonexistent/pqtls", -ENOENT,
		"server process: cannot start /nonexistent/pqtls: No such file or directory", &s);
	/* finishing a server that never started is nothing */
	pq_server_stats st;
	int64_t cpu = -1;
	pq_diag d;
	assert_int_equal(pq_exp_srv_finish(&s, &st, &cpu, &d), 0);
	assert_int_equal(cpu, 0);
}

static void not_a_program_is_named(void **state)
{
	(void)state;
	pq_exp_srv s;
	/* a directory: exec refuses it, and the message says so */
	refused("/", -EACCES, "server process: cannot start /: Permission denied", &s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(missing_program_is_named),
		cmocka_unit_test(not_a_program_is_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
