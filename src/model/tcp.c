#include "model/tcp.h"

#include <stdint.h>
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

/* The receive window allows `r` more bytes this round (SIZE_MAX: no limit). */
static size_t rwnd_room(const pq_model_tcp *t)
{
	return t->rwnd ? t->rwnd : SIZE_MAX;
}

/* The receiver had a round of data: after PQ_MODEL_RWND_FLAT_ROUNDS of them its window no
 * longer holds the sender back (see tcp.h). */
static void rwnd_after(pq_model_tcp *t)
{
	if (t->rwnd && ++t->rx_rounds >= PQ_MODEL_RWND_FLAT_ROUNDS)
		t->rwnd = 0;
}

/* The rounds and segments of a burst from state *t (updated), without timing. */
static void send_rounds(pq_model_tcp *t, const size_t *w, size_t n, pq_model_burst *out)
{
	size_t budget = t->cwnd, room = rwnd_room(t), queued = 0, sent = 0;
	*out = (pq_model_burst){0};
	/* First round: each write segmented on its own while the window (and the receiver's)
	 * lasts; what either holds back waits in the queue. */
	for (size_t i = 0; i < n; i++) {
		if (queued) {
			queued += w[i];
			continue;
		}
		size_t k = segs(w[i], t->mss);
		if (k <= budget && w[i] <= room) {
			budget -= k;
			room -= room == SIZE_MAX ? 0 : w[i];
			sent += k;
			continue;
		}
		size_t b = budget * t->mss < w[i] ? budget * t->mss : w[i];
		b = b < room ? b : room;
		sent += segs(b, t->mss);
		queued = w[i] - b;
		budget = 0;
	}
	if (!sent)
		return;
	out->rounds = 1;
	out->first_round = sent;
	out->segments = sent;
	acked(t, sent);
	rwnd_after(t);
	/* Later rounds: the queue, cut into full segments, as much as both windows take. */
	while (queued) {
		size_t b = t->cwnd * t->mss;
		size_t r = rwnd_room(t);
		b = b < r ? b : r;
		b = b < queued ? b : queued;
		size_t k = segs(b, t->mss);
		queued -= b;
		out->segments += k;
		out->rounds++;
		acked(t, k);
		rwnd_after(t);
	}
}

void pq_model_tcp_send(pq_model_tcp *t, const size_t *w, size_t n, pq_model_burst *out)
{
	/* Timed from the window the burst starts with, as if the receiver did not limit it;
	 * each round its window holds back adds a whole round trip after that. */
	pq_model_tcp timed = *t, free_rx = *t;
	free_rx.rwnd = 0;
	pq_model_burst unlimited;
	send_rounds(&free_rx, w, n, &unlimited);
	send_rounds(t, w, n, out);
	if (!out->rounds)
		return;
	out->rwnd_rounds = out->rounds > unlimited.rounds ? out->rounds - unlimited.rounds : 0;
	out->last_tx = time_burst(&timed, w, n, unlimited.rounds) + out->rwnd_rounds;
	t->pace = timed.pace;
}
