#include "report/agg.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/base.h"
#include "model/cliff.h"
#include "pki/acct.h"
#include "tls/hello.h"

const char *const pq_agg_phase_name[PQ_AGG_PHASES] = {"handshake", "TTFB", "TTLB"};

#define MODEL_CACHE 32
/* IPv4 and TCP headers with the timestamp option: the MSS is the MTU less 52 bytes. */
#define TCP_IP_OVERHEAD 52
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
	       a->one_write == b->one_write &&
	       strcmp(a->group, b->group) == 0;
}

static double median_of(double *v, size_t n)
{
	pq_ci_desc dsc;
	return n && pq_ci_describe(v, n, &dsc, NULL) == 0 ? dsc.median : NAN;
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
	pq_model_base_net(b, c->mtu > TCP_IP_OVERHEAD ? (size_t)(c->mtu - TCP_IP_OVERHEAD) : 0,
			  c->initcwnd > 0 ? (size_t)c->initcwnd : 0,
			  pq_model_response_bytes(HTTP_HEAD, resp), &net);
	net.early_data = c->early_data && c->resume_pct > 0;
	net.server_pace = cell_pace(c);
	pq_acct a;
	if (c->resume_pct >= 100) {
		/* ServerHello (with the pre_shared_key extension, 6 bytes), CCS,
		 * EncryptedExtensions and Finished: one write, far below 4 KiB. */
		const pq_acct_group *grp = pq_acct_group_find(c->group);
		size_t w = 5 + pq_acct_server_hello(grp ? grp->server_share : 32) + 6 + 6 +
			   pq_acct_records(PQ_ACCT_EE_EMPTY) + pq_acct_records(52);
		net.server_writes = &w;
		net.n_server_writes = 1;
		g->has_model = pq_model_predict(&net, &g->model, NULL) == 0;
		return;
	}
	g->has_model =
	    pq_model_at_size(&b->acct_in, (size_t)c->chain_der_bytes, &net, &a, &g->model, NULL) == 0;
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
	for (int p = 0; p < PQ_AGG_PHASES; p++)
		if (isfinite(g->rounds[p]) && pred[p])
			excess = fmax(excess, g->rounds[p] - pred[p]);
	int unknown_cc = c->dim[PQ_D_CC].kind != PQ_DV_TEXT || strcmp(c->dim[PQ_D_CC].s, "remote") == 0;
	const char *tag = c->loss_pct > 0 || g->retrans ? "loss"
			  : c->rtt_us > 0 && c->rtt_us < 10000 ? "CPU time ~ RTT"
			  : c->jitter_us > 0 || c->rate_bps > 0 ? "jitter/rate"
			  : noise && excess > 0	    ? "host noise"
			  : unknown_cc && g->model.flight_rounds > 1 && excess > 0 && excess < 1.2 ? "paced windows?"
			  : g->rounds[PQ_AGG_HS] - floor(g->rounds[PQ_AGG_HS]) > 0.3 ? "part of an RTT"
										      : "unexplained";
	snprintf(g->agree_tag, sizeof g->agree_tag, "%s", tag);
	if (c->loss_pct > 0 || g->retrans)
		snprintf(g->agree_why, sizeof g->agree_why, "loss: %zu retransmitted segments", g->retrans);
	else if (c->rtt_us > 0 && c->rtt_us < 10000)
		snprintf(g->agree_why, sizeof g->agree_why,
			 "at %.1f ms RTT the handshake's CPU time is a large share of a round trip",
			 (double)c->rtt_us / 1e3);
	else if (c->jitter_us > 0 || c->rate_bps > 0)
		snprintf(g->agree_why, sizeof g->agree_why, "jitter or a rate limit adds time the model does not have");
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
	else if (g->rounds[PQ_AGG_HS] - floor(g->rounds[PQ_AGG_HS]) > 0.3)
		snprintf(g->agree_why, sizeof g->agree_why,
			 "a fraction of a round trip more: a delayed ACK, or signing time");
	else
		snprintf(g->agree_why, sizeof g->agree_why, "not explained by the model's inputs");
}

