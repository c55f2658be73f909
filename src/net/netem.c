#include "net/netem.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "net/sh.h"

static void add(pq_netem_cmd *c, const char *fmt, ...) PQ_PRINTF(2, 3);
static void add(pq_netem_cmd *c, const char *fmt, ...)
{
	if (c->argc + 1 >= PQ_NETEM_MAX_ARGS || c->used >= sizeof c->buf)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(c->buf + c->used, sizeof c->buf - c->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof c->buf - c->used)
		return;
	c->argv[c->argc++] = c->buf + c->used;
	c->argv[c->argc] = NULL;
	c->used += (size_t)n + 1;
}

static void reset(pq_netem_cmd *c)
{
	c->argc = 0;
	c->used = 0;
	c->argv[0] = NULL;
}

/* Durations in microseconds: tc accepts "us", and it keeps sub-millisecond values. */
static void add_us(pq_netem_cmd *c, int64_t ns)
{
	add(c, "%lldus", (long long)(ns / 1000));
}

static void add_pct(pq_netem_cmd *c, double frac)
{
	add(c, "%.6g%%", frac * 100.0);
}

int pq_netem_qdisc_cmd(pq_netem_cmd *c, const char *ns, const char *dev, const pq_dir_cfg *dc,
		       uint32_t mtu, const pq_name *names, pq_diag *d)
{
	static const char *const dist[] = {"normal", "uniform", "paretonormal"};
	reset(c);
	if (dc->jitter_ns && !dc->reorder)
		return pq_diag_set(d, PQ_EUNSUPPORTED,
				   "netem backend: netem reorders packets when it adds jitter; use %s "
				   "to accept that, or %s userspace to keep order",
				   pq_name_of(names, "reorder"), pq_name_of(names, "backend"));
	if (dc->loss.unit != PQ_LOSS_UNIT_SEGMENT)
		return pq_diag_set(d, PQ_EUNSUPPORTED,
				   "netem backend: %s burst: netem decides loss per packet its qdisc is handed, "
				   "whatever the device's offloads made of a write, so it emulates %s segment "
				   "only (with tso and gso off); %s userspace emulates segment and burst",
				   pq_name_of(names, "loss_unit"), pq_name_of(names, "loss_unit"),
				   pq_name_of(names, "backend"));
	add(c, "tc");
	add(c, "-n");
	add(c, "%s", ns);
	add(c, "qdisc");
	add(c, "replace");
	add(c, "dev");
	add(c, "%s", dev);
	add(c, "root");
	add(c, "netem");
	/* netem's limit counts packets; a byte limit becomes the packets of MTU size it holds. */
	uint64_t limit = 1000;
	if (dc->queue_pkts)
		limit = dc->queue_pkts;
	else if (dc->queue_bytes)
		limit = dc->queue_bytes / mtu ? dc->queue_bytes / mtu : 1;
	add(c, "limit");
	add(c, "%llu", (unsigned long long)limit);
	add(c, "delay");
	add_us(c, dc->delay_ns);
	if (dc->jitter_ns) {
		add_us(c, dc->jitter_ns);
		add(c, "distribution");
		add(c, "%s", dist[dc->jitter_dist]);
	}
	if (dc->loss.ge_p > 0) {
		add(c, "loss");
		add(c, "gemodel");
		add_pct(c, dc->loss.ge_p);
		add_pct(c, dc->loss.ge_r);
		add_pct(c, dc->loss.loss_bad);  /* 1-h: loss probability in the bad state */
		add_pct(c, dc->loss.loss_good); /* 1-k: loss probability in the good state */
	} else if (dc->loss.p > 0) {
		add(c, "loss");
		add(c, "random");
		add_pct(c, dc->loss.p);
	}
	if (dc->rate_bps) {
		add(c, "rate");
		add(c, "%llubit", (unsigned long long)dc->rate_bps);
	}
	return 0;
}

void pq_netem_veth_cmd(pq_netem_cmd *c, const char *ns_c, const char *ns_s, const char *dev)
{
	reset(c);
	const char *w[] = {"ip", "-n", ns_c, "link", "add", dev, "type", "veth", "peer", "name", dev, "netns", ns_s};
	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
		add(c, "%s", w[i]);
}

static int probe(const char *ns, pq_diag *d)
{
	char *add_argv[] = {"tc", "-n", (char *)ns, "qdisc", "add", "dev", "lo", "root", "netem", "delay", "0ms", NULL};
	char *del_argv[] = {"tc", "-n", (char *)ns, "qdisc", "del", "dev", "lo", "root", NULL};
	if (pq_sh_run(add_argv, NULL, NULL, d))
		return 0;
	pq_diag ignore;
	if (pq_sh_run(del_argv, NULL, NULL, &ignore)) { /* the namespace goes away anyway */
	}
	return 1;
}

static pthread_mutex_t known_mu = PTHREAD_MUTEX_INITIALIZER;
static int known = -1; /* -1: not probed yet in this process */
static pq_diag known_why;

int pq_netem_available(const char *ns, pq_diag *d)
{
	pthread_mutex_lock(&known_mu);
	if (known < 0) {
		pq_diag_clear(&known_why);
		known = probe(ns, &known_why);
	}
	int yes = known;
	if (!yes)
		pq_diag_set(d, known_why.code ? known_why.code : PQ_ECHILD, "%s", known_why.msg);
	pthread_mutex_unlock(&known_mu);
	return yes;
}

int pq_netem_parse_stats(const char *text, uint64_t *bytes, uint64_t *pkts, uint64_t *dropped)
{
	const char *s = strstr(text, "Sent ");
	unsigned long long b, p, dr;
	if (!s || sscanf(s, "Sent %llu bytes %llu pkt (dropped %llu", &b, &p, &dr) != 3)
		return PQ_EPARSE;
	*bytes = b;
	*pkts = p;
	*dropped = dr;
	return 0;
}
