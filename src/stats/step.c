#include "stats/step.h"

#include <math.h>

size_t pq_step_find(const double *x, const double *y, size_t n, double rtt, double threshold,
		    pq_step *out, size_t max)
{
	size_t found = 0;
	if (rtt <= 0)
		return 0;
	for (size_t i = 0; i + 1 < n; i++) {
		double jump = y[i + 1] - y[i];
		if (!isfinite(jump) || fabs(jump) < threshold * rtt)
			continue;
		if (found < max)
			out[found] = (pq_step){x[i], x[i + 1], jump, jump / rtt};
		found++;
	}
	return found;
}
