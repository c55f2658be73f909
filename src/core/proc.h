/* Process resources that servers and load generators care about.
 *
 * pq_proc_raise_fdlimit: every connection is a descriptor, and many systems start
 * processes with a soft limit of 1024. It lifts the soft RLIMIT_NOFILE towards `need`
 * (never above the hard limit, never lowering it) and returns the soft limit in force.
 *
 * pq_proc_cpu_ns: user + system CPU time of the process (RUSAGE_SELF) or of the calling
 * thread (RUSAGE_THREAD), in nanoseconds. */
#ifndef PQ_CORE_PROC_H
#define PQ_CORE_PROC_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

uint64_t pq_proc_raise_fdlimit(uint64_t need);
/* A small text file (/proc, /sys) into buf, NUL-terminated; "" when it cannot be read. */
void pq_proc_read_text(const char *path, char *buf, size_t n);
int64_t pq_proc_cpu_ns(int who);
/* The CPUs this process may use (core/cpus.h: online, affinity mask, cgroup quota), at
 * least 1. */
unsigned pq_proc_ncpu(void);
/* Clock ticks of work on the whole machine, from the text of /proc/stat: user + system +
 * irq + softirq of its "cpu " line (not idle, iowait or steal, nor nice, where work at a
 * positive nice such as the keep-awake loops is counted). PQ_EPARSE without that line. */
int pq_proc_parse_busy(const char *stat, uint64_t *ticks) PQ_MUST_USE;
/* Clock ticks of one process and of the children it reaped (utime + stime + cutime +
 * cstime), from the text of /proc/PID/stat. PQ_EPARSE when it is not one. */
int pq_proc_parse_tree(const char *pidstat, uint64_t *ticks) PQ_MUST_USE;

#endif
