/* One measured connection of `pqtls bench`: what happened when, what was negotiated and
 * what crossed the wire. Times are nanoseconds from one monotonic clock; phase times are
 * relative to the connection's start (connect(2) called), -1 when not reached. */
#ifndef PQ_LOAD_RECORD_H
#define PQ_LOAD_RECORD_H

#include <stdint.h>

#include "tls/acct.h"

/* Failure kinds, each with a short name for CSV and a sentence for people. */
#define PQ_LOAD_ERR_TABLE(X)                                                          \
	X(PQ_LERR_NONE, "ok", "no error")                                             \
	X(PQ_LERR_REFUSED, "refused", "connection refused (nothing listening)")       \
	X(PQ_LERR_RESET, "reset", "connection reset by the server")                   \
	X(PQ_LERR_CLOSED, "closed", "server closed the connection early")             \
	X(PQ_LERR_CONNECT, "connect", "TCP connect failed")                           \
	X(PQ_LERR_TIMEOUT_CONNECT, "timeout_connect", "timed out in TCP connect")    \
	X(PQ_LERR_TIMEOUT_HANDSHAKE, "timeout_handshake", "timed out in the TLS handshake") \
	X(PQ_LERR_TIMEOUT_RESPONSE, "timeout_response", "timed out waiting for the response") \
	X(PQ_LERR_TIMEOUT_TOTAL, "timeout_total", "not finished within the per-connection time limit") \
	X(PQ_LERR_CUT_OFF, "cut_off", "still running when the run ended")        \
	X(PQ_LERR_ALERT, "alert", "handshake alert from the server")                  \
	X(PQ_LERR_VERIFY, "verify", "server certificate verification failed")        \
	X(PQ_LERR_PROTOCOL, "protocol", "TLS protocol error")     \
	X(PQ_LERR_HTTP, "http", "bad HTTP response")

enum pq_load_err {
#define PQ_LERR_ENUM(name, shortname, text) name,
	PQ_LOAD_ERR_TABLE(PQ_LERR_ENUM)
#undef PQ_LERR_ENUM
	PQ_LERR_COUNT
};

const char *pq_load_err_short(enum pq_load_err e);
const char *pq_load_err_text(enum pq_load_err e);

/* Phases reported per connection (index into pq_load_record.t). */
enum pq_phase {
	PQ_PH_CONNECT,      /* start -> TCP established */
	PQ_PH_CLIENT_HELLO, /* start -> ClientHello handed to the socket */
	PQ_PH_SERVER_HELLO, /* start -> ServerHello read */
	PQ_PH_HANDSHAKE,    /* start -> handshake done (client Finished written) */
	PQ_PH_REQUEST,      /* start -> first request written */
	PQ_PH_TTFB,         /* start -> first response byte */
	PQ_PH_TTLB,         /* start -> last byte of the first response */
	PQ_PH_END,          /* start -> last byte of the last response (or handshake done) */
	PQ_PH_COUNT
};

typedef struct pq_load_record {
	uint64_t id;
	int64_t intended_ns; /* when it was meant to start, from the run's start */
	int64_t start_ns;    /* when connect(2) was called, from the run's start */
	int64_t t[PQ_PH_COUNT];
	char version[12], group[32], sigalg[32], cipher[40];
	uint8_t resume_offered, resumed, hrr, early_sent, early_accepted, cert_compressed;
	uint32_t hs_bytes[2][PQ_HS_COUNT]; /* handshake message bytes by type, PQ_TX/PQ_RX */
	uint32_t ch_bytes[2];              /* the ClientHello, and the one after an HRR (0: none) */
	uint32_t ch_segs[2];               /* TCP data segments of each ClientHello's flight */
	uint64_t tls_bytes[2];             /* TLS record bytes (with headers) each way */
	uint64_t tcp_bytes[2];             /* tcp_info bytes_sent / bytes_received */
	uint32_t tcp_segs[2];              /* tcp_info segs_out / segs_in */
	uint32_t srtt_us, rttvar_us, min_rtt_us, retrans, cwnd, mss;
	/* QUIC (quic = 1; tcp_* and the TCP RTTs stay 0): datagrams and bytes each way
	 * before the handshake was done, the client's first flight (its Initial datagrams,
	 * before anything came back; the first one's size alone too), whether a Retry came,
	 * and whether the server's handshake bytes passed 3x that first flight, so its
	 * flight waited for address validation (tls/quic.h: pq_tls_quic_client_saw_held) */
	uint8_t quic, quic_retry, quic_amp_held;
	uint32_t quic_dgrams[2];
	uint64_t quic_bytes[2];
	uint32_t quic_first_dgrams, quic_first_bytes, quic_first_dgram_bytes;
	/* A browser's connection (browser = 1; load/netlog.h), from the browser's own log, ns
	 * from the connection's start like t[], -1 unknown: the network-only times beside the
	 * browser's (the last bytes of the server's first flight received, the request's bytes
	 * handed to the socket, the first response bytes received), the certificate
	 * verification's length, and the TCP connections it opened to the server in all. */
	uint8_t browser;
	int64_t br_flight_ns, br_verify_ns, br_req_net_ns, br_ttfb_net_ns;
	uint32_t br_conns;
	uint32_t requests;                 /* complete responses */
	int status;                        /* HTTP status of the last response, 0 = none */
	uint64_t body_bytes;
	/* How long the client's thread waited, runnable, for a CPU between the connection's
	 * start and its end (core/sched.h), ns; -1 unknown. Threads that run several
	 * connections at once count a wait for each connection it delays. */
	int64_t wait_ns;
	enum pq_load_err err;
	char err_detail[96];
} pq_load_record;

/* start -> end-of-connection plus the wait before it started: the latency an open-loop
 * client sees (coordinated omission cannot hide a stall). */
static inline int64_t pq_load_latency_ns(const pq_load_record *r)
{
	return r->t[PQ_PH_END] < 0 ? -1 : r->start_ns - r->intended_ns + r->t[PQ_PH_END];
}

/* Round trips the TLS handshake took: TCP established -> handshake done, over the
 * path's minimum RTT (tcp_info). Crypto time shows as a fraction; -1 when unknown. */
static inline double pq_load_handshake_rtts(const pq_load_record *r)
{
	if (r->t[PQ_PH_HANDSHAKE] < 0 || r->t[PQ_PH_CONNECT] < 0 || r->min_rtt_us == 0)
		return -1;
	return (double)(r->t[PQ_PH_HANDSHAKE] - r->t[PQ_PH_CONNECT]) / 1e3 / r->min_rtt_us;
}

const char *pq_phase_name(enum pq_phase p);

#endif
