#include "net/linkcfg.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "core/wire.h"

static const char *const cc_names[] = {NULL, "cubic", "bbr", "reno"};
static const char *const backend_names[] = {"auto", "userspace", "netem"};

const char *pq_cc_name(enum pq_cc cc)
{
	return (unsigned)cc < 4 ? cc_names[cc] : NULL;
}

const char *pq_dist_name(enum pq_dist d)
{
	static const char *const names[] = {"normal", "uniform", "paretonormal"};
	return (unsigned)d < 3 ? names[d] : "?";
}

const char *pq_backend_name(enum pq_backend b)
{
	return (unsigned)b < 3 ? backend_names[b] : "?";
}

void pq_link_config_init(pq_link_config *c)
{
	memset(c, 0, sizeof *c);
	c->mtu = PQ_WIRE_MTU_DEFAULT;
	c->seed = 1;
	pq_ktcp_cfg_init(&c->tcp);
	for (int i = 0; i < 2; i++) {
		c->dir[i].loss.loss_bad = 1.0;
		c->dir[i].jitter_dist = PQ_DIST_NORMAL;
	}
}

/* `what` is the caller's name for the input (pq_name_of), `part` which of its numbers
 * ("" for the only one). */
static int check_prob(double v, const char *dir, const char *what, const char *part, pq_diag *d)
{
	if (!(v >= 0 && v <= 1))
		return pq_diag_set(d, PQ_ERANGE, "%s %s%s%s: %g%% is not a probability (accepted: 0%% to 100%%)",
				   dir, what, *part ? " " : "", part, v * 100);
	return 0;
}

int pq_link_rate_check(uint64_t bps, const char *what, pq_diag *d)
{
	char a[32];
	if (bps > PQ_LINK_MAX_RATE_BPS)
		return pq_diag_set(d, PQ_ERANGE, "%s: %s is above the accepted 100 Gbit/s", what, pq_fmt_rate(a, sizeof a, bps));
	if (bps && bps < PQ_LINK_MIN_RATE_BPS)
		return pq_diag_set(d, PQ_ERANGE,
				   "%s: %s is below the accepted 8 kbit/s (a 1500-byte packet would take over 1.5 s; "
				   "0 = unlimited)",
				   what, pq_fmt_rate(a, sizeof a, bps));
	return 0;
}

static int validate_dir(const pq_dir_cfg *c, const char *dir, const pq_name *names, pq_diag *d)
{
	char a[32], b[32];
	if (c->delay_ns < 0 || c->delay_ns > PQ_LINK_MAX_DELAY_NS)
		return pq_diag_set(d, PQ_ERANGE, "%s delay: %s is out of range (accepted: 0 to %s one way)",
				   dir, pq_fmt_duration(a, sizeof a, c->delay_ns),
				   pq_fmt_duration(b, sizeof b, PQ_LINK_MAX_DELAY_NS));
	if (c->jitter_ns < 0 || c->jitter_ns > PQ_LINK_MAX_DELAY_NS)
		return pq_diag_set(d, PQ_ERANGE, "%s jitter: %s is out of range (accepted: 0 to %s)", dir,
				   pq_fmt_duration(a, sizeof a, c->jitter_ns),
				   pq_fmt_duration(b, sizeof b, PQ_LINK_MAX_DELAY_NS));
	int rc;
	const char *loss = pq_name_of(names, "loss"), *burst = pq_name_of(names, "burst_loss");
	if ((rc = check_prob(c->loss.p, dir, loss, "", d)) || (rc = check_prob(c->loss.ge_p, dir, burst, "p", d)) ||
	    (rc = check_prob(c->loss.ge_r, dir, burst, "r", d)) ||
	    (rc = check_prob(c->loss.loss_bad, dir, burst, "loss in bad state", d)) ||
	    (rc = check_prob(c->loss.loss_good, dir, burst, "loss in good state", d)))
		return rc;
	if (c->loss.ge_p > 0 && c->loss.ge_r <= 0)
		return pq_diag_set(d, PQ_EINVAL, "%s %s: r (bad -> good) must be above 0 when p is "
				   "set, or the link stays bad for ever", dir, burst);
	if (c->loss.p > 0 && c->loss.ge_p > 0)
		return pq_diag_set(d, PQ_EINVAL,
				   "%s: choose either %s (Bernoulli) or %s (Gilbert-Elliott), not both",
				   dir, loss, burst);
	if (c->loss.unit != PQ_LOSS_UNIT_SEGMENT && c->loss.unit != PQ_LOSS_UNIT_BURST)
		return pq_diag_set(d, PQ_EINVAL, "%s %s: %d is no unit of loss (accepted: %s)", dir,
				   pq_name_of(names, "loss_unit"), c->loss.unit, PQ_LOSS_UNIT_CHOICES);
	char rate[96];
	snprintf(rate, sizeof rate, "%s rate", dir);
	if ((rc = pq_link_rate_check(c->rate_bps, rate, d)) < 0)
		return rc;
	if ((c->queue_bytes || c->queue_pkts) && !c->rate_bps)
		return pq_diag_set(d, PQ_EINVAL,
				   "%s queue: a queue limit needs a rate (%s), since without one "
				   "nothing ever waits in the queue",
				   dir, pq_name_of(names, "rate"));
	return 0;
}

