#include "report/agg.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/wire.h"
#include "exp/hostload.h"
#include "model/base.h"
#include "model/cliff.h"
#include "model/quic.h"
#include "report/cand.h"
#include "report/clients.h"
#include "pki/acct.h"
#include "report/curve.h"
#include "report/pivot.h"
#include "report/studies.h"
#include "stats/sample.h"
#include "tls/hello.h"

const char *const pq_agg_phase_name[PQ_AGG_PHASES] = {"handshake", "TTFB", "TTLB"};

#define MODEL_CACHE 32
/* The HTTP head pqtls serve writes before a body (status line, Content-Length,
 * Content-Type, Connection): about 100 bytes; only TTLB uses it, at the byte. */
#define HTTP_HEAD 100

typedef struct model_cache {
	char leaf[48], group[48], offer[160], server[64];
	int inter, one_write, ok;
	pq_model_base base;
} model_cache;

/* The cell's offer as one OpenSSL list and the server's groups, when the cell names them
 * (a database from before the key-share dimensions has neither: the group alone, as
 * then). 0 when there is nothing to measure. */
static int cell_offer(const pq_rdb_cell *c, char *offer, size_t n, char *server, size_t m)
{
	const pq_dimval *g = &c->dim[PQ_D_GROUPS], *k = &c->dim[PQ_D_KEY_SHARE], *s = &c->dim[PQ_D_SERVER_GROUPS];
	offer[0] = server[0] = '\0';
	if (g->kind != PQ_DV_TEXT || !g->s[0] || s->kind != PQ_DV_TEXT || strcmp(s->s, "remote") == 0)
		return 0;
	if (pq_tls_groups_offer(g->s, k->kind == PQ_DV_TEXT && k->s[0] ? k->s : NULL, "key_share", offer, n,
				NULL) < 0)
		return 0;
	snprintf(server, m, "%s", s->s);
	return 1;
}

static int index_of(char (*list)[96], size_t *n, size_t max, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(list[i], s) == 0)
			return (int)i;
	if (*n == max)
		return -1;
	snprintf(list[*n], 96, "%s", s);
	return (int)(*n)++;
}

/* The arm as the report lists it: a QUIC cell's arm is its own row beside the TCP one
 * of the same label (transport = tcp, quic inside one arm). */
static const char *arm_of(const pq_rdb_cell *c, char *buf, size_t n)
{
	if (!c->quic)
		return c->arm;
	snprintf(buf, n, "%s %.80s", c->quic_retry ? "QUIC+Retry" : "QUIC", c->arm);
	return buf;
}

static int rtt_index(const pq_agg *a, long long rtt)
{
	for (size_t i = 0; i < a->nrtts; i++)
		if (a->rtts[i] == rtt)
			return (int)i;
	return -1;
}

static int cmp_ll(const void *x, const void *y)
{
	long long a = *(const long long *)x, b = *(const long long *)y;
	return (a > b) - (a < b);
}

static int same_group(const pq_rdb_cell *a, const pq_rdb_cell *b)
{
	if (a->point_key[0] && b->point_key[0])
		return strcmp(a->host, b->host) == 0 && strcmp(a->point_key, b->point_key) == 0;
	return strcmp(a->host, b->host) == 0 && strcmp(a->arm, b->arm) == 0 &&
	       strcmp(a->link_key, b->link_key) == 0 && a->response_bytes == b->response_bytes &&
	       a->pad_to_bytes == b->pad_to_bytes && a->chain_der_bytes == b->chain_der_bytes &&
	       a->one_write == b->one_write && a->quic == b->quic && a->quic_retry == b->quic_retry &&
	       strcmp(a->group, b->group) == 0;
}

static double median_of(double *v, size_t n)
{
	pq_stats_sort(v, n);
	return pq_stats_quantile(v, n, PQ_STATS_MEDIAN);
}

/* A description of microseconds, shown in milliseconds: every figure divided by 1000
 * after it was computed, so it is the views' number over 1000, bit for bit. */
static void desc_to_ms(pq_ci_desc *c)
{
	double *f[] = {&c->mean, &c->sd, &c->median, &c->median_lo, &c->median_hi,
		       &c->p90, &c->p95, &c->p99, &c->p999};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		*f[i] = *f[i] / 1e3;
}

static const pq_model_base *cached_base(model_cache *mc, size_t *nmc, const pq_rdb_cell *c)
{
	char offer[160], server[64];
	int has_offer = cell_offer(c, offer, sizeof offer, server, sizeof server);
	for (size_t i = 0; i < *nmc; i++)
		if (strcmp(mc[i].leaf, c->leaf) == 0 && strcmp(mc[i].group, c->group) == 0 &&
		    mc[i].inter == c->intermediates && mc[i].one_write == c->one_write &&
		    strcmp(mc[i].offer, offer) == 0 && strcmp(mc[i].server, server) == 0)
			return mc[i].ok ? &mc[i].base : NULL;
	if (*nmc == MODEL_CACHE)
		return NULL;
	model_cache *m = &mc[(*nmc)++];
	snprintf(m->leaf, sizeof m->leaf, "%s", c->leaf);
	snprintf(m->group, sizeof m->group, "%s", c->group);
	snprintf(m->offer, sizeof m->offer, "%s", offer);
	snprintf(m->server, sizeof m->server, "%s", server);
	m->inter = c->intermediates;
	m->one_write = c->one_write;
	m->ok = pq_model_base_alg(c->leaf, "chain_leaf", c->intermediates, c->group,
				  c->one_write ? SIZE_MAX : 0, &m->base, NULL) == 0;
	/* The client's side of the cell's offer: its ClientHello(s) and the HRR, measured. */
	pq_tls_hello h;
	if (m->ok && has_offer) {
		m->ok = pq_tls_hello_measure(offer, server, &h, NULL) == 0;
		if (m->ok)
			pq_model_base_hello(&m->base, &h);
	}
	return m->ok ? &m->base : NULL;
}

