/* Inside the cells-at-once runner (exp/jobs.h): the messages its dispatcher (jobs.c) and
 * its worker processes (jobs_worker.c) exchange. Not for other modules.
 *
 * Contract: pq_exp_jobs_worker runs in a forked child: on socket fd it sends MSG_READY,
 * then runs each cell index it receives and answers MSG_DONE with the outcome and its
 * summary so far, until a message that is no cell index or the end of the socket; a
 * failure is sent as MSG_ERROR, and MSG_FINAL with the summary always last. When `parent`
 * ends it gets SIGTERM (it stops after its cell); it never returns (exit 0, or 1 after a
 * failure or when `parent` is already gone). */
#ifndef PQ_EXP_JOBS_INT_H
#define PQ_EXP_JOBS_INT_H

#include <sys/types.h>

#include "exp/grid.h"
#include "exp/jobs.h"
#include "exp/runner.h"
#include "exp/store.h"

/* Worker <-> dispatcher messages (SOCK_SEQPACKET: one message a datagram, in order). */
enum { MSG_READY, MSG_DONE, MSG_ERROR, MSG_FINAL };
typedef struct wmsg {
	int kind;
	long long cell; /* index into the grid's cells (MSG_DONE; MSG_ERROR: the cell it ended on, or -1) */
	pq_exp_cell_outcome oc;
	pq_exp_run_summary sum; /* the worker's so far */
	char err[640];
} wmsg;

/* Dispatcher -> worker: the cell to measure (negative: stop) and the cells in flight as
 * it is handed out, itself included (pq_exp_runner_at_once). */
typedef struct wcell {
	long long cell;
	int at_once;
} wcell;

void pq_exp_jobs_worker(int fd, pid_t parent, unsigned index, const pq_exp_grid *g,
			const pq_exp_chains *chains, pq_store *owner, const pq_exp_run_opts *o);

#endif
