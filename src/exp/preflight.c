/* What a sweep checks and estimates before it measures (exp/runner.h): the browser its
 * Chromium cells need, the kernel's TCP settings its links ask for, and how long it will
 * take at a given concurrency. */
#include "exp/runner.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/wire.h"

#include "exp/cellcfg.h"
#include "exp/jobs.h"
#include "load/chromium.h"
#include "model/flight.h"
#include "model/quic.h"
#include "net/link.h"
#include "pki/acct.h"
#include "pki/alg.h"
#include "pki/mtc.h"

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

/* A cold Chromium's own start and exit, per navigation: in the full browser preset here
 * (2026-12-06, each browser on the CPUs its server and link leave it, its profile on a
 * tmpfs; docs/tls.md) a cell's time beyond its navigations' own was 2.3-2.6 s a
 * navigation at 1-148 ms. */
#define BROWSER_START_S 2.5

/* The estimate's sizes (a certificate's: pq_alg_cert_der_estimate, pki/alg.h): an MTC
 * leaf's proof and names beyond its key, about; an SCT's bytes beyond its signature; an
 * OCSP staple's beyond its issuer's signature; a ClientHello's on TCP beyond its key
 * share (the server's share's size stands in for the client's: ML-KEM-768's 1,088-byte
 * ciphertext for its 1,184-byte key). */
#define EST_MTC_PROOF 800
#define EST_SCT_BASE 50
#define EST_OCSP_BASE 400
#define EST_CLIENT_HELLO 300

static size_t sig_b(const pq_alg *a) { return a ? a->sig_bytes : 0; }

static size_t sum(const size_t *v, size_t n)
{
	size_t t = 0;
	for (size_t i = 0; i < n; i++)
		t += v[i];
	return t;
}

static unsigned group_share(const pq_exp_point *p)
{
	const pq_acct_group *gr = pq_acct_group_find(p->group);
	return gr ? gr->server_share : pq_acct_group_find("X25519")->server_share;
}

/* The server's first flight as it writes it (pki/acct.h), from estimated certificates:
 * a full handshake's, or a resumed one's (no certificates). Fills w (at most
 * PQ_ACCT_MAX_WRITES) and returns how many writes; their sum is the flight's bytes. */
static size_t flight_writes(const pq_exp_point *p, int resumed, size_t *w)
{
	unsigned share = group_share(p);
	if (resumed) {
		w[0] = pq_acct_resumed_flight(share);
		return 1;
	}
	enum { MAXC = 8 };
	size_t der[MAXC], n = 1;
	if (p->remote || !p->leaf)
		der[0] = 4000; /* a remote server's chain: unknown, a few kB */
	else if (p->mtc != PQ_MTC_NONE)
		der[0] = pq_alg_cert_der_estimate(p->leaf, NULL) + EST_MTC_PROOF;
	else
		n = pq_alg_chain_der_estimate(p->leaf, p->inter, p->root, p->intermediates, p->tai, der, MAXC);
	der[0] += (size_t)p->scts * (sig_b(p->sct_alg ? p->sct_alg : pq_alg_find("ecdsa-p256")) + EST_SCT_BASE);
	size_t chain = sum(der, n), want = p->pad_chain_to;
	if (p->pad_like) { /* padded to another algorithm's natural chain */
		size_t like[MAXC], m = pq_alg_chain_der_estimate(p->pad_like, p->pad_like, p->pad_like, p->intermediates, p->tai, like,
						       MAXC);
		want = sum(like, m) > want ? sum(like, m) : want;
	}
	if (want > chain) /* padded to the size asked */
		der[0] += want - chain;
	pq_acct_in in = {.der = der,
			 .n = n,
			 .sig_bytes = p->leaf ? sig_b(p->leaf) : 256,
			 .server_share = share,
			 .wbuf = p->flight_one_write ? SIZE_MAX : 0,
			 .staple = p->ocsp ? sig_b(p->intermediates > 0 ? p->inter : p->root) + EST_OCSP_BASE : 0};
	pq_acct a;
	if (pq_acct_flight(&in, &a, NULL) < 0) {
		w[0] = sum(der, n) + 1000;
		return 1;
	}
	memcpy(w, a.writes, a.n_writes * sizeof *w);
	return a.n_writes;
}

