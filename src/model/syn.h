/* TCP's handshake under loss as Linux (6.5 and later) runs it, for the loss model
 * (model/loss.h), in ms from connect(2):
 *   - the client sends its SYN at 0 and again when its timer fires: 1 s apart for the
 *     first tcp_syn_linear_timeouts + 1 = 5 retransmissions, then doubling (2, 4, 8 s...),
 *     at most tcp_syn_retries + tcp_syn_linear_timeouts = 10 times;
 *   - the server answers the first SYN to arrive with a SYN-ACK and arms a 1 s timer that
 *     doubles at each expiry (reqsk_timeout, tcp_synack_retries 5); a repeated SYN is
 *     answered at once (no more than once per tcp_invalid_ratelimit, 500 ms) and re-arms
 *     the timer (tcp_check_req);
 *   - every SYN-ACK echoes the timestamp of the SYN that made the request (a repeated SYN
 *     does not update it), so the client's first RTT sample is the time from THAT SYN to
 *     the first SYN-ACK it gets: a lost SYN-ACK makes it 1 s and more, and the client's
 *     RTO (3 samples) and tail loss probe (2 samples + 200 ms) with it;
 *   - the server's first sample runs from the SYN-ACK the client took to the first
 *     segment of the client's that reaches it (its ACK, else the ClientHello);
 *   - a side starts from a window of 1 segment when it sent its SYN (SYN-ACK) more than
 *     twice and that was not undone: the client undoes when the SYN-ACK echoes its first
 *     SYN (tcp_try_undo_spurious_syn), the server when no SYN-ACK went out on its timer
 *     or the client took its first one (tcp_create_openreq_child, tcp_init_transfer).
 * Every timer fires as model/rtt.h's timer wheel makes it. Loss decisions are drawn from
 * the link's chains, one per packet. */
#ifndef PQ_MODEL_SYN_H
#define PQ_MODEL_SYN_H

#include "net/stage.h"

#define PQ_SYN_MAX 32 /* SYNs or SYN-ACKs one connection may send in the model */

typedef struct pq_syn {
	double R, phase; /* the path's RTT; the jiffy clock's phase */
	pq_loss_chain *up, *down;
	/* the client */
	double syn_tx[PQ_SYN_MAX], syn_arr[PQ_SYN_MAX]; /* arrival: 0 when lost */
	int n_syn, syn_seen;
	double connected; /* the first SYN-ACK arrives */
	/* the server */
	int req;	  /* the SYN that made the request; -1: none yet */
	double sa_tx[PQ_SYN_MAX];
	int n_sa, accepted; /* the SYN-ACK the client took; -1: none yet */
	double sa_arrival, timer, last_oow;
	int num_timeout, num_retrans;
} pq_syn;

/* Runs SYNs and SYN-ACKs until the client holds a SYN-ACK (s->connected), or until
 * give_up ms (then s->connected is give_up). */
void pq_syn_connect(pq_syn *s, double R, double phase, pq_loss_chain *up, pq_loss_chain *down, double give_up);

/* The client's first RTT sample and whether it starts from a window of 1. */
double pq_syn_client_sample(const pq_syn *s, int *iw1);

/* Runs the server's side until `est`, when the client's first segment after the
 * handshake reaches it; its first RTT sample and whether it starts from a window of 1. */
double pq_syn_server_sample(pq_syn *s, double est, int *iw1);

#endif
