#include "model/pace.h"

#include <math.h>
#include <stdlib.h>

/* One segment's record at send time, for the delivery-rate sample of its ACK
 * (tcp_rate_skb_sent / tcp_rate_skb_delivered). */
typedef struct sent {
	double at;	  /* when it left */
	double first_tx;  /* the send time the sampler's interval starts from */
	double dtime;	  /* the last ACK's time when it left */
	size_t delivered; /* segments ACKed when it left */
} sent;

typedef struct sim {
	pq_model_pace *p;
	size_t mss, acked, out_max;
	double cwnd, dtime, first_tx;
	sent *s;
} sim;

static double bbr_rate(const sim *m)
{
	return PQ_MODEL_BBR_HIGH_GAIN * PQ_MODEL_BBR_MARGIN * m->p->bw * (double)m->mss;
}

/* The ACK of segment k arrives: slow start (BBR: up to its target), the rate sample. */
static void ack(sim *m, size_t k, size_t sent_n, size_t skb)
{
	const sent *s = &m->s[k];
	double at = s->at + 1.0;
	m->acked++;
	m->dtime = at;
	m->first_tx = s->at;
	if (m->p->kind == PQ_MODEL_PACE_BBR) {
		double interval = fmax(s->at - s->first_tx, at - s->dtime);
		if (interval >= 1.0 - 1e-9)
			m->p->bw = fmax(m->p->bw, (double)(m->acked - s->delivered) / interval);
		double target = 2.0 * m->p->bw + 3.0 * (double)skb;
		if (m->cwnd < target)
			m->cwnd += 1;
		m->p->rate = fmax(m->p->rate, bbr_rate(m));
		return;
	}
	/* Linux grows cwnd only while the flow is window-limited (tcp_is_cwnd_limited). */
	if (m->cwnd < 2.0 * (double)m->out_max)
		m->cwnd += 1;
	unsigned ratio = m->p->ss_ratio ? m->p->ss_ratio : 200;
	size_t inflight = sent_n - m->acked;
	m->p->rate = ratio / 100.0 * (double)m->mss * fmax(m->cwnd, (double)inflight);
}

static void first_rate(sim *m)
{
	if (m->p->rate > 0)
		return;
	if (m->p->kind == PQ_MODEL_PACE_BBR) {
		m->p->bw = m->cwnd; /* cwnd / srtt, srtt being 1 */
		m->p->rate = bbr_rate(m);
	} else {
		unsigned ratio = m->p->ss_ratio ? m->p->ss_ratio : 200;
		m->p->rate = ratio / 100.0 * (double)m->mss * m->cwnd;
	}
}

double pq_model_pace_burst(pq_model_pace *p, size_t mss, size_t cwnd, const size_t *seg, const unsigned *unit,
			   size_t n)
{
	if (n > PQ_MODEL_PACE_MAX_SEGS)
		return -1;
	if (!n)
		return 0;
	sim m = {.p = p, .mss = mss, .cwnd = (double)cwnd, .s = calloc(n, sizeof(sent))};
	if (!m.s)
		return -1;
	size_t skb = p->skb_segs ? p->skb_segs : 2, i = 0;
	int paced = p->kind != PQ_MODEL_PACE_OFF;
	double t = 0, next_tx = -INFINITY, last = 0;
	first_rate(&m);
	while (i < n) {
		while (m.acked < i && m.s[m.acked].at + 1.0 <= t + 1e-12)
			ack(&m, m.acked, i, skb);
		size_t inflight = i - m.acked;
		if ((double)inflight >= m.cwnd) {
			t = m.s[m.acked].at + 1.0; /* wait for the next ACK */
			continue;
		}
		if (paced && p->segs_out >= PQ_MODEL_PACE_UNPACED_SEGS && t < next_tx) {
			t = next_tx;
			continue;
		}
		size_t k = 0, bytes = 0, quota = (size_t)m.cwnd - inflight;
		if (!inflight)
			m.first_tx = m.dtime = t;
		for (; k < skb && k < quota && i + k < n && (k == 0 || unit[i + k] == unit[i]); k++) {
			m.s[i + k] = (sent){t, m.first_tx, m.dtime, m.acked};
			bytes += seg[i + k];
		}
		i += k;
		p->segs_out += k;
		if (i - m.acked > m.out_max)
			m.out_max = i - m.acked;
		last = t;
		if (paced && p->segs_out >= PQ_MODEL_PACE_UNPACED_SEGS && p->rate > 0) {
			double from = fmax(next_tx, t), len = (double)bytes / p->rate;
			double credit = from - next_tx; /* +inf for a sender that was idle */
			next_tx = from + len - fmin(len / 2, credit);
		}
	}
	/* The rest of the burst's ACKs, for the state the next burst starts from. */
	while (m.acked < n)
		ack(&m, m.acked, n, skb);
	free(m.s);
	return last;
}
