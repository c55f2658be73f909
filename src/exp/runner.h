/* The sweep engine: one process measures a whole grid.
 *
 *   chains  every chain the grid needs, made or found in the cache first (exp/chains.h)
 *   links   one emulated link per link condition, brought up once, self-checked (stored;
 *           a check that fails PQ_EXP_CHECK_TRIES times in a row stops the sweep unless
 *           no_check), taken down after its cells
 *   cells   in run order (exp/grid.h: by link, then trial, arms shuffled per trial); for
 *           each: an in-process server started in the server namespace with timeouts from
 *           the cell's conditions, the load run on this thread in the client namespace,
 *           host load sampled before and after, one transaction into the store.
 *
 * Cells already in the store for this host are skipped (resume). Connection failures are
 * rows; a cell whose server or load cannot start is a `failed` row with the reason, and
 * the sweep goes on. `stop` (set from a signal handler) ends the sweep after the cell in
 * progress. */
#ifndef PQ_EXP_RUNNER_H
#define PQ_EXP_RUNNER_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "core/err.h"
#include "exp/chains.h"
#include "exp/grid.h"
#include "exp/srvproc.h"
#include "exp/store.h"
#include "net/linkcfg.h"

#define PQ_EXP_CHECK_TRIES 3

typedef struct pq_exp_progress {
	size_t done, total, skipped;
	uint64_t conns, failures;
	int64_t elapsed_ns;
	const char *arm;
} pq_exp_progress;

typedef struct pq_exp_run_opts {
	int no_check;
	enum pq_backend backend;
	FILE *log;                         /* link and check lines; NULL = quiet */
	void (*progress)(void *arg, const pq_exp_progress *p);
	void *progress_arg;
	volatile sig_atomic_t *stop;
	/* Test hook (set by test programs only; no option or environment reaches it): after
	 * the first connection of the cell with this index, its server process suffers
	 * test_server_fault for real. -1 (or PQ_EXP_SRV_FAULT_NONE): never. */
	long long test_server_fault_cell;
	enum pq_exp_srv_fault test_server_fault;
} pq_exp_run_opts;

typedef struct pq_exp_run_summary {
	size_t cells_run, cells_skipped, cells_failed;
	uint64_t conns, conn_failures;
	int interrupted;
} pq_exp_run_summary;

int pq_exp_run(const pq_exp_grid *g, const pq_exp_chains *chains, pq_store *st, const pq_exp_run_opts *o,
	       pq_exp_run_summary *sum, pq_diag *d) PQ_MUST_USE;

/* Estimated seconds the grid takes here (links, checks, handshakes and transfers); for
 * --presets and the progress line before the first cell ends. */
double pq_exp_estimate_s(const pq_exp_grid *g);

#endif
