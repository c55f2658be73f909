/* A sweep's run summary (exp/runner.h): the counts and fidelity of its cells added up
 * across workers, and the one "host:" line that says how faithful the sweep was. */
#include "exp/runner.h"

#include <stdio.h>
#include <string.h>

#include "core/sched.h"
#include "exp/hostload.h"

void pq_exp_run_summary_init(pq_exp_run_summary *s)
{
	memset(s, 0, sizeof *s);
	s->probe_tail_max_ns = s->late_p99_max_ns = -1;
	s->runq_max = -1;
	s->wait_max_us = -1;
	s->nice = s->group_nice = PQ_SCHED_NICE_KEEP;
}

static double maxd(double a, double b)
{
	return a > b ? a : b;
}

static int max_nice(int a, int b)
{
	if (a == PQ_SCHED_NICE_KEEP)
		return b;
	return b == PQ_SCHED_NICE_KEEP || a > b ? a : b;
}

void pq_exp_run_summary_add(pq_exp_run_summary *s, const pq_exp_run_summary *w)
{
	s->cells_run += w->cells_run, s->cells_skipped += w->cells_skipped, s->cells_failed += w->cells_failed;
	s->cells_partial += w->cells_partial;
	s->conns += w->conns, s->conn_failures += w->conn_failures;
	s->interrupted |= w->interrupted;
	s->checks += w->checks, s->checks_missed += w->checks_missed;
	s->probe_tail_max_ns = maxd(s->probe_tail_max_ns, w->probe_tail_max_ns);
	s->cells_link_known += w->cells_link_known, s->cells_link_over += w->cells_link_over;
	s->cells_host_known += w->cells_host_known, s->cells_host_over += w->cells_host_over;
	s->cells_wait_over += w->cells_wait_over;
	s->cells_remeasured += w->cells_remeasured, s->cells_own_wait += w->cells_own_wait;
	s->inflight_peak = w->inflight_peak > s->inflight_peak ? w->inflight_peak : s->inflight_peak;
	s->steal_pct_sum += w->steal_pct_sum, s->steal_pct_max = maxd(s->steal_pct_max, w->steal_pct_max);
	s->cells_steal_known += w->cells_steal_known, s->cells_steal_over += w->cells_steal_over;
	s->cells_throttled += w->cells_throttled;
	s->wait_max_us = maxd(s->wait_max_us, w->wait_max_us);
	s->nice = max_nice(s->nice, w->nice);
	s->group_nice = max_nice(s->group_nice, w->group_nice);
	s->runq_max = w->runq_max > s->runq_max ? w->runq_max : s->runq_max;
	s->late_p99_max_ns = maxd(s->late_p99_max_ns, w->late_p99_max_ns);
}

void pq_exp_run_noise(const pq_exp_run_summary *s, char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n, "host:");
	if (s->inflight_peak > 1 && len < n)
		len += (size_t)snprintf(buf + len, n - len, " up to %zu cells measured at once;", s->inflight_peak);
	if (s->cells_steal_known && len < n)
		len += (size_t)snprintf(buf + len, n - len, " steal %.1f %% on average, %.1f %% at most",
					s->steal_pct_sum / (double)s->cells_steal_known, s->steal_pct_max);
	else if (len < n)
		len += (size_t)snprintf(buf + len, n - len, " steal unknown");
	if (s->runq_max >= 0 && len < n)
		len += (size_t)snprintf(buf + len, n - len, ", run queue up to %d", s->runq_max);
	if (s->wait_max_us >= 0 && len < n) {
		char group[40] = "";
		if (s->group_nice != PQ_SCHED_NICE_KEEP)
			snprintf(group, sizeof group, ", their session's group %d", s->group_nice);
		len += (size_t)snprintf(buf + len, n - len,
					"; the endpoints (nice %d%s) waited for a CPU up to %.2f ms in a cell's median connection",
					s->nice, group, s->wait_max_us / 1e3);
	}
	if (s->probe_tail_max_ns >= 0 && len < n)
		len += (size_t)snprintf(buf + len, n - len,
					"; probe p99 up to %+.1f ms over the link's median (its own waits for a CPU, not judged)",
					s->probe_tail_max_ns / 1e6);
	if (s->checks && len < n)
		len += (size_t)snprintf(buf + len, n - len, "; self-checks %zu of %zu within budget",
					s->checks - s->checks_missed, s->checks);
	if (s->cells_link_known && len < n) {
		len += (size_t)snprintf(buf + len, n - len, "; links: %zu of %zu cells over the link budget",
					s->cells_link_over, s->cells_link_known);
		if (s->late_p99_max_ns >= 0 && len < n)
			len += (size_t)snprintf(buf + len, n - len, " (release lateness p99 at most %.2f ms)",
						s->late_p99_max_ns / 1e6);
	}
	if (s->cells_remeasured && len < n)
		len += (size_t)snprintf(buf + len, n - len, "; %zu cell%s measured again after going over a budget",
					s->cells_remeasured, s->cells_remeasured == 1 ? "" : "s");
	if (s->cells_own_wait && len < n)
		len += (size_t)snprintf(buf + len, n - len,
					"; not measured again: %zu cell%s over the host budget alone, by %s own response's CPU",
					s->cells_own_wait, s->cells_own_wait == 1 ? "" : "s",
					s->cells_own_wait == 1 ? "its" : "their");
	if (s->cells_host_known && len < n)
		snprintf(buf + len, n - len,
			 "; %zu of %zu cells over the host budget (steal > %.0f %%: %zu; the endpoints' median wait > %.0f %% of "
			 "the RTT, %.0f %% of the median connection and %.0f ms: %zu)",
			 s->cells_host_over, s->cells_host_known, PQ_HOSTLOAD_STEAL_BUDGET_PCT, s->cells_steal_over,
			 100 * PQ_HOSTLOAD_WAIT_BUDGET_RTT, 100 * PQ_HOSTLOAD_WAIT_BUDGET_CONN, PQ_HOSTLOAD_WAIT_FLOOR_US / 1e3,
			 s->cells_wait_over);
}
