/* The report's analysis under loss (report/agg.h): each loss cell against the loss model
 * (model/loss.h), and per arm the loss from which the median pays an extra round trip. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "net/stage.h"
#include "report/agg.h"
#include "report/verdict.h"
#include "stats/ci.h"

#define LOSS_SEED 1
#define STEP_RTT 0.5 /* a median this many round trips over the loss-free one has paid one */

static const unsigned permille[3] = {250, 500, 950};

static int unit_of(const pq_rdb_cell *c)
{
	const char *u = pq_agg_dim_text(c, "loss-unit");
	return u && !strcmp(u, "burst") ? PQ_LOSS_UNIT_BURST : PQ_LOSS_UNIT_SEGMENT;
}

/* The model's inputs for this cell's link, or 0 when it has none (remote, QUIC, no loss
 * recorded, asymmetric loss). */
static int loss_inputs(const pq_agg_group *g, pq_model_loss_in *in)
{
	const pq_rdb_cell *c = g->cell;
	double loss = pq_agg_dim_num(c, "loss"), up = pq_agg_dim_num(c, "loss-c2s");
	const char *model = pq_agg_dim_text(c, "loss-model");
	if (!g->has_loss_in || c->quic || !isfinite(loss) || c->rtt_us <= 0 || !model || !strcmp(model, "remote"))
		return 0;
	if (isfinite(up) && fabs(up - loss) > 1e-9)
		return 0;
	*in = g->loss_in;
	in->loss = loss / 100;
	in->burst = !strcmp(model, "gilbert") ? pq_agg_dim_num(c, "burst") : 0;
	if (!isfinite(in->burst))
		in->burst = 0;
	in->unit = unit_of(c);
	in->rtt_ns = c->rtt_us * 1000;
	in->trials = PQ_MODEL_LOSS_TRIALS;
	in->seed = LOSS_SEED;
	return pq_model_loss_check(in->loss, in->burst, "loss", "burst", NULL) == 0;
}

/* The model for one group, alone and with the endpoints' delays (nd of them, ms). */
static void loss_group(pq_agg_group *g, const double *delay, size_t nd)
{
	pq_model_loss_in in;
	size_t n = g->n[PQ_AGG_HS];
	if (!loss_inputs(g, &in) || in.loss <= 0 || n < 1 || pq_model_loss_run(&in, &g->loss_net, NULL) < 0)
		return;
	g->loss = g->loss_net;
	in.delay_ms = delay;
	in.n_delay = nd;
	if (nd && pq_model_loss_run(&in, &g->loss, NULL) < 0)
		return;
	g->loss_delays = nd;
	g->has_loss = 1;
	const double *v = g->v[PQ_AGG_HS], rtt = (double)g->cell->rtt_us / 1e3;
	for (int k = 0; k < 3; k++) {
		g->loss_meas[k] = v[(size_t)(permille[k] / 1000.0 * (double)(n - 1) + 0.5)];
		if (pq_ci_quantile(v, n, permille[k], 0.95, &g->loss_lo[k], &g->loss_hi[k]) < 0)
			g->loss_lo[k] = g->loss_hi[k] = NAN;
		double m = g->loss.hs_ms[k];
		g->loss_agree[k] = pq_verdict_loss_pct(m, g->loss_meas[k], g->loss_lo[k], g->loss_hi[k], rtt);
	}
	g->loss_wide = !isfinite(g->loss_lo[2]) || g->loss_hi[2] - g->loss_lo[2] > rtt;
}

/* The groups of g's family: same host, arm, RTT and unit of loss, every other dimension
 * but the loss the same (the first group's response; the link's rate and jitter, which
 * cost round trips of their own: the AWS study's 1 Mbit/s and jittery links at 0 % loss
 * are not its lossy link's loss-free point). */
static int same_family(const pq_agg_group *a, const pq_agg_group *b)
{
	const pq_rdb_cell *x = a->cell, *y = b->cell;
	return a->host == b->host && a->arm == b->arm && a->rtt == b->rtt && unit_of(x) == unit_of(y) &&
	       x->response_bytes == y->response_bytes && x->rate_bps == y->rate_bps &&
	       x->c2s_rate_bps == y->c2s_rate_bps && x->jitter_us == y->jitter_us && a->has_loss_in && b->has_loss_in;
}

