#include "core/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The largest size or duration a value may scale to: below INT64_MAX (9.22e18), so the
 * conversion to uint64_t or int64_t cannot overflow. */
#define SCALED_MAX 9.0e18

struct unit {
	const char *name;
	double mult;
};

/* Splits "12.5MiB" into 12.5 and "MiB". Rejects empty, non-numeric, NaN/inf and signs. */
static int split_number(const char *s, double *num, const char **suffix)
{
	if (!s || !*s)
		return -1;
	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s) && *s != '.')
		return -1;
	errno = 0;
	char *end;
	double v = strtod(s, &end);
	if (end == s || errno == ERANGE || !isfinite(v))
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	*num = v;
	*suffix = end;
	return 0;
}

static const struct unit *find_unit(const struct unit *tab, const char *suffix)
{
	for (; tab->name; tab++)
		if (strcmp(tab->name, suffix) == 0)
			return tab;
	return NULL;
}

/* s as a number times its unit from `tab`: *out and 0, or 1 for a bare 0 (which needs no
 * unit; *out = 0), or -1 when s is no number with a unit of the table. */
static int scaled(const char *s, const struct unit *tab, double *out)
{
	double v;
	const char *suf;
	const struct unit *u;
	if (split_number(s, &v, &suf) < 0)
		return -1;
	if (*suf == '\0' && v == 0) {
		*out = 0;
		return 1;
	}
	if (!(u = find_unit(tab, suf)))
		return -1;
	*out = v * u->mult;
	return 0;
}

static const struct unit size_units[] = {
	{"", 1},	  {"B", 1},	     {"KiB", 1024.0},	       {"MiB", 1048576.0},
	{"GiB", 1073741824.0}, {"KB", 1e3}, {"kB", 1e3},	       {"MB", 1e6},
	{"GB", 1e9},	  {NULL, 0},
};

static const struct unit dur_units[] = {
	{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"min", 60e9},
	{NULL, 0},
};

/* A quantity written as a number and a unit of `units`: what it is called in a refusal,
 * how to write one, and what a value over SCALED_MAX is. */
struct quantity {
	const struct unit *units;
	const char *noun, *hint, *too_big;
};

static const struct quantity size_q = {size_units, "a size",
				       "use bytes with an optional unit, e.g. 1500, 16KiB, 1.5MiB, 20KB "
				       "(KB = 1000 B, KiB = 1024 B)",
				       "too large"};
static const struct quantity dur_q = {dur_units, "a duration",
				      "give a number with a unit: ns, us, ms, s or m (e.g. 70ms, 1.5s, 250us)",
				      "too long"};

/* s in the quantity's base unit, at most SCALED_MAX; a refusal names `what` and s. */
static int parse_quantity(const char *s, const char *what, const struct quantity *q, double *out, pq_diag *d)
{
	if (scaled(s, q->units, out) < 0)
		return pq_diag_set(d, PQ_EINVAL, "%s: '%s' is not %s; %s", what, s ? s : "", q->noun, q->hint);
	if (*out > SCALED_MAX)
		return pq_diag_set(d, PQ_EINVAL, "%s: '%s' is %s", what, s, q->too_big);
	return 0;
}

int pq_parse_size(const char *s, const char *what, uint64_t *out, pq_diag *d)
{
	double b;
	int rc = parse_quantity(s, what, &size_q, &b, d);
	if (rc < 0)
		return rc;
	if (b != floor(b))
		return pq_diag_set(d, PQ_EINVAL, "%s: '%s' is not a whole number of bytes", what, s);
	*out = (uint64_t)b;
	return 0;
}

int pq_parse_duration(const char *s, const char *what, int64_t *out_ns, pq_diag *d)
{
	double ns;
	if (s && s[0] == '-')
		return pq_diag_set(d, PQ_EINVAL, "%s: '%s' is negative; a duration must be >= 0",
				   what, s);
	int rc = parse_quantity(s, what, &dur_q, &ns, d);
	if (rc < 0)
		return rc;
	*out_ns = (int64_t)llround(ns);
	return 0;
}

static const struct unit rate_units[] = {
	{"bit", 1},	    {"bit/s", 1},     {"bps", 1},	   {"kbit", 1e3},
	{"Kbit", 1e3},	    {"kbit/s", 1e3},  {"Kbit/s", 1e3},	   {"kbps", 1e3},
	{"Mbit", 1e6},	    {"Mbit/s", 1e6},  {"Mbps", 1e6},	   {"mbit", 1e6},
	{"Gbit", 1e9},	    {"Gbit/s", 1e9},  {"Gbps", 1e9},	   {"gbit", 1e9},
	{"B/s", 8},	    {"KB/s", 8e3},    {"kB/s", 8e3},	   {"MB/s", 8e6},
	{"GB/s", 8e9},	    {"KiB/s", 8192.0}, {"MiB/s", 8388608.0}, {"GiB/s", 8589934592.0},
	{NULL, 0},
};

