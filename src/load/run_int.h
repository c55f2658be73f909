/* Inside a load (load/run.h): what its threads share (run.c), one thread's state and a
 * phase of its loop (run_loop.c), and one thread's share of the run (run_thread.c). Not
 * for other modules.
 *
 * Contract: pq_load_run_thread runs thread `index`'s share of cfg into *res (zeroed
 * first) and passes pq_load_run_start_together exactly once on every path, so no thread
 * waits for one that gave up; it returns 0 or a negative error with a message in *d.
 * pq_load_run_phase runs one phase (warm-up or measured) until its budget is spent or
 * the run ends, and returns 0 or a sink's negative error (PQ_ENOMEM: no room for a
 * record). pq_load_run_new_session is the OpenSSL new-session callback that fills the
 * ticket pool of the runner set as the SSL_CTX's app data. */
#ifndef PQ_LOAD_RUN_INT_H
#define PQ_LOAD_RUN_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "core/rng.h"
#include "core/sched.h"
#include "load/arrival.h"
#include "load/conn.h"
#include "load/run.h"

#define PQ_LOAD_RUN_POOL_MAX 64 /* tickets a thread keeps, the newest */

/* Shared by the threads of one run: the measurement starts for all at once (a barrier
 * after the warm-up), from one time origin, and progress counts are totals. */
typedef struct pq_load_sync {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int expected, arrived, released;
	int64_t start_ns;
	atomic_ullong done, errors;
	atomic_llong inflight;
	atomic_ullong next_id; /* launch sequence over all threads */
	atomic_int sink_failed;
	pthread_mutex_t sink_mu; /* one sink call at a time */
} pq_load_sync;

typedef struct pq_load_runner {
	const pq_load_config *cfg;
	pq_load_sync *sync;
	int index; /* thread number; thread 0 reports progress */
	pq_load_result *res;
	SSL_CTX *ctx;
	int epfd;
	pq_conn_params params;
	char request[512];
	pq_load_conn *slots;
	pq_load_conn **free_slots, **active;
	int nfree, nactive, nslots;
	SSL_SESSION *pool[PQ_LOAD_RUN_POOL_MAX];
	int npool;
	pq_rng rng;
	pq_diag *diag; /* where a sink's failure is told */
	/* the current phase */
	int recording;
	uint64_t launched, done, ok, errors;
	int refused_in_row, unreached_in_row; /* consecutive: refused / not reached */
	int64_t hold_until_ns;                /* back-off: no start before this */
	pq_sched_meter meter;                 /* this thread's wait for a CPU */
} pq_load_runner;

typedef struct pq_load_phase {
	long long count;   /* 0 = no limit */
	int64_t end_ns;    /* absolute; 0 = no limit */
	int open;
	pq_arrival arr;
	int64_t origin_ns; /* absolute time of arrival 0 */
	int concurrency;
} pq_load_phase;

/* Waits for every thread to end its warm-up; returns the common start of measurement. */
int64_t pq_load_run_start_together(pq_load_sync *sy);
int pq_load_run_thread(const pq_load_config *cfg, pq_load_sync *sy, int index, pq_load_result *res,
		       pq_diag *d);
int pq_load_run_phase(pq_load_runner *r, pq_load_phase *ph);
/* The loop's longest sleep with nothing due. */
#define PQ_LOAD_IDLE_MAX_NS (100 * PQ_NS_PER_MS)
/* The earlier of `due` and `at` (absolute ns); an `at` of 0 or less (none set) or
 * INT64_MAX (no timer) leaves `due`. */
int64_t pq_load_due_min(int64_t due, int64_t at);
int pq_load_run_new_session(SSL *ssl, SSL_SESSION *sess);

#endif
