/* Constant delay stage: a FIFO, since arrival times never decrease. */
#include <stdlib.h>

#include "net/stage.h"

typedef struct delay_stage {
	pq_stage base;
	int64_t delay_ns;
	pq_pkt_fifo q;
} delay_stage;

static int delay_push(pq_stage *s, pq_pkt *p, int64_t now)
{
	delay_stage *d = (delay_stage *)s;
	p->t_ready = now + d->delay_ns;
	pq_pkt_fifo_push(&d->q, p);
	return PQ_STAGE_KEPT;
}

static pq_pkt *delay_pop(pq_stage *s, int64_t now)
{
	delay_stage *d = (delay_stage *)s;
	if (!d->q.head || d->q.head->t_ready > now)
		return NULL;
	return pq_pkt_fifo_pop(&d->q);
}

static int64_t delay_next(const pq_stage *s)
{
	const delay_stage *d = (const delay_stage *)s;
	return d->q.head ? d->q.head->t_ready : INT64_MAX;
}

static void delay_free(pq_stage *s)
{
	free(s);
}

static const pq_stage_ops delay_ops = {"delay", delay_push, delay_pop, delay_next, delay_free};

pq_stage *pq_stage_delay_new(int64_t delay_ns)
{
	delay_stage *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->base.ops = &delay_ops;
	d->delay_ns = delay_ns;
	return &d->base;
}
