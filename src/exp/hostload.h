/* How busy the host is around a cell: runnable tasks (procs_running of /proc/stat), the
 * 1-minute load average, and the steal counters, so a report can flag cells measured on a
 * busy or stolen-from machine. Parsing is separate from reading for the tests. */
#ifndef PQ_EXP_HOSTLOAD_H
#define PQ_EXP_HOSTLOAD_H

#include "core/err.h"
#include "net/steal.h"

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
