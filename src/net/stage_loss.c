/* Random loss stage: Bernoulli or Gilbert-Elliott, decided per packet or per burst of
 * segments handed down together (net/stage.h). Kept packets pass straight through. */
#include <math.h>
#include <stdlib.h>

#include "net/stage.h"

typedef struct loss_stage {
	pq_stage base;
	pq_loss_chain chain;
	pq_pkt_fifo q;
	/* unit burst: the burst in progress, its decision, last segment time and payload */
	int open, open_drop;
	int64_t last_ns;
	uint32_t bytes;
} loss_stage;

/* What the burst rule needs of a packet: its TCP payload and whether it ends a write. */
typedef struct seg_info {
	int data;   /* a TCP segment with payload */
	int ends;   /* PSH, SYN or FIN */
	uint32_t payload;
} seg_info;

static seg_info seg_of(const pq_pkt *p)
{
	seg_info s = {0};
	const uint8_t *d = p->data;
	uint32_t ip_len, hdr, proto;
	if (p->len >= 20 && d[0] >> 4 == 4) {
		hdr = (uint32_t)(d[0] & 0x0f) * 4;
		ip_len = (uint32_t)d[2] << 8 | d[3];
		proto = d[9];
	} else if (p->len >= 40 && d[0] >> 4 == 6) {
		hdr = 40;
		ip_len = 40 + ((uint32_t)d[4] << 8 | d[5]);
		proto = d[6];
	} else {
		return s;
	}
	if (proto != 6 || ip_len > p->len || hdr + 20 > ip_len)
		return s;
	uint32_t doff = (uint32_t)(d[hdr + 12] >> 4) * 4, flags = d[hdr + 13];
	if (doff < 20 || hdr + doff > ip_len)
		return s;
	s.payload = ip_len - hdr - doff;
	s.data = s.payload > 0;
	s.ends = (flags & 0x0b) != 0; /* FIN 0x01, SYN 0x02, PSH 0x08 */
	return s;
}

void pq_loss_chain_init(pq_loss_chain *c, const pq_loss_cfg *cfg, uint64_t seed)
{
	c->cfg = *cfg;
	c->bad = 0;
	pq_rng_seed(&c->rng, seed);
}

int pq_loss_chain_drop(pq_loss_chain *c)
{
	if (c->cfg.ge_p <= 0)
		return pq_rng_bernoulli(&c->rng, c->cfg.p);
	/* Move first, then lose with the new state's probability (netem's order). */
	if (c->bad) {
		if (pq_rng_bernoulli(&c->rng, c->cfg.ge_r))
			c->bad = 0;
	} else if (pq_rng_bernoulli(&c->rng, c->cfg.ge_p)) {
		c->bad = 1;
	}
	return pq_rng_bernoulli(&c->rng, c->bad ? c->cfg.loss_bad : c->cfg.loss_good);
}

static int loss_drop(loss_stage *l)
{
	return pq_loss_chain_drop(&l->chain);
}

/* One decision per burst: a data segment joins the open burst when it follows within the
 * gap and the burst has room; the segment that ends a write closes it. */
static int burst_drop(loss_stage *l, const pq_pkt *p, int64_t now)
{
	seg_info s = seg_of(p);
	if (!s.data) {
		l->open = 0;
		return loss_drop(l);
	}
	if (!l->open || now - l->last_ns > PQ_LOSS_BURST_GAP_NS || l->bytes + s.payload > PQ_LOSS_BURST_BYTES) {
		l->open = 1;
		l->open_drop = loss_drop(l);
		l->bytes = 0;
	}
	l->bytes += s.payload;
	l->last_ns = now;
	if (s.ends)
		l->open = 0;
	return l->open_drop;
}

double pq_loss_mean(const pq_loss_cfg *l)
{
	if (l->ge_p <= 0)
		return l->p;
	double bad = l->ge_p / (l->ge_p + l->ge_r);
	return bad * l->loss_bad + (1 - bad) * l->loss_good;
}

static double burst_len(double burst)
{
	return burst >= 1 ? burst : 1;
}

double pq_loss_gilbert_most(double burst)
{
	double b = burst_len(burst);
	return b / (b + 1);
}

void pq_loss_gilbert(pq_loss_cfg *l, double mean, double burst)
{
	double r = 1.0 / burst_len(burst);
	l->p = 0;
	l->ge_r = r;
	l->ge_p = fmin(1, mean * r / (1 - mean)); /* at the limit (exp/grid.c) exactly 1 */
	l->loss_bad = 1;
	l->loss_good = 0;
}

static int loss_push(pq_stage *s, pq_pkt *p, int64_t now)
{
	loss_stage *l = (loss_stage *)s;
	if (l->chain.cfg.unit == PQ_LOSS_UNIT_BURST ? burst_drop(l, p, now) : loss_drop(l))
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
	pq_loss_chain_init(&l->chain, cfg, seed);
	return &l->base;
}