int pq_link_config_validate(const pq_link_config *c, pq_diag *d)
{
	static const char *const names[2] = {"uplink (client->server)", "downlink (server->client)"};
	for (int i = 0; i < 2; i++) {
		int rc = validate_dir(&c->dir[i], names[i], c->names, d);
		if (rc)
			return rc;
		if (c->dir[i].queue_bytes && c->dir[i].queue_bytes < c->mtu)
			return pq_diag_set(d, PQ_ERANGE, "%s queue: %llu bytes cannot hold one %u-byte packet "
					   "(accepted: at least the MTU)", names[i],
					   (unsigned long long)c->dir[i].queue_bytes, c->mtu);
	}
	if (c->mtu < PQ_LINK_MIN_MTU || c->mtu > PQ_LINK_MAX_MTU)
		return pq_diag_set(d, PQ_ERANGE,
				   "%s: %u is out of range (accepted: %u to %u; IPv4 needs at least 576)",
				   pq_name_of(c->names, "mtu"), c->mtu, PQ_LINK_MIN_MTU, PQ_LINK_MAX_MTU);
	if (c->initcwnd > 1000 || c->initrwnd > 1000)
		return pq_diag_set(d, PQ_ERANGE,
				   "%s: %u is out of range (accepted: 1 to 1000 segments, 0 for the "
				   "kernel default)",
				   pq_name_of(c->names, c->initcwnd > 1000 ? "initcwnd" : "initrwnd"),
				   c->initcwnd > 1000 ? c->initcwnd : c->initrwnd);
	int rc = pq_ktcp_cfg_check(&c->tcp, c->names, d);
	if (rc)
		return rc;
	if ((unsigned)c->cc > PQ_CC_RENO || (unsigned)c->backend > PQ_BACKEND_NETEM)
		return pq_diag_set(d, PQ_EINVAL, "congestion control or backend out of range");
	return 0;
}

int pq_link_config_fast(const pq_link_config *c)
{
	return c->dir[0].rate_bps >= PQ_LINK_FAST_BPS || c->dir[1].rate_bps >= PQ_LINK_FAST_BPS;
}

int64_t pq_link_config_rtt_ns(const pq_link_config *c)
{
	return c->dir[0].delay_ns + c->dir[1].delay_ns;
}

void pq_link_config_set_rtt(pq_link_config *c, int64_t rtt_ns)
{
	c->dir[PQ_DIR_S2C].delay_ns = rtt_ns / 2;
	c->dir[PQ_DIR_C2S].delay_ns = rtt_ns - rtt_ns / 2;
}

int pq_linkcfg_parse_queue(const char *s, const char *what, pq_dir_cfg *dc, pq_diag *d)
{
	char *end;
	errno = 0;
	unsigned long long n = strtoull(s, &end, 10);
	if (end != s && (!strcmp(end, "p") || !strcmp(end, "pkt") || !strcmp(end, "pkts") ||
			 !strcmp(end, "packets"))) {
		if (errno || n == 0 || n > 1000000)
			return pq_diag_set(d, PQ_ERANGE,
					   "%s: '%s' is out of range (accepted: 1p to 1000000p)", what, s);
		dc->queue_pkts = (uint32_t)n;
		dc->queue_bytes = 0;
		return 0;
	}
	uint64_t b;
	int rc = pq_parse_size(s, what, &b, d);
	if (rc)
		return pq_diag_set(d, rc, "%s: '%s' is neither a size (64KiB) nor a packet count (100p)",
				   what, s);
	if (b == 0)
		return pq_diag_set(d, PQ_ERANGE, "%s: 0 bytes holds nothing (accepted: at least the MTU)",
				   what);
	dc->queue_bytes = b;
	dc->queue_pkts = 0;
	return 0;
}

