#include "net/path.h"

#include <string.h>

static void count_drop(pq_path *p, pq_pkt *pkt, int verdict)
{
	if (verdict == PQ_STAGE_DROP_LOSS)
		p->stats.drop_loss++;
	else
		p->stats.drop_queue++;
	pq_pkt_put(p->pool, pkt);
}

int pq_path_init(pq_path *p, const pq_dir_cfg *c, uint64_t seed, pq_pkt_pool *pool, pq_diag *d)
{
	memset(p, 0, sizeof *p);
	p->pool = pool;
	if (c->loss.p > 0 || c->loss.ge_p > 0)
		p->st[p->n++] = pq_stage_loss_new(&c->loss, seed);
	if (c->rate_bps)
		p->st[p->n++] = pq_stage_rate_new(c->rate_bps, c->queue_bytes, c->queue_pkts);
	if (c->jitter_ns)
		p->st[p->n++] = pq_stage_jitter_new(c->delay_ns, c->jitter_ns, c->jitter_dist, c->reorder,
						    seed ^ 0x6a09e667f3bcc908ull);
	else
		p->st[p->n++] = pq_stage_delay_new(c->delay_ns);
	for (int i = 0; i < p->n; i++) {
		if (!p->st[i]) {
			pq_path_dispose(p);
			return pq_diag_set(d, PQ_ENOMEM, "out of memory building a link stage");
		}
	}
	return 0;
}

void pq_path_dispose(pq_path *p)
{
	for (int i = 0; i < p->n; i++) {
		if (!p->st[i])
			continue;
		pq_pkt *x;
		while ((x = pq_stage_pop(p->st[i], INT64_MAX)))
			pq_pkt_put(p->pool, x);
		pq_stage_free(p->st[i]);
		p->st[i] = NULL;
	}
	p->n = 0;
}

void pq_path_push(pq_path *p, pq_pkt *pkt, int64_t now)
{
	p->stats.pkts_in++;
	p->stats.bytes_in += pkt->len;
	pkt->t_in = now;
	int v = pq_stage_push(p->st[0], pkt, now);
	if (v != PQ_STAGE_KEPT)
		count_drop(p, pkt, v);
}

pq_pkt *pq_path_pop(pq_path *p, int64_t now)
{
	/* Move everything due between stages; a packet enters the next stage at the time it
	 * left the previous one, not when we got round to it, so late wake-ups do not add
	 * up along the path. */
	for (int i = 0; i + 1 < p->n; i++) {
		pq_pkt *x;
		while ((x = pq_stage_pop(p->st[i], now))) {
			int v = pq_stage_push(p->st[i + 1], x, x->t_ready);
			if (v != PQ_STAGE_KEPT)
				count_drop(p, x, v);
		}
	}
	pq_pkt *out = pq_stage_pop(p->st[p->n - 1], now);
	if (out) {
		p->stats.pkts_out++;
		p->stats.bytes_out += out->len;
	}
	return out;
}

int64_t pq_path_next_ns(const pq_path *p)
{
	int64_t next = INT64_MAX;
	for (int i = 0; i < p->n; i++) {
		int64_t t = pq_stage_next_ns(p->st[i]);
		if (t < next)
			next = t;
	}
	return next;
}