static int fill_group(pq_agg_group *g, const pq_rdb *db, size_t first, size_t last, pq_diag *d)
{
	size_t total = 0;
	for (size_t i = first; i < last; i++)
		total += db->cells[i].nc;
	double *mr = malloc((total ? total : 1) * sizeof *mr);
	size_t nmr = 0;
	for (int p = 0; p < PQ_AGG_PHASES; p++)
		g->v[p] = malloc((total ? total : 1) * sizeof *g->v[p]);
	if (!mr || !g->v[0] || !g->v[1] || !g->v[2]) {
		free(mr);
		return pq_diag_set(d, PQ_ENOMEM, "report: out of memory for %zu connections", total);
	}
	for (size_t i = first; i < last; i++) {
		const pq_rdb_cell *c = &db->cells[i];
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
					g->v[p][g->n[p]++] = t[p] / 1e3;
			if (isfinite(n->min_rtt_us) && n->min_rtt_us > 0)
				mr[nmr++] = n->min_rtt_us / 1e3;
		}
	}
	for (int p = 0; p < PQ_AGG_PHASES; p++)
		if (g->n[p] && pq_ci_describe(g->v[p], g->n[p], &g->desc[p], d) < 0) {
			free(mr);
			return d ? d->code : PQ_EINVAL;
		}
	g->min_rtt_ms = median_of(mr, nmr);
	free(mr);
	return 0;
}

static int lists(const pq_rdb *db, pq_agg *a, pq_diag *d)
{
	for (size_t i = 0; i < db->ncells; i++) {
		const pq_rdb_cell *c = &db->cells[i];
		if (index_of(a->hosts, &a->nhosts, PQ_AGG_MAX_HOSTS, c->host) < 0 ||
		    index_of(a->arms, &a->narms, PQ_AGG_MAX_ARMS, c->arm) < 0)
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

static double max_known(double a, double b)
{
	return isnan(a) || b > a ? b : a;
}

static void fidelity(const pq_rdb *db, pq_agg *a)
{
	struct pq_agg_fid *f = &a->fid;
	memset(f, 0, sizeof *f);
	f->late_p99_max_us = f->steal_max_pct = NAN;
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
	}
}

int pq_agg_build(const pq_rdb *db, pq_agg *out, pq_diag *d)
{
	pq_agg a = {0};
	model_cache *mc = calloc(MODEL_CACHE, sizeof *mc);
	size_t nmc = 0, cap = 0;
	int rc = mc ? lists(db, &a, d) : pq_diag_set(d, PQ_ENOMEM, "report: out of memory");
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
		g->arm = index_of(a.arms, &a.narms, PQ_AGG_MAX_ARMS, g->cell->arm);
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
	if (rc) {
		pq_agg_free(&a);
		return rc;
	}
	fidelity(db, &a);
	*out = a;
	return 0;
}

void pq_agg_free(pq_agg *a)
{
	for (size_t i = 0; a->g && i < a->n; i++)
		for (int p = 0; p < PQ_AGG_PHASES; p++)
			free(a->g[i].v[p]);
	free(a->g);
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

int pq_agg_vs_base(const pq_agg *a, const pq_agg_group *g, enum pq_agg_phase p, uint64_t seed,
		   pq_boot_result *out, pq_diag *d)
{
	const pq_agg_group *b = NULL;
	for (size_t i = 0; i < a->n && !b; i++)
		if (a->g[i].arm == 0 && a->g[i].host == g->host &&
		    strcmp(a->g[i].cell->link_key, g->cell->link_key) == 0 &&
		    a->g[i].cell->response_bytes == g->cell->response_bytes)
			b = &a->g[i];
	if (!b)
		return pq_diag_set(d, PQ_EINVAL, "no baseline group");
	return pq_boot_diff(b->v[p], b->n[p], g->v[p], g->n[p], 1000, seed, out, d);
}
