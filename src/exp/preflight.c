/* What a sweep checks and estimates before it measures (exp/runner.h): the browser its
 * Chromium cells need, the kernel's TCP settings its links ask for, and how long it will
 * take at a given concurrency. */
#include "exp/runner.h"

#include <string.h>

#include "exp/cellcfg.h"
#include "exp/jobs.h"
#include "load/chromium.h"
#include "net/link.h"

int pq_exp_check_browser(const pq_exp_grid *g, char *version, size_t n, pq_diag *d)
{
	char exe[512];
	int rc = 0;
	if (n)
		version[0] = '\0';
	for (size_t i = 0; i < g->n; i++)
		if (g->cells[i].p.browser) {
			if ((rc = pq_chromium_find(exe, sizeof exe, d)) == 0)
				rc = pq_chromium_version(exe, version, n, d);
			return rc < 0 ? pq_diag_prefix(d, rc, "%s", g->cells[i].arm_where) : 0;
		}
	return 0;
}

int pq_exp_check_kernel(const pq_exp_grid *g, pq_ktcp_caps *caps, pq_diag *d)
{
	memset(caps, 0, sizeof *caps);
	if (g->server[0] || !g->n)
		return 0;
	int qdiscs = 0;
	for (size_t i = 0; i < g->n; i++)
		qdiscs |= g->cells[i].p.qdisc[0] != '\0';
	int rc = pq_link_kernel_caps(caps, qdiscs, d);
	const char *last = NULL;
	for (size_t i = 0; i < g->n && !rc; i++) {
		const pq_exp_cell *c = &g->cells[i];
		if (last && strcmp(last, c->link_key) == 0)
			continue;
		last = c->link_key;
		pq_link_config lc;
		if ((rc = pq_exp_point_link(&c->p, g->seed, c->arm_where, &lc, d)) == 0 &&
		    (rc = pq_ktcp_validate(&lc.tcp, pq_cc_name(lc.cc), caps, NULL, d)) < 0)
			rc = pq_diag_prefix(d, rc, "%s", c->arm_where);
	}
	return rc;
}

/* One cell's link as it will be brought up, or the defaults when it cannot be made. */
static void cell_link(const pq_exp_point *p, pq_link_config *lc)
{
	if (pq_exp_point_link(p, 1, "estimate", lc, NULL) < 0)
		pq_link_config_init(lc);
}

/* A cold Chromium's own start and exit, per navigation: its connections began 2.3-2.7 s
 * apart at 70 and 148 ms here, about 0.3 s of which was the network (docs/tls.md). */
#define BROWSER_START_S 2.1

static double cell_s(const pq_exp_point *p, const pq_link_config *lc)
{
	double rtt = (double)pq_link_config_rtt_ns(lc) / 1e9, loss = lc->dir[0].loss.p;
	double per = 3 * rtt + 0.004; /* connect, handshake, request; crypto */
	if (lc->dir[0].rate_bps && p->response_bytes > 0)
		per += (double)p->response_bytes * 8 / (double)lc->dir[0].rate_bps;
	/* the server's first flight through a slow link: ~20 kB for a post-quantum chain
	 * (the chains are not built yet; at 8 kbit/s that alone is 20 s) */
	if (lc->dir[0].rate_bps)
		per += 20000.0 * 8 / (double)lc->dir[0].rate_bps;
	if (p->response_bytes > 0)
		per += rtt * 4; /* slow start over a large response */
	if (p->gilbert)
		loss = p->loss;
	per *= 1 + 20 * loss; /* retransmission timeouts */
	if (p->browser) /* a warm or resuming browser navigates twice */
		per = per * (p->browser_state == PQ_BROWSER_COLD ? 1 : 2) + BROWSER_START_S;
	if (p->open_rate > 0) /* open loop: the schedule, then the last connection's own time */
		return 0.05 + (double)p->connections / p->open_rate + per + (double)pq_exp_cfg_warmup(p) * per;
	return 0.05 + (double)(p->connections + pq_exp_cfg_warmup(p)) * per / p->concurrency;
}

double pq_exp_cell_estimate_s(const pq_exp_point *p)
{
	pq_link_config lc;
	cell_link(p, &lc);
	return cell_s(p, &lc);
}

double pq_exp_estimate_s(const pq_exp_grid *g, unsigned jobs)
{
	double s = 0, links = 0, longest = 0;
	const char *last = NULL;
	for (size_t i = 0; i < g->n; i++) {
		const pq_exp_point *p = &g->cells[i].p;
		if (!g->server[0] && (!last || strcmp(last, g->cells[i].link_key) != 0)) {
			links += 3.0; /* link up, self-check, down */
			last = g->cells[i].link_key;
		}
		pq_link_config lc;
		cell_link(p, &lc);
		double cell = cell_s(p, &lc);
		longest = cell > longest ? cell : longest;
		/* at once with as many neighbours as its link's time scale allows (exp/jobs.h) */
		s += cell / (double)pq_exp_jobs_limit(g->server[0] || p->browser ? 0 : pq_exp_jobs_scale_ns(&lc), jobs ? jobs : 1);
	}
	/* each worker brings its links up (about once each), side by side; however many at
	 * once, the sweep takes at least its longest cell */
	return (s > longest ? s : longest) + links;
}
