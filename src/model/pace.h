/* When a burst's segments leave, not only in which round trip: Linux's pacing as it
 * applies to a flow that starts (net/ipv4/tcp_output.c, tcp_rate.c, tcp_bbr.c).
 *
 *  - A flow is paced when its congestion control asks for it (BBR) or the qdisc does
 *    (fq); cubic and reno over pfifo_fast are not paced at all: each window is a burst.
 *  - The connection's first 10 data segments are never paced (tcp_update_skb_after_send:
 *    data_segs_out >= 10), so a flight that fits the initial window is one burst anyway.
 *  - After them, each skb (2 segments with GSO, Linux's tcp_min_tso_segs; 1 without)
 *    holds the next back by its length over the pacing rate; an idle sender is forgiven
 *    at most half of that (the "credit" for OS jitter).
 *  - The rate: with fq, ratio x cwnd / srtt (net.ipv4.tcp_pacing_ss_ratio, 200 % in slow
 *    start); BBR in STARTUP: 2.885 x 0.99 x its bandwidth estimate, which starts at
 *    cwnd / srtt and is the largest delivery-rate sample so far (delivered segments over
 *    the longer of the send and the ACK interval, never over less than min RTT), and only
 *    grows. BBR's cwnd grows like slow start up to 2 x bw x RTT + 3 skbs.
 *  - The client ACKs every segment on arrival (quick ACKs: Linux's first ones are) and
 *    ACKs return one RTT after their segment left; no loss, no CPU time.
 * Time is in round trips, from the burst's first write. Pure arithmetic; the state
 * carries over the bursts of one connection. */
#ifndef PQ_MODEL_PACE_H
#define PQ_MODEL_PACE_H

#include <stddef.h>

enum pq_model_pacing {
	PQ_MODEL_PACE_OFF,   /* cubic/reno without fq: windows leave as bursts */
	PQ_MODEL_PACE_RATIO, /* fq: ratio x cwnd / srtt */
	PQ_MODEL_PACE_BBR,   /* BBR STARTUP, internal pacing */
};

#define PQ_MODEL_PACE_UNPACED_SEGS 10 /* Linux paces from the connection's 10th data segment on */
#define PQ_MODEL_BBR_HIGH_GAIN 2.885
#define PQ_MODEL_BBR_MARGIN 0.99
#define PQ_MODEL_PACE_MAX_SEGS 4096 /* bursts of more are not timed (last_tx < 0) */

typedef struct pq_model_pace {
	enum pq_model_pacing kind;
	unsigned ss_ratio; /* RATIO: % of cwnd/srtt in slow start; 0 means Linux's 200 */
	size_t skb_segs;   /* segments sent (and paced) as one skb; 0 means 2 (GSO on) */
	/* state over one connection's bursts */
	size_t segs_out;   /* data segments sent so far */
	double bw;	   /* BBR: segments per RTT, 0 before the first burst */
	double rate;	   /* bytes per RTT, 0 before the first burst */
} pq_model_pace;

/* Times a burst: segments seg[0..n-1] (bytes each; unit[i] != unit[i-1] where a new skb
 * must start, e.g. a new write), sent from a window of cwnd segments with everything
 * before acknowledged. Returns when the last segment leaves (round trips after the burst
 * starts; 0 for a burst that goes at once), or -1 when n is above
 * PQ_MODEL_PACE_MAX_SEGS. */
double pq_model_pace_burst(pq_model_pace *p, size_t mss, size_t cwnd, const size_t *seg, const unsigned *unit,
			   size_t n);

#endif