/* QUIC: the model's QUIC view (model/quic.h), the client's Initials against the
 * server's 3x budget; a resumed flight carries no certificate. */
static void predict_quic(pq_agg_group *g, const pq_model_base *b)
{
	const pq_rdb_cell *c = g->cell;
	pq_model_in net;
	pq_model_base_net(b, PQ_ACCT_MSS, 10, 0, &net);
	pq_acct a;
	pq_model_out tcp;
	if (pq_model_at_size(&b->acct_in, (size_t)c->chain_der_bytes, &net, &a, &tcp, NULL) < 0)
		return;
	size_t msgs = pq_model_quic_server_msgs(&a);
	if (c->resume_pct >= 100)
		msgs = a.server_hello + 6 + a.ee + a.finished; /* the pre_shared_key extension */
	pq_model_quic q;
	pq_model_base_quic(b, msgs, a.server_hello, c->quic_retry, &q);
	pq_model_quic_rounds(&q, &g->model);
	g->has_model = 1;
}

/* How the cell's server was paced, from the kernel's settings as stored (read back); a
 * database without them (NULL) is taken as the kernel's defaults: 200 %, GSO on. */
static pq_model_pace cell_pace(const pq_rdb_cell *c)
{
	const pq_dimval *cc = &c->dim[PQ_D_CC], *q = &c->dim[PQ_D_QDISC], *ss = &c->dim[PQ_D_PACING_SS],
			*gso = &c->dim[PQ_D_GSO];
	return pq_model_pace_of(cc->kind == PQ_DV_TEXT ? cc->s : NULL, q->kind == PQ_DV_TEXT ? q->s : NULL,
				ss->kind == PQ_DV_INT ? (unsigned)ss->i : 200, gso->kind == PQ_DV_INT ? (int)gso->i : 1);
}

/* The prediction for a group's cell: full handshakes at the chain's size; resumed ones
 * (every connection offered a ticket) with no certificate in the flight. */
static void predict(pq_agg_group *g, model_cache *mc, size_t *nmc)
{
	const pq_rdb_cell *c = g->cell;
	const pq_model_base *b = cached_base(mc, nmc, c);
	if (!b || c->chain_der_bytes <= 0)
		return;
	pq_model_in net;
	size_t resp = c->response_bytes >= 0 ? (size_t)c->response_bytes : 0;
	pq_model_base_net(b, pq_wire_mss(c->mtu),
			  c->initcwnd > 0 ? (size_t)c->initcwnd : 0,
			  pq_model_response_bytes(HTTP_HEAD, resp), &net);
	net.early_data = c->early_data && c->resume_pct > 0;
	net.server_pace = cell_pace(c);
	if (g->browser && isfinite(g->br_ch_bytes)) /* its own ClientHello, as it sent it */
		net.client_hello = (size_t)g->br_ch_bytes;
	g->model_ch = net.client_hello;
	/* The client's receive window as read back on the link; a database without it: none. */
	const pq_dimval *rw = &c->dim[PQ_D_RWND];
	net.rwnd = rw->kind == PQ_DV_INT && rw->i > 0 ? (size_t)rw->i : 0;
	pq_acct a;
	if (c->quic) {
		predict_quic(g, b);
		return;
	}
	if (c->resume_pct >= 100) {
		const pq_acct_group *grp = pq_acct_group_find(c->group);
		size_t w = pq_acct_resumed_flight(grp ? grp->server_share : 32);
		net.server_writes = &w;
		net.n_server_writes = 1;
		g->has_model = pq_model_predict(&net, &g->model, NULL) == 0;
		return;
	}
	g->has_model =
	    pq_model_at_size(&b->acct_in, (size_t)c->chain_der_bytes, &net, &a, &g->model, NULL) == 0;
	if (g->has_model) { /* the loss model's packets: these writes at this size */
		net.server_writes = a.writes;
		net.n_server_writes = a.n_writes;
		pq_model_loss_from(&net, &g->loss_in);
		g->has_loss_in = 1;
	}
}

/* No reason found: a whole round trip or more over the model is said as the count it is
 * (no fraction of an RTT explains 21 of them), less as what the inputs do not explain. */
static void unexplained(pq_agg_group *g, const double pred[PQ_AGG_PHASES], double excess, int worst,
			const char *view)
{
	snprintf(g->agree_tag, sizeof g->agree_tag, "unexplained");
	if (excess >= 1)
		snprintf(g->agree_why, sizeof g->agree_why,
			 "unexplained: %.1f round trips over the model (%s: %.2f measured, %.2f predicted)", excess,
			 pq_agg_phase_name[worst], g->rounds[worst], pred[worst]);
	else
		snprintf(g->agree_why, sizeof g->agree_why, "not explained by %s inputs", view);
}

/* A QUIC cell that differs: the TCP reasons (paced segments, tcp_info's retransmits) do
 * not apply; what the QUIC view leaves out is the stack's own timing. */
