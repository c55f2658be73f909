#include "net/steal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pq_steal_parse(const char *text, pq_steal_sample *s)
{
	/* cpu user nice system idle iowait irq softirq steal [guest guest_nice] */
	unsigned long long v[8];
	const char *r = strstr(text, "\nprocs_running ");
	s->runq = r ? atoi(r + 15) : -1;
	if (strncmp(text, "cpu ", 4) != 0 ||
	    sscanf(text + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]) != 8)
		return PQ_EPARSE;
	s->total = 0;
	for (int i = 0; i < 8; i++)
		s->total += v[i];
	s->steal = v[7];
	return 0;
}

int pq_steal_read(pq_steal_sample *s)
{
	char text[16384];
	FILE *f = fopen("/proc/stat", "re");
	if (!f)
		return -errno;
	size_t n = fread(text, 1, sizeof text - 1, f);
	text[n] = '\0';
	int rc = n ? pq_steal_parse(text, s) : PQ_EIO;
	fclose(f);
	return rc;
}

double pq_steal_fraction(const pq_steal_sample *a, const pq_steal_sample *b)
{
	if (b->total <= a->total || b->steal < a->steal)
		return 0.0;
	return (double)(b->steal - a->steal) / (double)(b->total - a->total);
}
