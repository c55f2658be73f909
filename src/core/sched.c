#include "core/sched.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/proc.h"

int pq_sched_parse(const char *text, int64_t *wait_ns)
{
	unsigned long long run, wait;
	if (sscanf(text, "%llu %llu", &run, &wait) != 2 || wait > (unsigned long long)INT64_MAX)
		return PQ_EPARSE;
	*wait_ns = (int64_t)wait;
	return 0;
}

/* One schedstat file's wait, from offset 0 of an open descriptor. */
static int64_t read_fd(int fd)
{
	char text[128];
	int64_t wait = -1;
	ssize_t n = pread(fd, text, sizeof text - 1, 0);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	return pq_sched_parse(text, &wait) < 0 ? -1 : wait;
}

void pq_sched_meter_open(pq_sched_meter *m)
{
	m->fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
}

int64_t pq_sched_meter_read(const pq_sched_meter *m)
{
	return m->fd < 0 ? -1 : read_fd(m->fd);
}

void pq_sched_meter_close(pq_sched_meter *m)
{
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
}

int64_t pq_sched_delta(int64_t a, int64_t b)
{
	return a < 0 || b < a ? -1 : b - a;
}

int64_t pq_sched_tid_wait_ns(int tid)
{
	char path[64];
	if (tid <= 0)
		return -1;
	snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int64_t wait = read_fd(fd);
	close(fd);
	return wait;
}

int pq_sched_group_parse(const char *text, int *nice)
{
	int n, used = 0;
	if (sscanf(text, "/autogroup-%*u nice %d%n", &n, &used) != 1 || n < PQ_SCHED_NICE_MIN || n > PQ_SCHED_NICE_MAX)
		return PQ_EPARSE;
	*nice = n;
	return 0;
}

int pq_sched_group_nice(void)
{
	char text[96];
	int nice;
	pq_proc_read_text("/proc/sys/kernel/sched_autogroup_enabled", text, sizeof text);
	if (text[0] != '1')
		return PQ_SCHED_NICE_KEEP;
	pq_proc_read_text("/proc/self/autogroup", text, sizeof text);
	return pq_sched_group_parse(text, &nice) < 0 ? PQ_SCHED_NICE_KEEP : nice;
}

int pq_sched_set_group_nice(int want)
{
	if (pq_sched_group_nice() == PQ_SCHED_NICE_KEEP)
		return PQ_SCHED_NICE_KEEP;
	int fd = open("/proc/self/autogroup", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		char text[16];
		int n = snprintf(text, sizeof text, "%d", want);
		ssize_t w = write(fd, text, (size_t)n); /* refused: the value stays, read back below */
		(void)w;
		close(fd);
	}
	return pq_sched_group_nice();
}

int pq_sched_name_thread(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	if (n == 0 || n > 15) /* the kernel's TASK_COMM_LEN, 16 with its NUL */
		return PQ_EINVAL;
	return prctl(PR_SET_NAME, name, 0, 0, 0) < 0 ? -errno : 0;
}

int pq_sched_set_nice(int want)
{
	/* PRIO_PROCESS with 0 is the calling thread on Linux (nice is per thread). */
	if (want >= PQ_SCHED_NICE_MIN && want <= PQ_SCHED_NICE_MAX)
		(void)setpriority(PRIO_PROCESS, 0, want);
	errno = 0;
	int now = getpriority(PRIO_PROCESS, 0);
	return errno ? PQ_SCHED_NICE_KEEP : now;
}

int pq_sched_split_get(pq_sched_split *s)
{
	CPU_ZERO(&s->all);
	if (sched_getaffinity(0, sizeof s->all, &s->all) < 0)
		return -errno;
	if (CPU_COUNT(&s->all) < 2)
		return PQ_EUNSUPPORTED;
	int first = 0;
	while (!CPU_ISSET(first, &s->all))
		first++;
	CPU_ZERO(&s->server);
	CPU_SET(first, &s->server);
	s->client = s->all;
	CPU_CLR(first, &s->client);
	return 0;
}

int pq_sched_pin(int tid, const cpu_set_t *cpus, char *list, size_t n)
{
	int rc = sched_setaffinity(tid, sizeof *cpus, cpus) < 0 ? -errno : 0;
	if (list && n)
		(void)pq_sched_cpus_of(tid, list, n);
	return rc;
}

int pq_sched_cpus_of(int tid, char *list, size_t n)
{
	cpu_set_t now;
	CPU_ZERO(&now);
	if (n)
		list[0] = '\0';
	if (sched_getaffinity(tid, sizeof now, &now) < 0)
		return -errno;
	pq_sched_cpulist(&now, list, n);
	return 0;
}

void pq_sched_cpulist(const cpu_set_t *set, char *buf, size_t n)
{
	size_t len = 0;
	if (!n)
		return;
	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		int last = c;
		while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
			last++;
		int w = last == c ? snprintf(buf + len, n - len, "%s%d", len ? "," : "", c)
				  : snprintf(buf + len, n - len, "%s%d-%d", len ? "," : "", c, last);
		if (w < 0 || (size_t)w >= n - len) {
			buf[len] = '\0'; /* cut at the last whole range */
			return;
		}
		len += (size_t)w;
		c = last;
	}
}
