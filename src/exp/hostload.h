/* How busy the host is around a cell: runnable tasks (procs_running of /proc/stat), the
 * 1-minute load average, and the steal counters, so a report can flag cells measured on a
 * busy or stolen-from machine. Parsing is separate from reading for the tests. */
#ifndef PQ_EXP_HOSTLOAD_H
#define PQ_EXP_HOSTLOAD_H

#include "core/err.h"
#include "net/steal.h"

/* A cell measured while the hypervisor took more than this share of the host's CPU time
 * is marked as measured on a noisy host (cell.host_ok = 0): its times may carry the
 * client's and server's own waits for a CPU. */
#define PQ_HOSTLOAD_STEAL_BUDGET_PCT 10.0

typedef struct pq_hostload {
	pq_steal_sample steal;
	int runq;      /* -1 unknown */
	double load1;  /* -1 unknown */
} pq_hostload;

/* From the texts of /proc/stat and /proc/loadavg; fields it cannot find stay unknown.
 * PQ_EPARSE when neither text gives anything. */
int pq_hostload_parse(const char *stat, const char *loadavg, pq_hostload *h) PQ_MUST_USE;
/* Reads both files now (unknown fields when a file is missing). */
void pq_hostload_sample(pq_hostload *h);

#endif
