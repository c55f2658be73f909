/* What the runner's files share (exp/runner.c measures a cell, exp/runner_row.c fills
 * its stored row): one cell's run. */
#ifndef PQ_EXP_RUNNER_INT_H
#define PQ_EXP_RUNNER_INT_H

#include "core/sched.h"
#include "exp/cellcfg.h"
#include "exp/runner.h"
#include "exp/srvproc.h"
#include "exp/store.h"
#include "net/link.h"
#include "server/server.h"

typedef struct cellrun {
	const pq_exp_grid *g;
	const pq_exp_cell *c;
	const pq_exp_chain *chain;
	const pq_exp_run_opts *o;
	pq_link *link;                /* NULL: remote server */
	pq_link_config lc;
	pq_exp_srv srv;               /* the cell's server process (pid 0: none) */
	pq_exp_cfg cfg;               /* its server's and client's configurations */
	pq_load_result res;
	pq_store_cell_row row;
	pq_exp_eff eff;               /* what was in force: the stored dimension values */
	pq_diag diag;
	int load_rc;
	int fault_sent;               /* tests: the server was made to crash */
	const pq_exp_progress *pr; /* the sweep's counts before this cell */
	int64_t t0;
	char ca[600];
	char link_why[160]; /* what was over the link's budget in this cell */
	double conn_p50_us;  /* the median connection's time to its first response's last byte; -1 none */
	/* A browser's cell on a link of ours: the server on one CPU, the browser on the
	 * others, the forwarder beside one of them (core/sched.h, pq_sched_split); split_on
	 * when both the link and the server were pinned. */
	pq_sched_split split;
	int split_on;
} cellrun;

/* Below this RTT a browser's cell runs its link's forwarder beside the browser, not the
 * server: on a short link the server and the forwarder are busy at the same moments (a
 * flight written is a flight forwarded within the round trip), and the forwarder, in the
 * real-time class, kept the server waiting 1.0-1.35 ms for a CPU in a median connection
 * at 1 ms RTT (its budget 1 ms; 13 of 24 cells marked); beside the browser the server
 * waited 0.01-0.33 ms and 5 of 24 were marked (docs/tls.md, "A browser's cell on two
 * machines"). From 10 ms on the server's and the forwarder's bursts are a round trip
 * apart, and the browser's own (its start, its verification) stay off the link. */
#define PQ_EXP_SPLIT_FWD_CLIENT_RTT_NS 10000000LL

/* "12 x timeout_handshake (timed out ...); 3 x reset": a cell's failed connections. */
void pq_exp_row_failures(const pq_load_result *res, char *buf, size_t n);
/* The server's handshakes and failures by kind. */
void pq_exp_row_server(cellrun *r, const pq_server_stats *st);
/* The chain's description, bytes and first flight (and what was in force: the padding
 * and the OCSP staple's bytes). */
void pq_exp_row_chain(cellrun *r);
/* The endpoints' nice and waits for a CPU (st: the server's statistics, NULL when it has
 * none), then the host's verdict on them and the steal. */
void pq_exp_row_endpoints(cellrun *r, const pq_server_stats *st);
/* Adds a stored cell's fidelity to the sweep's; when strict, a cell whose link went over
 * its budget stops the sweep (PQ_EVERIFY; the cell is stored already). */
int pq_exp_row_fidelity(const pq_exp_run_opts *o, const cellrun *r, pq_exp_run_summary *sum, pq_diag *d) PQ_MUST_USE;
/* Why a cell is over a budget, in words ("link: ...; host: ..."). */
void pq_exp_row_over_why(const cellrun *r, char *buf, size_t n);

#endif
