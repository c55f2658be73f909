/* A lock shared by processes forked from one owner: the owner makes it before forking,
 * and any process that has it may hold it, one at a time. It is a POSIX record lock on an
 * anonymous file (memfd): the kernel gives it to one process at a time and takes it from a
 * process however that process ends (a killed holder never leaves the others waiting),
 * and no path names it, so nothing is left behind on disk. The descriptor is close-on-exec
 * (an exec'd server never holds it).
 *
 * Used by the cells-at-once runner (exp/jobs.h) so that its workers' link self-checks,
 * whose pushes at high rates need a CPU of their own, do not run at the same moment and
 * starve each other's forwarders. */
#ifndef PQ_CORE_PLOCK_H
#define PQ_CORE_PLOCK_H

#include <stdint.h>

#include "core/clock.h"
#include "core/err.h"

typedef struct pq_plock {
	int fd; /* -1: none (holding and releasing do nothing) */
} pq_plock;

#define PQ_PLOCK_NONE ((pq_plock){.fd = -1})

/* Makes the lock; on failure *l is PQ_PLOCK_NONE and the error says why. */
int pq_plock_new(pq_plock *l, pq_diag *d) PQ_MUST_USE;
/* Waits for the lock (interrupted by a signal, waits on) and holds it; *waited_ns (may be
 * NULL) is how long it waited, read on clk. Holding a lock the caller holds already is a
 * no-op. */
int pq_plock_hold(const pq_plock *l, pq_clock *clk, int64_t *waited_ns, pq_diag *d) PQ_MUST_USE;
/* Whether another process holds it now: 1 yes, 0 no, negative error. */
int pq_plock_held_elsewhere(const pq_plock *l, pq_diag *d) PQ_MUST_USE;
void pq_plock_release(const pq_plock *l);
void pq_plock_free(pq_plock *l);

#endif
