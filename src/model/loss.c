/* The loss model (model/loss.h): a seeded Monte Carlo over the handshake's packets, with
 * Linux's SYN timers, RACK, the tail loss probe and the RTO. Times are in ms. */
#include "model/loss.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "model/flight.h"
#include "net/stage.h"

#define INF 1e18
#define SYN_RTO_MS 1000.0   /* TCP_TIMEOUT_INIT */
#define SYN_RETRIES 6	    /* tcp_syn_retries */
#define SYNACK_RETRIES 5    /* tcp_synack_retries */
#define RTO_MIN_MS 200.0    /* TCP_RTO_MIN */
#define TLP_ONE_MS 200.0    /* the probe's allowance for a delayed ACK with one segment out */
#define TLP_MORE_MS 2.0	    /* TCP_TIMEOUT_MIN otherwise */
#define GIVE_UP_MS 120000.0 /* a trial that runs past this stops there (the client's timeout) */
#define MAX_EVENTS 20000

typedef struct seg {
	double tx, arrive, ack_at, retx_at;
	unsigned order;
	int write, delivered, acked, marked, retx;
} seg;

/* One flight from one side to the other: its segments and the sender's recovery state. */
typedef struct flight {
	seg s[PQ_MODEL_LOSS_SEGS];
	size_t n;
	unsigned order;
	double R, rto0, rto, cwnd;
	double tlp_at, rto_at;
	int tlp_out, unit;
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
		s->tx = now;
		s->order = ++f->order;
		s->marked = 0;
		s->retx_at = INF;
		if (lost)
			continue;
		if (!s->delivered) {
			s->delivered = 1;
			s->arrive = now + f->R / 2;
			s->ack_at = INF;
		}
		/* its ACK (a duplicate one for a copy already held; one decision of its own) may
		 * be lost: then the next ACK that gets through carries it (cumulative ACK, SACK) */
		if (!pq_loss_chain_drop(f->back) && now + f->R < s->ack_at)
			s->ack_at = now + f->R;
	}
}

/* RACK's recovery (or the RTO's loss state): a segment marked lost or sent again and not
 * yet acknowledged. Linux sends a tail loss probe only outside it (TCP_CA_Open). */
static int recovering(const flight *f)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->s[i].marked || (f->s[i].retx && !f->s[i].acked))
			return 1;
	return 0;
}

static size_t in_flight(const flight *f)
{
	size_t k = 0;
	for (size_t i = 0; i < f->n; i++)
		k += f->s[i].tx >= 0 && !f->s[i].acked && !f->s[i].marked;
	return k;
}

static double pto(const flight *f, double now)
{
	double t = 2 * f->R + (in_flight(f) == 1 ? TLP_ONE_MS : TLP_MORE_MS);
	return f->rto_at > now && f->rto_at - now < t ? f->rto_at - now : t;
}

/* New segments, then those an RTO left marked, while the window allows. */
static void send_more(flight *f, double now)
{
	size_t idx[PQ_MODEL_LOSS_SEGS], k = 0, out = in_flight(f);
	for (size_t i = 0; i < f->n && out + k < f->cwnd; i++)
		if (f->s[i].tx < 0 || (f->s[i].marked && f->s[i].retx_at >= INF))
			idx[k++] = i;
	if (k)
		transmit(f, idx, k, now);
}