static void judge_quic(pq_agg_group *g, const double pred[PQ_AGG_PHASES], double excess, int worst)
{
	if (!(excess > 0 && excess < 0.9)) {
		unexplained(g, pred, excess, worst, "the QUIC view's");
		return;
	}
	snprintf(g->agree_tag, sizeof g->agree_tag, "QUIC timing");
	snprintf(g->agree_why, sizeof g->agree_why,
		 "a fraction of a round trip more: the QUIC stack's acknowledgement delay (up to 25 ms), its pacing or "
		 "signing time, which the QUIC view does not have");
}

/* The fastest connection's time over min RTT in phase p: host noise only adds time. */
static double fastest(const pq_agg_group *g, int p)
{
	double m = INFINITY;
	for (size_t i = 0; i < g->n[p]; i++)
		m = fmin(m, g->v[p][i]);
	return g->n[p] && g->min_rtt_ms > 0 ? m / g->min_rtt_ms : NAN;
}

/* Measured round trips against the prediction (paced, fractional), and the reason when
 * they differ. */
static void judge(pq_agg_group *g)
{
	const double pred[PQ_AGG_PHASES] = {g->model.handshake_t, g->model.ttfb_t, g->model.ttlb_t};
	int noise = 1; /* every phase's fastest connection agrees */
	g->agrees = 1;
	for (int p = 0; p < PQ_AGG_PHASES; p++) {
		g->rounds[p] = g->n[p] && g->min_rtt_ms > 0 ? g->desc[p].median / g->min_rtt_ms : NAN;
		if (!g->has_model || !isfinite(g->rounds[p]) || (p == PQ_AGG_TTLB && !pred[p]))
			continue;
		if (!pq_model_agrees(pred[p], g->rounds[p]))
			g->agrees = 0;
		noise &= pq_model_agrees(pred[p], fastest(g, p));
	}
	if (g->agrees || !g->has_model)
		return;
	const pq_rdb_cell *c = g->cell;
	double excess = -INFINITY; /* the largest measured-minus-predicted over the phases */
	int worst = PQ_AGG_HS;	   /* its phase */
	for (int p = 0; p < PQ_AGG_PHASES; p++)
		if (isfinite(g->rounds[p]) && pred[p] && g->rounds[p] - pred[p] > excess) {
			excess = g->rounds[p] - pred[p];
			worst = p;
		}
	/* a fraction of a round trip explains a measurement within one round trip of the model
	 * only: the handshake's fractional part alone read 23.4 against 2.0 as one */
	int part = excess > 0 && excess < 1 && g->rounds[PQ_AGG_HS] - floor(g->rounds[PQ_AGG_HS]) > 0.3;
	int unknown_cc = c->dim[PQ_D_CC].kind != PQ_DV_TEXT || strcmp(c->dim[PQ_D_CC].s, "remote") == 0;
	/* measured, not inferred: the endpoints waited for a CPU beyond the host's budget */
	double wait = pq_agg_endpoint_wait_us(&c->fid);
	int waited = pq_hostload_wait_over(wait, (double)c->rtt_us) && excess > 0;
	if (c->quic && !(c->loss_pct > 0) && c->rtt_us >= 10000 && !(noise && excess > 0)) {
		judge_quic(g, pred, excess, worst);
		return;
	}
	const char *tag = c->loss_pct > 0 || g->retrans ? "loss"
			  : c->rtt_us > 0 && c->rtt_us < 10000 ? "CPU time ~ RTT"
			  : c->jitter_us > 0 || c->rate_bps > 0 ? "jitter/rate"
			  : waited ? "host CPU"
			  : noise && excess > 0	    ? "host noise"
			  : unknown_cc && g->model.flight_rounds > 1 && excess > 0 && excess < 1.2 ? "paced windows?"
			  : part ? "part of an RTT"
				 : NULL;
	if (!tag) {
		unexplained(g, pred, excess, worst, "the model's");
		return;
	}
	snprintf(g->agree_tag, sizeof g->agree_tag, "%s", tag);
	if (c->loss_pct > 0 || g->retrans)
		snprintf(g->agree_why, sizeof g->agree_why, "loss: %zu retransmitted segments", g->retrans);
	else if (c->rtt_us > 0 && c->rtt_us < 10000)
		snprintf(g->agree_why, sizeof g->agree_why,
			 "at %.1f ms RTT the handshake's CPU time is a large share of a round trip",
			 (double)c->rtt_us / 1e3);
	else if (c->jitter_us > 0 || c->rate_bps > 0)
		snprintf(g->agree_why, sizeof g->agree_why, "jitter or a rate limit adds time the model does not have");
	else if (waited)
		snprintf(g->agree_why, sizeof g->agree_why,
			 "host CPU: the client and the server waited %.1f ms (%.2f RTT) for a CPU in the median connection, "
			 "other work on this machine; the median is %.2f RTT later than the model",
			 wait / 1e3, c->rtt_us > 0 ? wait / (double)c->rtt_us : 0, excess);
	else if (noise && excess > 0)
		snprintf(g->agree_why, sizeof g->agree_why,
			 "host noise: the fastest of %zu connections agrees (%.2f RTT against %.2f), the median is "
			 "%.2f RTT later than the model",
			 g->n[PQ_AGG_HS], fastest(g, PQ_AGG_HS), pred[PQ_AGG_HS], excess);
	else if (unknown_cc && g->model.flight_rounds > 1 && excess > 0 && excess < 1.2)
		snprintf(g->agree_why, sizeof g->agree_why,
			 "the flight needs %u windows and the database does not say which congestion control "
			 "ran: if it was BBR, it paced the segments after the first window",
			 g->model.flight_rounds);
	else
		snprintf(g->agree_why, sizeof g->agree_why,
			 "a fraction of a round trip more: a delayed ACK, or signing time");
}

