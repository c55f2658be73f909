/* One flight under loss (model/loss_int.h): Linux's sender segment by segment, the window,
 * RACK's marks, the tail loss probe and the RTO, against the receiver's ACKs, until the
 * receiver holds what the next step needs. Times are in ms. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "model/loss_int.h"
#include "model/rtt.h"
#include "net/stage.h"

#define MAX_EVENTS 20000
#define RACK_MIN_MS 2.0 /* TCP_TIMEOUT_MIN_US on top of the reordering window */
#define RACK_DUPTHRESH 3 /* tp->reordering: this many SACKed above a hole, no window */

/* Sends segments idx[0..k-1] at `now`: one decision each, or, per burst, one for each
 * run of consecutive segments of one write. */
static void transmit(flight *f, const size_t *idx, size_t k, double now)
{
	int lost = 0;
	for (size_t j = 0; j < k; j++) {
		seg *s = &f->s[idx[j]];
		int same = f->unit == PQ_LOSS_UNIT_BURST && j > 0 && idx[j] == idx[j - 1] + 1 &&
			   s->write == f->s[idx[j - 1]].write;
		if (!same)
			lost = pq_loss_chain_drop(f->ch);
		s->again |= s->tx >= 0;
		s->tx = now;
		s->order = ++f->sd->order;
		s->first = s->first ? s->first : s->order;
		s->marked = 0;
		s->retx_at = INF;
		if (lost)
			continue;
		if (!s->delivered) {
			s->delivered = 1;
			s->arrive = now + f->R / 2;
			s->ack_at = INF;
			f->first_arrival = fmin(f->first_arrival, s->arrive);
		}
		/* its ACK (a duplicate one for a copy already held; one decision of its own) may
		 * be lost: then the next ACK that gets through carries it (cumulative ACK, SACK) */
		if (!pq_loss_chain_drop(f->back) && now + f->R < s->ack_at)
			s->ack_at = now + f->R;
	}
}

/* RACK's recovery (or the RTO's loss state): a segment marked lost, or sent again by
 * RACK or the RTO and not yet acknowledged. Linux sends a tail loss probe only outside
 * it (TCP_CA_Open), and RACK waits no reordering window inside it. */
static int recovering(const flight *f)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->s[i].marked || (f->s[i].retx && !f->s[i].acked))
			return 1;
	return 0;
}

/* What the window counts: sent, not (S)ACKed, not marked lost. */
static size_t in_flight(const flight *f)
{
	size_t k = 0;
	for (size_t i = 0; i < f->n; i++)
		k += f->s[i].tx >= 0 && !f->s[i].acked && !f->s[i].marked;
	return k;
}

/* packets_out: sent and not acknowledged cumulatively (SACKed ones count). */
static unsigned outstanding(const flight *f)
{
	unsigned k = 0;
	for (size_t i = f->cum; i < f->n; i++)
		k += f->s[i].tx >= 0;
	return k;
}

/* Arms the tail loss probe, at most as late as the RTO (tcp_schedule_loss_probe); only
 * in the open state and with no probe out. `rto_left` is how far off the RTO is. */
static void arm_tlp(flight *f, double now, double rto_left)
{
	f->tlp_at = INF;
	if (!outstanding(f) || recovering(f) || f->probed)
		return;
	double t = pq_rtt_pto(&f->sd->est, outstanding(f));
	f->tlp_at = pq_rtt_fire(now, rto_left > 0 && rto_left < t ? rto_left : t, f->phase);
}

static void arm_rto(flight *f, double now)
{
	f->rto_at = outstanding(f) ? pq_rtt_fire(now, f->sd->est.rto, f->phase) : INF;
}

/* New segments, then those an RTO left marked, while the window allows; new data arms
 * the RTO when nothing was out and the probe after it (tcp_event_new_data_sent). */
static void send_more(flight *f, double now)
{
	size_t idx[PQ_MODEL_LOSS_SEGS], k = 0, out = in_flight(f);
	unsigned before = outstanding(f);
	int fresh = 0;
	for (size_t i = 0; i < f->n && out + k < f->cwnd; i++)
		if (f->s[i].tx < 0 || (f->s[i].marked && f->s[i].retx_at >= INF)) {
			fresh |= f->s[i].tx < 0;
			idx[k++] = i;
		}
	if (!k)
		return;
	transmit(f, idx, k, now);
	if (!before)
		arm_rto(f, now);
	if (fresh)
		arm_tlp(f, now, f->rto_at - now);
}

/* The segments this ACK (arriving at a) reports for the first time: its own, and all the
 * receiver held when it was sent. Their RTT sample (the oldest unretransmitted one, as
 * tcp_clean_rtx_queue and the SACK code take it; or, all retransmitted, TCP timestamps'
 * echo of the copy that made the ACK: one path RTT) goes to the estimator. */
static size_t take_ack(flight *f, double a, unsigned *top, int *advanced)
{
	size_t newly = 0, cum0 = f->cum;
	double oldest = INF;
	int round_over = 0;
	*top = 0;
	for (size_t i = 0; i < f->n; i++) {
		seg *s = &f->s[i];
		if (s->delivered && !s->acked && (s->ack_at <= a || s->arrive <= a - f->R / 2)) {
			s->acked = 1;
			newly++;
			*top = s->order > *top ? s->order : *top;
			if (!s->again)
				oldest = fmin(oldest, s->tx);
		}
	}
	while (f->cum < f->n && f->s[f->cum].acked)
		round_over |= f->s[f->cum++].first >= f->sd->rtt_seq;
	*advanced = f->cum > cum0;
	if (round_over)
		f->sd->rtt_seq = f->sd->order + 1;
	if (oldest < INF)
		pq_rtt_sample(&f->sd->est, a - oldest, round_over);
	else if (*advanced)
		pq_rtt_sample(&f->sd->est, f->R, round_over);
	return newly;
}

