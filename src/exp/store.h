/* The results database (docs/results.md): SQLite in WAL mode, one transaction per cell.
 *
 * pq_store_open takes an exclusive lock first (flock on the file, created empty when
 * absent, held until pq_store_close), so a second sweep on the same file is refused at
 * once, also when both start together on a new file; then it writes the schema into an
 * empty file in one transaction (the file is empty or whole), or checks an existing one's
 * schema version and that it holds the same grid. Everything a reader may need to refuse
 * (a newer schema) is checked here, before any measurement. pq_store_create (merge's
 * output) still creates through a temporary name. */
#ifndef PQ_EXP_STORE_H
#define PQ_EXP_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "exp/dim.h"
#include "exp/grid.h"
#include "exp/rdb.h"
#include "load/record.h"
#include "net/check.h"


typedef struct pq_store pq_store;

/* grid_hash and spec_name go into meta on creation and must match on reopening. */
int pq_store_open(const char *path, const char *spec_name, const char *grid_hash, pq_store **out,
		  pq_diag *d) PQ_MUST_USE;
/* Creates an empty database (schema, meta) at path through a temporary name. */
int pq_store_create(const char *path, const char *spec_name, const char *grid_hash, pq_diag *d) PQ_MUST_USE;
void pq_store_close(pq_store *s);
/* Another connection to the database `owner` writes, for a worker process of the same
 * sweep (exp/jobs.h): the same run and host, no lock of its own (the owner holds it for
 * the whole sweep), writes serialised by SQLite (WAL, busy timeout). Open it in the
 * worker, after fork; the owner suspends its own connection before forking, since an open
 * SQLite connection must never cross a fork (the child's copy of its lock state lies). */
int pq_store_attach(const pq_store *owner, pq_store **out, pq_diag *d) PQ_MUST_USE;
/* Closes the owner's connection, keeping its lock (and run); resume opens it again. Between
 * the two, nothing but attach and close may be called. */
void pq_store_suspend(pq_store *s);
int pq_store_resume(pq_store *s, pq_diag *d) PQ_MUST_USE;
/* 0 while the file at the path given to pq_store_open is still the one locked and written;
 * else an error naming it (removed or replaced meanwhile: what was written is not there). */
int pq_store_still_ours(const pq_store *s, pq_diag *d) PQ_MUST_USE;
struct sqlite3 *pq_store_db(pq_store *s);


typedef struct pq_store_run {
	const char *spec_name, *grid_hash, *spec_text, *command_line, *link_backend, *remote;
	const char *chromium_version; /* client = chromium cells' browser; NULL none */
	uint64_t seed;
	unsigned shard_index, shard_count;
	size_t cells_planned;
	const struct pq_cpus *cpus; /* the CPUs it may use (core/cpus.h); NULL: not read */
	const char *keep_awake;     /* how its CPUs were kept from halting (core/awake.h); NULL: not said */
} pq_store_run;

/* The run row as the column table's getters read it (exp/cols.c): the caller's, and the
 * host's manifest. */
typedef struct pq_store_run_rec {
	const pq_store_run *r;
	const char *uuid, *openssl, *kernel, *cpu, *cc, *host, *now;
	long long ncpu;
} pq_store_run_rec;

/* Adds this invocation's `run` row (with the host's manifest). */
int pq_store_run_begin(pq_store *s, const pq_store_run *r, pq_diag *d) PQ_MUST_USE;
/* "complete", "interrupted" or "failed: why". */
int pq_store_run_end(pq_store *s, const char *status, pq_diag *d) PQ_MUST_USE;
const char *pq_store_host(const pq_store *s);
int64_t pq_store_run_id(const pq_store *s);

/* 1 when this host already has the cell, 0 when not, negative on error. */
int pq_store_cell_done(pq_store *s, const char *cell_key, pq_diag *d) PQ_MUST_USE;

/* A link check's row as the column table's getters read it (exp/cols.c); r NULL: not
 * checked. */
typedef struct pq_store_check_rec {
	int64_t run_id;
	const char *link_key, *desc, *backend;
	const pq_check_result *r;
	const char *summary, *now;
} pq_store_check_rec;

