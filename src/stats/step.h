/* Step detection over a size sweep: where the median time jumps by about a round trip
 * as the chain grows (the cliffs the flight model predicts, model/cliff.h).
 *
 * Given sizes x[0..n-1] in increasing order and the median times y[] at them, a step is
 * a pair of neighbours whose medians differ by at least `threshold` round trips of
 * `rtt` (0.5: half a round trip, far above the noise of a median at any RTT the lab
 * uses, far below the round trip a cliff adds). It is reported as the bracket
 * (x_before, x_after) in which the cliff lies and the jump in round trips. A drop by as
 * much is reported as a negative jump (it would mean noise or a mislabelled cell). A
 * spike is no step: a single point off both its neighbours by the threshold, one way,
 * while they agree with each other within it, is one slow median (a busy moment), so
 * neither the jump into it nor the one out of it is reported. */
#ifndef PQ_STATS_STEP_H
#define PQ_STATS_STEP_H

#include <stddef.h>

typedef struct pq_step {
	double x_before, x_after; /* the cliff lies in (x_before, x_after] */
	double jump;		  /* y(after) - y(before), in y's unit */
	double jump_rtts;	  /* jump / rtt */
} pq_step;

/* Fills out[0..max-1]; returns the number of steps found (which may exceed max). */
size_t pq_step_find(const double *x, const double *y, size_t n, double rtt, double threshold,
		    pq_step *out, size_t max);

#endif
