/* pqtls sweep's measurement in a session of its own (cli/sweep_int.h): forked, the child's
 * scheduling group raised, signals passed on, the child's end made the sweep's. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/sweep_int.h"
#include "core/child.h"
#include "core/sched.h"
#include "net/ns.h"

static volatile pid_t session_child;

static void pass_on(int sig)
{
	if (session_child > 0)
		kill(session_child, sig);
}

/* The measurement in a session of its own, when the endpoints ask for more than the
 * caller's session's scheduling group gives (core/sched.h: under autogroups a session
 * weighs as one against the others, whatever its threads' nice). The sweep forks; the
 * child starts a session (so an autogroup) of its own, raises that group to `nice` and
 * returns 0 to go on measuring; the caller's session is never touched, and the raised
 * group ends with the child however it ends. The parent passes SIGINT, SIGTERM and
 * SIGHUP on (the child no longer hears the terminal), waits, and returns 1 with *code
 * the child's exit code (a child killed by a signal: the parent dies of the same). A
 * child whose parent dies gets SIGTERM: it ends after the cell in progress, as on ^C.
 * Returns -1 when it cannot fork: the sweep then runs here, in the caller's group. */
int pq_sweep_own_session(int nice, const char *out, int *code)
{
	int group = pq_sched_group_nice();
	if (nice == PQ_SCHED_NICE_KEEP || group == PQ_SCHED_NICE_KEEP || nice >= group)
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid_t parent = getpid(), pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
			_exit(PQ_EXIT_FAIL); /* the parent is gone already */
		(void)setsid();              /* never a group leader: a fork's child */
		(void)pq_sched_set_group_nice(nice); /* refused (not root): as it was, stored */
		return 0;
	}
	session_child = pid;
	struct sigaction sa = {.sa_handler = pass_on};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status)) {
		/* Said, and its links' namespaces removed now (its workers, if any, end after
		 * their cells and take their own down), then dies of the same signal. */
		char how[160];
		pq_child_describe_status(status, how, sizeof how);
		fprintf(stderr, "pqtls sweep: the measuring process was %s; the cells it finished are kept in %s (the "
				"same command measures the rest)\n", how, out);
		pq_ns_sweep(NULL);
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
	}
	*code = WIFEXITED(status) ? WEXITSTATUS(status) : PQ_EXIT_FAIL;
	return 1;
}
