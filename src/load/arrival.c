#include "load/arrival.h"

#include <math.h>

int pq_arrival_init(pq_arrival *a, double rate, int poisson, uint64_t seed)
{
	if (!(rate > 0) || !isfinite(rate))
		return PQ_ERANGE;
	a->rate = rate;
	a->poisson = poisson;
	a->t_ns = 0;
	pq_rng_seed(&a->rng, seed);
	return 0;
}

int64_t pq_arrival_peek(const pq_arrival *a)
{
	return (int64_t)a->t_ns;
}

int64_t pq_arrival_next(pq_arrival *a)
{
	int64_t t = (int64_t)a->t_ns;
	double mean = 1e9 / a->rate;
	a->t_ns += a->poisson ? pq_rng_exp(&a->rng, mean) : mean;
	return t;
}
