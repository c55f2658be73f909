/* One direction of a link: its stages in order (loss, rate + queue, delay or jitter),
 * composed behind one push/pop, with per-cause counters. Like the stages it is driven by
 * the caller's `now`, so it is unit-testable with a fake clock. Not thread-safe. */
#ifndef PQ_NET_PATH_H
#define PQ_NET_PATH_H

#include <stdint.h>

#include "core/err.h"
#include "net/linkcfg.h"
#include "net/pkt.h"
#include "net/stage.h"

typedef struct pq_path_stats {
	uint64_t pkts_in, bytes_in;   /* taken from the sender */
	uint64_t pkts_out, bytes_out; /* delivered to the receiver */
	uint64_t drop_loss;           /* configured random loss */
	uint64_t drop_queue;          /* drop-tail queue overflow */
	uint64_t drop_unplanned;      /* anything else: pool exhausted, write failed, TUN drops */
} pq_path_stats;

#define PQ_PATH_MAX_STAGES 4

typedef struct pq_path {
	pq_stage *st[PQ_PATH_MAX_STAGES];
	int n;
	pq_pkt_pool *pool; /* dropped packets go back here */
	pq_path_stats stats;
} pq_path;

/* Builds the stages for `c`; `seed` makes loss and jitter reproducible. */
int pq_path_init(pq_path *p, const pq_dir_cfg *c, uint64_t seed, pq_pkt_pool *pool,
		 pq_diag *d) PQ_MUST_USE;
/* Returns every held packet to the pool and frees the stages. */
void pq_path_dispose(pq_path *p);

/* A packet arrives at `now`; the path owns it afterwards (dropped ones go to the pool). */
void pq_path_push(pq_path *p, pq_pkt *pkt, int64_t now);
/* The next packet due for delivery at `now` (its t_ready says when it was due), or NULL. */
pq_pkt *pq_path_pop(pq_path *p, int64_t now);
/* When pq_path_pop next has work: INT64_MAX when the path is empty. */
int64_t pq_path_next_ns(const pq_path *p);

#endif
