#include "core/proc.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/cpus.h"

uint64_t pq_proc_raise_fdlimit(uint64_t need)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		rlim_t want = rl.rlim_max == RLIM_INFINITY || need < rl.rlim_max ? need : rl.rlim_max;
		struct rlimit nl = {want, rl.rlim_max};
		if (setrlimit(RLIMIT_NOFILE, &nl) == 0)
			rl.rlim_cur = want;
	}
	return rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_cur;
}

int64_t pq_proc_cpu_ns(int who)
{
	struct rusage ru;
	if (getrusage(who, &ru) < 0)
		return 0;
	return (int64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * PQ_NS_PER_S +
	       (int64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * PQ_NS_PER_US;
}

void pq_proc_read_text(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got = fd < 0 ? -1 : read(fd, buf, n - 1);
	buf[got > 0 ? got : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

unsigned pq_proc_ncpu(void)
{
	pq_cpus c;
	pq_cpus_get(&c);
	return c.usable;
}

int pq_proc_parse_busy(const char *stat, uint64_t *ticks)
{
	unsigned long long user, nice, sys, idle, iowait, irq, softirq;
	if (!stat || strncmp(stat, "cpu ", 4) != 0 ||
	    sscanf(stat + 4, "%llu %llu %llu %llu %llu %llu %llu", &user, &nice, &sys, &idle, &iowait, &irq, &softirq) != 7)
		return PQ_EPARSE;
	*ticks = user + sys + irq + softirq;
	return 0;
}

int pq_proc_parse_tree(const char *pidstat, uint64_t *ticks)
{
	/* "PID (COMM) S PPID ...": the name may hold spaces and parentheses, so count the
	 * fields from its last ')'; utime is the 14th field, cstime the 17th. */
	const char *p = pidstat ? strrchr(pidstat, ')') : NULL;
	unsigned long long ut, st, cut, cst;
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu", &ut, &st, &cut,
			 &cst) != 4)
		return PQ_EPARSE;
	*ticks = ut + st + cut + cst;
	return 0;
}
