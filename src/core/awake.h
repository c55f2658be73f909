/* CPUs kept from halting while a sweep measures: one busy thread per CPU at SCHED_IDLE, in
 * a process of its own that leads a session of its own (so its own scheduling group under
 * autogroups, set to the lowest weight, nice 19).
 *
 * Why: an idle vCPU of a VM halts, and a halted vCPU wakes late (the hypervisor schedules
 * it again); a link's forwarder sleeping to its next release then releases late, although
 * it waited for no CPU inside the machine (issue "a link that does not wake late";
 * bench/awake.sh measures it). A busy thread that only takes cycles nobody else wants
 * keeps every vCPU running: SCHED_IDLE yields to any normal thread at once within its
 * group, and its group, at nice 19, weighs 15 against 1024 for a default session, so
 * other work on the machine loses about 1.5 % of a CPU to it. Each thread is at nice 19 as
 * well, so that /proc/stat counts the spinners' time as "nice", not as the busy time a
 * sweep weighs its own share against (exp/jobs).
 *
 * The process dies with its parent (PR_SET_PDEATHSIG) however the parent ends. */
#ifndef PQ_CORE_AWAKE_H
#define PQ_CORE_AWAKE_H

#include <sys/types.h>

#include "core/err.h"

typedef struct pq_awake {
	pid_t pid; /* 0: not running */
} pq_awake;

/* Starts `threads` spinners (0: one per online CPU). On failure nothing runs and the
 * error says why (fork refused). */
int pq_awake_start(pq_awake *a, unsigned threads, pq_diag *d) PQ_MUST_USE;
/* Stops and reaps them (nothing when not running). */
void pq_awake_stop(pq_awake *a);

#endif
