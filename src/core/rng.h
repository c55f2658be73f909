/* Seeded pseudo-random numbers (xoshiro256**) for the link emulator, arrival processes
 * and tests: the same seed gives the same sequence on every machine. Not for keys:
 * cryptographic randomness (certificate padding, serials) comes from OpenSSL. */
#ifndef PQ_CORE_RNG_H
#define PQ_CORE_RNG_H

#include <stdint.h>

typedef struct pq_rng {
	uint64_t s[4];
} pq_rng;

void pq_rng_seed(pq_rng *r, uint64_t seed);
uint64_t pq_rng_u64(pq_rng *r);
/* Uniform in [0, 1). */
double pq_rng_uniform(pq_rng *r);
/* Exponential with the given mean. */
double pq_rng_exp(pq_rng *r, double mean);
/* Normal with mean 0 and standard deviation 1 (Box-Muller). */
double pq_rng_normal(pq_rng *r);
/* Pareto-normal mix as in netem's "paretonormal": 25 % Pareto (shape 3), 75 % normal,
 * scaled to mean 0 and the given sigma. */
double pq_rng_paretonormal(pq_rng *r, double sigma);
/* True with probability p. */
int pq_rng_bernoulli(pq_rng *r, double p);

#endif
