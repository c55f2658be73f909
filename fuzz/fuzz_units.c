/* libFuzzer target: every value parser of core/units on any string, and the
 * formatters on what they accept. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	pq_diag d;
	uint64_t u;
	int64_t ns;
	double f;
	long long ll;
	char out[64];
	if (pq_parse_size(s, "size", &u, &d) == 0)
		pq_fmt_size(out, sizeof out, u);
	if (pq_parse_duration(s, "duration", &ns, &d) == 0) {
		if (ns < 0)
			abort();
		pq_fmt_duration(out, sizeof out, ns);
	}
	if (pq_parse_rate(s, "rate", &u, &d) == 0)
		pq_fmt_rate(out, sizeof out, u);
	if (pq_parse_fraction(s, "fraction", &f, &d) == 0 && !(f >= 0 && f <= 1))
		abort();
	if (pq_parse_int(s, "int", -1000, 1000000, &ll, &d) == 0 && (ll < -1000 || ll > 1000000))
		abort();
	if (pq_parse_double(s, "real", -1e9, 1e9, &f, &d) == 0 && !(f >= -1e9 && f <= 1e9))
		abort();
	free(s);
	return 0;
}
