/* Injected time. Logic that needs "now" takes a pq_clock* (or a now_ns argument) rather
 * than calling clock_gettime itself, so tests can drive it with a fake clock. */
#ifndef PQ_CORE_CLOCK_H
#define PQ_CORE_CLOCK_H

#include <stdint.h>

typedef struct pq_clock {
	int64_t (*now_ns)(struct pq_clock *c); /* monotonic nanoseconds */
	int64_t fake_ns;                        /* used by pq_clock_fake */
} pq_clock;

/* CLOCK_MONOTONIC, never wall time. */
int64_t pq_mono_ns(void);

/* A clock reading CLOCK_MONOTONIC. */
extern pq_clock pq_clock_mono;

/* A clock that returns c->fake_ns; tests advance it by hand. */
void pq_clock_fake_init(pq_clock *c, int64_t start_ns);

static inline int64_t pq_clock_now(pq_clock *c)
{
	return c->now_ns(c);
}

#define PQ_NS_PER_US 1000LL
#define PQ_NS_PER_MS 1000000LL
#define PQ_NS_PER_S 1000000000LL

#endif
