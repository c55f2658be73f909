/* Packets in flight through an emulated link, and the pool they come from.
 *
 * A packet is one IP datagram as read from a TUN device. Stages link packets through
 * `next` (a packet is in at most one queue at a time), so moving a packet between
 * stages never allocates. The pool hands out buffers of one fixed capacity and keeps
 * freed ones for reuse; it refuses to grow past `max` packets so a stalled reader
 * cannot make the forwarder eat the machine's memory. */
#ifndef PQ_NET_PKT_H
#define PQ_NET_PKT_H

#include <stddef.h>
#include <stdint.h>

typedef struct pq_pkt {
	struct pq_pkt *next;
	int64_t t_in;    /* when the link took the packet (ns, monotonic) */
	int64_t t_ready; /* when the stage holding it releases it */
	uint64_t seq;    /* arrival order, breaks ties between equal release times */
	uint32_t len;
	uint8_t data[];
} pq_pkt;

typedef struct pq_pkt_pool {
	pq_pkt *free_list;
	size_t cap;     /* bytes of data per packet */
	size_t live;    /* packets handed out and not returned */
	size_t total;   /* packets allocated (live + on the free list) */
	size_t max;     /* limit on total */
} pq_pkt_pool;

void pq_pkt_pool_init(pq_pkt_pool *pool, size_t cap, size_t max);
void pq_pkt_pool_dispose(pq_pkt_pool *pool); /* frees the free list; live packets must be back */
/* NULL when the pool is at its limit or memory is short. */
pq_pkt *pq_pkt_get(pq_pkt_pool *pool);
void pq_pkt_put(pq_pkt_pool *pool, pq_pkt *p); /* NULL is ignored */

/* A FIFO of packets linked through `next`. */
typedef struct pq_pkt_fifo {
	pq_pkt *head, *tail;
	size_t n;
	uint64_t bytes;
} pq_pkt_fifo;

void pq_pkt_fifo_push(pq_pkt_fifo *q, pq_pkt *p);
pq_pkt *pq_pkt_fifo_pop(pq_pkt_fifo *q);

#endif
