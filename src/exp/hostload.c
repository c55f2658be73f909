#include "exp/hostload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/proc.h"

int pq_hostload_parse(const char *stat, const char *loadavg, pq_hostload *h)
{
	memset(h, 0, sizeof *h);
	h->runq = -1;
	h->load1 = -1;
	h->throttled_ns = -1;
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

double pq_hostload_endpoint_wait_us(double client_p50_us, double server_p50_us)
{
	int c = client_p50_us >= 0, s = server_p50_us >= 0; /* NaN compares false */
	return c || s ? (c ? client_p50_us : 0) + (s ? server_p50_us : 0) : -1;
}

double pq_hostload_wait_budget_us(pq_hostload_span s)
{
	double b = PQ_HOSTLOAD_WAIT_FLOOR_US;
	if (s.rtt_us > 0 && PQ_HOSTLOAD_WAIT_BUDGET_RTT * s.rtt_us > b)
		b = PQ_HOSTLOAD_WAIT_BUDGET_RTT * s.rtt_us;
	if (s.conn_us > 0 && PQ_HOSTLOAD_WAIT_BUDGET_CONN * s.conn_us > b) /* NaN compares false */
		b = PQ_HOSTLOAD_WAIT_BUDGET_CONN * s.conn_us;
	return b;
}

int pq_hostload_wait_over(double wait_us, pq_hostload_span s)
{
	return wait_us >= 0 && wait_us > pq_hostload_wait_budget_us(s); /* NaN: not over */
}

int pq_hostload_verdict(double steal_pct, double wait_us, pq_hostload_span s)
{
	if (pq_hostload_wait_over(wait_us, s))
		return 0;
	if (steal_pct < 0)
		return -1;
	return steal_pct <= PQ_HOSTLOAD_STEAL_BUDGET_PCT;
}

int pq_hostload_worth_again(int link_ok, int host_ok, double steal_pct, int own_cpu)
{
	if (link_ok != 0 && host_ok != 0)
		return 0;
	return link_ok == 0 || !own_cpu || steal_pct > PQ_HOSTLOAD_STEAL_BUDGET_PCT;
}

void pq_hostload_sample(pq_hostload *h, const pq_cpus *cpus)
{
	char stat[16384];
	char la[128];
	pq_proc_read_text("/proc/stat", stat, sizeof stat);
	pq_proc_read_text("/proc/loadavg", la, sizeof la);
	if (pq_hostload_parse(stat, la, h) < 0) {
		h->runq = -1;
		h->load1 = -1;
	}
	h->throttled_ns = cpus ? pq_cpus_throttled_ns(cpus) : -1;
}

double pq_hostload_throttled_us(const pq_hostload *before, const pq_hostload *after)
{
	if (before->throttled_ns < 0 || after->throttled_ns < before->throttled_ns)
		return -1;
	return (double)(after->throttled_ns - before->throttled_ns) / 1e3;
}
