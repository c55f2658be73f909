#include "core/rng.h"

#include <math.h>

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void pq_rng_seed(pq_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

uint64_t pq_rng_u64(pq_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double pq_rng_uniform(pq_rng *r)
{
	return (double)(pq_rng_u64(r) >> 11) * 0x1.0p-53;
}

double pq_rng_exp(pq_rng *r, double mean)
{
	return -mean * log1p(-pq_rng_uniform(r));
}

double pq_rng_normal(pq_rng *r)
{
	double u1 = pq_rng_uniform(r), u2 = pq_rng_uniform(r);
	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

double pq_rng_paretonormal(pq_rng *r, double sigma)
{
	if (pq_rng_uniform(r) < 0.25) {
		/* Pareto with shape 3 has mean 1.5 and sd ~0.866; centre and scale it. */
		double x = pow(1.0 - pq_rng_uniform(r), -1.0 / 3.0);
		return (x - 1.5) / 0.866 * sigma;
	}
	return pq_rng_normal(r) * sigma;
}

int pq_rng_bernoulli(pq_rng *r, double p)
{
	return p > 0 && pq_rng_uniform(r) < p;
}
