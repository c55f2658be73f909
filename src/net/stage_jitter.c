/* Variable delay stage. Keeping order makes release times non-decreasing, so a FIFO
 * holds them; reordering needs a min-heap on (release time, arrival order). */
#include <stdlib.h>

#include "net/stage.h"

typedef struct jitter_stage {
	pq_stage base;
	int64_t base_ns, jitter_ns;
	enum pq_dist dist;
	int reorder;
	pq_rng rng;
	int64_t last_ready;
	uint64_t seq;
	pq_pkt_fifo q;  /* keep-order mode */
	pq_pkt **heap;  /* reorder mode */
	size_t n, cap;
} jitter_stage;

static double jitter_sample(jitter_stage *j)
{
	switch (j->dist) {
	case PQ_DIST_UNIFORM:
		return (2.0 * pq_rng_uniform(&j->rng) - 1.0) * (double)j->jitter_ns;
	case PQ_DIST_PARETONORMAL:
		return pq_rng_paretonormal(&j->rng, (double)j->jitter_ns);
	case PQ_DIST_NORMAL:
	default:
		return pq_rng_normal(&j->rng) * (double)j->jitter_ns;
	}
}

static int earlier(const pq_pkt *a, const pq_pkt *b)
{
	return a->t_ready < b->t_ready || (a->t_ready == b->t_ready && a->seq < b->seq);
}

static void heap_swap(pq_pkt **h, size_t a, size_t b)
{
	pq_pkt *t = h[a];
	h[a] = h[b];
	h[b] = t;
}

static int heap_push(jitter_stage *j, pq_pkt *p)
{
	if (j->n == j->cap) {
		size_t cap = j->cap ? j->cap * 2 : 256;
		pq_pkt **h = realloc(j->heap, cap * sizeof *h);
		if (!h)
			return PQ_ENOMEM;
		j->heap = h;
		j->cap = cap;
	}
	size_t i = j->n++;
	j->heap[i] = p;
	while (i > 0 && earlier(j->heap[i], j->heap[(i - 1) / 2])) {
		heap_swap(j->heap, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	return 0;
}

static pq_pkt *heap_pop(jitter_stage *j)
{
	pq_pkt *top = j->heap[0];
	j->heap[0] = j->heap[--j->n];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < j->n && earlier(j->heap[l], j->heap[m]))
			m = l;
		if (r < j->n && earlier(j->heap[r], j->heap[m]))
			m = r;
		if (m == i)
			break;
		heap_swap(j->heap, i, m);
		i = m;
	}
	return top;
}

static int jitter_push(pq_stage *s, pq_pkt *p, int64_t now)
{
	jitter_stage *j = (jitter_stage *)s;
	double d = (double)j->base_ns + jitter_sample(j);
	p->t_ready = now + (d > 0 ? (int64_t)d : 0);
	p->seq = j->seq++;
	if (!j->reorder) {
		if (p->t_ready < j->last_ready)
			p->t_ready = j->last_ready;
		j->last_ready = p->t_ready;
		pq_pkt_fifo_push(&j->q, p);
		return PQ_STAGE_KEPT;
	}
	/* Out of memory for the heap: count it as a queue drop rather than lose track. */
	return heap_push(j, p) ? PQ_STAGE_DROP_QUEUE : PQ_STAGE_KEPT;
}

static int64_t jitter_next(const pq_stage *s)
{
	const jitter_stage *j = (const jitter_stage *)s;
	if (!j->reorder)
		return j->q.head ? j->q.head->t_ready : INT64_MAX;
	return j->n ? j->heap[0]->t_ready : INT64_MAX;
}

static pq_pkt *jitter_pop(pq_stage *s, int64_t now)
{
	jitter_stage *j = (jitter_stage *)s;
	int empty = j->reorder ? j->n == 0 : j->q.head == NULL;
	if (empty || jitter_next(s) > now)
		return NULL;
	return j->reorder ? heap_pop(j) : pq_pkt_fifo_pop(&j->q);
}

static void jitter_free(pq_stage *s)
{
	jitter_stage *j = (jitter_stage *)s;
	free(j->heap);
	free(j);
}

static const pq_stage_ops jitter_ops = {"jitter", jitter_push, jitter_pop, jitter_next, jitter_free};

pq_stage *pq_stage_jitter_new(int64_t base_ns, int64_t jitter_ns, enum pq_dist dist, int reorder,
			      uint64_t seed)
{
	jitter_stage *j = calloc(1, sizeof *j);
	if (!j)
		return NULL;
	j->base.ops = &jitter_ops;
	j->base_ns = base_ns;
	j->jitter_ns = jitter_ns;
	j->dist = dist;
	j->reorder = reorder;
	j->last_ready = INT64_MIN;
	pq_rng_seed(&j->rng, seed);
	return &j->base;
}