static void on_ack(flight *f, double a)
{
	unsigned top;
	int advanced;
	size_t newly = take_ack(f, a, &top, &advanced), sacked = 0;
	for (size_t i = f->cum; i < f->n; i++)
		sacked += f->s[i].acked;
	/* RACK: a segment sent before the newest one acknowledged and not acknowledged itself
	 * is lost once it has been out that one's RTT plus the reordering window: a quarter
	 * of the smallest RTT (at most SRTT), none in recovery or with three SACKed above it
	 * (tcp_rack_reo_wnd); a wait is RACK's timer, 2 ms later (tcp_rack_mark_lost). */
	int rec = recovering(f);
	double tx_top = 0;
	for (size_t i = 0; i < f->n; i++)
		tx_top = f->s[i].order == top ? f->s[i].tx : tx_top;
	for (size_t i = 0; i < f->n; i++) {
		seg *s = &f->s[i];
		if (s->tx < 0 || s->acked || s->marked || s->order >= top)
			continue;
		double reo = rec || sacked >= RACK_DUPTHRESH ? 0 : fmin(f->sd->est.min_rtt / 4, f->sd->est.srtt);
		double left = s->tx - tx_top + reo;
		s->marked = 1;
		s->retx_at = left > 0 ? pq_rtt_fire(a, left + RACK_MIN_MS, f->phase) : a;
	}
	f->cwnd += (double)newly;
	if (advanced) {
		/* an ACK that moves the window on clears a probe it covers and restarts the
		 * clocks: the probe when it may go, else the RTO (tcp_set_xmit_timer) */
		if (f->cum >= f->probed)
			f->probed = 0;
		arm_rto(f, a);
		arm_tlp(f, a, f->sd->est.rto);
	}
	send_more(f, a);
}

static void on_retx(flight *f, double t)
{
	size_t idx[PQ_MODEL_LOSS_SEGS] = {0}, k = 0;
	int head = 0;
	for (size_t i = 0; i < f->n; i++)
		if (f->s[i].marked && f->s[i].retx_at <= t) {
			head |= i == f->cum;
			idx[k++] = i;
		}
	for (size_t j = 0; j < k; j++)
		f->s[idx[j]].retx = 1;
	transmit(f, idx, k, t);
	f->tlp_at = INF;
	if (head) /* the first unacknowledged segment sent again restarts the RTO */
		arm_rto(f, t);
}

/* The probe: new data if the window holds some back, else the last segment again; no
 * other probe until an ACK covers what was out (tcp_send_loss_probe). */
static void on_tlp(flight *f, double t)
{
	size_t i = 0, sent = 0;
	f->tlp_at = INF;
	while (i < f->n && f->s[i].tx >= 0)
		i++;
	if (i < f->n) {
		transmit(f, &i, 1, t);
	} else {
		for (i = f->n; i-- > 0;)
			if (!f->s[i].acked)
				break;
		transmit(f, &i, 1, t);
	}
	for (size_t j = 0; j < f->n; j++)
		sent = f->s[j].tx >= 0 ? j + 1 : sent;
	f->probed = sent;
	arm_rto(f, t);
}

/* The RTO: everything out and not SACKed is lost, the window is 1, the RTO doubles. */
static void on_rto(flight *f, double t)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->s[i].tx >= 0 && !f->s[i].acked) {
			f->s[i].marked = 1;
			f->s[i].retx = 1;
			f->s[i].retx_at = INF;
		}
	f->cwnd = 1;
	f->probed = 0;
	f->tlp_at = INF;
	pq_rtt_backoff(&f->sd->est);
	send_more(f, t);
	f->rto_at = pq_rtt_fire(t, f->sd->est.rto, f->phase);
}

static double next_event(const flight *f, int *what)
{
	double t = f->tlp_at;
	*what = 1;
	if (f->rto_at < t) {
		t = f->rto_at;
		*what = 2;
	}
	for (size_t i = 0; i < f->n; i++) {
		const seg *s = &f->s[i];
		if (s->delivered && !s->acked && s->ack_at < t) {
			t = s->ack_at;
			*what = 0;
		}
		if (s->marked && s->retx_at < t) {
			t = s->retx_at;
			*what = 3;
		}
	}
	return t;
}

/* When the receiver holds the first `need` segments of writes w[0..nw-1] sent from t0. */
double pq_model_loss_flight(flight *f, side *sd, const size_t *w, size_t nw, size_t need, double t0,
			    double cwnd)
{
	f->n = f->cum = 0;
	f->sd = sd;
	for (size_t i = 0; i < nw; i++)
		for (size_t j = 0; j < w[i] && f->n < PQ_MODEL_LOSS_SEGS; j++)
			f->s[f->n++] = (seg){.tx = -1, .write = (int)i, .retx_at = INF};
	if (need > f->n)
		need = f->n;
	f->cwnd = cwnd;
	f->tlp_at = f->rto_at = f->first_arrival = INF;
	f->probed = 0;
	send_more(f, t0);
	for (int ev = 0; ev < MAX_EVENTS; ev++) {
		double done = t0;
		size_t have = 0;
		for (size_t i = 0; i < need; i++)
			if (f->s[i].delivered) {
				have++;
				done = f->s[i].arrive > done ? f->s[i].arrive : done;
			}
		if (have == need)
			return done;
		int what;
		double t = next_event(f, &what);
		if (t >= t0 + GIVE_UP_MS)
			break;
		if (what == 0)
			on_ack(f, t);
		else if (what == 1)
			on_tlp(f, t);
		else if (what == 2)
			on_rto(f, t);
		else
			on_retx(f, t);
	}
	return t0 + GIVE_UP_MS;
}