static int is_browser(const pq_rdb_cell *c)
{
	const pq_dimval *v = &c->dim[PQ_D_CLIENT];
	return v->kind == PQ_DV_TEXT && strcmp(v->s, "chromium") == 0;
}

/* A successful Chromium connection's parts of its first byte (ms) and its ClientHello. */
static void browser_parts(pq_agg_group *g, const pq_rdb_conn *n, double *ch, size_t *nch)
{
	const double part[PQ_AGG_BR_PARTS] = {pq_rdb_conn_br_network_us(n), n->br_verify_us,
					      pq_rdb_conn_br_dispatch_us(n)};
	for (int p = 0; p < PQ_AGG_BR_PARTS; p++)
		if (isfinite(part[p]))
			g->br[p][g->nbr[p]++] = part[p] / 1e3;
	if (isfinite(n->ch1_bytes))
		ch[(*nch)++] = n->ch1_bytes;
}

static int fill_group(pq_agg_group *g, const pq_rdb *db, size_t first, size_t last, pq_diag *d)
{
	size_t total = 0;
	for (size_t i = first; i < last; i++)
		total += db->cells[i].nc;
	double *mr = malloc((total ? total : 1) * sizeof *mr), *ch = malloc((total ? total : 1) * sizeof *ch);
	size_t nmr = 0, nch = 0;
	int nomem = !mr || !ch;
	for (int p = 0; p < PQ_AGG_PHASES; p++)
		nomem |= !(g->v[p] = malloc((total ? total : 1) * sizeof *g->v[p]));
	g->browser = is_browser(g->cell);
	for (int p = 0; g->browser && p < PQ_AGG_BR_PARTS; p++)
		nomem |= !(g->br[p] = malloc((total ? total : 1) * sizeof *g->br[p]));
	if (nomem) {
		free(mr);
		free(ch);
		return pq_diag_set(d, PQ_ENOMEM, "report: out of memory for %zu connections", total);
	}
	g->wait_ms = NAN;
	for (size_t i = first; i < last; i++) {
		const pq_rdb_cell *c = &db->cells[i];
		g->marked += (size_t)pq_agg_cell_marked(c);
		double w = pq_agg_endpoint_wait_us(&c->fid) / 1e3;
		if (isfinite(w) && !(w <= g->wait_ms))
			g->wait_ms = w;
		for (size_t k = c->c0; k < c->c0 + c->nc; k++) {
			const pq_rdb_conn *n = &db->conns[k];
			g->total++;
			g->retrans += (size_t)(n->retrans > 0 ? n->retrans : 0);
			g->hrr += n->hrr > 0;
			if (!n->ok) {
				g->failed++;
				continue;
			}
			const double t[PQ_AGG_PHASES] = {n->handshake_us, n->ttfb_us, n->ttlb_us};
			for (int p = 0; p < PQ_AGG_PHASES; p++)
				if (isfinite(t[p]))
					g->v[p][g->n[p]++] = t[p];
			if (isfinite(n->min_rtt_us) && n->min_rtt_us > 0)
				mr[nmr++] = n->min_rtt_us / 1e3;
			if (g->browser)
				browser_parts(g, n, ch, &nch);
		}
	}
	for (int p = 0; g->browser && p < PQ_AGG_BR_PARTS; p++)
		pq_stats_sort(g->br[p], g->nbr[p]);
	/* bytes on TCP: the message in one record */
	g->br_ch_bytes = nch ? median_of(ch, nch) + PQ_WIRE_TLS_RECORD_HDR : NAN;
	free(ch);
	for (int p = 0; p < PQ_AGG_PHASES; p++) {
		if (g->n[p] && pq_ci_describe(g->v[p], g->n[p], &g->desc[p], d) < 0) {
			free(mr);
			return d ? d->code : PQ_EINVAL;
		}
		desc_to_ms(&g->desc[p]);
		pq_stats_sort(g->v[p], g->n[p]);
		for (size_t k = 0; k < g->n[p]; k++)
			g->v[p][k] /= 1e3;
	}
	g->min_rtt_ms = median_of(mr, nmr);
	/* QUIC has no tcp_info: the link's RTT is the path's. */
	if (g->cell->quic && g->cell->rtt_us > 0)
		g->min_rtt_ms = (double)g->cell->rtt_us / 1e3;
	free(mr);
	return 0;
}

static int lists(const pq_rdb *db, pq_agg *a, pq_diag *d)
{
	for (size_t i = 0; i < db->ncells; i++) {
		const pq_rdb_cell *c = &db->cells[i];
		char name[96];
		if (index_of(a->hosts, &a->nhosts, PQ_AGG_MAX_HOSTS, c->host) < 0 ||
		    index_of(a->arms, &a->narms, PQ_AGG_MAX_ARMS, arm_of(c, name, sizeof name)) < 0)
			return pq_diag_set(d, PQ_ETOOBIG,
					   "report: more than %d hosts or %d arms; report a part of the "
					   "database (pqtls merge the hosts you need)",
					   PQ_AGG_MAX_HOSTS, PQ_AGG_MAX_ARMS);
		if (rtt_index(a, c->rtt_us) < 0) {
			if (a->nrtts == PQ_AGG_MAX_RTTS)
				return pq_diag_set(d, PQ_ETOOBIG, "report: more than %d RTTs", PQ_AGG_MAX_RTTS);
			a->rtts[a->nrtts++] = c->rtt_us;
		}
	}
	qsort(a->rtts, a->nrtts, sizeof a->rtts[0], cmp_ll);
	return 0;
}