/* Whether the client's first key share is not the group the server takes (a
 * HelloRetryRequest): the shares offered, else the first group offered, lack it. */
static int est_hrr(const pq_exp_point *p)
{
	char first[64];
	const char *shares = p->key_share[0] ? p->key_share : p->groups[0] ? p->groups : p->group;
	if (!p->key_share[0]) {
		size_t n = strcspn(shares, ":,");
		snprintf(first, sizeof first, "%.*s", (int)n, shares);
		shares = first;
	}
	return !strstr(shares, p->group);
}

/* One connection's round trips from its start to its end (the handshake, the first
 * response byte or the last), by the flight models (model/flight.h; over QUIC
 * model/quic.h) with the flight and response estimated; *resp_rounds: those of the
 * response beyond its first byte; *wire_s: the seconds the link's rate adds to them
 * (model/rate.h: each packet's time on the wire). */
static unsigned conn_rounds(const pq_exp_point *p, const pq_link_config *lc, int resumed, unsigned *resp_rounds,
			    double *wire_s)
{
	size_t w[PQ_ACCT_MAX_WRITES], nw = flight_writes(p, resumed, w), ch = EST_CLIENT_HELLO + group_share(p);
	pq_model_in in = {.mss = pq_wire_mss(lc->mtu ? lc->mtu : PQ_WIRE_MTU_DEFAULT),
			  .iw = p->initcwnd,
			  .client_hello = ch,
			  .server_writes = w,
			  .n_server_writes = nw,
			  .response = p->response_bytes > 0
					      ? pq_model_response_bytes(PQ_MODEL_HTTP_HEAD, (size_t)p->response_bytes)
					      : 0,
			  .early_data = resumed && p->early_data,
			  .hrr = est_hrr(p),
			  .client_hello2 = ch,
			  .down_bps = lc->dir[PQ_DIR_S2C].rate_bps,
			  .up_bps = lc->dir[PQ_DIR_C2S].rate_bps,
			  .rtt_s = (double)pq_link_config_rtt_ns(lc) / 1e9};
	pq_model_out out;
	*resp_rounds = 0;
	*wire_s = 0;
	if (!(in.rtt_s > 0))
		in.down_bps = in.up_bps = 0;
	if (pq_model_predict(&in, &out, NULL) < 0)
		return 3;
	unsigned hs = out.handshake, ttfb = out.ttfb;
	if (p->quic) { /* no TCP handshake; QUIC's own limits on the flight */
		pq_model_quic q;
		pq_model_quic_flight(ch, sum(w, nw), &q);
		pq_model_quic_crypto(&q, 1, PQ_MODEL_QUIC_CRYPTO_BUF);
		if (p->quic_retry)
			pq_model_quic_retry(&q);
		if (in.hrr)
			pq_model_quic_hrr(&q, ch);
		hs = 1 + q.extra_rtts + q.retry_rtts + q.hrr_rtts;
		ttfb = hs + 1;
	}
	if (!p->path[0]) {
		*wire_s = out.wire_handshake * in.rtt_s;
		return hs;
	}
	if (in.response) /* QUIC has no TLS record for its first byte to wait for */
		*resp_rounds = out.ttlb - out.ttfb + (p->quic ? out.first_record_rounds - 1 : 0);
	*wire_s = (in.response ? out.wire_ttlb : out.wire_ttfb) * in.rtt_s;
	return ttfb + *resp_rounds;
}