/* Stores a link's self-check (r NULL: not checked); *id receives link_check_id. */
int pq_store_link_check(pq_store *s, const char *link_key, const char *desc, const char *backend,
			const pq_check_result *r, int64_t *id, pq_diag *d) PQ_MUST_USE;

/* The link columns link_check and cell share (link_ok, link_late_*_us, link_releases_pkts,
 * link_drop_*_pkts, link_fwd_wait_us) bound from a window; ok -1 binds NULL. Store-internal. */
struct pq_sql_stmt;
void pq_store_bind_window(struct pq_sql_stmt *st, const pq_link_window *w, int ok);
/* Every column of table t that has a getter (exp/cols.h), read from rec and bound under
 * its name, NULL too, so a statement reset for the next row keeps nothing of the last.
 * Store-internal. */
void pq_store_bind_rec(struct pq_sql_stmt *st, enum pq_table_id t, const void *rec);

/* What a cell measured besides its parameters and its connections. */
typedef struct pq_store_cell_row {
	int64_t link_check_id;      /* 0 = none */
	int link_check_ok;          /* -1 = not checked */
	char chain_desc[192];
	long long chain_der_bytes, cert_msg_bytes, first_flight_bytes, first_flight_segs; /* -1 unknown */
	int chain_cached;           /* -1 unknown */
	int64_t server_hs_timeout_ns, server_idle_timeout_ns;
	const char *status;         /* "ok", "failures", "failed" */
	char failure_reason[512];
	long long server_handshakes, server_errors; /* -1 unknown */
	char server_error_detail[256];
	int64_t client_cpu_ns, server_link_cpu_ns; /* -1 unknown */
	double host_steal_pct;      /* -1 unknown */
	double host_throttled_us;   /* the cgroup CPU quota's throttling during the cell; -1 no quota */
	int host_runq_before, host_runq_after; /* -1 unknown */
	int host_cells_at_once; /* cells in flight when it was handed out, itself included; -1 unknown */
	/* A browser's cell: the CPUs the server, the client and the link's forwarder ran on,
	 * as read back (CPU lists, core/sched.h pq_sched_split); "" when they shared every CPU */
	char host_server_cpus[64], host_client_cpus[64], link_fwd_cpus[64];
	double host_load1_before, host_load1_after;
	/* the endpoints' nice as read back (PQ_SCHED_NICE_KEEP unknown), and their waits for
	 * a CPU (core/sched.h): the client's per connection, the server's per connection, the
	 * median and the largest of each, us (-1 unknown) */
	int host_nice, host_group_nice; /* the session group's nice (PQ_SCHED_NICE_KEEP: no groups) */
	double host_client_wait_p50_us, host_client_wait_max_us;
	double host_server_wait_p50_us, host_server_wait_max_us;
	/* fidelity: the link's own accounting during the cell and the verdicts (-1 unknown) */
	pq_link_window link;
	int link_ok, host_ok;
	char started_at[32];
	int64_t wall_ns;
} pq_store_cell_row;

void pq_store_cell_row_init(pq_store_cell_row *r);

/* A cell row as the column table's getters read it (exp/cols.c): the cell, its dimensions
 * in force, what it measured, and the writer's own. */
typedef struct pq_store_cell_rec {
	const pq_exp_cell *c;
	const pq_exp_eff *e;
	const pq_store_cell_row *row;
	const char *host;
	int64_t run_id;
	long long conns_ok, conns_failed;
} pq_store_cell_rec;

/* The cell row (its dimensions as in force: e) and its connections, one transaction. */
int pq_store_cell(pq_store *s, const pq_exp_cell *c, const pq_exp_eff *e, const pq_store_cell_row *row,
		  const pq_load_record *recs, size_t n, pq_diag *d) PQ_MUST_USE;

/* UTC now as 2026-11-30T20:31:48Z. */
void pq_store_utc_now(char out[32]);

/* Before anything slow: the file's directory can be made and the file written (or
 * created). Names the path and the reason. */
int pq_store_precheck(const char *path, pq_diag *d) PQ_MUST_USE;

#endif
