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

/* A description of microseconds, shown in milliseconds: every figure divided by 1000
 * after it was computed, so it is the views' number over 1000, bit for bit. */
static void desc_to_ms(pq_ci_desc *c)
{
	double *f[] = {&c->mean, &c->sd, &c->median, &c->median_lo, &c->median_hi,
		       &c->p90, &c->p95, &c->p99, &c->p999};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		*f[i] = *f[i] / 1e3;
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
	g->br_ch_bytes = nch ? pq_stats_median(ch, nch) + PQ_WIRE_TLS_RECORD_HDR : NAN;
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
	g->min_rtt_ms = pq_stats_median(mr, nmr);
	/* QUIC has no tcp_info: the link's RTT is the path's. Nor is tcp_info's min RTT the
	 * path's behind an emulated jitter of PQ_AGG_JITTER_SHARE of the RTT or more: each direction's
	 * delay is the RTT's half plus a symmetric draw (net/stage_jitter.c), so the RTT set is
	 * the mean and the min is its luckiest sample (aws-jittery, 35 ms and 10 ms of jitter:
	 * 17 ms, which counted every handshake as 4 round trips). A smaller jitter moves the
	 * min less than what it holds of the path (aws-fast's 0.4 ms: 34.5 ms; aws-lowbw's
	 * 37 ms, a small packet's own time on its 1 Mbit/s wire included). */
	if ((g->cell->quic || g->cell->jitter_us >= PQ_AGG_JITTER_SHARE * (double)g->cell->rtt_us) && g->cell->rtt_us > 0)
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

int pq_agg_keep_clean(pq_rdb *db, const char *path, const char *what, pq_diag *d)
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
				   "link that missed its self-check): nothing is left with %s", path, dropped, what);
	db->ncells = k;
	size_t len = strlen(db->note);
	snprintf(db->note + len, sizeof db->note - len,
		 "%s%s: %zu cells measured on a link or host over its budget, or on a link that missed "
		 "its self-check, are left out of every table, figure and verdict.", len ? " " : "", what, dropped);
	return (int)(dropped > (size_t)INT32_MAX ? INT32_MAX : dropped);
}

static double max_known(double a, double b)
{
	return isnan(a) || b > a ? b : a;
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
		if (isfinite(w))
			f->wait_max_us = max_known(f->wait_max_us, w);
		f->wait_over += (size_t)pq_agg_cell_wait_over(&db->cells[i]);
	}
}

double pq_agg_endpoint_wait_us(const pq_rdb_fidelity *f)
{
	double w = pq_hostload_endpoint_wait_us(f->client_wait_p50_us, f->server_wait_p50_us);
	return w < 0 ? NAN : w;
}

int pq_agg_cell_wait_over(const pq_rdb_cell *c)
{
	double w = pq_agg_endpoint_wait_us(&c->fid);
	return isfinite(w) && pq_hostload_wait_over(w, (pq_hostload_span){(double)c->rtt_us, c->fid.conn_p50_us});
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
			int rc = pq_boot_diff(b->v[p], b->n[p], g->v[p], g->n[p], PQ_AGG_BOOT_REPS, a->seed, &g->vs[p], &e);
			if (rc == PQ_ENOMEM)
				return pq_diag_set(d, rc, "report: %s", pq_diag_msg(&e));
			g->has_vs[p] = rc == 0;
		}
	}
	a->diff_what = ttfb == a->n ? "TTFB" : ttfb ? "TTFB (or handshake)" : "handshake";
	return 0;
}

int pq_agg_build(const pq_rdb *db, uint64_t seed, pq_agg *out, pq_diag *d)
{
	pq_agg a = {.seed = seed};
	pq_agg_models *mc = pq_agg_models_new();
	size_t cap = 0;
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
			pq_agg_predict(g, mc);
			pq_agg_judge(g);
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
	pq_agg_models_free(mc);
	if (!rc)
		rc = against_base(&a, d);
	if (!rc && (pq_agg_lines_build(&a) < 0 || pq_agg_slow_build(&a) < 0 || pq_clients_build(&a) < 0 ||
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