int pq_agg_cell_marked(const pq_rdb_cell *c)
{
	return c->fid.link_ok == 0 || c->fid.host_ok == 0 || c->fid.check_ok == 0;
}

int pq_agg_keep_clean(pq_rdb *db, const char *path, pq_diag *d)
{
	size_t k = 0, dropped = 0;
	for (size_t i = 0; i < db->ncells; i++) {
		if (pq_agg_cell_marked(&db->cells[i]))
			dropped++;
		else
			db->cells[k++] = db->cells[i];
	}
	if (!k)
		return pq_diag_set(d, PQ_ERANGE,
				   "%s: every one of its %zu cells was measured on a link or host over its budget (or a "
				   "link that missed its self-check): nothing is left with --clean-only", path, dropped);
	db->ncells = k;
	size_t len = strlen(db->note);
	snprintf(db->note + len, sizeof db->note - len,
		 "%s--clean-only: %zu cells measured on a link or host over its budget, or on a link that missed "
		 "its self-check, are left out of every table, figure and verdict.", len ? " " : "", dropped);
	return (int)(dropped > (size_t)INT32_MAX ? INT32_MAX : dropped);
}

static double max_known(double a, double b)
{
	return isnan(a) || b > a ? b : a;
}

static double min_known(double a, double b)
{
	return isnan(a) || b < a ? b : a;
}

static void fidelity(const pq_rdb *db, pq_agg *a)
{
	struct pq_agg_fid *f = &a->fid;
	memset(f, 0, sizeof *f);
	f->late_p99_max_us = f->steal_max_pct = f->wait_max_us = NAN;
	for (size_t i = 0; i < db->ncells; i++) {
		const pq_rdb_fidelity *c = &db->cells[i].fid;
		f->link_known += c->link_ok >= 0;
		f->link_over += c->link_ok == 0;
		f->host_known += c->host_ok >= 0;
		f->host_over += c->host_ok == 0;
		f->check_missed += c->check_ok == 0;
		f->marked += (size_t)pq_agg_cell_marked(&db->cells[i]);
		if (isfinite(c->late_p99_us))
			f->late_p99_max_us = max_known(f->late_p99_max_us, c->late_p99_us);
		if (isfinite(c->steal_pct))
			f->steal_max_pct = max_known(f->steal_max_pct, c->steal_pct);
		double w = pq_agg_endpoint_wait_us(c);
		if (isfinite(w)) {
			f->wait_max_us = max_known(f->wait_max_us, w);
			f->wait_over += (size_t)pq_hostload_wait_over(w, (double)db->cells[i].rtt_us);
		}
	}
}

double pq_agg_endpoint_wait_us(const pq_rdb_fidelity *f)
{
	double w = pq_hostload_endpoint_wait_us(f->client_wait_p50_us, f->server_wait_p50_us);
	return w < 0 ? NAN : w;
}

/* The baseline arm's group for g (see pq_agg_group), or NULL. */
static const pq_agg_group *base_of(const pq_agg *a, const pq_agg_group *g)
{
	const pq_agg_group *best = NULL;
	int dist = 0;
	for (size_t i = 0; i < a->n; i++) {
		const pq_agg_group *b = &a->g[i];
		if (b->arm != 0 || b->host != g->host || b->rtt != g->rtt ||
		    b->cell->response_bytes != g->cell->response_bytes)
			continue;
		int k = pq_curve_distance(b->cell, g->cell);
		if (!best || k < dist)
			best = b, dist = k;
	}
	return best;
}

static int against_base(pq_agg *a, pq_diag *d)
{
	size_t ttfb = 0;
	for (size_t i = 0; i < a->n; i++) {
		pq_agg_group *g = &a->g[i];
		const pq_agg_group *b = g->arm == 0 ? NULL : base_of(a, g);
		g->base = g->arm == 0 ? PQ_AGG_BASE_SELF : b ? PQ_AGG_BASE_OK : PQ_AGG_BASE_NONE;
		g->base_g = b;
		g->diff_phase = g->n[PQ_AGG_TTFB] ? PQ_AGG_TTFB : PQ_AGG_HS;
		ttfb += g->diff_phase == PQ_AGG_TTFB;
		for (int p = 0; b && p < PQ_AGG_PHASES; p++) {
			pq_diag e = {0};
			int rc = pq_boot_diff(b->v[p], b->n[p], g->v[p], g->n[p], 1000, a->seed, &g->vs[p], &e);
			if (rc == PQ_ENOMEM)
				return pq_diag_set(d, rc, "report: %s", pq_diag_msg(&e));
			g->has_vs[p] = rc == 0;
		}
	}
	a->diff_what = ttfb == a->n ? "TTFB" : ttfb ? "TTFB (or handshake)" : "handshake";
	return 0;
}

/* A point a key arms' line may hold: a key arm's full handshakes. */
static int key_point(const pq_agg *a, const pq_agg_group *g)
{
	return a->kind[g->arm] == PQ_AGG_KEY && g->cell->resume_pct == 0;
}

