/* Host steal time: the share of this machine's CPU time that the hypervisor gave to
 * other guests (the "steal" column of /proc/stat). On a shared VM it is the usual cause
 * of millisecond stalls that no userspace forwarder can avoid, so the link self-check
 * reports it beside its verdict. */
#ifndef PQ_NET_STEAL_H
#define PQ_NET_STEAL_H

#include <stdint.h>

#include "core/err.h"

typedef struct pq_steal_sample {
	uint64_t steal, total; /* ticks, all CPUs */
	int runq;              /* runnable tasks then (procs_running), -1 unknown */
} pq_steal_sample;

/* Parses /proc/stat text: its first ("cpu ") line, PQ_EPARSE when it is not one, and its
 * procs_running line wherever it is (runq -1 without one, set either way). */
int pq_steal_parse(const char *text, pq_steal_sample *s) PQ_MUST_USE;

/* Reads /proc/stat now. */
int pq_steal_read(pq_steal_sample *s) PQ_MUST_USE;

/* Steal share of the CPU time between two samples, 0..1 (0 when no time passed). */
double pq_steal_fraction(const pq_steal_sample *a, const pq_steal_sample *b);

#endif
