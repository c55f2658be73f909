/* Rate + drop-tail queue stage. Departure times are computed on arrival (the link is a
 * single server in FIFO order), so the stage is a FIFO whose occupancy at time t is
 * the packets with departure time > t. `wire` points at the first packet that has not
 * left yet; everything before it has departed and only waits for pop(). */
#include <stdlib.h>

#include "net/stage.h"

typedef struct rate_stage {
	pq_stage base;
	uint64_t rate_bps, limit_bytes;
	uint32_t limit_pkts;
	int64_t last_depart;
	pq_pkt_fifo q;
	pq_pkt *wire;      /* first packet not yet departed, NULL when all have */
	uint64_t q_pkts, q_bytes; /* occupancy: packets from `wire` to the tail */
} rate_stage;

static void rate_advance(rate_stage *r, int64_t now)
{
	while (r->wire && r->wire->t_ready <= now) {
		r->q_pkts--;
		r->q_bytes -= r->wire->len;
		r->wire = r->wire->next;
	}
}

static int rate_push(pq_stage *s, pq_pkt *p, int64_t now)
{
	rate_stage *r = (rate_stage *)s;
	rate_advance(r, now);
	if ((r->limit_pkts && r->q_pkts + 1 > r->limit_pkts) ||
	    (r->limit_bytes && r->q_bytes + p->len > r->limit_bytes))
		return PQ_STAGE_DROP_QUEUE;
	int64_t start = now > r->last_depart ? now : r->last_depart;
	p->t_ready = start + pq_stage_tx_ns(p->len, r->rate_bps);
	r->last_depart = p->t_ready;
	pq_pkt_fifo_push(&r->q, p);
	if (!r->wire)
		r->wire = p;
	r->q_pkts++;
	r->q_bytes += p->len;
	return PQ_STAGE_KEPT;
}

static pq_pkt *rate_pop(pq_stage *s, int64_t now)
{
	rate_stage *r = (rate_stage *)s;
	pq_pkt *h = r->q.head;
	if (!h || h->t_ready > now)
		return NULL;
	if (h == r->wire) { /* departs now: leaves the queue as well */
		r->q_pkts--;
		r->q_bytes -= h->len;
		r->wire = h->next;
	}
	return pq_pkt_fifo_pop(&r->q);
}

static int64_t rate_next(const pq_stage *s)
{
	const rate_stage *r = (const rate_stage *)s;
	return r->q.head ? r->q.head->t_ready : INT64_MAX;
}

static void rate_free(pq_stage *s)
{
	free(s);
}

static const pq_stage_ops rate_ops = {"rate", rate_push, rate_pop, rate_next, rate_free};

pq_stage *pq_stage_rate_new(uint64_t rate_bps, uint64_t limit_bytes, uint32_t limit_pkts)
{
	rate_stage *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->base.ops = &rate_ops;
	r->rate_bps = rate_bps;
	r->limit_bytes = limit_bytes;
	r->limit_pkts = limit_pkts;
	r->last_depart = INT64_MIN;
	return &r->base;
}