int pq_linkcfg_parse_burst(const char *s, const char *what, pq_loss_cfg *l, pq_diag *d)
{
	char buf[128];
	double v[4] = {0, 0, 1.0, 0};
	snprintf(buf, sizeof buf, "%s", s);
	int n = 0;
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (n == 4)
			return pq_diag_set(d, PQ_EINVAL,
					   "%s: '%s' has more than 4 values (P,R[,BAD[,GOOD]])", what, s);
		if (pq_parse_fraction(t, what, &v[n], d))
			return pq_diag_set(d, PQ_EINVAL,
					   "%s: '%s' is not a probability (e.g. 1%% or 0.01); expected "
					   "P,R[,BAD[,GOOD]]",
					   what, t);
		n++;
	}
	if (n < 2)
		return pq_diag_set(d, PQ_EINVAL, "%s: '%s' needs at least P and R (e.g. 1%%,25%%)",
				   what, s);
	l->p = 0;
	l->ge_p = v[0];
	l->ge_r = v[1];
	l->loss_bad = v[2];
	l->loss_good = v[3];
	return 0;
}

/* Appends " what up[/down]" when either direction has a non-zero value. */
static void describe_pair(char *buf, size_t n, const char *what, const char *up, const char *down)
{
	size_t len = strlen(buf);
	if (len >= n)
		return;
	if (strcmp(up, down) == 0)
		snprintf(buf + len, n - len, ", %s %s", what, up);
	else
		snprintf(buf + len, n - len, ", %s %s up / %s down", what, up, down);
}

void pq_link_config_describe(const pq_link_config *c, char *buf, size_t n)
{
	char a[32], b[32];
	snprintf(buf, n, "rtt %s", pq_fmt_duration(a, sizeof a, pq_link_config_rtt_ns(c)));
	if (c->dir[0].delay_ns != c->dir[1].delay_ns)
		describe_pair(buf, n, "one-way", pq_fmt_duration(a, sizeof a, c->dir[0].delay_ns),
			      pq_fmt_duration(b, sizeof b, c->dir[1].delay_ns));
	if (c->dir[0].jitter_ns || c->dir[1].jitter_ns)
	{
		describe_pair(buf, n, "jitter", pq_fmt_duration(a, sizeof a, c->dir[0].jitter_ns),
			      pq_fmt_duration(b, sizeof b, c->dir[1].jitter_ns));
		size_t l0 = strlen(buf);
		if (l0 < n)
			snprintf(buf + l0, n - l0, " %s %s", pq_dist_name(c->dir[0].jitter_dist),
				 c->dir[0].reorder || c->dir[1].reorder ? "reordering" : "keeping order");
	}
	if (c->dir[0].loss.p > 0 || c->dir[1].loss.p > 0) {
		snprintf(a, sizeof a, "%g%%", c->dir[0].loss.p * 100);
		snprintf(b, sizeof b, "%g%%", c->dir[1].loss.p * 100);
		describe_pair(buf, n, "loss", a, b);
	}
	if (c->dir[0].loss.ge_p > 0 || c->dir[1].loss.ge_p > 0) {
		snprintf(a, sizeof a, "p=%g%%,r=%g%%", c->dir[0].loss.ge_p * 100, c->dir[0].loss.ge_r * 100);
		snprintf(b, sizeof b, "p=%g%%,r=%g%%", c->dir[1].loss.ge_p * 100, c->dir[1].loss.ge_r * 100);
		describe_pair(buf, n, "burst loss", a, b);
	}
	if (c->dir[0].rate_bps || c->dir[1].rate_bps)
		describe_pair(buf, n, "rate",
			      c->dir[0].rate_bps ? pq_fmt_rate(a, sizeof a, c->dir[0].rate_bps) : "unlimited",
			      c->dir[1].rate_bps ? pq_fmt_rate(b, sizeof b, c->dir[1].rate_bps) : "unlimited");
	if (c->dir[0].queue_bytes || c->dir[1].queue_bytes || c->dir[0].queue_pkts || c->dir[1].queue_pkts) {
		if (c->dir[0].queue_pkts || c->dir[1].queue_pkts) {
			snprintf(a, sizeof a, "%up", c->dir[0].queue_pkts);
			snprintf(b, sizeof b, "%up", c->dir[1].queue_pkts);
		} else {
			pq_fmt_size(a, sizeof a, c->dir[0].queue_bytes);
			pq_fmt_size(b, sizeof b, c->dir[1].queue_bytes);
		}
		describe_pair(buf, n, "queue", a, b);
	}
	size_t len = strlen(buf);
	if (len < n)
		snprintf(buf + len, n - len, ", mtu %u", c->mtu);
	len = strlen(buf);
	if (c->initcwnd && len < n)
		snprintf(buf + len, n - len, ", initcwnd %u", c->initcwnd);
	len = strlen(buf);
	if (c->cc && len < n)
		snprintf(buf + len, n - len, ", cc %s", pq_cc_name(c->cc));
	pq_ktcp_cfg_describe(&c->tcp, buf, n);
}