/* The loss a connection of p sees on average: a Gilbert link's mean, else both ways'. */
static double point_loss(const pq_exp_point *p, const pq_link_config *lc)
{
	return p->gilbert ? p->loss : (lc->dir[PQ_DIR_C2S].loss.p + lc->dir[PQ_DIR_S2C].loss.p) / 2;
}

/* A lost packet early in a connection costs a retransmission timeout (1 s before the
 * first RTT sample, 200 ms and more after), repeated ones back off: fitted to the loss
 * preset here (78.6 and 195.6 ms, 0-20 %: a handshake's added time within 15 %). */
static double loss_s(double loss, double rtt)
{
	return loss * (2.5 + 6 * rtt) * (1 + 3 * loss);
}

/* The rate TCP sustains with this loss (Mathis et al.: MSS / RTT x 1.22 / sqrt(p)),
 * bits/s; a jitter of a tenth of the RTT or more reorders enough to act as loss of a
 * tenth of its share of the RTT (fitted to aws-jittery here: 10 ms at 35 ms, a 1 MiB
 * response at 2.2 Mbit/s). 0: no such bound. */
static double lossy_rate(double loss, double rtt, double jitter, size_t mss)
{
	if (rtt <= 0)
		return 0;
	if (jitter * 10 >= rtt)
		loss += 0.1 * jitter / rtt;
	return loss > 0 ? (double)mss * 8 / rtt * 1.22 / sqrt(loss) : 0;
}

static double conn_s(const pq_exp_point *p, const pq_link_config *lc, int resumed)
{
	const pq_dir_cfg *down = &lc->dir[PQ_DIR_S2C];
	double rtt = (double)pq_link_config_rtt_ns(lc) / 1e9;
	double loss = point_loss(p, lc);
	double wire;
	unsigned resp_rounds, rounds = conn_rounds(p, lc, resumed, &resp_rounds, &wire);
	double per = rounds * rtt + 0.004 + wire; /* the round trips; crypto; a slow link's wire */
	double resp = p->response_bytes > 0 ? (double)p->response_bytes : 0;
	double rate = lossy_rate(loss, rtt, (double)down->jitter_ns / 1e9,
				 pq_wire_mss(lc->mtu ? lc->mtu : PQ_WIRE_MTU_DEFAULT));
	if (rate > 0 && resp * 8 / rate > resp_rounds * rtt)
		per += resp * 8 / rate - resp_rounds * rtt;
	return per + loss_s(loss, rtt);
}

static double cell_s(const pq_exp_point *p, const pq_link_config *lc)
{
	double full = conn_s(p, lc, 0), per = full;
	if (p->resume > 0)
		per = (1 - p->resume) * full + p->resume * conn_s(p, lc, 1);
	if (p->browser) /* a warm or resuming browser navigates twice */
		per = per * (p->browser_state == PQ_BROWSER_COLD ? 1 : 2) + BROWSER_START_S;
	if (p->open_rate > 0) /* open loop: the schedule, then the last connection's own time */
		return 0.05 + (double)p->connections / p->open_rate + per + (double)pq_exp_cfg_warmup(p) * full;
	return 0.05 + ((double)p->connections * per + (double)pq_exp_cfg_warmup(p) * full) / p->concurrency;
}

double pq_exp_cell_estimate_s(const pq_exp_point *p)
{
	pq_link_config lc;
	cell_link(p, &lc);
	return cell_s(p, &lc);
}

/* The connections a cell keeps in flight: its closed loop's concurrency, or its open
 * loop's arrivals over a connection's time (Little's law); at least one. */
static double in_flight(const pq_exp_point *p, double conn)
{
	double n = p->open_rate > 0 ? p->open_rate * conn : (double)p->concurrency;
	return n > 1 ? n : 1;
}

/* The share of a CPU a cell's responses keep busy while it runs: a response's CPU over
 * its connection's estimated time, times the connections in flight (blog-payload's open
 * loop, 5 a second, keeps about 4 of its 1 MiB transfers going at once). */
