#include "net/pkt.h"

#include <stdlib.h>

void pq_pkt_pool_init(pq_pkt_pool *pool, size_t cap, size_t max)
{
	pool->free_list = NULL;
	pool->cap = cap;
	pool->live = pool->total = 0;
	pool->max = max;
}

void pq_pkt_pool_dispose(pq_pkt_pool *pool)
{
	while (pool->free_list) {
		pq_pkt *p = pool->free_list;
		pool->free_list = p->next;
		free(p);
	}
	pool->total = pool->live;
}

pq_pkt *pq_pkt_get(pq_pkt_pool *pool)
{
	pq_pkt *p = pool->free_list;
	if (p) {
		pool->free_list = p->next;
	} else {
		if (pool->total >= pool->max)
			return NULL;
		p = malloc(sizeof *p + pool->cap);
		if (!p)
			return NULL;
		pool->total++;
	}
	pool->live++;
	p->next = NULL;
	p->len = 0;
	return p;
}

void pq_pkt_put(pq_pkt_pool *pool, pq_pkt *p)
{
	if (!p)
		return;
	p->next = pool->free_list;
	pool->free_list = p;
	pool->live--;
}

void pq_pkt_fifo_push(pq_pkt_fifo *q, pq_pkt *p)
{
	p->next = NULL;
	if (q->tail)
		q->tail->next = p;
	else
		q->head = p;
	q->tail = p;
	q->n++;
	q->bytes += p->len;
}

pq_pkt *pq_pkt_fifo_pop(pq_pkt_fifo *q)
{
	pq_pkt *p = q->head;
	if (!p)
		return NULL;
	q->head = p->next;
	if (!q->head)
		q->tail = NULL;
	q->n--;
	q->bytes -= p->len;
	p->next = NULL;
	return p;
}