int pq_parse_rate(const char *s, const char *what, uint64_t *out_bps, pq_diag *d)
{
	double bps;
	int rc = scaled(s, rate_units, &bps);
	if (rc < 0)
		return pq_diag_set(d, PQ_EINVAL,
				   "%s: '%s' is not a rate; use e.g. 20Mbit, 1Gbit, 500kbit, 2.5MB/s "
				   "(0 = unlimited)",
				   what, s ? s : "");
	if (rc == 1) {
		*out_bps = 0; /* unlimited */
		return 0;
	}
	if (bps > 1e13)
		return pq_diag_set(d, PQ_EINVAL, "%s: '%s' is above 10 Tbit/s", what, s);
	/* Rounded to 0 it would silently mean unlimited. */
	if (llround(bps) == 0)
		return pq_diag_set(d, PQ_EINVAL, "%s: '%s' is below 1 bit/s (the smallest rate is 1bit; "
						 "0 = unlimited)", what, s);
	*out_bps = (uint64_t)llround(bps);
	return 0;
}

int pq_parse_fraction(const char *s, const char *what, double *out, pq_diag *d)
{
	double v;
	const char *suf;
	if (s && s[0] == '-')
		return pq_diag_set(d, PQ_EINVAL, "%s: '%s' is negative; use 0%% to 100%%", what, s);
	if (split_number(s, &v, &suf) < 0 || (*suf && strcmp(suf, "%") != 0))
		return pq_diag_set(d, PQ_EINVAL,
				   "%s: '%s' is not a fraction; use a percentage (0.5%%) or a number "
				   "from 0 to 1 (0.005)",
				   what, s ? s : "");
	if (*suf == '%')
		v /= 100.0;
	if (v > 1.0)
		return pq_diag_set(d, PQ_EINVAL, "%s: '%s' is above 100%%; use 0%% to 100%%", what,
				   s);
	*out = v;
	return 0;
}

int pq_parse_int(const char *s, const char *what, long long min, long long max, long long *out,
		 pq_diag *d)
{
	if (!s || !*s)
		goto bad;
	errno = 0;
	char *end;
	long long v = strtoll(s, &end, 10);
	if (end == s || errno == ERANGE)
		goto bad;
	long long mult = *end == 'k' && end[1] == '\0' ? 1000 : *end == 'M' && end[1] == '\0' ? 1000000 : 1;
	end += mult > 1;
	if (*end != '\0')
		goto bad;
	/* "22222222222232M" would overflow: out of range rather than undefined. */
	if (__builtin_mul_overflow(v, mult, &v) || v < min || v > max)
		return pq_diag_set(d, PQ_ERANGE, "%s: %s is out of range; use %lld to %lld", what, s,
				   min, max);
	*out = v;
	return 0;
bad:
	return pq_diag_set(d, PQ_EINVAL, "%s: '%s' is not a whole number (use %lld to %lld)", what,
			   s ? s : "", min, max);
}

int pq_parse_double(const char *s, const char *what, double min, double max, double *out,
		    pq_diag *d)
{
	if (!s || !*s)
		goto bad;
	errno = 0;
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v))
		goto bad;
	if (v < min || v > max)
		return pq_diag_set(d, PQ_ERANGE, "%s: %s is out of range; use %g to %g", what, s, min,
				   max);
	*out = v;
	return 0;
bad:
	return pq_diag_set(d, PQ_EINVAL, "%s: '%s' is not a number (use %g to %g)", what,
			   s ? s : "", min, max);
}

/* One step of a unit ladder: a value whose magnitude is below `below` (0: the last step,
 * no bound) prints divided by `div`, with `prec` decimals, then the unit. The first step's
 * divisor is 1 and its precision 0, so small values print as the whole numbers they are. */
struct step {
	double below, div;
	int prec;
	const char *unit;
};

static const struct step size_steps[] = {
	{1024, 1, 0, "B"}, {1048576, 1024, 1, "KiB"}, {1073741824.0, 1048576, 1, "MiB"}, {0, 1073741824.0, 2, "GiB"}};
static const struct step duration_steps[] = {{1e3, 1, 0, "ns"}, {1e6, 1e3, 0, "us"}, {1e9, 1e6, 1, "ms"}, {0, 1e9, 2, "s"}};
static const struct step rate_steps[] = {
	{1000, 1, 0, "bit/s"}, {1e6, 1e3, 1, "kbit/s"}, {1e9, 1e6, 1, "Mbit/s"}, {0, 1e9, 2, "Gbit/s"}};

static const char *fmt_steps(char *buf, size_t n, double v, const struct step *st)
{
	while (st->below && fabs(v) >= st->below)
		st++;
	snprintf(buf, n, "%.*f %s", st->prec, v / st->div, st->unit);
	return buf;
}

const char *pq_fmt_size(char *buf, size_t n, uint64_t bytes)
{
	return fmt_steps(buf, n, (double)bytes, size_steps);
}

const char *pq_fmt_duration(char *buf, size_t n, int64_t ns)
{
	return fmt_steps(buf, n, (double)ns, duration_steps);
}

const char *pq_fmt_rate(char *buf, size_t n, uint64_t bps)
{
	if (bps == 0) {
		snprintf(buf, n, "unlimited");
		return buf;
	}
	return fmt_steps(buf, n, (double)bps, rate_steps);
}
