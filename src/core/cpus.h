/* The CPUs this process may use, not the machine's: those online, those its affinity mask
 * allows (taskset, a Slurm or container cpuset) and its cgroup's CPU quota (cgroup v2
 * cpu.max, v1 cpu.cfs_quota_us over cpu.cfs_period_us; the least along its cgroup's path
 * to the root: Kubernetes' limits.cpu, systemd's CPUQuota, docker --cpus). A sweep sizes
 * its cells at once, its CPU budget and its keep-awake threads by them: with 2 CPUs of a
 * 64-CPU host it would otherwise measure 64 cells at once on 2 CPUs. A quota is rounded
 * down to whole CPUs (1.5 CPUs: 1), at least 1: a quota throttles whatever runs past it
 * for the rest of its period (100 ms by default), a stall no link budget survives; the
 * sweep then starts no keep-awake threads, whose cycles would count against it, unless
 * the quota covers every CPU it may run on. */
#ifndef PQ_CORE_CPUS_H
#define PQ_CORE_CPUS_H

#include <stddef.h>

#include "core/err.h"

#define PQ_CPUS_DIR 800 /* bytes of a cgroup directory's path */
typedef struct pq_cpus {
	unsigned online;     /* online, at least 1 */
	unsigned allowed;    /* in the affinity mask (online when it cannot be read) */
	double quota;        /* the cgroup's CPU quota in CPUs; 0: none */
	char quota_dir[PQ_CPUS_DIR]; /* the cgroup directory that sets it ("" none): its cpu.stat counts the throttling */
	int quota_v1;        /* that directory is cgroup v1's (cpu.stat's throttled_time in ns, not v2's throttled_usec) */
	unsigned usable;     /* the least of the three, the quota rounded down, at least 1 */
} pq_cpus;

/* This process's, read now. */
void pq_cpus_get(pq_cpus *c);
/* The same from given parts (tests): the CPUs online and allowed, the text of
 * /proc/self/cgroup and the directory the cgroup file systems are mounted under
 * (/sys/fs/cgroup; v2's files directly under it, v1's under its controller's directory,
 * cpu or cpu,cpuacct). Files that are missing or unreadable set no quota. */
void pq_cpus_from(pq_cpus *c, unsigned online, unsigned allowed, const char *cgroup_text, const char *cgroup_root);

/* A quota's CPUs from cgroup v2's cpu.max text ("max 100000": none, 0; "150000 100000":
 * 1.5) or, v1, cpu.cfs_quota_us's and cpu.cfs_period_us's ("-1": none). PQ_EPARSE when
 * it is neither. */
int pq_cpus_parse_max(const char *text, double *cpus) PQ_MUST_USE;
int pq_cpus_parse_v1(const char *quota_us, const char *period_us, double *cpus) PQ_MUST_USE;

/* Nanoseconds the quota has throttled this cgroup so far, from its cpu.stat text
 * (v2 throttled_usec, v1 throttled_time); PQ_EPARSE without either. */
int pq_cpus_parse_throttled(const char *stat, int v1, long long *ns) PQ_MUST_USE;
/* The same read now from c's quota_dir; -1 with no quota or unreadable. */
long long pq_cpus_throttled_ns(const pq_cpus *c);

/* "2 CPUs", or "1 CPU of 2 online (the affinity mask allows 1; a cgroup CPU quota of 1.50
 * CPUs; whole CPUs, at least 1)": what the sweep's first line and --dry-run say. */
void pq_cpus_text(const pq_cpus *c, char *buf, size_t n);

#endif
