/* The flight model beside each group of the report (report/agg.h): its inputs read once
 * per chain and offer (a small cache across groups), the prediction in round trips for
 * TCP and QUIC, and whether the measurement agrees, with the reason when it does not. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "core/wire.h"
#include "exp/runner.h"
#include "model/base.h"
#include "model/cliff.h"
#include "model/quic.h"
#include "net/linkcfg.h"
#include "pki/acct.h"
#include "pki/ocsp.h"
#include "report/agg.h"
#include "tls/hello.h"

#define MODEL_CACHE 32

typedef struct model_cache {
	char leaf[48], group[48], offer[160], server[64];
	int inter, one_write, ok;
	size_t staple;
	pq_model_base base;
} model_cache;

struct pq_agg_models {
	model_cache c[MODEL_CACHE];
	size_t n;
};

pq_agg_models *pq_agg_models_new(void)
{
	return calloc(1, sizeof(pq_agg_models));
}

void pq_agg_models_free(pq_agg_models *m)
{
	free(m);
}

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
/* The OCSP staple's bytes in the leaf's certificate entry; 0 without one (or a database
 * from before the column). */
static size_t staple_bytes(const pq_rdb_cell *c)
{
	const pq_dimval *o = &c->dim[PQ_D_OCSP];
	return o->kind == PQ_DV_INT && o->i > 0 ? pq_ocsp_entry_bytes((size_t)o->i) : 0;
}

