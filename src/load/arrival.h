/* Arrival processes for open-loop load: constant spacing or Poisson (exponential gaps)
 * at a given rate. Pure: times are nanoseconds from the run's origin and randomness is
 * a seeded pq_rng, so tests check the schedule without sleeping. */
#ifndef PQ_LOAD_ARRIVAL_H
#define PQ_LOAD_ARRIVAL_H

#include <stdint.h>

#include "core/err.h"
#include "core/rng.h"

typedef struct pq_arrival {
	double rate;   /* per second, > 0 */
	int poisson;
	double t_ns;   /* next arrival, kept in double so spacing does not drift */
	pq_rng rng;
} pq_arrival;

/* The first arrival is at time 0. Returns PQ_ERANGE for a rate <= 0 or not finite. */
int pq_arrival_init(pq_arrival *a, double rate, int poisson, uint64_t seed) PQ_MUST_USE;
/* Time of the next arrival; advances the process. */
int64_t pq_arrival_next(pq_arrival *a);
/* Time of the next arrival without advancing. */
int64_t pq_arrival_peek(const pq_arrival *a);

#endif
