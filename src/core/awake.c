#include "core/awake.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
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

void pq_awake_init(pq_awake *a)
{
	a->pid = 0;
	a->qos_fd = -1;
}

/* dir/name's first line into buf without its newline; "" when it cannot be read. */
static void read_line(const char *dir, const char *name, char *buf, size_t n)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	pq_proc_read_text(path, buf, n);
	buf[strcspn(buf, "\n")] = '\0';
}

/* 0 when the active cpuidle driver's first state is the polling loop and not disabled. */
static int polls(const char *cpu, pq_diag *d)
{
	char drv[64] = "", name[64] = "", off[16] = "";
	read_line(cpu, "cpuidle/current_driver", drv, sizeof drv);
	read_line(cpu, "cpu0/cpuidle/state0/name", name, sizeof name);
	read_line(cpu, "cpu0/cpuidle/state0/disable", off, sizeof off);
	if (!drv[0] || !strcmp(drv, "none"))
		return pq_diag_set(d, PQ_EUNSUPPORTED, "no cpuidle driver is active (%s/cpuidle/current_driver)", cpu);
	if (strcmp(name, "POLL") != 0)
		return pq_diag_set(d, PQ_EUNSUPPORTED,
				   "the cpuidle driver %s has no polling idle state (its first state is \"%s\", not POLL)",
				   drv, name[0] ? name : "unreadable");
	if (off[0] && strcmp(off, "0") != 0)
		return pq_diag_set(d, PQ_EUNSUPPORTED, "the polling idle state of %s is disabled (%s/cpu0/cpuidle/state0/disable)",
				   drv, cpu);
	return 0;
}

int pq_awake_poll_start(pq_awake *a, const pq_awake_paths *p, pq_diag *d)
{
	const char *cpu = p && p->cpu_dir ? p->cpu_dir : "/sys/devices/system/cpu";
	const char *qos = p && p->qos ? p->qos : "/dev/cpu_dma_latency";
	int32_t want = 0, got = -1;
	int rc = polls(cpu, d);
	if (rc < 0)
		return rc;
	int fd = open(qos, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return pq_diag_set(d, -errno, "cannot hold a CPU latency request: %s: %s", qos, strerror(errno));
	ssize_t w = write(fd, &want, sizeof want), r = w == (ssize_t)sizeof want ? pread(fd, &got, sizeof got, 0) : -1;
	if (w != (ssize_t)sizeof want)
		rc = pq_diag_set(d, w < 0 ? -errno : PQ_EIO, "cannot hold a CPU latency request: writing %s: %s", qos,
				 w < 0 ? strerror(errno) : "short write");
	else if (r != (ssize_t)sizeof got)
		rc = pq_diag_set(d, PQ_EIO, "a CPU latency request of 0 us on %s did not take: nothing read back", qos);
	else if (got != 0)
		rc = pq_diag_set(d, PQ_EIO, "a CPU latency request of 0 us on %s did not take: read back %d us", qos,
				 (int)got);
	if (rc < 0)
		close(fd);
	else
		a->qos_fd = fd;
	return rc;
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
	if (a->qos_fd >= 0)
		close(a->qos_fd);
	a->qos_fd = -1;
	if (a->pid <= 0)
		return;
	kill(a->pid, SIGKILL);
	while (waitpid(a->pid, NULL, 0) < 0 && errno == EINTR)
		;
	a->pid = 0;
}
