/* The flight model: from the bytes a TLS 1.3 handshake puts on the wire (as OpenSSL
 * writes them), the MSS and the initial window, the round trips of each phase of a
 * connection as pqtls bench measures them (from connect(2)):
 *   connect    SYN, SYN-ACK: 1
 *   handshake  + the ClientHello's rounds - 1 + the server's first flight's rounds
 *              (the client is done when the last of it arrives); a HelloRetryRequest
 *              (the first ClientHello's key share is not one the server takes) adds the
 *              round of the HRR and the second ClientHello's rounds before the flight
 *   ttfb       + 1: the client's Finished and request go out, tickets and the first
 *              response bytes come back (0-RTT: the request went with the ClientHello
 *              and is answered right after the server's flight); + the rounds more
 *              the response's first TLS record takes to arrive whole after the tickets
 *              (a client reads none of a record before all of it is there): a 16 KiB
 *              record does not fit the window a small flight left (it stays 10)
 *   ttlb       + the further rounds the response needs, from the window the flight left
 * TCP's side (per-write segments, slow start) is model/tcp.h, and when the server's flow
 * is paced (BBR; fq), model/pace.h times each window's segments: the *_t fields are the
 * same phases in fractional round trips, later than the whole ones by the pacing. The
 * link's rate, when given (down_bps, up_bps and the RTT), adds each packet's time on the
 * wire (model/rate.h) to the *_t fields. The
 * model has no loss, no delayed-ACK timer and no CPU time; the client's receive window
 * limits the server's rounds when in->rwnd is given (model/tcp.h);
 * pq_model_predict's explanation says so where a prediction leans on it.
 *
 * Contract: pq_model_predict returns 0 with *out filled (its `why` is the explanation,
 * one sentence per line), or PQ_EINVAL naming the bad input. Pure arithmetic. */
#ifndef PQ_MODEL_FLIGHT_H
#define PQ_MODEL_FLIGHT_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "model/pace.h"

#define PQ_MODEL_MAX_WRITES 64
/* A measured phase agrees with the model when it is within this many round trips of the
 * prediction: far below the one round trip a window costs, above the host's noise (a
 * vCPU stall, the handshake's CPU time at 50 ms and more). */
#define PQ_MODEL_AGREE_RTT 0.25

typedef struct pq_model_in {
	size_t mss;	     /* bytes; 0 means PQ_WIRE_MSS_DEFAULT (MTU 1500 with TCP timestamps) */
	size_t iw;	     /* initial congestion window, segments, both sides; 0 means 10 */
	size_t client_hello; /* bytes on TCP of the client's first flight */
	const size_t *server_writes; /* the server's first flight as written, in order */
	size_t n_server_writes;
	size_t tickets;	 /* bytes of NewSessionTickets the server sends after the handshake */
	size_t response; /* bytes on TCP of the response (TLS records); 0: no last byte */
	int early_data;	 /* the request rides in 0-RTT data */
	int hrr;	 /* the server answers the first ClientHello with a HelloRetryRequest */
	size_t hrr_bytes;     /* bytes on TCP of the HRR flight (0: one short segment) */
	size_t client_hello2; /* bytes on TCP of the client's flight after the HRR */
	pq_model_pace server_pace; /* how the server's kernel paces (kind, ratio, skb size); zero: not */
	size_t rwnd;	 /* the client's initial receive window as the server sees it, bytes (model/tcp.h);
			  * 0: not limited */
	uint64_t down_bps, up_bps; /* the link's rate server to client and back; 0: not limited */
	double rtt_s;		   /* the path's RTT, seconds: needed only with a rate */
} pq_model_in;

typedef struct pq_model_out {
	unsigned connect, handshake, ttfb, ttlb; /* round trips from connect(2) */
	unsigned ch_rounds, flight_rounds, response_rounds;
	unsigned hrr_rounds; /* the HRR's round trip and the second ClientHello's extra ones */
	unsigned flight_rwnd_rounds; /* of flight_rounds, those the client's receive window adds */
	size_t flight_bytes, flight_segments, flight_first_round;
	size_t cwnd_after_flight, response_segments; /* segments */
	size_t first_record;		/* bytes on TCP of the response's first record (0: no response) */
	size_t first_record_segments;	/* it and the tickets before it, segments */
	unsigned first_record_rounds;	/* the round trips they take from the flight's window */
	double flight_last_tx;	/* round trips from the flight's first write to its last segment */
	double handshake_t, ttfb_t, ttlb_t; /* the phases with pacing and the link's rate, in round
					     * trips (ttlb_t 0: none) */
	double wire_handshake, wire_ttfb, wire_ttlb; /* of those, the round trips the link's rate adds
						      * (model/rate.h); 0 without a rate */
	char why[2048];
} pq_model_out;

int pq_model_predict(const pq_model_in *in, pq_model_out *out, pq_diag *d) PQ_MUST_USE;

/* Of the round trips a link's rate adds (the wire_* fields), the share a measurement may
 * differ by beside PQ_MODEL_AGREE_RTT: the min RTT they are counted in differs by 1-2 %
 * between cells of a slow link (36.5-37.5 ms at 35 ms and 1 Mbit/s), so a 240-round
 * transfer agrees to within a few round trips, not a quarter of one. */
#define PQ_MODEL_AGREE_WIRE_SHARE 0.02

/* Does a measured phase (round trips: median over min RTT) agree with the prediction? */
int pq_model_agrees(double predicted, double measured);
/* The same, for a phase of which `wire` round trips are the link's rate's. */
int pq_model_agrees_wire(double predicted, double measured, double wire);

/* The pacing a server's kernel applies, from what the kernel reported: its congestion
 * control ("bbr", "cubic"), root qdisc ("fq" paces every flow), slow-start ratio (%) and
 * GSO (1 on). */
pq_model_pace pq_model_pace_of(const char *cc, const char *qdisc, unsigned ss_ratio, int gso);

/* The HTTP head pqtls serve writes before a body (status line, Content-Length,
 * Content-Type, Connection): about 100 bytes; only TTLB uses it, at the byte. */
#define PQ_MODEL_HTTP_HEAD 100

/* Bytes on TCP of an HTTP response of `body` bytes with a `header`-byte head, in TLS
 * 1.3 records of at most 16,384 bytes (22 bytes each of framing and tag). */
size_t pq_model_response_bytes(size_t header, size_t body);

#endif
