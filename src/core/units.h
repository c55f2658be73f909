/* Values with units, as users type them: sizes, durations, rates, fractions.
 *
 * Every parser takes the whole string (no trailing junk), writes the value only on
 * success, and returns 0 or PQ_EINVAL with a message in *d that names `what` (the
 * option or field being parsed) and the accepted forms. */
#ifndef PQ_CORE_UNITS_H
#define PQ_CORE_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

/* Bytes: "1500", "1500B", "16KiB", "1.5MiB", "20KB" (KB = 1000, KiB = 1024), up to GiB/GB. */
int pq_parse_size(const char *s, const char *what, uint64_t *out, pq_diag *d) PQ_MUST_USE;

/* Duration in nanoseconds: "50ms", "1.5s", "200us", "100ns", "2m"; a bare "0" is allowed,
 * any other number needs a unit. Negative values are refused. */
int pq_parse_duration(const char *s, const char *what, int64_t *out_ns, pq_diag *d) PQ_MUST_USE;

/* Rate in bits per second: "20Mbit", "20Mbit/s", "20Mbps", "1Gbit", "500kbit", "64000bit";
 * byte rates too: "2.5MB/s", "100KiB/s". A bare "0" means unlimited. */
int pq_parse_rate(const char *s, const char *what, uint64_t *out_bps, pq_diag *d) PQ_MUST_USE;

/* Fraction in [0, 1]: "0.5%", "1%", "0.005". Above 100 % is refused. */
int pq_parse_fraction(const char *s, const char *what, double *out, pq_diag *d) PQ_MUST_USE;

/* Integer in [min, max], decimal, with an optional k/M suffix for thousands/millions of
 * a count ("10k" connections). */
int pq_parse_int(const char *s, const char *what, long long min, long long max, long long *out,
		 pq_diag *d) PQ_MUST_USE;

/* Finite real number in [min, max]. */
int pq_parse_double(const char *s, const char *what, double min, double max, double *out,
		    pq_diag *d) PQ_MUST_USE;

/* Human formatting into buf (always NUL-terminated); returns buf. */
const char *pq_fmt_size(char *buf, size_t n, uint64_t bytes);     /* "15.5 KiB" / "812 B" */
const char *pq_fmt_duration(char *buf, size_t n, int64_t ns);     /* "70.0 ms" / "812 us" */
const char *pq_fmt_rate(char *buf, size_t n, uint64_t bps);       /* "20.0 Mbit/s" */

#endif