/* How many different sizes a line's points (ascending) have. */
static size_t distinct_sizes(const pq_agg_line *l)
{
	size_t n = l->n > 0;
	for (size_t i = 1; i < l->n; i++)
		n += l->x[i] != l->x[i - 1];
	return n;
}

/* The points of one line (see pq_agg_line), by chain size. */
static void line_points(const pq_agg *a, pq_agg_line *l, const pq_rdb_cell **ref)
{
	double rt = (double)a->rtts[l->rtt] / 1e3;
	*ref = NULL;
	l->cpu_ms = NAN;
	for (size_t i = 0; i < a->n && l->n < PQ_AGG_LINE_PTS; i++) {
		const pq_agg_group *g = &a->g[i];
		int mine = l->arm >= 0 ? g->arm == l->arm : key_point(a, g) && pq_curve_same_but_chain(g->cell, l->fam->cell);
		int hs_only = !g->n[PQ_AGG_TTFB];
		if (!mine || g->browser != l->browser || g->rtt != l->rtt || g->host != l->host ||
		    (l->browser && !g->nbr[PQ_AGG_BR_NET]) ||
		    !g->n[hs_only ? PQ_AGG_HS : PQ_AGG_TTFB] || g->cell->response_bytes > 65536 ||
		    g->cell->chain_der_bytes <= 0)
			continue;
		l->hs_only = hs_only;
		l->padded |= pq_agg_dim_num(g->cell, "pad-chain-to") > 0;
		size_t k = l->n++;
		double x = (double)g->cell->chain_der_bytes / 1e3;
		while (k > 0 && l->x[k - 1] > x) { /* insertion by chain size */
			l->x[k] = l->x[k - 1], l->hs[k] = l->hs[k - 1], l->fb[k] = l->fb[k - 1];
			l->mfb[k] = l->mfb[k - 1], l->fbw[k] = l->fbw[k - 1];
			k--;
		}
		l->x[k] = x;
		l->hs[k] = g->desc[PQ_AGG_HS].median;
		l->fbw[k] = g->desc[hs_only ? PQ_AGG_HS : PQ_AGG_TTFB].median;
		l->fb[k] = l->browser ? pq_stats_quantile(g->br[PQ_AGG_BR_NET], g->nbr[PQ_AGG_BR_NET], PQ_STATS_MEDIAN)
				      : l->fbw[k];
		l->mfb[k] = g->has_model ? (hs_only ? g->model.handshake_t : g->model.ttfb_t) * rt : NAN;
		/* time the round trips do not explain: Chromium's network-only first byte has
		 * none of its own CPU time, its handshake its verification */
		if (g->has_model && l->browser)
			l->cpu_ms = min_known(l->cpu_ms, l->fb[k] - g->model.ttfb_t * rt);
		else if (g->has_model && g->n[PQ_AGG_HS])
			l->cpu_ms = min_known(l->cpu_ms, g->desc[PQ_AGG_HS].median - g->model.handshake_t * rt);
		if (!*ref || g->cell->chain_der_bytes > (*ref)->chain_der_bytes)
			*ref = g->cell;
		if (!l->first)
			l->first = g;
	}
}

/* The model's first cliff in the line's size range, for the chain of `c`. */
static void line_cliff(pq_agg_line *l, const pq_rdb_cell *c)
{
	pq_model_base b;
	pq_model_in net;
	pq_model_cliff cl[2];
	size_t nc = 0;
	if (!c || pq_model_base_alg(c->leaf, "chain_leaf", c->intermediates, c->group,
				    c->one_write ? SIZE_MAX : 0, &b, NULL) < 0)
		return;
	pq_model_base_net(&b, pq_wire_mss(c->mtu), c->initcwnd > 0 ? (size_t)c->initcwnd : 0, 0, &net);
	size_t lo = pq_model_min_chain(&b.acct_in), from = (size_t)(l->x[0] * 1e3);
	if (pq_model_cliffs(&b.acct_in, from > lo ? from : lo, (size_t)(l->x[l->n - 1] * 1e3), &net, cl, 2,
			    &nc, NULL) < 0 || !nc)
		return;
	l->has_cliff = 1;
	l->cliff_kb = (double)cl[0].first_over / 1e3;
	snprintf(l->cliff_label, sizeof l->cliff_label, "model: %.24s%s cliff %.2f kB", c->leaf,
		 c->one_write ? " one-write" : "", l->cliff_kb);
}

static int add_line(pq_agg *a, size_t *cap, int host, int rtt, int arm, const pq_agg_group *fam, int browser)
{
	if (a->nlines == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		pq_agg_line *v = realloc(a->lines, nc * sizeof *v);
		if (!v)
			return PQ_ENOMEM;
		a->lines = v;
		*cap = nc;
	}
	pq_agg_line *l = &a->lines[a->nlines];
	const pq_rdb_cell *ref;
	memset(l, 0, sizeof *l);
	*l = (pq_agg_line){.host = host, .rtt = rtt, .arm = arm, .fam = fam, .browser = browser};
	line_points(a, l, &ref);
	if (l->n < 3 || distinct_sizes(l) < 3)
		return 0;
	double rt = (double)a->rtts[rtt] / 1e3;
	/* Round trips explain a jump only where the time they do not explain is less than one. */
	l->cpu_bound = l->cpu_ms >= PQ_AGG_STEP_RTT * rt;
	if (!l->cpu_bound)
		l->nsteps = pq_step_find(l->x, l->fb, l->n, rt, PQ_AGG_STEP_RTT, l->steps, PQ_AGG_LINE_STEPS);
	line_cliff(l, ref);
	a->nlines++;
	return 0;
}

