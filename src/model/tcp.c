#include "model/tcp.h"

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

void pq_model_tcp_send(pq_model_tcp *t, const size_t *w, size_t n, pq_model_burst *out)
{
	size_t budget = t->cwnd, queued = 0, sent = 0;
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
}
