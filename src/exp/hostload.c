#include "exp/hostload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pq_hostload_parse(const char *stat, const char *loadavg, pq_hostload *h)
{
	memset(h, 0, sizeof *h);
	h->runq = -1;
	h->load1 = -1;
	int found = 0;
	if (stat) {
		found |= pq_steal_parse(stat, &h->steal) == 0;
		if (h->steal.runq >= 0) {
			h->runq = h->steal.runq;
			found = 1;
		}
	}
	double l;
	if (loadavg && sscanf(loadavg, "%lf", &l) == 1) {
		h->load1 = l;
		found = 1;
	}
	return found ? 0 : PQ_EPARSE;
}

static void slurp(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "re");
	size_t got = f ? fread(buf, 1, n - 1, f) : 0;
	buf[got] = '\0';
	if (f)
		fclose(f);
}

void pq_hostload_sample(pq_hostload *h)
{
	char stat[16384];
	char la[128];
	slurp("/proc/stat", stat, sizeof stat);
	slurp("/proc/loadavg", la, sizeof la);
	if (pq_hostload_parse(stat, la, h) < 0) {
		h->runq = -1;
		h->load1 = -1;
	}
}
