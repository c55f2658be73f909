/* The one builder of the endpoints' configurations from a grid point: the server's
 * (pq_server_config) and the client's (pq_load_config, or Chromium). A sweep's cells
 * (exp/runner.c), `pqtls bench` and `pqtls serve` all build theirs here, so a default
 * cannot differ between them: bench and serve first put their options onto a point
 * (pq_exp_point_init, then each option that is a dimension), build, and then set what
 * only they have (threads, a duration, cipher suites, a key log, OpenSSL's own groups
 * syntax, ...).
 *
 * Which dimension reaches which configuration is its row's PQ_DIM_SERVER and
 * PQ_DIM_CLIENT flags (exp/dim.h); test_exp_cellcfg holds each flag true both ways (a
 * flagged dimension changes that configuration, an unflagged one does not). What the
 * builder leaves to its caller: the addresses (target, listen), the chain's files and
 * the verification (certs_dir, ca_file, sig_pad), names for messages, progress, nice. */
#ifndef PQ_EXP_CELLCFG_H
#define PQ_EXP_CELLCFG_H

#include <stdint.h>

#include "core/err.h"
#include "exp/point.h"
#include "load/run.h"
#include "server/server.h"

/* 0-RTT data the server accepts on resumption when early-data = yes. */
#define PQ_EXP_CFG_EARLY_DATA_BYTES 16384

typedef struct pq_exp_cfg {
	pq_server_config server;
	pq_load_config load;         /* load.tls.groups points at offer: build in place, never copy */
	int browser;                 /* the client is Chromium (load/chromium.h), not pq_load_run */
	int browser_state;           /* its state: enum pq_browser_state */
	char offer[160];             /* the client's groups, shares marked (pq_exp_point_offer) */
} pq_exp_cfg;

/* Both configurations of point p for a cell on link lc (NULL: none, as bench and serve
 * have): the client gives a phase up after pq_exp_point_client_timeout without progress,
 * the server its handshakes and idle connections after pq_exp_point_server_timeout. 0, or
 * PQ_EINVAL naming the key when the point's key exchange cannot be offered
 * (pq_exp_point_offer). */
int pq_exp_cfg_build(const pq_exp_point *p, const pq_link_config *lc, pq_exp_cfg *c, pq_diag *d) PQ_MUST_USE;

/* The warm-up connections in force for p: the ones given, else with resumption the
 * concurrency (each measured connection offered a ticket then has one), else none. The
 * stored warm-up (exp/dim.c) is this. */
long long pq_exp_cfg_warmup(const pq_exp_point *p);

#endif
