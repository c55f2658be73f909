/* The loss model: how long a handshake and its first byte take when packets are lost,
 * as a distribution (p25, median, p95), from the packets the flight model says each side
 * sends and from Linux's recovery (6.5 and later, CONFIG_HZ 250):
 *   - SYN, SYN-ACK (model/syn.h): the client's SYN timer, 1 s linear five times, then
 *     doubling; the server's SYN-ACK timer (1 s, doubling, re-armed by a repeated SYN);
 *     each side's first RTT sample as timestamps make it (a lost SYN-ACK makes the
 *     client's 1 s and more: its RTO and tail loss probe grow with it); a window of 1
 *     after two SYN (SYN-ACK) retransmissions that were not undone;
 *   - data: RACK marks a segment lost when a segment sent after it is acknowledged and
 *     it has been out that one's RTT plus a reordering window (a quarter of the smallest
 *     RTT; none in recovery or with three segments SACKed above it); the tail loss probe
 *     fires 2 SRTT after the last send or the last ACK that moved the window (plus 200 ms
 *     with one segment out, 2 ms otherwise), no later than the RTO, outside recovery, one
 *     at a time; the RTO is Linux's estimator's (model/rtt.h), restarted by ACKs that
 *     move the window and by sending the first unacknowledged segment again, doubled at
 *     each expiry, then sending again from a window of one;
 *   - every timer fires on the kernel's timer wheel (model/rtt.h: a 1 s timer 0-32 ms
 *     late, a 300 ms one as much, a 150 ms one 4-8 ms);
 *   - loss in both directions, on data and on ACKs (a lost ACK's news comes with the next
 *     ACK that gets through: cumulative ACK and SACK); the receiver ACKs every segment at
 *     once (quick-ACK mode this early in a connection).
 * A seeded Monte Carlo over those packets: each trial draws every loss decision from the
 * link's own chain (net/stage.h: Bernoulli or Gilbert-Elliott), one decision per segment
 * or, with the burst unit, one per write's segments sent together (what the userspace
 * forwarder's burst unit groups). Deterministic under a seed; pure arithmetic.
 *
 * Contract: pq_model_loss_run returns 0 with *out filled, or PQ_EINVAL / PQ_ERANGE with a
 * message naming the input and the accepted range. */
#ifndef PQ_MODEL_LOSS_H
#define PQ_MODEL_LOSS_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define PQ_MODEL_LOSS_MAX 0.5	 /* --loss: accepted 0..50 % */
#define PQ_MODEL_LOSS_SEGS 128	 /* segments one side's flight may have in the model */
#define PQ_MODEL_LOSS_TRIALS 20000 /* default trials: p95 to about +-0.5 % of its rank */
#define PQ_MODEL_LOSS_MAX_CONNS 100000
#define PQ_MODEL_LOSS_GIVE_UP_MS 120000.0 /* a trial that runs past this stops there (the client's timeout) */

typedef struct pq_model_loss_in {
	double loss;  /* mean loss per direction, 0..PQ_MODEL_LOSS_MAX */
	double burst; /* 0: Bernoulli; >= 1: Gilbert-Elliott with this mean burst (decisions) */
	int unit;     /* enum pq_loss_unit */
	int64_t rtt_ns;
	size_t iw; /* both sides' initial window, segments */
	/* segments per write, in order, of each flight: the ClientHello, the server's first
	 * flight, the client's Finished and request, the server's tickets and response (the
	 * first byte is the response's first segment, the last of these writes) */
	size_t ch[8], n_ch, fl[64], n_fl, fin[8], n_fin, resp[8], n_resp;
	unsigned trials; /* 0: PQ_MODEL_LOSS_TRIALS */
	uint64_t seed;
	/* The endpoints' own delays, ms, which no link or TCP timer makes: the client writing
	 * its ClientHello after the SYN-ACK, the server answering the ClientHello, the client
	 * reading the flight (a wait for a CPU, the handshake's computation). An empirical
	 * sample (the report's: a loss-free cell's handshakes over the loss-free prediction);
	 * each trial adds one drawn from it to its handshake and first byte, after the packets
	 * are done: the delays only shift what follows them. NULL or n_delay 0: none. */
	const double *delay_ms;
	size_t n_delay;
} pq_model_loss_in;

typedef struct pq_model_loss_out {
	double hs_ms[3], ttfb_ms[3];   /* p25, median, p95, from connect(2) */
	double conn_ms[3];	       /* the same of connect(2) itself (SYN, SYN-ACK) */
	/* connections a measurement needs for its p95's 95 % interval to be narrower than a
	 * round trip, by this distribution (normal approximation of the order statistics);
	 * 0: more than PQ_MODEL_LOSS_MAX_CONNS */
	unsigned p95_conns;
	double hs_rtt[3], ttfb_rtt[3]; /* the same over the RTT */
	double clean;		       /* share of trials in which no decision lost anything */
	double delay_ms[3];	       /* p25, median, p95 of the delays drawn (0: none given) */
	unsigned decisions;	       /* loss decisions in a loss-free handshake (SYN to flight) */
} pq_model_loss_out;

/* Checks a loss rate (fraction) and a Gilbert burst; `what_loss`/`what_burst` name them. */
int pq_model_loss_check(double loss, double burst, const char *what_loss, const char *what_burst,
			pq_diag *d) PQ_MUST_USE;

int pq_model_loss_run(const pq_model_loss_in *in, pq_model_loss_out *out, pq_diag *d) PQ_MUST_USE;

/* The loss rate (a multiple of `step`, up to PQ_MODEL_LOSS_MAX) from which the model's
 * median handshake is half a round trip or more above the loss-free one: *rate, the
 * median there in round trips (*rtts) and the loss-free one (*base). 0 with *rate -1 when
 * it never is. in->loss is ignored. */
int pq_model_loss_first_extra(const pq_model_loss_in *in, double step, double *rate, double *rtts,
			      double *base, pq_diag *d) PQ_MUST_USE;

/* Why, in a sentence, for a rate from pq_model_loss_first_extra: the decisions that
 * matter and the chance that none of them loses anything there. */
void pq_model_loss_reason(const pq_model_loss_in *in, double rate, char *buf, size_t n);

/* The flights of a flight model's input: the ClientHello as one write, the server's
 * writes, the Finished and request as one segment, the tickets and the response. */
struct pq_model_in;
void pq_model_loss_from(const struct pq_model_in *net, pq_model_loss_in *out);

/* Splits `bytes` written in one write into segments of `mss` (the flight model's rule). */
size_t pq_model_loss_segs(size_t bytes, size_t mss);

#endif
