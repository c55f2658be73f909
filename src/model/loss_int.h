/* Inside the loss model (model/loss.h): one flight's sender state, shared by the trials
 * (loss.c) and the flight they run (loss_flight.c). Not for other modules.
 *
 * Contract: pq_model_loss_flight sends writes w[0..nw-1] (segments each) from side sd at
 * t0 with a window of cwnd over f's chains (f->ch the data's direction, f->back its
 * ACKs'), and returns when the receiver holds the first `need` segments (SIZE_MAX: all),
 * or t0 + GIVE_UP_MS when it does not by then; sd's RTT estimator and sending order carry
 * on to its next flight. Times are in ms. */
#ifndef PQ_MODEL_LOSS_INT_H
#define PQ_MODEL_LOSS_INT_H

#include <stddef.h>

#include "model/loss.h"
#include "model/rtt.h"
#include "net/stage.h"

#define INF 1e18
#define GIVE_UP_MS PQ_MODEL_LOSS_GIVE_UP_MS

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

double pq_model_loss_flight(flight *f, side *sd, const size_t *w, size_t nw, size_t need, double t0,
			    double cwnd);

#endif
