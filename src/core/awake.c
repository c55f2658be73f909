#include "core/awake.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/proc.h"
#include "core/sched.h"

static void *spin(void *arg)
{
	(void)arg;
	for (;;)
		__asm__ __volatile__("" ::: "memory"); /* a CPU's worth of nothing */
	return NULL;
}

/* The spinners' process: a session (and group) of its own at nice 19, SCHED_IDLE threads;
 * ends with its parent. Never returns. */
static void spinners(pid_t parent, unsigned n)
{
	struct sched_param sp = {.sched_priority = 0};
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(0);
	(void)pq_sched_name_thread(PQ_SCHED_NAME_AWAKE); /* not a `pqtls` to pgrep -x */
	(void)setsid();
	(void)pq_sched_set_group_nice(PQ_SCHED_NICE_MAX);
	/* nice 19 for each thread too (the threads below inherit it): SCHED_IDLE ignores it,
	 * but the kernel counts a niced thread's time as "nice" in /proc/stat, which the
	 * machine's busy time (pq_proc_parse_busy) leaves out; at nice 0 the spinners'
	 * cycles read as other work, and a sweep's dispatcher would never back off */
	(void)setpriority(PRIO_PROCESS, 0, PQ_SCHED_NICE_MAX);
	if (sched_setscheduler(0, SCHED_IDLE, &sp) < 0)
		_exit(1); /* never spin in the normal class */
	for (unsigned i = 1; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, spin, NULL) != 0)
			break;
	}
	spin(NULL);
	_exit(0);
}

int pq_awake_start(pq_awake *a, unsigned threads, pq_diag *d)
{
	a->pid = 0;
	if (!threads)
		threads = pq_proc_ncpu();
	pid_t parent = getpid(), pid = fork();
	if (pid < 0)
		return pq_diag_set(d, -errno, "cannot start the CPUs' keep-awake process: %s", strerror(errno));
	if (pid == 0)
		spinners(parent, threads);
	a->pid = pid;
	return 0;
}

void pq_awake_stop(pq_awake *a)
{
	if (a->pid <= 0)
		return;
	kill(a->pid, SIGKILL);
	while (waitpid(a->pid, NULL, 0) < 0 && errno == EINTR)
		;
	a->pid = 0;
}
