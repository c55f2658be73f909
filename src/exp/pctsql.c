#include "exp/pctsql.h"

#include <stdio.h>

/* SQL names: a column, optionally qualified (a.ttfb_us); nothing else reaches the text. */
static int is_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == '.'))
			return 0;
	return 1;
}

static int written(int l, size_t n)
{
	return l < 0 || (size_t)l >= n ? PQ_ETOOBIG : l;
}

int pq_pctsql_parts(const char *args, char *buf, size_t n)
{
	char col[64], rank[64], count[64], end;
	unsigned p;
	if (sscanf(args, "%63s %63s %63s %u %c", col, rank, count, &p, &end) != 4 || p > 1000 || !is_name(col) ||
	    !is_name(rank) || !is_name(count))
		return PQ_EPARSE;
	return written(snprintf(buf, n,
				"MAX(CASE WHEN %s = (%s - 1) * %u / 1000 + 1 THEN %s END) AS %s_%u_lo,\n"
				"\t       MAX(CASE WHEN %s = (%s - 1) * %u / 1000 + 2 THEN %s END) AS %s_%u_hi,\n"
				"\t       MAX((%s - 1) * %u %% 1000) AS %s_%u_m",
				rank, count, p, col, col, p, rank, count, p, col, col, p, count, p, col, p),
		       n);
}

int pq_pctsql_value(const char *args, char *buf, size_t n)
{
	char c[64], end;
	unsigned p;
	if (sscanf(args, "%63s %u %c", c, &p, &end) != 2 || p > 1000 || !is_name(c))
		return PQ_EPARSE;
	return written(snprintf(buf, n,
				"CASE WHEN %s_%u_m = 0 THEN %s_%u_lo ELSE %s_%u_lo + (%s_%u_m / 1000.0) * "
				"(%s_%u_hi - %s_%u_lo) END",
				c, p, c, p, c, p, c, p, c, p, c, p),
		       n);
}