static void on_ack(flight *f, double a)
{
	unsigned top = 0;
	size_t newly = 0;
	for (size_t i = 0; i < f->n; i++) {
		seg *s = &f->s[i];
		if (s->delivered && !s->acked && (s->ack_at <= a || s->arrive <= a - f->R / 2)) {
			s->acked = 1;
			newly++;
			top = s->order > top ? s->order : top;
		}
	}
	/* RACK: anything sent before the newest segment acknowledged and not acknowledged
	 * itself is lost; three later SACKs mean no reordering window. */
	for (size_t i = 0; i < f->n; i++) {
		seg *s = &f->s[i];
		if (s->tx < 0 || s->acked || s->marked || s->order >= top)
			continue;
		size_t later = 0;
		for (size_t j = 0; j < f->n; j++)
			later += f->s[j].acked && f->s[j].order > s->order;
		s->marked = 1;
		s->retx_at = a + (later >= 3 ? 0 : f->R / 4);
	}
	f->cwnd += (double)newly;
	f->rto = f->rto0;
	f->rto_at = a + f->rto;
	f->tlp_out = 0;
	send_more(f, a);
	f->tlp_at = in_flight(f) && !recovering(f) ? a + pto(f, a) : INF;
}

static void on_retx(flight *f, double t)
{
	size_t idx[PQ_MODEL_LOSS_SEGS], k = 0;
	for (size_t i = 0; i < f->n; i++)
		if (f->s[i].marked && f->s[i].retx_at <= t)
			idx[k++] = i;
	for (size_t j = 0; j < k; j++)
		f->s[idx[j]].retx = 1;
	transmit(f, idx, k, t);
}

static void on_tlp(flight *f, double t)
{
	for (size_t i = f->n; i-- > 0;) {
		if (f->s[i].tx >= 0 && !f->s[i].acked) {
			transmit(f, &i, 1, t);
			break;
		}
	}
	f->tlp_out = 1;
	f->tlp_at = INF;
	f->rto_at = t + f->rto;
}

