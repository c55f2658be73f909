/* The loss model (model/loss.h): a seeded Monte Carlo over the handshake's packets, with
 * Linux's SYN timers, RACK, the tail loss probe and the RTO. Times are in ms. */
#include "model/loss.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "core/rng.h"
#include "core/wire.h"
#include "model/flight.h"
#include "model/rtt.h"
#include "model/syn.h"
#include "net/stage.h"

#define INF 1e18
#define GIVE_UP_MS PQ_MODEL_LOSS_GIVE_UP_MS
#define MAX_EVENTS 20000
#define RACK_MIN_MS 2.0 /* TCP_TIMEOUT_MIN_US on top of the reordering window */
#define RACK_DUPTHRESH 3 /* tp->reordering: this many SACKed above a hole, no window */

typedef struct seg {
	double tx, arrive, ack_at, retx_at;
	unsigned order, first;
	int write, delivered, acked, marked;
	int retx;  /* sent again by RACK or the RTO: recovery (the probe is not) */
	int again; /* sent more than once: no RTT sample of its own (Karn) */
} seg;

/* One end as a sender, across its flights: its RTT estimator and its sending order. */
typedef struct side {
	pq_rtt est;
	unsigned order, rtt_seq;
} side;

/* One flight from one side to the other: its segments and the sender's recovery state. */
typedef struct flight {
	seg s[PQ_MODEL_LOSS_SEGS];
	size_t n, cum; /* cum: the segments acknowledged cumulatively */
	double R, phase, cwnd;
	double tlp_at, rto_at, first_arrival;
	int unit;
	size_t probed; /* a probe is out: the segments sent by then (tlp_high_seq); 0 none */
	side *sd;
	pq_loss_chain *ch, *back; /* the data's direction, and its ACKs' */
} flight;

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
static double run_flight(flight *f, side *sd, const size_t *w, size_t nw, size_t need, double t0, double cwnd)
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

int pq_model_loss_check(double loss, double burst, const char *what_loss, const char *what_burst, pq_diag *d)
{
	if (!(loss >= 0 && loss <= PQ_MODEL_LOSS_MAX))
		return pq_diag_set(d, PQ_ERANGE, "%s: %g%% is outside the model's range; give 0%% to %g%%", what_loss,
				   loss * 100, PQ_MODEL_LOSS_MAX * 100);
	if (burst != 0 && !(burst >= 1 && burst <= 1000))
		return pq_diag_set(d, PQ_ERANGE,
				   "%s: %g packets is no Gilbert-Elliott mean burst; give 1 to 1000 packets "
				   "(or none for Bernoulli loss)",
				   what_burst, burst);
	/* bursts of B reach a mean loss of B / (B + 1) >= 50 %: every rate above is reachable */
	return 0;
}

