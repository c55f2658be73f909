/* The loss model (model/loss.h): a seeded Monte Carlo over the handshake's packets, its
 * trials (Linux's SYN timers, then each flight's recovery: loss_flight.c), their percentiles
 * and the model's inputs from the flight model's. Times are in ms. */
#include "model/loss.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "core/rng.h"
#include "core/wire.h"
#include "model/flight.h"
#include "model/loss_int.h"
#include "model/rtt.h"
#include "model/syn.h"
#include "net/stage.h"

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
	return pq_model_loss_flight(f, sd, w, nw, need, t0, cwnd);
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
