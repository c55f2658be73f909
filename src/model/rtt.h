/* Linux's retransmission clocks, for the loss model (model/loss.h), in ms:
 *   - the RTT estimator (tcp_rtt_estimator, tcp_set_rto): the first sample m gives
 *     SRTT m and RTTVAR max(2 m, TCP_RTO_MIN), so the RTO is m + max(2 m, 200 ms); later
 *     samples move SRTT by 1/8 and the mean deviation by 1/4, RTTVAR follows the largest
 *     deviation of a round and decays by a quarter towards it at each round's end; the
 *     RTO is SRTT + RTTVAR, doubled at each expiry and recomputed at the next sample;
 *   - the tail loss probe's timeout (tcp_schedule_loss_probe): 2 SRTT, plus TCP_RTO_MIN
 *     with one segment out (a delayed ACK's allowance) and 2 ms otherwise;
 *   - when a timer armed for d ms fires (the kernel's timer wheel at CONFIG_HZ = 250, what
 *     Debian's kernels and this lab's run): d rounded up to 4 ms jiffies, then up to its
 *     wheel level's granularity, 1 jiffy below 63 jiffies, 8 (32 ms) below 504, 64
 *     (256 ms) below 4032, and never early (calc_index rounds to the next bucket). A 1 s
 *     SYN timer fires 0-32 ms late, a 4 s one up to 256 ms.
 * Pure arithmetic; `phase` is where the jiffy clock's tick falls (0 to 4 ms), drawn once
 * per connection by the caller. */
#ifndef PQ_MODEL_RTT_H
#define PQ_MODEL_RTT_H

#define PQ_RTT_MIN_RTO_MS 200.0	   /* TCP_RTO_MIN (tcp_rto_min_us) */
#define PQ_RTT_MAX_RTO_MS 120000.0 /* TCP_RTO_MAX */
#define PQ_RTT_JIFFY_MS 4.0	   /* CONFIG_HZ = 250 */

typedef struct pq_rtt {
	double srtt, mdev, mdev_max, rttvar; /* 0 srtt: no sample yet */
	double min_rtt;			     /* the smallest sample (RACK's reordering window) */
	double rto;			     /* in force, with its backoff */
} pq_rtt;

/* A sample of m ms (m > 0). `round_over`: the ACK took the sender past the data it had
 * sent when the last round began (tcp_rtt_estimator's after(snd_una, rtt_seq)). */
void pq_rtt_sample(pq_rtt *e, double m, int round_over);

/* An RTO expired: the next one waits twice as long (at most TCP_RTO_MAX). */
void pq_rtt_backoff(pq_rtt *e);

/* The tail loss probe's timeout with `out` segments unacknowledged (1 s without a sample). */
double pq_rtt_pto(const pq_rtt *e, unsigned out);

/* When a timer armed at `now` for `delay` ms fires. */
double pq_rtt_fire(double now, double delay, double phase);

#endif