int pq_agg_line_family_differs(const pq_agg *a, const pq_agg_line *l, size_t d)
{
	for (size_t i = 0; i < a->nlines; i++) {
		const pq_agg_line *o = &a->lines[i];
		if (o != l && o->arm < 0 && o->host == l->host && o->rtt == l->rtt &&
		    !pq_dimval_equal(&o->fam->cell->dim[d], &l->fam->cell->dim[d]))
			return 1;
	}
	return 0;
}

/* A line per size-sweeping arm at each host and RTT; where none sweeps the size, one per
 * family of key arms that differ in their chain only (so groups, transports, key shares
 * or links at one RTT are never joined). */
static int lines(pq_agg *a)
{
	size_t cap = 0;
	int rc = 0;
	for (size_t h = 0; !rc && h < a->nhosts; h++)
		for (size_t r = 0; !rc && r < a->nrtts; r++) {
			size_t before = a->nlines;
			for (size_t k = 0; !rc && k < a->narms; k++)
				for (int br = 0; !rc && br < 2 && a->kind[k] == PQ_AGG_SIZE; br++)
					rc = add_line(a, &cap, (int)h, (int)r, (int)k, NULL, br);
			int key_mode = a->nlines == before;
			for (size_t i = 0; !rc && key_mode && i < a->n; i++) {
				const pq_agg_group *g = &a->g[i];
				int first = g->host == (int)h && g->rtt == (int)r && key_point(a, g);
				for (size_t k = 0; first && k < i; k++)
					first = !(a->g[k].host == (int)h && a->g[k].rtt == (int)r && key_point(a, &a->g[k]) &&
						  pq_curve_same_but_chain(a->g[k].cell, g->cell));
				if (first)
					rc = add_line(a, &cap, (int)h, (int)r, -1, g, g->browser);
			}
		}
	return rc;
}

static int same_link(const pq_agg_group *x, const pq_agg_group *y)
{
	return x->host == y->host && strcmp(x->cell->link_key, y->cell->link_key) == 0;
}

/* The TTLB slowdown of `arm` against `base` on one host and link, by response size. */
static int slow_series(const pq_agg *a, pq_agg_slow *s)
{
	for (size_t i = 0; i < a->n && s->n < PQ_AGG_SLOW_PTS; i++) {
		const pq_agg_group *g = &a->g[i], *b = NULL;
		if (g->arm != s->arm || !same_link(g, s->first) || !g->n[PQ_AGG_TTLB])
			continue;
		for (size_t k = 0; k < a->n && !b; k++)
			if (a->g[k].arm == s->base && same_link(&a->g[k], g) &&
			    a->g[k].cell->response_bytes == g->cell->response_bytes)
				b = &a->g[k];
		pq_boot_result r;
		int rc = b ? pq_boot_diff(b->v[PQ_AGG_TTLB], b->n[PQ_AGG_TTLB], g->v[PQ_AGG_TTLB],
					  g->n[PQ_AGG_TTLB], 1000, a->seed, &r, NULL)
			   : PQ_EINVAL;
		if (rc == PQ_ENOMEM)
			return rc;
		if (rc < 0)
			continue;
		size_t k = s->n++;
		s->kib[k] = (double)g->cell->response_bytes / 1024.0;
		s->pct[k] = (r.ratio - 1) * 100;
		s->lo[k] = (r.ratio_lo - 1) * 100;
		s->hi[k] = (r.ratio_hi - 1) * 100;
		for (; k > 0 && s->kib[k - 1] > s->kib[k]; k--) { /* by response size */
			double t[4] = {s->kib[k], s->pct[k], s->lo[k], s->hi[k]};
			s->kib[k] = s->kib[k - 1], s->pct[k] = s->pct[k - 1], s->lo[k] = s->lo[k - 1], s->hi[k] = s->hi[k - 1];
			s->kib[k - 1] = t[0], s->pct[k - 1] = t[1], s->lo[k - 1] = t[2], s->hi[k - 1] = t[3];
		}
	}
	return 0;
}

static int slowdowns(pq_agg *a)
{
	int base = -1;
	for (size_t k = 0; k < a->narms && base < 0; k++)
		if (a->kind[k] == PQ_AGG_RESP)
			base = (int)k;
	size_t cap = 0;
	for (size_t i = 0; base >= 0 && i < a->n; i++) {
		const pq_agg_group *g = &a->g[i];
		int seen = g->arm == base || a->kind[g->arm] != PQ_AGG_RESP;
		for (size_t k = 0; k < a->nslow && !seen; k++)
			seen = a->slow[k].arm == g->arm && same_link(a->slow[k].first, g);
		if (seen)
			continue;
		if (a->nslow == cap) {
			size_t nc = cap ? cap * 2 : 8;
			pq_agg_slow *v = realloc(a->slow, nc * sizeof *v);
			if (!v)
				return PQ_ENOMEM;
			a->slow = v;
			cap = nc;
		}
		pq_agg_slow *s = &a->slow[a->nslow];
		*s = (pq_agg_slow){.host = g->host, .arm = g->arm, .base = base, .first = g};
		if (slow_series(a, s) < 0)
			return PQ_ENOMEM;
		if (s->n >= 2)
			a->nslow++;
	}
	return 0;
}

