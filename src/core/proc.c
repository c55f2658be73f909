#include "core/proc.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/clock.h"

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
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}
