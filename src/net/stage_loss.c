/* Random loss stage: Bernoulli or Gilbert-Elliott. Kept packets pass straight through. */
#include <stdlib.h>

#include "net/stage.h"

typedef struct loss_stage {
	pq_stage base;
	pq_loss_cfg cfg;
	pq_rng rng;
	int bad; /* Gilbert-Elliott state */
	pq_pkt_fifo q;
} loss_stage;

static int loss_drop(loss_stage *l)
{
	if (l->cfg.ge_p <= 0)
		return pq_rng_bernoulli(&l->rng, l->cfg.p);
	/* Move first, then lose with the new state's probability (netem's order). */
	if (l->bad) {
		if (pq_rng_bernoulli(&l->rng, l->cfg.ge_r))
			l->bad = 0;
	} else if (pq_rng_bernoulli(&l->rng, l->cfg.ge_p)) {
		l->bad = 1;
	}
	return pq_rng_bernoulli(&l->rng, l->bad ? l->cfg.loss_bad : l->cfg.loss_good);
}

static int loss_push(pq_stage *s, pq_pkt *p, int64_t now)
{
	loss_stage *l = (loss_stage *)s;
	if (loss_drop(l))
		return PQ_STAGE_DROP_LOSS;
	p->t_ready = now;
	pq_pkt_fifo_push(&l->q, p);
	return PQ_STAGE_KEPT;
}

static pq_pkt *loss_pop(pq_stage *s, int64_t now)
{
	loss_stage *l = (loss_stage *)s;
	if (!l->q.head || l->q.head->t_ready > now)
		return NULL;
	return pq_pkt_fifo_pop(&l->q);
}

static int64_t loss_next(const pq_stage *s)
{
	const loss_stage *l = (const loss_stage *)s;
	return l->q.head ? l->q.head->t_ready : INT64_MAX;
}

static void loss_free(pq_stage *s)
{
	free(s);
}

static const pq_stage_ops loss_ops = {"loss", loss_push, loss_pop, loss_next, loss_free};

pq_stage *pq_stage_loss_new(const pq_loss_cfg *cfg, uint64_t seed)
{
	loss_stage *l = calloc(1, sizeof *l);
	if (!l)
		return NULL;
	l->base.ops = &loss_ops;
	l->cfg = *cfg;
	pq_rng_seed(&l->rng, seed);
	return &l->base;
}
