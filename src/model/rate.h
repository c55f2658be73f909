/* A connection's packets through a link whose rate limits them: the time each phase of
 * model/flight.h takes when every packet also spends its length over the link's rate
 * on the wire, in each direction, in order (the link is one FIFO server each way, as
 * net/stage_rate.c emulates it; a real bottleneck is the same), and the propagation
 * takes half the RTT each way.
 *
 * Packet by packet, in seconds from connect(2): SYN and SYN-ACK; the ClientHello's
 * segments (a HelloRetryRequest and the second ClientHello when there is one); the
 * server's flight; the client's Finished and request (one segment,
 * PQ_MODEL_RATE_FIN_REQ bytes); then the tickets and the response. Each segment carries
 * PQ_MODEL_TCPIP_HEADERS of headers on the wire; every segment is ACKed at once (a pure
 * ACK, headers only, on the other direction); a sender keeps at most cwnd segments in
 * flight and, in slow start, grows cwnd by each segment ACKed while the flow is
 * window-limited (cwnd under twice the most it had in flight), carrying it from one
 * burst to the next. No loss, pacing, receive window or CPU time: flight.c adds what the
 * rate costs (the times with the rate less the same packets without it) to its own
 * phases, which have those. A window below the link's bandwidth-delay product is a
 * burst that crosses in a round trip plus its own time on the wire; above it, the queue
 * never drains and the transfer runs at the link's rate.
 *
 * Contract: pq_model_rate_times returns 0 with *out filled, PQ_EINVAL for an RTT that
 * is not positive or a burst without segments, PQ_ENOMEM when a burst's segments do not
 * fit in memory. Pure arithmetic. */
#ifndef PQ_MODEL_RATE_H
#define PQ_MODEL_RATE_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

/* The client's Finished (53 bytes on TCP) and an HTTP GET in a record of its own
 * (about 100): one segment. */
#define PQ_MODEL_RATE_FIN_REQ 160

typedef struct pq_model_rate_in {
	double rtt_s;		/* the path's round trip without the wire time, seconds */
	uint64_t down_bps;	/* server to client; 0: no limit */
	uint64_t up_bps;	/* client to server; 0: no limit */
	size_t mss, iw;		/* bytes, segments (both sides) */
	size_t client_hello;	/* bytes on TCP */
	int hrr;		/* a HelloRetryRequest of hrr_bytes, then client_hello2 */
	size_t hrr_bytes, client_hello2;
	const size_t *server_writes; /* the server's first flight as written */
	size_t n_server_writes;
	size_t tickets;		/* bytes on TCP after the handshake */
	size_t response;	/* bytes on TCP; 0: none (the first byte is the tickets' last) */
	size_t first_record;	/* of response: the first byte waits for this many */
	int early_data;		/* the request went with the ClientHello */
} pq_model_rate_in;

typedef struct pq_model_rate_times {
	double connect, handshake, ttfb, ttlb; /* seconds from connect(2); ttlb 0 without a response */
} pq_model_rate_times;

int pq_model_rate_times_of(const pq_model_rate_in *in, pq_model_rate_times *out, pq_diag *d) PQ_MUST_USE;

#endif
