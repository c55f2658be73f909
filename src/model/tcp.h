/* TCP's delivery of a burst of writes in slow start, round trip by round trip: the part
 * of the flight model that does not know TLS (model/flight.h does).
 *
 * The sender's rules, as Linux applies them (net/ipv4/tcp_output.c, tcp_cong.c):
 *  - with TCP_NODELAY each write is sent at once while the window allows, so each
 *    write's tail is its own short segment: a write of w bytes is ceil(w / MSS) segments;
 *  - bytes the window holds back wait in the send queue, where later writes join them
 *    and are cut into full segments when the window opens;
 *  - a round trip sends at most cwnd segments; when its ACKs return (the client ACKs
 *    at least every second segment, and Linux grows cwnd by the segments ACKed, not by
 *    the ACKs), slow start adds the segments ACKed to cwnd, but only while the flow is
 *    window-limited (cwnd < 2 x the segments in flight, tcp_is_cwnd_limited);
 *  - the receiver's window (rwnd, when set): a round sends at most rwnd bytes beyond
 *    what was acknowledged (with TCP_NODELAY the last segment is cut to fit). Linux's
 *    client advertises its initial window (from tcp_rmem[1]: 64,512 bytes with Debian's
 *    131072 and window scale 10) and keeps to about that while it reads the first rounds
 *    of a large flight: its receive-buffer autotuning (tcp_rcv_space_adjust) raises the
 *    window clamp only once it has read more than a round's worth within a round trip,
 *    and OpenSSL reads a record only when all of it is there. Measured across a 50 ms
 *    link (docs/model.md, "The client's receive window"): 64.5, 51 to 70 and 65.5 kB in
 *    the first three rounds, 133 kB and more from the fourth. So the window is rwnd for
 *    the first PQ_MODEL_RWND_FLAT_ROUNDS rounds of data and no limit after them. The
 *    window itself is read from the stack, not computed here (the server socket's
 *    tcp_info snd_wnd of a connection across the link, net/ktcp.h);
 *  - no loss; pacing (model/pace.h) times the segments when
 *    the flow is paced, so a burst's last segment may leave a fraction of a round trip
 *    after its round began.
 * Pure arithmetic; the state is the congestion window carried from one burst to the
 * next on the same connection. */
#ifndef PQ_MODEL_TCP_H
#define PQ_MODEL_TCP_H

#include <stddef.h>

/* IPv4 and TCP headers with the timestamp option: the MSS is the MTU less this. */
#define PQ_MODEL_TCPIP_HEADERS 52
#include "model/pace.h"

/* Rounds of data the client receives before its window grows (see above). */
#define PQ_MODEL_RWND_FLAT_ROUNDS 3

typedef struct pq_model_tcp {
	size_t mss;  /* bytes of payload per segment */
	size_t cwnd; /* segments */
	size_t rwnd; /* the receiver's window, bytes; 0: not limited */
	unsigned rx_rounds; /* rounds of data the receiver has had */
	pq_model_pace pace; /* zero: not paced */
} pq_model_tcp;

typedef struct pq_model_burst {
	size_t segments;   /* sent in all */
	unsigned rounds;   /* round trips in which segments were sent (0 for no bytes) */
	size_t first_round; /* segments sent in the first round */
	double last_tx;     /* round trips from the first write until the last segment leaves:
			     * rounds - 1 when nothing paces the flow */
	unsigned rwnd_rounds; /* of rounds, those the receiver's window added */
} pq_model_burst;

/* Sends writes w[0..n-1] (all issued at once) from state *t, updates t->cwnd with the
 * ACKs of every round (the last one included), and fills *out. */
void pq_model_tcp_send(pq_model_tcp *t, const size_t *w, size_t n, pq_model_burst *out);

#endif
