/* Link stages: the pieces an emulated path is built from (mahimahi's queues, with time
 * passed in). Each stage holds packets and releases them at times it computes from the
 * arrival time it is given; no stage reads a clock or a global random source, so a
 * test can drive a stage with made-up times and a seeded pq_rng and get the same
 * answer every time.
 *
 * Contract of every stage:
 *   push(s, p, now)  take packet p arriving at `now` (now never decreases between calls).
 *                    Returns PQ_STAGE_KEPT, or a drop cause (the caller still owns p).
 *   pop(s, now)      the next packet whose release time is <= now, or NULL. The packet's
 *                    t_ready is its release time, which may be earlier than now when the
 *                    caller is late; the next stage should be given t_ready as its `now`.
 *                    pop(s, INT64_MAX) drains a stage.
 *   next_ns(s)       the earliest release time of a held packet; INT64_MAX when empty.
 *   free(s)          frees the stage; the caller must have drained it first. */
#ifndef PQ_NET_STAGE_H
#define PQ_NET_STAGE_H

#include <stdint.h>

#include "core/err.h"
#include "core/rng.h"
#include "net/pkt.h"

enum pq_stage_verdict {
	PQ_STAGE_KEPT = 0,
	PQ_STAGE_DROP_LOSS,  /* configured random loss */
	PQ_STAGE_DROP_QUEUE, /* drop-tail queue overflow */
};

typedef struct pq_stage pq_stage;

typedef struct pq_stage_ops {
	const char *name;
	int (*push)(pq_stage *s, pq_pkt *p, int64_t now);
	pq_pkt *(*pop)(pq_stage *s, int64_t now);
	int64_t (*next_ns)(const pq_stage *s);
	void (*free)(pq_stage *s);
} pq_stage_ops;

struct pq_stage {
	const pq_stage_ops *ops;
};

static inline int pq_stage_push(pq_stage *s, pq_pkt *p, int64_t now)
{
	return s->ops->push(s, p, now);
}
static inline pq_pkt *pq_stage_pop(pq_stage *s, int64_t now)
{
	return s->ops->pop(s, now);
}
static inline int64_t pq_stage_next_ns(const pq_stage *s)
{
	return s->ops->next_ns(s);
}
/* NULL is ignored. */
void pq_stage_free(pq_stage *s);

/* Jitter distributions, as netem names them. */
enum pq_dist { PQ_DIST_NORMAL, PQ_DIST_UNIFORM, PQ_DIST_PARETONORMAL };
#define PQ_DIST_CHOICES "normal|uniform|paretonormal"

/* Constant one-way delay: every packet leaves exactly `delay_ns` after it arrived, in
 * arrival order. */
pq_stage *pq_stage_delay_new(int64_t delay_ns);

/* Variable delay: base + a sample of `dist` scaled by jitter_ns (the standard deviation
 * for normal and paretonormal, the half-width for uniform), never below zero. With
 * reorder = 0 a packet never leaves before one that arrived earlier (its release time
 * is raised to the previous one's), so jitter shows as delay variation only; with
 * reorder = 1 each packet keeps its own time and packets overtake each other. */
pq_stage *pq_stage_jitter_new(int64_t base_ns, int64_t jitter_ns, enum pq_dist dist, int reorder,
			      uint64_t seed);

/* What one loss decision covers. SEGMENT: every packet is decided alone (what a
 * forwarder that sees segments does). BURST: the TCP data segments a sender handed down
 * together share one decision, the way a qdisc on a device with segmentation offload
 * sees a GSO super-packet: consecutive data segments of one direction, each within
 * PQ_LOSS_BURST_GAP_NS of the previous, up to and including the first that carries PSH,
 * SYN or FIN (Linux marks the last segment of each write with PSH, and segmenting a
 * super-packet leaves PSH on its last segment only), and at most PQ_LOSS_BURST_BYTES of
 * payload (GSO's 64 KiB). Anything else (ACKs, UDP) is a burst of one. */
enum pq_loss_unit { PQ_LOSS_UNIT_SEGMENT = 0, PQ_LOSS_UNIT_BURST = 1 };
#define PQ_LOSS_UNIT_CHOICES "segment|burst"
#define PQ_LOSS_BURST_GAP_NS 1000000LL /* 1 ms: far below any round trip a burst spans */
#define PQ_LOSS_BURST_BYTES 65536u

/* Random loss. Bernoulli with probability `p` when `ge_p` is 0; otherwise a
 * Gilbert-Elliott chain: good -> bad with probability ge_p per decision, bad -> good
 * with ge_r, loss probability loss_bad in the bad state and loss_good in the good one.
 * `unit` (enum pq_loss_unit) is what one decision covers. */
typedef struct pq_loss_cfg {
	double p;
	double ge_p, ge_r, loss_bad, loss_good;
	int unit;
} pq_loss_cfg;
pq_stage *pq_stage_loss_new(const pq_loss_cfg *cfg, uint64_t seed);

/* The mean share of decisions lost: p, or Gilbert-Elliott's stationary share of the bad
 * state weighted by each state's loss. The one formula every reader of a loss
 * configuration asks (the link check, the stored loss, the client's timeout, the model). */
double pq_loss_mean(const pq_loss_cfg *l);

/* Gilbert-Elliott as the lab sets it from a mean loss and a mean burst length (decisions):
 * a lossless good state, an always-losing bad one, r = 1 / burst (burst below 1 counts as
 * 1) and p = mean r / (1 - mean), at most 1, so the stationary loss is `mean` (reachable
 * up to burst / (burst + 1)). Leaves l->unit alone. */
void pq_loss_gilbert(pq_loss_cfg *l, double mean, double burst);

/* The highest mean loss pq_loss_gilbert reaches with bursts of `burst` (below 1 counts
 * as 1): burst / (burst + 1), where the good state's exit probability becomes 1. */
double pq_loss_gilbert_most(double burst);

/* One direction's loss decisions as the loss stage makes them (its unit aside): each call
 * is one decision, Gilbert-Elliott moving first and losing with the new state's
 * probability (netem's order). The model (model/loss.h) draws from the same chain. */
typedef struct pq_loss_chain {
	pq_loss_cfg cfg;
	pq_rng rng;
	int bad;
} pq_loss_chain;
void pq_loss_chain_init(pq_loss_chain *c, const pq_loss_cfg *cfg, uint64_t seed);
int pq_loss_chain_drop(pq_loss_chain *c); /* 1: lost */

/* Serialisation at rate_bps with a drop-tail queue. A packet occupies the queue from its
 * arrival until its last bit has left (the packet on the wire counts). A packet that
 * would push the queue past limit_bytes or limit_pkts (0 = no limit of that kind) is
 * dropped. Sizes are IP packet lengths (no link-layer framing). */
pq_stage *pq_stage_rate_new(uint64_t rate_bps, uint64_t limit_bytes, uint32_t limit_pkts);

/* Serialisation time of `len` bytes at `rate_bps`, in ns (rounded up). */
int64_t pq_stage_tx_ns(uint32_t len, uint64_t rate_bps);

#endif