int pq_agg_build(const pq_rdb *db, uint64_t seed, pq_agg *out, pq_diag *d)
{
	pq_agg a = {.seed = seed};
	model_cache *mc = calloc(MODEL_CACHE, sizeof *mc);
	size_t nmc = 0, cap = 0;
	int rc = mc ? lists(db, &a, d) : pq_diag_set(d, PQ_ENOMEM, "report: out of memory");
	pq_agg_vary(db, &a);
	int *done = rc ? NULL : calloc(db->ncells, sizeof *done);
	if (!rc && !done)
		rc = pq_diag_set(d, PQ_ENOMEM, "report: out of memory");
	for (size_t i = 0; !rc && i < db->ncells; i++) {
		if (done[i])
			continue;
		/* The group's cells: this one and every later one with the same key, moved
		 * next to it through `done` (cells of one group may be interleaved by trial). */
		if (a.n == cap) {
			cap = cap ? cap * 2 : 32;
			pq_agg_group *v = realloc(a.g, cap * sizeof *v);
			if (!v) {
				rc = pq_diag_set(d, PQ_ENOMEM, "report: out of memory");
				break;
			}
			a.g = v;
		}
		pq_agg_group *g = &a.g[a.n++];
		memset(g, 0, sizeof *g);
		g->cell = &db->cells[i];
		g->host = index_of(a.hosts, &a.nhosts, PQ_AGG_MAX_HOSTS, g->cell->host);
		char name[96];
		g->arm = index_of(a.arms, &a.narms, PQ_AGG_MAX_ARMS, arm_of(g->cell, name, sizeof name));
		g->rtt = rtt_index(&a, g->cell->rtt_us);
		pq_rdb db1 = *db;
		size_t nsel = 0;
		pq_rdb_cell *sel = malloc(db->ncells * sizeof *sel);
		if (!sel) {
			rc = pq_diag_set(d, PQ_ENOMEM, "report: out of memory");
			break;
		}
		for (size_t k = i; k < db->ncells; k++)
			if (!done[k] && same_group(&db->cells[i], &db->cells[k])) {
				done[k] = 1;
				sel[nsel++] = db->cells[k];
			}
		db1.cells = sel;
		rc = fill_group(g, &db1, 0, nsel, d);
		free(sel);
		if (!rc) {
			predict(g, mc, &nmc);
			judge(g);
		}
	}
	for (size_t i = 0; !rc && i < a.n; i++)
		for (size_t k = 0; k < i; k++) {
			const pq_agg_group *g = &a.g[i], *f = &a.g[k];
			if (g->arm != f->arm)
				continue;
			if (g->cell->chain_der_bytes != f->cell->chain_der_bytes)
				a.kind[g->arm] = PQ_AGG_SIZE;
			else if (g->cell->response_bytes != f->cell->response_bytes &&
				 a.kind[g->arm] == PQ_AGG_KEY)
				a.kind[g->arm] = PQ_AGG_RESP;
		}
	for (size_t i = 0; !rc && i < a.n; i++)
		a.any_hrr |= a.g[i].hrr > 0;
	free(done);
	free(mc);
	if (!rc)
		rc = against_base(&a, d);
	if (!rc && (lines(&a) < 0 || slowdowns(&a) < 0 || pq_clients_build(&a) < 0 ||
		     pq_clients_warm_build(&a) < 0))
		rc = pq_diag_set(d, PQ_ENOMEM, "report: out of memory");
	if (!rc) {
		pq_agg_notes(db, &a);
		pq_agg_split(&a);
	}
	if (!rc && pq_pivot_build(&a) < 0)
		rc = pq_diag_set(d, PQ_ENOMEM, "report: out of memory");
	if (!rc && pq_curve_build(&a) < 0)
		rc = pq_diag_set(d, PQ_ENOMEM, "report: out of memory");
	if (!rc && pq_agg_loss_build(&a) < 0)
		rc = pq_diag_set(d, PQ_ENOMEM, "report: out of memory");
	if (!rc)
		rc = pq_studies_build(&a, d);
	if (!rc && pq_cand_build(&a) < 0)
		rc = pq_diag_set(d, PQ_ENOMEM, "report: out of memory");
	if (rc) {
		pq_agg_free(&a);
		return rc;
	}
	fidelity(db, &a);
	pq_findings_build(&a, &a.findings);
	*out = a;
	return 0;
}

void pq_agg_free(pq_agg *a)
{
	for (size_t i = 0; a->g && i < a->n; i++) {
		for (int p = 0; p < PQ_AGG_PHASES; p++)
			free(a->g[i].v[p]);
		for (int p = 0; p < PQ_AGG_BR_PARTS; p++)
			free(a->g[i].br[p]);
	}
	free(a->g);
	free(a->lines);
	free(a->slow);
	free(a->curves);
	free(a->studies);
	free(a->pivots);
	free(a->losssteps);
	free(a->cands);
	free(a->pairs);
	free(a->warm);
	memset(a, 0, sizeof *a);
}

const pq_agg_group *pq_agg_find(const pq_agg *a, int host, int arm, int rtt, long long resp)
{
	for (size_t i = 0; i < a->n; i++) {
		const pq_agg_group *g = &a->g[i];
		if (g->host == host && g->arm == arm && g->rtt == rtt &&
		    (resp == -2 || g->cell->response_bytes == resp))
			return g;
	}
	return NULL;
}
