#include "stats/step.h"

#include <math.h>

/* Point j is a spike: off both neighbours by at least `t` in one direction while they
 * agree with each other within `t` (one slow median, a busy moment: not a level). */
static int spike(const double *y, size_t n, size_t j, double t)
{
	if (j == 0 || j + 1 >= n)
		return 0;
	double in = y[j] - y[j - 1], out = y[j + 1] - y[j];
	return fabs(in) >= t && fabs(out) >= t && (in > 0) != (out > 0) && fabs(y[j + 1] - y[j - 1]) < t;
}

size_t pq_step_find(const double *x, const double *y, size_t n, double rtt, double threshold,
		    pq_step *out, size_t max)
{
	size_t found = 0;
	if (rtt <= 0)
		return 0;
	double t = threshold * rtt;
	/* left to right: a point next to a spike is none itself (the level it returns to) */
	int sp_here = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		int sp_next = !sp_here && spike(y, n, i + 1, t);
		double jump = y[i + 1] - y[i];
		if (isfinite(jump) && fabs(jump) >= t && !sp_here && !sp_next) {
			if (found < max)
				out[found] = (pq_step){x[i], x[i + 1], jump, jump / rtt};
			found++;
		}
		sp_here = sp_next;
	}
	return found;
}