static const pq_model_base *cached_base(model_cache *mc, size_t *nmc, const pq_rdb_cell *c)
{
	char offer[160], server[64];
	int has_offer = cell_offer(c, offer, sizeof offer, server, sizeof server);
	int inter = pq_agg_sent_intermediates(c);
	size_t staple = staple_bytes(c);
	for (size_t i = 0; i < *nmc; i++)
		if (strcmp(mc[i].leaf, c->leaf) == 0 && strcmp(mc[i].group, c->group) == 0 &&
		    mc[i].inter == inter && mc[i].one_write == c->one_write && mc[i].staple == staple &&
		    strcmp(mc[i].offer, offer) == 0 && strcmp(mc[i].server, server) == 0)
			return mc[i].ok ? &mc[i].base : NULL;
	if (*nmc == MODEL_CACHE)
		return NULL;
	model_cache *m = &mc[(*nmc)++];
	snprintf(m->leaf, sizeof m->leaf, "%s", c->leaf);
	snprintf(m->group, sizeof m->group, "%s", c->group);
	snprintf(m->offer, sizeof m->offer, "%s", offer);
	snprintf(m->server, sizeof m->server, "%s", server);
	m->inter = inter;
	m->one_write = c->one_write;
	m->staple = staple;
	m->ok = pq_model_base_alg(c->leaf, "chain_leaf", inter, c->group,
				  c->one_write ? SIZE_MAX : 0, &m->base, NULL) == 0;
	m->base.acct_in.staple = staple;
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
void pq_agg_predict(pq_agg_group *g, pq_agg_models *m)
{
	const pq_rdb_cell *c = g->cell;
	const pq_model_base *b = cached_base(m->c, &m->n, c);
	if (!b || c->chain_der_bytes <= 0)
		return;
	pq_model_in net;
	size_t resp = c->response_bytes >= 0 ? (size_t)c->response_bytes : 0;
	pq_model_base_net(b, pq_wire_mss(c->mtu),
			  c->initcwnd > 0 ? (size_t)c->initcwnd : 0,
			  pq_model_response_bytes(PQ_MODEL_HTTP_HEAD, resp), &net);
	net.early_data = c->early_data && c->resume_pct > 0;
	net.server_pace = cell_pace(c);
	if (g->browser && isfinite(g->br_ch_bytes)) /* its own ClientHello, as it sent it */
		net.client_hello = (size_t)g->br_ch_bytes;
	g->model_ch = net.client_hello;
	/* The client's receive window as read back on the link; a database without it: none. */
	const pq_dimval *rw = &c->dim[PQ_D_RWND];
	net.rwnd = rw->kind == PQ_DV_INT && rw->i > 0 ? (size_t)rw->i : 0;
	/* The link's rate: each packet's time on the wire (model/rate.h), in round trips of
	 * the measurement's unit, the connections' min RTT (on a 1 Mbit/s link 37 ms where the
	 * link's is 35: a small packet's own time on the wire and the forwarder's). */
	net.down_bps = c->rate_bps > 0 ? (uint64_t)c->rate_bps : 0;
	net.up_bps = c->c2s_rate_bps > 0 ? (uint64_t)c->c2s_rate_bps : 0;
	net.rtt_s = g->min_rtt_ms > 0 ? g->min_rtt_ms / 1e3 : (double)c->rtt_us / 1e6;
	if (!(net.rtt_s > 0))
		net.down_bps = net.up_bps = 0;
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
 * not apply; what the QUIC view leaves out is the stack's own timing. An ACK delay can only
 * be a 1-RTT packet's: Initial and Handshake packets are acknowledged at once (RFC 9000,
 * 13.2.1), so the handshake's own flights wait for none. */
static void judge_quic(pq_agg_group *g, const double pred[PQ_AGG_PHASES], double excess, int worst)
{
	if (!(excess > 0 && excess < 0.9)) {
		unexplained(g, pred, excess, worst, "the QUIC view's");
		return;
	}
	snprintf(g->agree_tag, sizeof g->agree_tag, "QUIC timing");
	snprintf(g->agree_why, sizeof g->agree_why,
		 "a fraction of a round trip more: the QUIC stack's pacing, signing time or delayed ACK of 1-RTT "
		 "packets (max_ack_delay, 25 ms; Handshake packets are acknowledged at once), which the QUIC view "
		 "does not have");
}

/* The fastest connection's time over min RTT in phase p: host noise only adds time. */
static double fastest(const pq_agg_group *g, int p)
{
	double m = INFINITY;
	for (size_t i = 0; i < g->n[p]; i++)
		m = fmin(m, g->v[p][i]);
	return g->n[p] && g->min_rtt_ms > 0 ? m / g->min_rtt_ms : NAN;
}

/* A cell of a jittery or rate-limited link, a fraction of a round trip over the model,
 * which has each packet's time on the wire (model/rate.h) but neither the jitter nor the
 * CPU time of moving the bytes: on a fast link, that CPU time is as much the transfer's
 * pace as the link is. */
static void rate_why(pq_agg_group *g, double excess)
{
	const pq_rdb_cell *c = g->cell;
	double rtt_ms = g->min_rtt_ms > 0 ? g->min_rtt_ms : (double)c->rtt_us / 1e3;
	double cpu_ms = c->response_bytes > 0 ? (double)c->response_bytes * PQ_EXP_CPU_S_PER_BYTE * 1e3 : 0;
	char rate[32], size[32];
	if (c->rate_bps >= (double)PQ_LINK_FAST_BPS && cpu_ms >= 1)
		snprintf(g->agree_why, sizeof g->agree_why,
			 "%.2f RTT later than the model: at %s this machine's CPUs pace the transfer as much as the link: "
			 "moving %s costs them about %.0f ms (%.2f RTT) here, which the model does not have",
			 excess, pq_fmt_rate(rate, sizeof rate, (uint64_t)c->rate_bps),
			 pq_fmt_size(size, sizeof size, (uint64_t)c->response_bytes), cpu_ms, rtt_ms > 0 ? cpu_ms / rtt_ms : 0);
	else if (c->jitter_us > 0)
		snprintf(g->agree_why, sizeof g->agree_why,
			 "%.2f RTT later than the model: the link's jitter (%.2f ms), which the model does not have", excess,
			 c->jitter_us / 1e3);
	else
		snprintf(g->agree_why, sizeof g->agree_why,
			 "%.2f RTT from the model, which times each packet on the link's wire but not the endpoints' CPU",
			 excess);
}

/* Measured round trips against the prediction (paced, fractional), and the reason when
 * they differ. */
void pq_agg_judge(pq_agg_group *g)
{
	const double pred[PQ_AGG_PHASES] = {g->model.handshake_t, g->model.ttfb_t, g->model.ttlb_t};
	const double wire[PQ_AGG_PHASES] = {g->model.wire_handshake, g->model.wire_ttfb, g->model.wire_ttlb};
	int noise = 1; /* every phase's fastest connection agrees */
	g->agrees = 1;
	for (int p = 0; p < PQ_AGG_PHASES; p++) {
		g->rounds[p] = g->n[p] && g->min_rtt_ms > 0 ? g->desc[p].median / g->min_rtt_ms : NAN;
		if (!g->has_model || !isfinite(g->rounds[p]) || (p == PQ_AGG_TTLB && !pred[p]))
			continue;
		if (!pq_model_agrees_wire(pred[p], g->rounds[p], wire[p]))
			g->agrees = 0;
		noise &= pq_model_agrees_wire(pred[p], fastest(g, p), wire[p]);
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
	int waited = pq_agg_cell_wait_over(c) && excess > 0;
	if (c->quic && !(c->loss_pct > 0) && c->rtt_us >= 10000 && !(noise && excess > 0)) {
		judge_quic(g, pred, excess, worst);
		return;
	}
	/* retransmits with no loss configured behind a jitter: reordering, not loss */
	int reordered = !(c->loss_pct > 0) && g->retrans && c->jitter_us > 0;
	const char *tag = reordered ? "jitter reorders"
			  : c->loss_pct > 0 || g->retrans ? "loss"
			  : c->rtt_us > 0 && c->rtt_us < 10000 ? "CPU time ~ RTT"
			  : (c->jitter_us > 0 || c->rate_bps > 0) && excess < 1 ? "jitter/rate"
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
	if (reordered)
		snprintf(g->agree_why, sizeof g->agree_why,
			 "jitter reorders: a jitter of %.1f ms a direction reorders the packets, and %zu segments were "
			 "retransmitted with no loss configured; the model has neither",
			 c->jitter_us / 1e3, g->retrans);
	else if (c->loss_pct > 0 || g->retrans)
		snprintf(g->agree_why, sizeof g->agree_why, "loss: %zu retransmitted segments", g->retrans);
	else if (c->rtt_us > 0 && c->rtt_us < 10000)
		snprintf(g->agree_why, sizeof g->agree_why,
			 "at %.1f ms RTT the handshake's CPU time is a large share of a round trip",
			 (double)c->rtt_us / 1e3);
	else if ((c->jitter_us > 0 || c->rate_bps > 0) && excess < 1)
		rate_why(g, excess);
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
