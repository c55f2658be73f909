/* Differences between two arms (e.g. ML-DSA-65 minus ECDSA time to first byte at one
 * RTT): the difference of the medians and their ratio, each with a percentile
 * bootstrap 95 % interval (each arm resampled with replacement on its own, `reps`
 * times, from a seeded generator, so a report is reproducible).
 * A difference whose interval contains 0 is "no measurable difference" and is never
 * shown as a number alone: pq_boot_verdict writes the sentence for either case.
 *
 * Contract: pq_boot_diff returns 0 with *out filled, PQ_EINVAL when an arm has fewer
 * than 2 values or reps < 100, PQ_ENOMEM. */
#ifndef PQ_STATS_BOOT_H
#define PQ_STATS_BOOT_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

typedef struct pq_boot_result {
	double diff, diff_lo, diff_hi;	  /* median(b) - median(a) */
	double ratio, ratio_lo, ratio_hi; /* median(b) / median(a) */
	int measurable;			  /* 0 when [diff_lo, diff_hi] contains 0 */
	size_t reps;
} pq_boot_result;

int pq_boot_diff(const double *a, size_t na, const double *b, size_t nb, size_t reps,
		 uint64_t seed, pq_boot_result *out, pq_diag *d) PQ_MUST_USE;

/* "+70.1 [69.8, 70.4] ms (x1.49 [1.48, 1.50])" or "no measurable difference (-0.2 to
 * +0.3 ms)"; values are divided by `scale` (1000 for microseconds shown as ms) and
 * `unit` follows them. */
void pq_boot_verdict(const pq_boot_result *r, double scale, const char *unit, char *buf,
		     size_t n);

#endif