static void on_rto(flight *f, double t)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->s[i].tx >= 0 && !f->s[i].acked) {
			f->s[i].marked = 1;
			f->s[i].retx = 1;
			f->s[i].retx_at = INF;
		}
	f->cwnd = 1;
	f->rto *= 2;
	f->rto_at = t + f->rto;
	f->tlp_at = INF;
	send_more(f, t);
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
static double run_flight(flight *f, const size_t *w, size_t nw, size_t need, double t0, double cwnd)
{
	f->n = 0;
	for (size_t i = 0; i < nw; i++)
		for (size_t j = 0; j < w[i] && f->n < PQ_MODEL_LOSS_SEGS; j++)
			f->s[f->n++] = (seg){.tx = -1, .write = (int)i, .retx_at = INF};
	if (need > f->n)
		need = f->n;
	f->cwnd = cwnd;
	f->rto = f->rto0;
	f->rto_at = t0 + f->rto;
	f->tlp_out = 0;
	send_more(f, t0);
	f->tlp_at = t0 + pto(f, t0);
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

/* SYN, SYN-ACK: when the client holds a SYN-ACK; *c_rtx, *s_rtx the retransmissions. */
static double connect_time(pq_loss_chain *up, pq_loss_chain *down, double R, int *c_rtx, int *s_rtx)
{
	double syn_tx = 0, arrival = INF, sa_timer = INF, sa_gap = SYN_RTO_MS, connected = INF;
	int ks = 0, ksa = 0, req = 0;
	for (;;) {
		double t = fmin(syn_tx, fmin(arrival, sa_timer));
		if (t >= connected || t >= GIVE_UP_MS)
			break;
		int send_sa = 0;
		if (t == syn_tx) {
			if (!pq_loss_chain_drop(up))
				arrival = fmin(arrival, t + R / 2);
			ks++;
			syn_tx = ks <= SYN_RETRIES ? SYN_RTO_MS * (double)((1 << ks) - 1) : INF;
		} else if (t == arrival) {
			arrival = INF;
			send_sa = 1;
			ksa += req;
			if (!req)
				sa_timer = t + sa_gap;
			req = 1;
		} else {
			send_sa = 1;
			ksa++;
			sa_gap *= 2;
			sa_timer = ksa < SYNACK_RETRIES ? t + sa_gap : INF;
		}
		if (send_sa && !pq_loss_chain_drop(down))
			connected = fmin(connected, t + R / 2);
	}
	*c_rtx = ks - 1;
	*s_rtx = ksa;
	return connected < GIVE_UP_MS ? connected : GIVE_UP_MS;
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

static double quantile(double *v, size_t n, double q)
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

/* One connection: connect, ClientHello, the server's flight (the handshake), Finished and
 * request, tickets and the response's first segment (the first byte). */
static void one_trial(const pq_model_loss_in *in, flight *f, pq_loss_chain *up, pq_loss_chain *down, double *hs,
		      double *fb)
{
	int crtx, srtx;
	double c = connect_time(up, down, f->R, &crtx, &srtx);
	f->ch = up;
	f->back = down;
	double s1 = run_flight(f, in->ch, in->n_ch, SIZE_MAX, c, crtx >= 2 ? 1 : (double)in->iw);
	f->ch = down;
	f->back = up;
	*hs = run_flight(f, in->fl, in->n_fl, SIZE_MAX, s1, srtx >= 2 ? 1 : (double)in->iw);
	f->ch = up;
	f->back = down;
	double s2 = run_flight(f, in->fin, in->n_fin, SIZE_MAX, *hs, (double)in->iw);
	f->ch = down;
	f->back = up;
	*fb = run_flight(f, in->resp, in->n_resp, sum(in->resp, in->n_resp - 1) + 1, s2, (double)in->iw);
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
	unsigned n = in->trials ? in->trials : PQ_MODEL_LOSS_TRIALS;
	double *hs = malloc(n * sizeof *hs), *fb = malloc(n * sizeof *fb);
	flight *f = malloc(sizeof *f);
	if (!hs || !fb || !f) {
		rc = pq_diag_set(d, PQ_ENOMEM, "loss model: out of memory for %u trials", n);
		goto out;
	}
	pq_loss_cfg cfg = {.p = in->loss, .unit = in->unit};
	if (in->burst >= 1 && in->loss > 0)
		pq_loss_gilbert(&cfg, in->loss, in->burst);
	pq_loss_chain up, down;
	pq_loss_chain_init(&up, &cfg, in->seed);
	pq_loss_chain_init(&down, &cfg, in->seed ^ 0x9e3779b97f4a7c15ull);
	double R = (double)in->rtt_ns / 1e6;
	memset(f, 0, sizeof *f);
	f->R = R;
	f->rto0 = R + fmax(2 * R, RTO_MIN_MS);
	f->unit = in->unit;
	pq_loss_cfg none = {0};
	pq_loss_chain up0, down0;
	pq_loss_chain_init(&up0, &none, 1);
	pq_loss_chain_init(&down0, &none, 1);
	double base, base_fb;
	one_trial(in, f, &up0, &down0, &base, &base_fb);
	size_t clean = 0;
	for (unsigned i = 0; i < n; i++) {
		one_trial(in, f, &up, &down, &hs[i], &fb[i]);
		clean += hs[i] <= base + 1e-6;
	}
	qsort(hs, n, sizeof *hs, cmp_double);
	qsort(fb, n, sizeof *fb, cmp_double);
	static const double q[3] = {0.25, 0.5, 0.95};
	for (int k = 0; k < 3; k++) {
		out->hs_ms[k] = quantile(hs, n, q[k]);
		out->ttfb_ms[k] = quantile(fb, n, q[k]);
		out->hs_rtt[k] = out->hs_ms[k] / R;
		out->ttfb_rtt[k] = out->ttfb_ms[k] / R;
	}
	out->clean = (double)clean / n;
	out->decisions = 2 + (unsigned)(in->unit == PQ_LOSS_UNIT_BURST ? in->n_ch + in->n_fl
								       : sum(in->ch, in->n_ch) + sum(in->fl, in->n_fl));
out:
	free(hs);
	free(fb);
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
	size_t mss = net->mss ? net->mss : 1448;
	out->iw = net->iw ? net->iw : 10;
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
