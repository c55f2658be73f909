/* A self-check's result shown (net/check.h): the one-line verdict with the link's own
 * accounting (lateness, drops), and the same as a JSON object. */
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "core/units.h"
#include "net/check.h"
#include "net/linkcfg.h"

/* "; link: lateness p50 2 us p99 40 us max 210 us over 812 releases, drops loss 0 queue 0
 * unplanned 0 OK" (or "not kept by this backend") */
static size_t format_link(const pq_check_result *r, char *buf, size_t n)
{
	const pq_link_window *w = &r->link;
	char a[32], b[32], c[32];
	if (!w->late_known)
		return (size_t)snprintf(buf, n, "; link: lateness not kept by the %s backend", pq_backend_name(r->backend));
	size_t len;
	if (w->late.n > 0)
		len = (size_t)snprintf(buf, n, "; link: lateness p50 %s p99 %s max %s over %zu releases",
				       pq_fmt_duration(a, sizeof a, (int64_t)w->late.p50),
				       pq_fmt_duration(b, sizeof b, (int64_t)w->late.p99),
				       pq_fmt_duration(c, sizeof c, (int64_t)w->late.max), w->late.n);
	else
		len = (size_t)snprintf(buf, n, "; link: no release");
	if (len < n)
		len += (size_t)snprintf(buf + len, n - len, ", drops loss %llu queue %llu unplanned %llu %s%s",
					(unsigned long long)(w->dir[0].drop_loss + w->dir[1].drop_loss),
					(unsigned long long)(w->dir[0].drop_queue + w->dir[1].drop_queue),
					(unsigned long long)pq_link_window_unplanned(w), r->link_ok ? "OK" : "MISSED: ",
					r->link_ok ? "" : r->link_why);
	if (w->fwd_wait_ns >= 0 && len < n)
		len += (size_t)snprintf(buf + len, n - len, " (the forwarder waited %s for a CPU in this machine)",
					pq_fmt_duration(a, sizeof a, w->fwd_wait_ns));
	return len;
}

void pq_check_format(const pq_check_result *r, char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n, "rtt %.3f ms: median %.3f ms (%+.3f)%s, p99 %.3f ms, min %.3f max %.3f, "
				      "%d samples, %d lost",
				      (double)r->rtt_cfg_ns / 1e6, r->rtt_p50_ns / 1e6, r->err_p50_ns / 1e6,
				      !r->rtt_judged ? " (not judged: jitter or rate)" : r->rtt_ok ? " OK" : " MISSED",
				      r->rtt_p99_ns / 1e6, r->rtt_min_ns / 1e6, r->rtt_max_ns / 1e6, r->rtt_n, r->rtt_lost);
	if (len < n)
		len += format_link(r, buf + len, n - len);
	static const char *const names[2] = {"up", "down"};
	for (int i = 0; i < 2 && len < n; i++) {
		const pq_check_dir *c = &r->dir[i];
		if (c->measured_rate && c->offered_short)
			len += (size_t)snprintf(buf + len, n - len,
						"; rate %s %.3f Mbit/s (%+.2f%%; the probe, starved of a CPU, offered only %.3f "
						"Mbit/s: judged against that)%s",
						names[i], c->rate_bps / 1e6, c->rate_err * 100, c->offered_bps / 1e6,
						c->rate_ok ? " OK" : " MISSED");
		else if (c->measured_rate)
			len += (size_t)snprintf(buf + len, n - len, "; rate %s %.3f Mbit/s (%+.2f%%)%s", names[i],
						c->rate_bps / 1e6, c->rate_err * 100, c->rate_ok ? " OK" : " MISSED");
		if (len < n && c->measured_loss)
			len += (size_t)snprintf(buf + len, n - len, "; loss %s %.2f%% (99%% CI %.2f-%.2f%%, %s)%s",
						names[i], c->loss * 100, c->loss_lo * 100, c->loss_hi * 100,
						c->loss_by_link ? "counted by the link" : "counted by probes",
						c->loss_ok ? " OK" : " MISSED");
	}
	/* The host: how long the probe waited for a CPU, not what the link did. */
	if (len < n && r->rtt_n > 0)
		len += (size_t)snprintf(buf + len, n - len,
					"; host (not judged): the probe saw median %+.3f ms, p99 %+.3f ms over the link's median",
					(r->probe_p50_ns - r->rtt_p50_ns) / 1e6, pq_check_probe_tail_ns(r) / 1e6);
	if (len < n && r->host_steal >= 0)
		len += (size_t)snprintf(buf + len, n - len, ", steal %.1f%%", 100.0 * r->host_steal);
	if (len < n && r->runq_before >= 0 && r->runq_after >= 0)
		len += (size_t)snprintf(buf + len, n - len, ", run queue %d -> %d", r->runq_before, r->runq_after);
	if (len < n)
		snprintf(buf + len, n - len, "; backend %s; %s", pq_backend_name(r->backend),
			 r->ok ? "within budget" : "LINK MISSED ITS BUDGET");
}