static void family_step(const pq_agg *a, size_t i0, pq_agg_lossstep *s)
{
	const pq_agg_group *g0 = &a->g[i0], *base = NULL;
	for (size_t i = 0; i < a->n; i++)
		if (same_family(g0, &a->g[i]) && a->g[i].n[PQ_AGG_HS] &&
		    (!base || pq_agg_dim_num(a->g[i].cell, "loss") < pq_agg_dim_num(base->cell, "loss")))
			base = &a->g[i];
	memset(s, 0, sizeof *s);
	s->host = g0->host;
	s->arm = g0->arm;
	s->rtt = g0->rtt;
	s->first = base;
	snprintf(s->unit, sizeof s->unit, "%s", unit_of(g0->cell) == PQ_LOSS_UNIT_BURST ? "burst" : "segment");
	s->measured_pct = s->model_pct = -1;
	double rtt = (double)g0->cell->rtt_us / 1e3, best = INFINITY;
	for (size_t i = 0; base && i < a->n; i++) {
		const pq_agg_group *g = &a->g[i];
		double l = pq_agg_dim_num(g->cell, "loss");
		if (same_family(g0, g) && g->n[PQ_AGG_HS] && l < best &&
		    g->desc[PQ_AGG_HS].median - base->desc[PQ_AGG_HS].median >= STEP_RTT * rtt) {
			best = l;
			s->measured_pct = l;
		}
	}
	s->same_pct = -1;
	for (double last = -INFINITY; g0->arm > 0;) {
		const pq_agg_group *next = NULL, *ref = NULL;
		for (size_t i = 0; i < a->n; i++) {
			double l = pq_agg_dim_num(a->g[i].cell, "loss");
			if (same_family(g0, &a->g[i]) && a->g[i].n[PQ_AGG_HS] && l > last &&
			    (!next || l < pq_agg_dim_num(next->cell, "loss")))
				next = &a->g[i];
		}
		if (!next)
			break;
		last = pq_agg_dim_num(next->cell, "loss");
		for (size_t i = 0; i < a->n; i++) {
			const pq_agg_group *r = &a->g[i];
			if (r->arm == 0 && r->host == g0->host && r->rtt == g0->rtt && r->n[PQ_AGG_HS] &&
			    unit_of(r->cell) == unit_of(g0->cell) && pq_agg_dim_num(r->cell, "loss") == last)
				ref = r;
		}
		if (!ref || fabs(next->desc[PQ_AGG_HS].median - ref->desc[PQ_AGG_HS].median) >= STEP_RTT * rtt)
			break;
		s->same_pct = last;
	}
	pq_model_loss_in in;
	double rate;
	if (!base || !loss_inputs(base, &in) ||
	    pq_model_loss_first_extra(&in, 0.005, &rate, &s->model_rtts, &s->base_rtts, NULL) < 0)
		return;
	s->model_pct = rate < 0 ? -1 : rate * 100;
	if (rate >= 0)
		pq_model_loss_reason(&in, rate, s->why, sizeof s->why);
}

/* The endpoints' delays as g's family measured them without loss: each handshake of its
 * loss-free group over the model's loss-free handshake (at least 0), into a new array;
 * *nd 0 (and NULL) when the family has no loss-free group. */
static double *family_delays(const pq_agg *a, const pq_agg_group *g, size_t *nd)
{
	const pq_agg_group *base = NULL;
	pq_model_loss_in in;
	pq_model_loss_out o;
	*nd = 0;
	for (size_t i = 0; i < a->n && !base; i++)
		if (same_family(g, &a->g[i]) && a->g[i].n[PQ_AGG_HS] && pq_agg_dim_num(a->g[i].cell, "loss") == 0)
			base = &a->g[i];
	if (!base || !loss_inputs(base, &in))
		return NULL;
	in.trials = 1;
	size_t n = base->n[PQ_AGG_HS];
	double *v = malloc(n * sizeof *v);
	if (!v || pq_model_loss_run(&in, &o, NULL) < 0) {
		free(v);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = fmin(fmax(base->v[PQ_AGG_HS][i] - o.hs_ms[1], 0), PQ_MODEL_LOSS_GIVE_UP_MS);
	*nd = n;
	return v;
}

int pq_agg_loss_build(pq_agg *a)
{
	a->loss_cells = a->loss_agree_med = a->loss_agree_p95 = a->loss_agree_both = a->loss_wide = 0;
	a->loss_clean = a->loss_clean_both = 0;
	for (size_t i = 0; i < a->n; i++) {
		pq_agg_group *g = &a->g[i];
		if (!g->has_loss_in || !(pq_agg_dim_num(g->cell, "loss") > 0))
			continue;
		size_t nd;
		double *dl = family_delays(a, g, &nd);
		loss_group(g, dl, nd);
		free(dl);
	}
	for (size_t i = 0; i < a->n; i++) {
		const pq_agg_group *g = &a->g[i];
		if (!g->has_loss)
			continue;
		a->loss_cells++;
		a->loss_agree_med += g->loss_agree[1];
		a->loss_agree_p95 += g->loss_agree[2];
		int both = pq_verdict_loss_of(g) == PQ_VERDICT_LOSS_AGREES;
		a->loss_agree_both += (size_t)both;
		a->loss_wide += g->loss_wide;
		a->loss_clean += !g->marked;
		a->loss_clean_both += (size_t)(!g->marked && both);
	}
	if (!a->loss_cells)
		return 0;
	a->losssteps = calloc(a->n, sizeof *a->losssteps);
	if (!a->losssteps)
		return PQ_ENOMEM;
	for (size_t i = 0; i < a->n; i++) {
		size_t j = 0;
		while (j < i && !same_family(&a->g[j], &a->g[i]))
			j++;
		if (j < i || !a->g[i].has_loss_in)
			continue; /* its family was done at its first group */
		int any = 0;
		for (size_t k = 0; k < a->n; k++)
			any |= same_family(&a->g[i], &a->g[k]) && a->g[k].has_loss;
		if (any)
			family_step(a, i, &a->losssteps[a->nlosssteps++]);
	}
	return 0;
}