static double resp_cpu_share(const pq_exp_point *p, const pq_link_config *lc)
{
	if (p->response_bytes <= 0)
		return 0;
	double conn = conn_s(p, lc, 0);
	return conn > 0 ? (double)p->response_bytes * PQ_EXP_CPU_S_PER_BYTE * in_flight(p, conn) / conn : 0;
}

/* A jittery link's reordering holds a transfer to the rate TCP keeps through it
 * (lossy_rate). A cell whose response waits on that rate for PQ_EXP_JOBS_REORDER_MIN_RTTS
 * round trips or more waits for it as on a slow link's wire, and its time scale grows the
 * same way (pq_exp_jobs_scale_ns): by an initial window's time at that rate (aws-jittery,
 * 10 ms at 35 ms: 2.4 Mbit/s, 50 ms more, for its 512 KiB and 1 MiB responses). 0 for any
 * other cell. */
static int64_t reorder_wire_ns(const pq_exp_point *p, const pq_link_config *lc)
{
	double rtt = (double)pq_link_config_rtt_ns(lc) / 1e9, jitter = (double)lc->dir[PQ_DIR_S2C].jitter_ns / 1e9;
	if (p->response_bytes <= 0 || rtt <= 0 || jitter * 10 < rtt)
		return 0;
	double rate = lossy_rate(point_loss(p, lc), rtt, jitter, pq_wire_mss(lc->mtu ? lc->mtu : PQ_WIRE_MTU_DEFAULT));
	if (rate <= 0 || (double)p->response_bytes * 8 / rate < PQ_EXP_JOBS_REORDER_MIN_RTTS * rtt)
		return 0;
	return pq_exp_jobs_iw_wire_ns(rate, lc->mtu);
}

/* Whether a cell of p on link lc runs alone for its own response's CPU. */
static int cpu_bound(const pq_exp_point *p, const pq_link_config *lc)
{
	return resp_cpu_share(p, lc) >= PQ_EXP_JOBS_SOLO_CPU_SHARE;
}

int pq_exp_cell_cpu_bound(const pq_exp_grid *g, const pq_exp_cell *c)
{
	pq_link_config lc;
	return !g->server[0] && !c->p.browser && pq_exp_point_link(&c->p, g->seed, c->arm_where, &lc, NULL) == 0 &&
	       cpu_bound(&c->p, &lc);
}

/* Cell c's time scale (pq_exp_cell_scale_ns) and in *link_ns its link's alone, before its
 * connections' stalls. */
static int64_t cell_scales(const pq_exp_grid *g, const pq_exp_cell *c, int64_t *link_ns)
{
	pq_link_config lc;
	*link_ns = 0;
	if (g->server[0] || c->p.browser || pq_exp_point_link(&c->p, g->seed, c->arm_where, &lc, NULL) < 0 ||
	    cpu_bound(&c->p, &lc))
		return 0;
	int64_t scale = pq_exp_jobs_scale_ns(&lc);
	*link_ns = scale;
	if (scale < PQ_EXP_JOBS_SOLO_RTT_NS) /* alone by its round trip, lossy or not */
		return scale;
	double rtt = (double)pq_link_config_rtt_ns(&lc) / 1e9;
	return scale + (int64_t)(loss_s(point_loss(&c->p, &lc), rtt) / PQ_EXP_JOBS_STALL_ROUNDS * 1e9) +
	       reorder_wire_ns(&c->p, &lc);
}

int64_t pq_exp_cell_scale_ns(const pq_exp_grid *g, const pq_exp_cell *c)
{
	int64_t link;
	return cell_scales(g, c, &link);
}

