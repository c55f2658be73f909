/* Verdicts decided once (report/verdict.h). */
#include "report/verdict.h"

#include <math.h>

#include "report/agg.h"

const char *pq_verdict_word(int v)
{
	return v == PQ_VERDICT_AGREES ? "agrees" : v == PQ_VERDICT_DIFFERS ? "differs" : "cannot be judged";
}

pq_verdict_order pq_verdict_order_of(double alo, double ahi, double blo, double bhi)
{
	if (alo > bhi)
		return PQ_VERDICT_ABOVE;
	if (ahi < blo)
		return PQ_VERDICT_BELOW;
	return PQ_VERDICT_OVERLAP;
}

int pq_verdict_inside(double x, double lo, double hi)
{
	return x >= lo && x <= hi;
}

pq_verdict_model pq_verdict_model_of(const pq_agg_group *g)
{
	pq_verdict_model v = {.phase = isfinite(g->rounds[PQ_AGG_TTFB]) ? PQ_AGG_TTFB : PQ_AGG_HS,
			      .agrees = g->agrees};
	v.predicted = v.phase == PQ_AGG_TTFB ? g->model.ttfb_t : g->model.handshake_t;
	v.measured = g->rounds[v.phase];
	v.judged = g->has_model && isfinite(v.measured);
	return v;
}

int pq_verdict_loss_pct(double model_ms, double measured_ms, double lo, double hi, double rtt_ms)
{
	return fabs(model_ms - measured_ms) <= rtt_ms || pq_verdict_inside(model_ms, lo, hi);
}

pq_verdict_loss pq_verdict_loss_of(const pq_agg_group *g)
{
	return !g->loss_agree[1] ? PQ_VERDICT_LOSS_MEDIAN : !g->loss_agree[2] ? PQ_VERDICT_LOSS_P95 : PQ_VERDICT_LOSS_AGREES;
}

int pq_verdict_pair_judged(const pq_agg_pair *p)
{
	return p->wan && p->has_net;
}
