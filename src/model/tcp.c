#include "model/tcp.h"

#include <stdlib.h>

static size_t segs(size_t bytes, size_t mss)
{
	return (bytes + mss - 1) / mss;
}

/* The ACKs of a round of `sent` segments return: slow start grows the window by them
 * when the window was the limit. */
static void acked(pq_model_tcp *t, size_t sent)
{
	if (t->cwnd < 2 * sent)
		t->cwnd += sent;
}

/* The burst's segments as the sender cuts them: each write on its own while the first
 * window lasts (a unit each), the rest of the queue in full segments (one unit). */
static size_t cut(const pq_model_tcp *t, const size_t *w, size_t n, size_t *seg, unsigned *unit, size_t cap)
{
	size_t budget = t->cwnd, k = 0, queued = 0;
	for (size_t i = 0; i < n; i++) {
		size_t left = w[i];
		while (!queued && budget && left && k < cap) {
			size_t b = left < t->mss ? left : t->mss;
			seg[k] = b;
			unit[k++] = (unsigned)i;
			left -= b;
			budget--;
		}
		queued += left;
	}
	for (; queued && k < cap; k++) {
		seg[k] = queued < t->mss ? queued : t->mss;
		unit[k] = (unsigned)n;
		queued -= seg[k];
	}
	return queued ? cap + 1 : k;
}

/* When the last segment leaves, by model/pace.h; the rounds alone when it cannot say. */
static double time_burst(pq_model_tcp *t, const size_t *w, size_t n, unsigned rounds)
{
	size_t *seg = malloc(PQ_MODEL_PACE_MAX_SEGS * sizeof *seg);
	unsigned *unit = malloc(PQ_MODEL_PACE_MAX_SEGS * sizeof *unit);
	double last = -1;
	if (seg && unit) {
		size_t k = cut(t, w, n, seg, unit, PQ_MODEL_PACE_MAX_SEGS);
		if (k <= PQ_MODEL_PACE_MAX_SEGS)
			last = pq_model_pace_burst(&t->pace, t->mss, t->cwnd, seg, unit, k);
	}
	free(seg);
	free(unit);
	return last >= 0 ? last : rounds ? rounds - 1.0 : 0;
}

void pq_model_tcp_send(pq_model_tcp *t, const size_t *w, size_t n, pq_model_burst *out)
{
	size_t budget = t->cwnd, queued = 0, sent = 0, cwnd0 = t->cwnd;
	*out = (pq_model_burst){0};
	/* First round: each write segmented on its own while the window lasts. */
	for (size_t i = 0; i < n; i++) {
		if (queued) {
			queued += w[i];
			continue;
		}
		size_t k = segs(w[i], t->mss);
		if (k <= budget) {
			budget -= k;
			sent += k;
			continue;
		}
		sent += budget;
		queued = w[i] - budget * t->mss;
		budget = 0;
	}
	if (!sent)
		return;
	out->rounds = 1;
	/* Timed from the window the burst starts with; the rounds below update t->cwnd. */
	pq_model_tcp timed = *t;
	timed.cwnd = cwnd0;
	out->first_round = sent;
	out->segments = sent;
	acked(t, sent);
	/* Later rounds: the queue, cut into full segments. */
	for (size_t left = segs(queued, t->mss); left;) {
		size_t k = left < t->cwnd ? left : t->cwnd;
		left -= k;
		out->segments += k;
		out->rounds++;
		acked(t, k);
	}
	out->last_tx = time_burst(&timed, w, n, out->rounds);
	t->pace = timed.pace;
}