static double quantile_of(const double *v, size_t n, double q)
{
	return v[(size_t)(q * (double)(n - 1) + 0.5)];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static size_t sum(const size_t *w, size_t n)
{
	size_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += w[i];
	return s;
}

/* One trial's randomness: each direction's loss chain, and where the jiffy clock ticks. */
typedef struct trial {
	pq_loss_chain *up, *down;
	pq_rng *rng;
	double R;
	int unit;
} trial;

static double flight_from(flight *f, const trial *t, side *sd, int c2s, const size_t *w, size_t nw, size_t need,
			  double t0, double cwnd)
{
	f->ch = c2s ? t->up : t->down;
	f->back = c2s ? t->down : t->up;
	return run_flight(f, sd, w, nw, need, t0, cwnd);
}

/* One connection: connect, ClientHello, the server's flight (the handshake), Finished and
 * request, tickets and the response's first segment (the first byte). */
static void one_trial(const pq_model_loss_in *in, flight *f, const trial *t, double *conn, double *hs, double *fb)
{
	pq_syn syn;
	side client = {0}, server = {0};
	int iw1;
	f->R = t->R;
	f->unit = t->unit;
	f->phase = pq_rng_uniform(t->rng) * PQ_RTT_JIFFY_MS;
	pq_syn_connect(&syn, t->R, f->phase, t->up, t->down, GIVE_UP_MS);
	*conn = syn.connected;
	if (syn.connected >= GIVE_UP_MS) {
		*hs = *fb = GIVE_UP_MS;
		return;
	}
	pq_rtt_sample(&client.est, pq_syn_client_sample(&syn, &iw1), 0);
	client.rtt_seq = 1;
	double cw = iw1 ? 1 : (double)in->iw;
	/* the client's ACK of the SYN-ACK, then its ClientHello: the first of them through
	 * ends the server's handshake and times its first RTT sample */
	double ack = pq_loss_chain_drop(t->up) ? INF : syn.connected + t->R / 2;
	double s1 = flight_from(f, t, &client, 1, in->ch, in->n_ch, SIZE_MAX, syn.connected, cw);
	if (s1 >= GIVE_UP_MS) {
		*hs = *fb = GIVE_UP_MS;
		return;
	}
	pq_rtt_sample(&server.est, pq_syn_server_sample(&syn, fmin(ack, f->first_arrival), &iw1), 0);
	server.rtt_seq = 1;
	*hs = flight_from(f, t, &server, 0, in->fl, in->n_fl, SIZE_MAX, s1, iw1 ? 1 : (double)in->iw);
	double s2 = flight_from(f, t, &client, 1, in->fin, in->n_fin, SIZE_MAX, *hs, cw);
	*fb = flight_from(f, t, &server, 0, in->resp, in->n_resp, sum(in->resp, in->n_resp - 1) + 1, s2,
			  (double)in->iw);
}

static void percentiles(double *v, unsigned n, double R, double *ms, double *rtt)
{
	static const double q[3] = {0.25, 0.5, 0.95};
	qsort(v, n, sizeof *v, cmp_double);
	for (int k = 0; k < 3; k++) {
		ms[k] = quantile_of(v, n, q[k]);
		if (rtt)
			rtt[k] = ms[k] / R;
	}
}

/* The fewest connections (in steps of a quarter) whose p95 interval, read off the sorted
 * model distribution v, spans less than R. */
static unsigned p95_conns(const double *v, unsigned n, double R)
{
	for (unsigned m = 10; m <= PQ_MODEL_LOSS_MAX_CONNS; m += m / 4) {
		double h = 1.96 * sqrt(0.95 * 0.05 / m);
		if (quantile_of(v, n, fmin(1, 0.95 + h)) - quantile_of(v, n, 0.95 - h) < R)
			return m;
	}
	return 0;
}

int pq_model_loss_run(const pq_model_loss_in *in, pq_model_loss_out *out, pq_diag *d)
{
	memset(out, 0, sizeof *out);
	int rc = pq_model_loss_check(in->loss, in->burst, "loss", "burst", d);
	if (rc < 0)
		return rc;
	if (in->rtt_ns <= 0 || !in->n_ch || !in->n_fl || !in->n_fin || !in->n_resp ||
	    sum(in->fl, in->n_fl) > PQ_MODEL_LOSS_SEGS)
		return pq_diag_set(d, PQ_EINVAL, "loss model: needs an RTT above 0 and each side's flight "
						 "(1 to %d segments)", PQ_MODEL_LOSS_SEGS);
	for (size_t i = 0; in->delay_ms && i < in->n_delay; i++)
		if (!(in->delay_ms[i] >= 0 && in->delay_ms[i] <= GIVE_UP_MS))
			return pq_diag_set(d, PQ_EINVAL, "loss model: the endpoints' delay %g ms is not one; give "
							 "0 to %.0f ms", in->delay_ms[i], GIVE_UP_MS);
	if (in->n_delay && !in->delay_ms)
		return pq_diag_set(d, PQ_EINVAL, "loss model: endpoint delays: %zu announced, none given", in->n_delay);
	unsigned n = in->trials ? in->trials : PQ_MODEL_LOSS_TRIALS;
	double *hs = malloc(n * sizeof *hs), *fb = malloc(n * sizeof *fb), *cn = malloc(n * sizeof *cn);
	double *dl = malloc(n * sizeof *dl);
	flight *f = malloc(sizeof *f);
	if (!hs || !fb || !cn || !dl || !f) {
		rc = pq_diag_set(d, PQ_ENOMEM, "loss model: out of memory for %u trials", n);
		goto out;
	}
	pq_loss_cfg cfg = {.p = in->loss, .unit = in->unit}, none = {0};
	if (in->burst >= 1 && in->loss > 0)
		pq_loss_gilbert(&cfg, in->loss, in->burst);
	pq_loss_chain up, down, up0, down0;
	pq_loss_chain_init(&up, &cfg, in->seed);
	pq_loss_chain_init(&down, &cfg, in->seed ^ 0x9e3779b97f4a7c15ull);
	pq_loss_chain_init(&up0, &none, 1);
	pq_loss_chain_init(&down0, &none, 1);
	pq_rng rng, drng;
	pq_rng_seed(&rng, in->seed ^ 0x5851f42d4c957f2dull);
	pq_rng_seed(&drng, in->seed ^ 0x2545f4914f6cdd1dull);
	double R = (double)in->rtt_ns / 1e6, base, base_fb, base_cn;
	memset(f, 0, sizeof *f);
	trial t0 = {&up0, &down0, &rng, R, in->unit}, t = {&up, &down, &rng, R, in->unit};
	one_trial(in, f, &t0, &base_cn, &base, &base_fb);
	size_t clean = 0;
	for (unsigned i = 0; i < n; i++) {
		one_trial(in, f, &t, &cn[i], &hs[i], &fb[i]);
		clean += hs[i] <= base + 1e-6;
		/* its own draw, so that the packets' draws are the same with and without delays */
		dl[i] = in->n_delay ? in->delay_ms[pq_rng_u64(&drng) % in->n_delay] : 0;
		hs[i] += dl[i];
		fb[i] += dl[i];
	}
	percentiles(dl, n, R, out->delay_ms, NULL);
	percentiles(hs, n, R, out->hs_ms, out->hs_rtt);
	percentiles(fb, n, R, out->ttfb_ms, out->ttfb_rtt);
	percentiles(cn, n, R, out->conn_ms, NULL);
	out->p95_conns = p95_conns(hs, n, R);
	out->clean = (double)clean / n;
	out->decisions = 2 + (unsigned)(in->unit == PQ_LOSS_UNIT_BURST ? in->n_ch + in->n_fl
								       : sum(in->ch, in->n_ch) + sum(in->fl, in->n_fl));
out:
	free(hs);
	free(fb);
	free(cn);
	free(dl);
	free(f);
	return rc;
}

int pq_model_loss_first_extra(const pq_model_loss_in *in, double step, double *rate, double *rtts, double *base,
			      pq_diag *d)
{
	pq_model_loss_in x = *in;
	pq_model_loss_out o;
	x.loss = 0;
	int rc = pq_model_loss_run(&x, &o, d);
	*rate = -1;
	*base = *rtts = o.hs_rtt[1];
	for (int k = 1; rc == 0 && k * step <= PQ_MODEL_LOSS_MAX + 1e-9; k++) {
		x.loss = k * step;
		if ((rc = pq_model_loss_run(&x, &o, d)) == 0 && o.hs_rtt[1] >= *base + 0.5) {
			*rate = x.loss;
			*rtts = o.hs_rtt[1];
			break;
		}
	}
	return rc;
}

void pq_model_loss_reason(const pq_model_loss_in *in, double rate, char *buf, size_t n)
{
	size_t segs = sum(in->ch, in->n_ch) + sum(in->fl, in->n_fl);
	unsigned k = 2 + (unsigned)(in->unit == PQ_LOSS_UNIT_BURST ? in->n_ch + in->n_fl : segs);
	snprintf(buf, n,
		 "the handshake rests on %u loss decisions (SYN, SYN-ACK and %zu data segments%s); at %.1f%% "
		 "the chance that none is lost, %.0f%% under independent loss, falls near or below one "
		 "half, and the median handshake waits for a recovery (RACK a quarter round trip after "
		 "the next ACK, a tail loss probe after 2 RTT, or a SYN timer of 1 s)",
		 k, segs, in->unit == PQ_LOSS_UNIT_BURST ? " in writes that share a decision" : "", rate * 100,
		 100 * pow(1 - rate, k));
}

size_t pq_model_loss_segs(size_t bytes, size_t mss)
{
	return bytes && mss ? (bytes + mss - 1) / mss : 1;
}

void pq_model_loss_from(const pq_model_in *net, pq_model_loss_in *out)
{
	size_t mss = net->mss ? net->mss : PQ_WIRE_MSS_DEFAULT;
	out->iw = net->iw ? net->iw : PQ_WIRE_IW_DEFAULT;
	out->n_ch = 1;
	out->ch[0] = pq_model_loss_segs(net->client_hello, mss);
	out->n_fl = 0;
	for (size_t i = 0; i < net->n_server_writes && out->n_fl < 64; i++)
		out->fl[out->n_fl++] = pq_model_loss_segs(net->server_writes[i], mss);
	out->n_fin = 1;
	out->fin[0] = 1; /* Finished and the request: one short write */
	out->n_resp = 0;
	if (net->tickets)
		out->resp[out->n_resp++] = pq_model_loss_segs(net->tickets, mss);
	out->resp[out->n_resp++] = pq_model_loss_segs(net->response, mss);
}
