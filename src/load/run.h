/* `pqtls bench` as a library: run a load against one TLS server and return one
 * pq_load_record per measured connection.
 *
 * Closed loop (rate == 0): `concurrency` connections in flight, each followed at once by
 * the next. Open loop (rate > 0): connections start on an arrival schedule (constant or
 * Poisson), at most max_inflight at a time; a connection that had to wait keeps its
 * intended start, so its latency includes the wait.
 *
 * With threads > 1 each thread runs its own loop with its share of the connections,
 * concurrency, rate and warm-up; they start measuring together, from one time origin, and
 * their records are merged in start order.
 *
 * Warm-up connections run first (closed loop, not recorded) and provide the tickets
 * that `resume` offers. The run ends after `connections` measured connections or after
 * `duration`, whichever is set (both: whichever comes first), and stops early when its
 * first connections all fail (the error kinds say why) or when the server stops
 * answering (PQ_LOAD_REFUSED_IN_ROW). At the end of `duration` connections in flight get
 * one per-phase timeout more to finish; those still running are then cut (recorded as
 * cut_off), so a run ends at its time.
 *
 * Contract: pq_load_run returns 0 with records in *res (free with pq_load_result_dispose,
 * also after a failure), or a negative error (bad configuration, TLS context) with a
 * message in *d. Connection failures are not run failures: they are records.
 * A peer that closes mid-write raises SIGPIPE: the process must ignore it (main.c does). */
#ifndef PQ_LOAD_RUN_H
#define PQ_LOAD_RUN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/names.h"
#include "load/record.h"
#include "net/addr.h"
#include "tls/ctx.h"

typedef struct pq_load_progress {
	int64_t elapsed_ns;
	uint64_t done, errors, inflight;
	int warmup;
} pq_load_progress;

/* An open loop's connections in flight at most, by default (bench --max-inflight; a sweep
 * cell's open loop). */
#define PQ_LOAD_MAX_INFLIGHT 1024

typedef struct pq_load_config {
	pq_addr target;
	const char *servername;     /* SNI, verified name and Host header; NULL = target host */
	pq_tls_config tls;          /* role forced to client */
	long long connections;      /* measured connections; 0 = limited by duration only */
	int64_t duration_ns;        /* 0 = limited by connections only */
	int threads;                /* event loops, each with its share of the load (<= 1: one) */
	int concurrency;            /* closed loop: in flight */
	double rate;                /* > 0: open loop, connections per second */
	int poisson;
	int max_inflight;           /* open loop cap */
	int requests_per_conn;      /* 0 = handshake only */
	const char *path;           /* request target, "/" or "/bytes/N" */
	double resume;              /* fraction of measured connections offered a ticket */
	long long warmup;
	int64_t timeout_ns;         /* per phase */
	int64_t total_timeout_ns;   /* per connection, every phase and the body; 0 = none */
	const volatile sig_atomic_t *stop; /* non-NULL: when it becomes non-zero the run
					    * ends, cutting connections in flight */
	int early_data;
	uint64_t seed;
	void (*progress)(void *arg, const pq_load_progress *p);
	void *progress_arg;
	/* Optional record sink: called once per measured connection as it finishes, in
	 * completion order (not start order), from the thread that ran it but never two at
	 * once (the run holds a lock around the call), so it needs no locking of its own.
	 * With threads > 1 the id it sees is the launch sequence over all threads (warm-up
	 * included), unique but not renumbered 1..n as the merged result's ids are. A
	 * negative return ends the run: connections in flight are cut without reaching
	 * the sink, and pq_load_run returns that error with the sink's message in *d. */
	int (*sink)(void *arg, const pq_load_record *rec, pq_diag *d);
	void *sink_arg;
	int no_keep; /* records go to the sink only: pq_load_result.recs stays empty, so the
		      * run's memory does not grow with its length */
	/* What the caller calls these inputs in messages (keys: the field names above,
	 * "concurrency", "timeout_ns", ...); NULL: the field names. TLS inputs: tls.names. */
	const pq_name *names;
	/* set_nice: the client's threads run at `nice` (core/sched.h; a raise needs root), so
	 * that other work inside the machine delays them less; 0 leaves them as they are. */
	int set_nice, nice;
} pq_load_config;

typedef struct pq_load_result {
	pq_load_record *recs;
	size_t n, cap;
	int64_t wall_ns, cpu_ns;   /* of the measured phase (CPU: this thread) */
	uint64_t tickets;          /* NewSessionTickets received, warm-up included */
	uint64_t warmup_done, warmup_errors;
	pq_load_record warmup_error;  /* the first failed warm-up connection (err set) */
	int stopped_early;         /* the first connections all failed */
	int server_gone;           /* stopped: PQ_LOAD_REFUSED_IN_ROW refused in a row */
	int interrupted;           /* *stop ended the run */
	uint64_t measured;         /* measured connections, kept in recs or not */
	int nice;                  /* the client threads' nice, read back (PQ_SCHED_NICE_KEEP: unknown) */
} pq_load_result;

/* Connections refused in a row (nothing listens: the server exited) that end a run.
 * Before that, each failure to reach the server (refused, or closed or reset before its
 * ServerHello) holds the next start back, 1 ms doubling to 500 ms, so a dead server is
 * not hammered and the run's records stay few. */
#define PQ_LOAD_REFUSED_IN_ROW 16

int pq_load_run(const pq_load_config *cfg, pq_load_result *res, pq_diag *d) PQ_MUST_USE;
void pq_load_result_dispose(pq_load_result *res);

#endif