static void json_link(cJSON *o, const pq_check_result *r)
{
	const pq_link_window *w = &r->link;
	cJSON *x = cJSON_AddObjectToObject(o, "link");
	if (!x)
		return;
	cJSON_AddBoolToObject(x, "accounted", w->late_known);
	if (w->late_known && w->late.n > 0) {
		cJSON_AddNumberToObject(x, "releases", (double)w->late.n);
		cJSON_AddNumberToObject(x, "late_p50_us", w->late.p50 / 1e3);
		cJSON_AddNumberToObject(x, "late_p99_us", w->late.p99 / 1e3);
		cJSON_AddNumberToObject(x, "late_max_us", w->late.max / 1e3);
	}
	cJSON_AddNumberToObject(x, "drop_loss_pkts", (double)(w->dir[0].drop_loss + w->dir[1].drop_loss));
	cJSON_AddNumberToObject(x, "drop_queue_pkts", (double)(w->dir[0].drop_queue + w->dir[1].drop_queue));
	cJSON_AddNumberToObject(x, "drop_unplanned_pkts", (double)pq_link_window_unplanned(w));
	if (w->fwd_wait_ns >= 0)
		cJSON_AddNumberToObject(x, "fwd_wait_us", (double)w->fwd_wait_ns / 1e3);
	if (r->link_ok >= 0)
		cJSON_AddBoolToObject(x, "ok", r->link_ok);
}

char *pq_check_json(const pq_check_result *r)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "backend", pq_backend_name(r->backend));
	if (r->host_steal >= 0)
		cJSON_AddNumberToObject(o, "host_steal", r->host_steal);
	if (r->runq_before >= 0)
		cJSON_AddNumberToObject(o, "host_runq_before", r->runq_before);
	if (r->runq_after >= 0)
		cJSON_AddNumberToObject(o, "host_runq_after", r->runq_after);
	cJSON_AddNumberToObject(o, "rtt_configured_ms", (double)r->rtt_cfg_ns / 1e6);
	cJSON_AddNumberToObject(o, "rtt_median_ms", r->rtt_p50_ns / 1e6);
	cJSON_AddNumberToObject(o, "rtt_p99_ms", r->rtt_p99_ns / 1e6);
	cJSON_AddNumberToObject(o, "rtt_min_ms", r->rtt_min_ns / 1e6);
	cJSON_AddNumberToObject(o, "rtt_max_ms", r->rtt_max_ns / 1e6);
	cJSON_AddNumberToObject(o, "rtt_error_median_us", r->err_p50_ns / 1e3);
	cJSON_AddNumberToObject(o, "rtt_error_p99_us", r->err_p99_ns / 1e3);
	cJSON_AddNumberToObject(o, "probe_median_ms", r->probe_p50_ns / 1e6);
	cJSON_AddNumberToObject(o, "probe_p99_ms", r->probe_p99_ns / 1e6);
	cJSON_AddNumberToObject(o, "rtt_samples", r->rtt_n);
	cJSON_AddNumberToObject(o, "rtt_lost", r->rtt_lost);
	cJSON_AddBoolToObject(o, "rtt_ok", r->rtt_ok);
	json_link(o, r);
	static const char *const names[2] = {"up", "down"};
	for (int i = 0; i < 2; i++) {
		const pq_check_dir *c = &r->dir[i];
		cJSON *x = cJSON_AddObjectToObject(o, names[i]);
		if (!x)
			continue;
		if (c->measured_rate) {
			cJSON_AddNumberToObject(x, "rate_bps", c->rate_bps);
			cJSON_AddNumberToObject(x, "rate_error", c->rate_err);
			cJSON_AddNumberToObject(x, "rate_offered_bps", c->offered_bps);
			cJSON_AddBoolToObject(x, "rate_offered_short", c->offered_short);
			cJSON_AddBoolToObject(x, "rate_ok", c->rate_ok);
		}
		if (c->measured_loss) {
			cJSON_AddNumberToObject(x, "loss", c->loss);
			cJSON_AddNumberToObject(x, "loss_ci_low", c->loss_lo);
			cJSON_AddNumberToObject(x, "loss_ci_high", c->loss_hi);
			cJSON_AddStringToObject(x, "loss_counted_by", c->loss_by_link ? "link" : "probes");
			cJSON_AddBoolToObject(x, "loss_ok", c->loss_ok);
		}
	}
	cJSON_AddBoolToObject(o, "ok", r->ok);
	char *s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return s;
}
