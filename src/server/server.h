/* pqtls's TLS server as a library: event-driven (one epoll loop per worker thread, each
 * with its own SO_REUSEPORT listening socket), serving the small HTTP/1.1 of http.h.
 * `pqtls serve` is a thin CLI over it; `pqtls sweep` starts one in-process.
 *
 * Life cycle:
 *   pq_server_new   makes the TLS context and binds the sockets (so the port is known,
 *                   also when 0 was asked), nothing runs yet
 *   pq_server_start starts the workers
 *   pq_server_stop  asks them to finish; safe from a signal handler (one write(2))
 *   pq_server_wait  joins them and merges their statistics
 *   pq_server_free  closes everything (stops and waits first if needed)
 * Every function returning int gives 0 or a negative error with a message in *d.
 * A peer that closes mid-write raises SIGPIPE: the process must ignore it (main.c does). */
#ifndef PQ_SERVER_SERVER_H
#define PQ_SERVER_SERVER_H

#include <stdint.h>
#include <stdio.h>

#include "core/clock.h"
#include "core/err.h"
#include "core/names.h"
#include "tls/ctx.h"

#define PQ_SERVER_HEADER_TIMEOUT_NS (10 * PQ_NS_PER_S)
/* Open connections at most, by default (serve --max-conns; a sweep cell's server). */
#define PQ_SERVER_MAX_CONNS 4096

typedef struct pq_server_config {
	const char *listen;          /* "127.0.0.1:8443"; port 0 picks a free one */
	int threads;                 /* worker loops, >= 1 */
	int max_conns;               /* open connections across workers; beyond: closed at once */
	int64_t handshake_timeout_ns;
	int64_t idle_timeout_ns;     /* between requests on a kept-alive connection */
	int64_t header_timeout_ns;   /* a request head, from its first byte to its end
				      * (slowloris); 0 = PQ_SERVER_HEADER_TIMEOUT_NS */
	pq_tls_config tls;           /* role is forced to PQ_TLS_SERVER */
	int flight_one_write;        /* hand the first flight to TCP in one write (tls/onewrite.h) */
	int close_each;              /* every response says Connection: close and the connection
				      * closes after it (a browser's next navigation connects anew) */
	/* QUIC (tls.quic set): one UDP socket and one thread (threads must be 1), hq-interop
	 * requests, one per connection; flight_one_write refused (a TCP write rule). */
	int quic_retry;              /* validate addresses with a Retry first (RFC 9000 8.1.2):
				      * a round trip up front, no amplification limit after */
	/* What the caller calls these inputs in messages (keys: "listen", "threads",
	 * "max_conns", "quic", "quic_retry", "flight_one_write"); NULL: those keys. TLS
	 * inputs: tls.names. */
	const pq_name *names;
	/* set_nice: the workers run at `nice` (core/sched.h; a raise needs root), so that
	 * other work inside the machine delays them less; 0 leaves them as they are. */
	int set_nice, nice;
} pq_server_config;

/* Failure kinds the server counts. */
#define PQ_SERVER_ERR_TABLE(X)                                                       \
	X(PQ_SRV_HANDSHAKE, "handshake failed")                                      \
	X(PQ_SRV_HS_TIMEOUT, "handshake timeout")                                    \
	X(PQ_SRV_IDLE_TIMEOUT, "idle timeout")                                       \
	X(PQ_SRV_HEADER_TIMEOUT, "request head too slow (header timeout)")           \
	X(PQ_SRV_RESET, "reset or closed by peer mid-handshake")                     \
	X(PQ_SRV_BAD_REQUEST, "bad request (400)")                                   \
	X(PQ_SRV_IO, "I/O error after handshake")                                    \
	X(PQ_SRV_OVER_LIMIT, "refused: over the connection limit")                   \
	X(PQ_SRV_NO_FDS, "accept paused: out of file descriptors (EMFILE/ENFILE)")

enum pq_server_err {
#define PQ_SRV_ENUM(name, text) name,
	PQ_SERVER_ERR_TABLE(PQ_SRV_ENUM)
#undef PQ_SRV_ENUM
	PQ_SRV_ERR_COUNT
};

#define PQ_SERVER_MAX_COMBOS 32
#define PQ_SERVER_MAX_REASONS 16
#define PQ_SERVER_MAX_WAITS 1024

typedef struct pq_server_combo {
	char version[12], group[32], sigalg[32];
	int resumed;
	uint64_t count;
} pq_server_combo;

typedef struct pq_server_stats {
	uint64_t accepted, handshakes, resumed, early_data, requests, body_bytes;
	/* QUIC: handshakes whose flight the amplification limit held (tls/quic.h), and the
	 * bytes each way before address validation, summed over handshakes */
	uint64_t quic_amp_held, quic_prevalid_tx, quic_prevalid_rx;
	uint64_t err[PQ_SRV_ERR_COUNT];
	pq_server_combo combos[PQ_SERVER_MAX_COMBOS];
	size_t ncombos;
	struct {
		const char *reason; /* OpenSSL's static reason string */
		uint64_t count;
	} reasons[PQ_SERVER_MAX_REASONS];
	size_t nreasons;
	/* How long a worker waited, runnable, for a CPU during each connection, accept to
	 * close (over QUIC from OpenSSL's hand-over, SSL_accept_connection) (core/sched.h), in
	 * microseconds: the first PQ_SERVER_MAX_WAITS connections' (a sweep's cell has
	 * fewer), how many there were in all, and the largest of all. None where the kernel
	 * does not tell. */
	uint32_t waits_us[PQ_SERVER_MAX_WAITS];
	size_t nwaits;
	uint64_t waits_total, wait_max_us;
	int nice; /* the workers' nice, read back (the largest; PQ_SCHED_NICE_KEEP unknown) */
} pq_server_stats;

typedef struct pq_server pq_server;

int pq_server_new(const pq_server_config *cfg, pq_server **out, pq_diag *d) PQ_MUST_USE;
/* The checks pq_server_new makes first that need no socket and no file: the groups named
 * (tls/groups.h), what QUIC cannot honour (TLS 1.2, 0-RTT, threads, flight_one_write),
 * named. For a CLI's usage errors. */
int pq_server_config_check(const pq_server_config *cfg, pq_diag *d) PQ_MUST_USE;
int pq_server_start(pq_server *s, pq_diag *d) PQ_MUST_USE;
void pq_server_stop(pq_server *s);
void pq_server_wait(pq_server *s);
void pq_server_free(pq_server *s);

/* The bound address, e.g. "127.0.0.1:40123"; valid after pq_server_new. */
const char *pq_server_address(const pq_server *s);
uint16_t pq_server_port(const pq_server *s);

/* Statistics merged by pq_server_wait (zero before). */
const pq_server_stats *pq_server_get_stats(const pq_server *s);
const char *pq_server_err_name(enum pq_server_err e);

/* "served N connections ..." summary, several lines. */
void pq_server_stats_print(const pq_server_stats *st, FILE *f);

/* Add into `into` (the merge of per-worker statistics; `into` starts zeroed with
 * nice = PQ_SCHED_NICE_KEEP, or from the first worker's). */
void pq_server_stats_merge(pq_server_stats *into, const pq_server_stats *from);

#endif
