#include "core/cpus.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/proc.h"

int pq_cpus_parse_max(const char *text, double *cpus)
{
	char q[32];
	long long period = 0;
	if (!text || sscanf(text, "%31s %lld", q, &period) != 2 || period <= 0)
		return PQ_EPARSE;
	if (strcmp(q, "max") == 0) {
		*cpus = 0;
		return 0;
	}
	char *end = NULL;
	errno = 0;
	long long quota = strtoll(q, &end, 10);
	if (errno || *end || quota <= 0)
		return PQ_EPARSE;
	*cpus = (double)quota / (double)period;
	return 0;
}

int pq_cpus_parse_v1(const char *quota_us, const char *period_us, double *cpus)
{
	long long quota = 0, period = 0;
	if (!quota_us || !period_us || sscanf(quota_us, "%lld", &quota) != 1 || sscanf(period_us, "%lld", &period) != 1 ||
	    period <= 0 || quota == 0 || quota < -1)
		return PQ_EPARSE;
	*cpus = quota < 0 ? 0 : (double)quota / (double)period;
	return 0;
}

int pq_cpus_parse_throttled(const char *stat, int v1, long long *ns)
{
	const char *key = v1 ? "throttled_time " : "throttled_usec ";
	for (const char *l = stat; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		long long v;
		if (strncmp(l, key, strlen(key)) == 0 && sscanf(l + strlen(key), "%lld", &v) == 1 && v >= 0) {
			*ns = v1 ? v : v * 1000;
			return 0;
		}
	}
	return PQ_EPARSE;
}

/* One directory's quota (0: none or unreadable). */
static double dir_quota(const char *dir, int v1)
{
	char path[PQ_CPUS_DIR + 32], a[128], b[128];
	double cpus = 0;
	if (v1) {
		snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir);
		pq_proc_read_text(path, a, sizeof a);
		snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir);
		pq_proc_read_text(path, b, sizeof b);
		return pq_cpus_parse_v1(a, b, &cpus) == 0 ? cpus : 0;
	}
	snprintf(path, sizeof path, "%s/cpu.max", dir);
	pq_proc_read_text(path, a, sizeof a);
	return pq_cpus_parse_max(a, &cpus) == 0 ? cpus : 0;
}

/* The least quota from base+path up to base (the hierarchy's root) into c. */
static void walk(pq_cpus *c, const char *base, const char *path, int v1)
{
	char p[256], dir[PQ_CPUS_DIR];
	snprintf(p, sizeof p, "%s", path);
	for (;;) {
		size_t len = strlen(p);
		while (len > 1 && p[len - 1] == '/')
			p[--len] = '\0';
		snprintf(dir, sizeof dir, "%s%s", base, strcmp(p, "/") == 0 ? "" : p);
		double q = dir_quota(dir, v1);
		if (q > 0 && (c->quota == 0 || q < c->quota)) {
			c->quota = q;
			c->quota_v1 = v1;
			snprintf(c->quota_dir, sizeof c->quota_dir, "%s", dir);
		}
		char *slash = strrchr(p, '/');
		if (!slash || strcmp(p, "/") == 0)
			break;
		if (slash == p)
			p[1] = '\0';
		else
			*slash = '\0';
	}
}

/* Whether the comma-separated list holds `name`. */
static int has(const char *list, size_t n, const char *name)
{
	size_t k = strlen(name);
	for (const char *s = list; s < list + n;) {
		const char *e = memchr(s, ',', (size_t)(list + n - s));
		size_t len = e ? (size_t)(e - s) : (size_t)(list + n - s);
		if (len == k && strncmp(s, name, k) == 0)
			return 1;
		s += len + 1;
	}
	return 0;
}

/* Whether the quota is what holds the count under the affinity mask's. */
static int by_quota(const pq_cpus *c)
{
	return c->quota > 0 && (unsigned)c->quota < c->allowed;
}

void pq_cpus_from(pq_cpus *c, unsigned online, unsigned allowed, const char *cgroup_text, const char *cgroup_root)
{
	memset(c, 0, sizeof *c);
	c->online = online ? online : 1;
	c->allowed = allowed && allowed < c->online ? allowed : c->online;
	for (const char *l = cgroup_text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		/* ID:CONTROLLERS:PATH */
		const char *a = memchr(l, ':', len), *b = a ? memchr(a + 1, ':', len - (size_t)(a + 1 - l)) : NULL;
		if (a && b && b + 1 < l + len && b[1] == '/') {
			char path[256], base[PQ_CPUS_DIR - 256];
			snprintf(path, sizeof path, "%.*s", (int)(l + len - b - 1), b + 1);
			int cl = (int)(b - a - 1);
			if (cl == 0) { /* v2 */
				walk(c, cgroup_root, path, 0);
			} else if (has(a + 1, (size_t)cl, "cpu")) { /* v1: mounted under its controllers' names */
				snprintf(base, sizeof base, "%s/%.*s", cgroup_root, cl, a + 1);
				walk(c, base, path, 1);
			}
		}
		l = nl ? nl + 1 : l + len;
	}
	c->usable = by_quota(c) ? (unsigned)c->quota : c->allowed;
	if (c->usable < 1)
		c->usable = 1;
}

void pq_cpus_get(pq_cpus *c)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;
	CPU_ZERO(&set);
	unsigned allowed = sched_getaffinity(0, sizeof set, &set) == 0 ? (unsigned)CPU_COUNT(&set) : 0;
	char text[4096];
	pq_proc_read_text("/proc/self/cgroup", text, sizeof text);
	pq_cpus_from(c, n > 0 ? (unsigned)n : 1, allowed, text, "/sys/fs/cgroup");
}

long long pq_cpus_throttled_ns(const pq_cpus *c)
{
	char path[PQ_CPUS_DIR + 32], text[1024];
	long long ns;
	if (!c->quota_dir[0])
		return -1;
	snprintf(path, sizeof path, "%s/cpu.stat", c->quota_dir);
	pq_proc_read_text(path, text, sizeof text);
	return pq_cpus_parse_throttled(text, c->quota_v1, &ns) == 0 ? ns : -1;
}

void pq_cpus_text(const pq_cpus *c, char *buf, size_t n)
{
	int len = snprintf(buf, n, "%u CPU%s", c->usable, c->usable == 1 ? "" : "s");
	if (c->usable == c->online || len < 0 || (size_t)len >= n)
		return;
	len += snprintf(buf + len, n - (size_t)len, " of %u online (", c->online);
	if (c->allowed < c->online && (size_t)len < n)
		len += snprintf(buf + len, n - (size_t)len, "the affinity mask allows %u%s", c->allowed,
				by_quota(c) ? "; " : "");
	if (by_quota(c) && (size_t)len < n)
		len += snprintf(buf + len, n - (size_t)len, "a cgroup CPU quota of %.2f CPUs; whole CPUs, at least 1", c->quota);
	if ((size_t)len < n)
		snprintf(buf + len, n - (size_t)len, ")");
}