size_t pq_exp_cell_limit(const pq_exp_grid *g, const pq_exp_cell *c, unsigned jobs, unsigned base, int64_t *scale_ns)
{
	int64_t link, scale = cell_scales(g, c, &link);
	if (scale_ns)
		*scale_ns = scale;
	size_t max = jobs ? jobs : 1, cap = base && base < max ? base : max;
	if (cap < max && link > 0 && scale > link) { /* stalls: the cap grows by as much */
		double k = (double)cap * (double)scale / (double)link, top = (double)cap * PQ_EXP_JOBS_STALL_MAX;
		k = k < top ? k : top;
		cap = k >= (double)max ? max : (size_t)k;
	}
	return pq_exp_jobs_limit(scale, cap);
}

/* Cell c's time alone and how many cells its class lets run at once (exp/jobs.h). */
static double cell_est(const pq_exp_grid *g, const pq_exp_cell *c, unsigned jobs, unsigned base, size_t *lim)
{
	pq_link_config lc;
	cell_link(&c->p, &lc);
	*lim = pq_exp_cell_limit(g, c, jobs, base, NULL);
	return cell_s(&c->p, &lc);
}

double pq_exp_cell_work_s(const pq_exp_grid *g, const pq_exp_cell *c, unsigned jobs, unsigned base)
{
	size_t lim;
	double s = cell_est(g, c, jobs, base, &lim);
	return s / (double)lim;
}

int pq_exp_order_cells(const pq_exp_grid *g, size_t *todo, size_t n, unsigned jobs, unsigned base, double *est_s,
		       double *played)
{
	size_t m = g->n ? g->n : 1, *lim = calloc(m, sizeof *lim), *group = calloc(m, sizeof *group);
	const char **keys = calloc(m, sizeof *keys), **points = calloc(m, sizeof *points);
	double *est = est_s ? est_s : calloc(m, sizeof *est);
	int rc = PQ_ENOMEM;
	if (played)
		*played = -1;
	if (!lim || !group || !keys || !points || !est)
		goto out;
	for (size_t i = 0; i < g->n; i++) {
		est[i] = cell_est(g, &g->cells[i], jobs, base, &lim[i]);
		keys[i] = g->cells[i].link_key;
		points[i] = g->cells[i].across_key;
	}
	/* a group is a link's run of cells in todo, every trial of it */
	for (size_t k = 0; k < n; k++)
		group[todo[k]] = k && strcmp(keys[todo[k]], keys[todo[k - 1]]) == 0 ? group[todo[k - 1]] : k;
	if ((rc = pq_exp_jobs_order_classes(todo, n, group, points, lim)) >= 0)
		rc = pq_exp_jobs_order_played(todo, n, keys, est, lim, jobs ? jobs : 1, played);
out:
	free(lim);
	free(group);
	free(keys);
	free(points);
	if (est != est_s)
		free(est);
	return rc < 0 ? rc : 0;
}

double pq_exp_estimate_s(const pq_exp_grid *g, unsigned jobs, unsigned base)
{
	size_t n = g->n;
	double s = 0, links = 0, longest = 0, played = -1;
	const char *last = NULL;
	jobs = jobs ? jobs : 1;
	for (size_t i = 0; i < n && !g->server[0]; i++)
		if (!last || strcmp(last, g->cells[i].link_key) != 0) {
			links += 3.0; /* link up, self-check, down */
			last = g->cells[i].link_key;
		}
	/* at once: the dispatcher's order and run, played */
	if (jobs > 1) {
		size_t *order = calloc(n ? n : 1, sizeof *order);
		for (size_t i = 0; order && i < n; i++)
			order[i] = i;
		if (order && pq_exp_order_cells(g, order, n, jobs, base, NULL, &played) < 0)
			played = -1;
		free(order);
		if (played >= 0)
			return played + links;
	}
	/* one at a time, or no memory to play it: the cells' times over their limits, at
	 * least the longest cell */
	for (size_t i = 0; i < n; i++) {
		size_t l;
		double cell = cell_est(g, &g->cells[i], jobs, base, &l);
		longest = cell > longest ? cell : longest;
		s += cell / (double)l;
	}
	return (s > longest ? s : longest) + links;
}
