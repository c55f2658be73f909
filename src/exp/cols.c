/* The rows of exp/cols.h: every stored column of the results database, once. Units are in
 * the names too (_us microseconds, _bytes, _bps bits per second, _pct 0..100, _segs TCP
 * segments, _pkts packets); NULL means "not reached" or "not measured", never zero. */
#include "exp/cols.h"

#include <stdio.h>
#include <string.h>

#include "core/cpus.h"
#include "core/sched.h"
#include "exp/dim.h"
#include "exp/store.h"
#include "load/fields.h"

#define N(a) (sizeof a / sizeof a[0])
/* A column of version 3, one added later (v), one the database fills. */
#define C(name, sql, unit, range, fill) {name, sql, unit, PQ_CR_##range, 3, 0, fill, NULL}
#define V(v, name, sql, unit, range, fill) {name, sql, unit, PQ_CR_##range, v, 0, fill, NULL}
#define DB(name, sql, fill) {name, sql, "", PQ_CR_ANY, 3, PQ_COL_DB, fill, NULL}

static const pq_col meta_cols[] = {
	C("key", "TEXT PRIMARY KEY", "", ANY, "schema_version, created_by, spec_name, spec_hash"),
	C("value", "TEXT NOT NULL", "", ANY, "its value"),
};

#define NO_GET(...)
#define AS_ROWS(...) __VA_ARGS__,

/* X(...) over k, the run's pq_store_run_rec; W(rows without a getter). */
#define RUN_COLS(X, W)                                                                                         \
	W(DB("run_id", "INTEGER PRIMARY KEY", "the run's number in this file"))                                \
	X(run_uuid, "TEXT NOT NULL UNIQUE", "", ANY, 3, "128 random bits, hex", pq_cv_str(k->uuid))            \
	X(spec_name, "TEXT NOT NULL", "", ANY, 3, "the spec's or preset's name", pq_cv_str(k->r->spec_name))   \
	X(spec_hash, "TEXT NOT NULL", "", ANY, 3, "the grid's hash (meta.spec_hash)", pq_cv_str(k->r->grid_hash)) \
	X(spec_text, "TEXT NOT NULL", "", ANY, 3, "the spec as given",                                         \
	  pq_cv_str(k->r->spec_text ? k->r->spec_text : ""))                                                   \
	X(command_line, "TEXT NOT NULL", "", ANY, 3, "the sweep's command line",                               \
	  pq_cv_str(k->r->command_line ? k->r->command_line : ""))                                             \
	X(pqtls_version, "TEXT NOT NULL", "", ANY, 3, "this pqtls", pq_cv_str(PQTLS_VERSION))                  \
	X(openssl_version, "TEXT NOT NULL", "", ANY, 3, "OpenSSL_version(OPENSSL_VERSION)", pq_cv_str(k->openssl)) \
	X(kernel, "TEXT NOT NULL", "", ANY, 3, "uname: system, release, machine", pq_cv_str(k->kernel))        \
	X(cpu_model, "TEXT NOT NULL", "", ANY, 3, "/proc/cpuinfo's model name", pq_cv_str(k->cpu))             \
	X(cpu_count, "INTEGER NOT NULL", "", ANY, 3, "CPUs online", pq_cv_int(k->ncpu))                        \
	X(cpus_usable, "INTEGER", "", ANY, 4,                                                                  \
	  "CPUs the run could use: the least of those online, its affinity mask and its cgroup's CPU quota "  \
	  "rounded down, at least 1 (docs/sweep.md); NULL unknown",                                          \
	  k->r->cpus ? pq_cv_int(k->r->cpus->usable) : pq_cv_null())                                         \
	X(cpu_quota, "REAL", "", ANY, 4,                                                                       \
	  "its cgroup's CPU quota in CPUs (v2 cpu.max, v1 cpu.cfs_quota_us over cpu.cfs_period_us, the least " \
	  "along its path); NULL: none or unknown",                                                           \
	  k->r->cpus && k->r->cpus->quota > 0 ? pq_cv_real(k->r->cpus->quota) : pq_cv_null())                \
	X(keep_awake, "TEXT", "", ANY, 4,                                                                      \
	  "how the CPUs were kept from halting while measuring (sweep --keep-awake): poll (a CPU latency "      \
	  "request of 0 us held, idle CPUs polling), spin (SCHED_IDLE busy threads) or off; NULL: not recorded " \
	  "(a remote server's sweep, or before 2026-12-08)",                                                    \
	  pq_cv_text(k->r->keep_awake))                                                                         \
	X(host_name, "TEXT NOT NULL", "", ANY, 3, "gethostname", pq_cv_str(k->host))                           \
	X(link_backend, "TEXT NOT NULL", "", ANY, 3, "userspace, netem or none",                               \
	  pq_cv_str(k->r->link_backend ? k->r->link_backend : "none"))                                         \
	X(cc_default, "TEXT NOT NULL", "", ANY, 3, "the host's default congestion control", pq_cv_str(k->cc))  \
	X(seed, "INTEGER NOT NULL", "", ANY, 3, "the sweep's seed", pq_cv_int((long long)k->r->seed))         \
	X(shard_index, "INTEGER NOT NULL", "", ANY, 3, "the shard: its index, from 1", pq_cv_int(k->r->shard_index))         \
	X(shard_count, "INTEGER NOT NULL", "", ANY, 3, "the shard: how many the grid was split into", pq_cv_int(k->r->shard_count))         \
	X(remote_server, "TEXT", "", ANY, 3, "the remote server measured, HOST:PORT; NULL: the sweep's own servers",              \
	  pq_cv_text(k->r->remote))                                                                            \
	X(chromium_version, "TEXT", "", ANY, 4, "the browser of client = chromium cells; NULL when none ran",  \
	  pq_cv_text(k->r->chromium_version))                                                                  \
	X(cells_planned, "INTEGER NOT NULL", "", ANY, 3, "cells of the grid this run meant to measure",        \
	  pq_cv_int((long long)k->r->cells_planned))                                                           \
	X(started_at, "TEXT NOT NULL", "", ANY, 3, "UTC, 2026-11-30T20:31:48Z", pq_cv_str(k->now))             \
	W(C("ended_at", "TEXT", "", ANY, "UTC; NULL while running"),                                           \
	  DB("end_status", "TEXT NOT NULL DEFAULT 'running'", "running, complete, interrupted or failed: why"))

#define RUN_GET(...) PQ_COL_GETTER(run_, pq_store_run_rec, k, , __VA_ARGS__)
#define RUN_ROW(...) PQ_COL_ROW(run_, __VA_ARGS__)
RUN_COLS(RUN_GET, NO_GET)
static const pq_col run_cols[] = {RUN_COLS(RUN_ROW, AS_ROWS)};

/* The link columns link_check and cell share: the forwarder's own accounting (lateness =
 * each packet's write minus its scheduled release; NULL: not kept, netem) and drops. */
#define LINK_WINDOW                                                                                     \
	C("link_late_p50_us", "REAL", "us", LATE, "the forwarder's release lateness, median"),           \
	C("link_late_p99_us", "REAL", "us", LATE, "its p99"),                                            \
	C("link_late_max_us", "REAL", "us", LATE, "its largest"),                                        \
	C("link_releases_pkts", "INTEGER", "pkts", COUNT, "packets the forwarder released"),            \
	C("link_drop_loss_pkts", "INTEGER", "pkts", COUNT, "dropped by the loss model"),                 \
	C("link_drop_queue_pkts", "INTEGER", "pkts", COUNT, "dropped by the full queue"),                \
	C("link_drop_unplanned_pkts", "INTEGER", "pkts", COUNT, "dropped for no reason of the model"),   \
	C("link_fwd_wait_us", "REAL", "us", DUR, "the forwarder's own wait for a CPU")

/* X(...) over k, the check's pq_store_check_rec, and its result k->r (NULL: not checked). */
#define CK(value) (k->r ? (value) : pq_cv_null())
#define CK_US(ns) CK((ns) < 0 ? pq_cv_null() : pq_cv_real((double)(ns) / 1e3))
#define CK_DIR(i, what, value) CK(k->r->dir[i].measured_##what ? (value) : pq_cv_null())
#define CHECK_COLS(X, W)                                                                                       \
	W(DB("link_check_id", "INTEGER PRIMARY KEY", "the check's number in this file"))                       \
	X(run_id, "INTEGER NOT NULL REFERENCES run(run_id)", "", ANY, 3, "the run that checked", pq_cv_int(k->run_id)) \
	X(link_key, "TEXT NOT NULL", "", ANY, 3, "the link's key", pq_cv_str(k->link_key))                     \
	X(link_desc, "TEXT NOT NULL", "", ANY, 3, "the link as configured, in words", pq_cv_str(k->desc))      \
	X(backend, "TEXT NOT NULL", "", ANY, 3, "userspace or netem", pq_cv_str(k->backend))                   \
	X(checked, "INTEGER NOT NULL", "", ANY, 3, "1 checked, 0 the self-check was turned off", pq_cv_int(k->r != NULL))         \
	X(ok, "INTEGER", "", ANY, 3, "1 within every budget", CK(pq_cv_int(k->r->ok)))                          \
	X(rtt_cfg_us, "REAL", "us", DUR, 3, "the RTT configured", CK_US(k->r->rtt_cfg_ns))                        \
	X(rtt_samples, "INTEGER", "", COUNT, 3, "echoes timed", CK(pq_cv_int(k->r->rtt_n)))                     \
	X(rtt_lost, "INTEGER", "", COUNT, 3, "echoes lost", CK(pq_cv_int(k->r->rtt_lost)))                      \
	X(rtt_p50_us, "REAL", "us", DUR, 3, "kernel-timed RTT, median", CK_US(k->r->rtt_p50_ns))                  \
	X(rtt_p99_us, "REAL", "us", DUR, 3, "its p99", CK_US(k->r->rtt_p99_ns))                                   \
	X(rtt_min_us, "REAL", "us", DUR, 3, "its least", CK_US(k->r->rtt_min_ns))                                 \
	X(rtt_max_us, "REAL", "us", DUR, 3, "its largest", CK_US(k->r->rtt_max_ns))                               \
	X(rtt_err_p50_us, "REAL", "us", ANY, 3, "RTT minus configured, median", CK(pq_cv_real(k->r->err_p50_ns / 1e3))) \
	X(rtt_err_p99_us, "REAL", "us", ANY, 3, "its p99", CK(pq_cv_real(k->r->err_p99_ns / 1e3)))              \
	X(rtt_ok, "INTEGER", "", ANY, 3, "the RTT within its budget (NULL: not judged, jitter or rate)",        \
	  CK(k->r->rtt_judged ? pq_cv_int(k->r->rtt_ok) : pq_cv_null()))                                        \
	X(c2s_rate_bps, "REAL", "bps", COUNT, 3, "rate measured, client to server",                            \
	  CK_DIR(0, rate, pq_cv_real(k->r->dir[0].rate_bps)))                                                     \
	X(s2c_rate_bps, "REAL", "bps", COUNT, 3, "rate measured, server to client",                            \
	  CK_DIR(1, rate, pq_cv_real(k->r->dir[1].rate_bps)))                                                     \
	X(c2s_rate_ok, "INTEGER", "", ANY, 3, "within its budget", CK_DIR(0, rate, pq_cv_int(k->r->dir[0].rate_ok))) \
	X(s2c_rate_ok, "INTEGER", "", ANY, 3, "within its budget", CK_DIR(1, rate, pq_cv_int(k->r->dir[1].rate_ok))) \
	X(c2s_loss_pct, "REAL", "pct", PCT, 3, "loss measured, client to server",                              \
	  CK_DIR(0, loss, pq_cv_real(k->r->dir[0].loss * 100)))                                                   \
	X(s2c_loss_pct, "REAL", "pct", PCT, 3, "loss measured, server to client",                              \
	  CK_DIR(1, loss, pq_cv_real(k->r->dir[1].loss * 100)))                                                   \
	X(c2s_loss_ok, "INTEGER", "", ANY, 3, "within its budget", CK_DIR(0, loss, pq_cv_int(k->r->dir[0].loss_ok))) \
	X(s2c_loss_ok, "INTEGER", "", ANY, 3, "within its budget", CK_DIR(1, loss, pq_cv_int(k->r->dir[1].loss_ok))) \
	X(host_steal_pct, "REAL", "pct", PCT, 3, "the host's steal during the check",                          \
	  CK(k->r->host_steal >= 0 ? pq_cv_real(k->r->host_steal * 100) : pq_cv_null()))                       \
	X(probe_p50_us, "REAL", "us", DUR, 3, "the echo as the probe saw it (the host's noise), median",       \
	  CK_US(k->r->probe_p50_ns))                                                                              \
	X(probe_p99_us, "REAL", "us", DUR, 3, "its p99", CK_US(k->r->probe_p99_ns))                               \
	W(C("link_ok", "INTEGER", "", ANY, "the link within its budget"), LINK_WINDOW)                         \
	X(host_runq_before, "INTEGER", "", COUNT, 3, "the run queue before", CK(pq_cv_opt(k->r->runq_before)))  \
	X(host_runq_after, "INTEGER", "", COUNT, 3, "the run queue after", CK(pq_cv_opt(k->r->runq_after)))     \
	X(summary, "TEXT NOT NULL", "", ANY, 3, "the check in one line", pq_cv_str(k->summary))                \
	X(checked_at, "TEXT NOT NULL", "", ANY, 3, "UTC", pq_cv_str(k->now))

#define CHECK_GET(...) PQ_COL_GETTER(check_, pq_store_check_rec, k, , __VA_ARGS__)
#define CHECK_ROW(...) PQ_COL_ROW(check_, __VA_ARGS__)
CHECK_COLS(CHECK_GET, NO_GET)
static const pq_col link_check_cols[] = {CHECK_COLS(CHECK_ROW, AS_ROWS)};
#undef CK
#undef CK_US
#undef CK_DIR



static pq_colval v_nice(int n)
{
	return n == PQ_SCHED_NICE_KEEP ? pq_cv_null() : pq_cv_int(n);
}

/* Every cell column but the dimensions' (exp/dim.h, put in at ins_at) and the link window's
 * (the writer binds those from the window, as for link_check: pq_store_bind_window):
 * X(name, sql, unit, range, since, fill, value over x, the cell's pq_store_cell_rec, and r,
 * its pq_store_cell_row); W(rows without a getter). */
#define CELL_COLS(X, W)                                                                                        \
	W(DB("cell_id", "INTEGER PRIMARY KEY", "the cell's number in this file"))                              \
	X(cell_key, "TEXT NOT NULL", "", ANY, 3, "hash of the dimensions' canonical text and the trial", pq_cv_str(x->c->key)) \
	X(point_key, "TEXT NOT NULL", "", ANY, 3, "the grid point across trials", pq_cv_str(x->c->point_key))     \
	X(host_name, "TEXT NOT NULL", "", ANY, 3, "the measuring host", pq_cv_str(x->host))                       \
	X(run_id, "INTEGER NOT NULL REFERENCES run(run_id)", "", ANY, 3, "the run that measured it", pq_cv_int(x->run_id)) \
	X(link_check_id, "INTEGER REFERENCES link_check(link_check_id)", "", ANY, 3, "its link's check",       \
	  r->link_check_id > 0 ? pq_cv_int(r->link_check_id) : pq_cv_null())                                             \
	X(cell_index, "INTEGER NOT NULL", "", ANY, 3, "its place in the grid", pq_cv_int((long long)x->c->index))  \
	X(link_key, "TEXT NOT NULL", "", ANY, 3, "its link's key", pq_cv_str(x->c->link_key))                     \
	X(trial, "INTEGER NOT NULL", "", ANY, 3, "the trial, from 0", pq_cv_int(x->c->p.trial))                    \
	X(arm, "TEXT NOT NULL", "", ANY, 3, "the arm's name", pq_cv_str(x->c->p.arm))                             \
	X(chain_desc, "TEXT", "", ANY, 3, "the chain as built (pq_chain_info)", pq_cv_text(r->chain_desc))         \
	X(chain_der_bytes, "INTEGER", "bytes", ANY, 3, "its DER bytes", pq_cv_opt(r->chain_der_bytes))             \
	X(cert_msg_bytes, "INTEGER", "bytes", ANY, 3, "its Certificate message", pq_cv_opt(r->cert_msg_bytes))     \
	X(first_flight_bytes, "INTEGER", "bytes", ANY, 3, "the server's first flight", pq_cv_opt(r->first_flight_bytes)) \
	X(first_flight_segs, "INTEGER", "segs", ANY, 3, "the same in TCP segments", pq_cv_opt(r->first_flight_segs)) \
	X(chain_cached, "INTEGER", "", ANY, 3, "1 when the chain came from the cache", pq_cv_opt(r->chain_cached))  \
	X(response_bytes, "INTEGER NOT NULL", "bytes", ANY, 3, "N of GET /bytes/N; -1 for '/' and 'none'",     \
	  pq_cv_int(x->c->p.response_bytes))                                                                       \
	X(mss_bytes, "INTEGER", "bytes", ANY, 3, "the MSS in force (tcp_info); NULL unknown", pq_cv_opt(x->e->mss)) \
	X(server_hs_timeout_us, "INTEGER NOT NULL", "us", ANY, 3, "the server's handshake timeout",             \
	  pq_cv_int(r->server_hs_timeout_ns / 1000))                                                               \
	X(server_idle_timeout_us, "INTEGER NOT NULL", "us", ANY, 3, "the server's idle timeout",               \
	  pq_cv_int(r->server_idle_timeout_ns / 1000))                                                             \
	X(link_check_ok, "INTEGER", "", ANY, 3, "its link's check passed; NULL not checked", pq_cv_opt(r->link_check_ok)) \
	X(status, "TEXT NOT NULL", "", ANY, 3, "ok, failures or failed", pq_cv_str(r->status))                     \
	X(failure_reason, "TEXT", "", ANY, 3, "why, when not ok", pq_cv_text(r->failure_reason))                   \
	X(conns_ok, "INTEGER NOT NULL", "", ANY, 3, "connections without error", pq_cv_int(x->conns_ok))           \
	X(conns_failed, "INTEGER NOT NULL", "", ANY, 3, "connections with one", pq_cv_int(x->conns_failed))        \
	X(server_handshakes, "INTEGER", "", ANY, 3, "handshakes the server completed", pq_cv_opt(r->server_handshakes)) \
	X(server_errors, "INTEGER", "", ANY, 3, "errors the server saw", pq_cv_opt(r->server_errors))              \
	X(server_error_detail, "TEXT", "", ANY, 3, "the first of them", pq_cv_text(r->server_error_detail))        \
	X(client_cpu_us, "INTEGER", "us", ANY, 3, "the client's CPU time",                                     \
	  r->client_cpu_ns < 0 ? pq_cv_null() : pq_cv_int(r->client_cpu_ns / 1000))                                      \
	X(server_link_cpu_us, "INTEGER", "us", ANY, 3, "the server's and the link's CPU time",                 \
	  r->server_link_cpu_ns < 0 ? pq_cv_null() : pq_cv_int(r->server_link_cpu_ns / 1000))                            \
	X(host_steal_pct, "REAL", "pct", PCT, 3, "the host's steal during the cell", pq_cv_optr(r->host_steal_pct)) \
	X(host_throttled_us, "REAL", "us", DUR, 4,                                                             \
	  "how long its cgroup's CPU quota throttled the cgroup while the cell ran (cpu.stat: every process "  \
	  "in it, the cells beside it too; the endpoints' waits and the link's lateness count what it did to " \
	  "this cell); NULL: no quota (run.cpu_quota)", pq_cv_optr(r->host_throttled_us))                     \
	X(host_runq_before, "INTEGER", "", ANY, 3, "the run queue before", pq_cv_opt(r->host_runq_before))         \
	X(host_runq_after, "INTEGER", "", ANY, 3, "the run queue after", pq_cv_opt(r->host_runq_after))            \
	X(host_load1_before, "REAL", "", ANY, 3, "the 1-minute load before", pq_cv_optr(r->host_load1_before))     \
	X(host_load1_after, "REAL", "", ANY, 3, "the 1-minute load after", pq_cv_optr(r->host_load1_after))        \
	X(host_nice, "INTEGER", "", ANY, 4, "the endpoints' nice, read back (the larger); NULL unknown",        \
	  v_nice(r->host_nice))                                                                                \
	X(host_group_nice, "INTEGER", "", ANY, 4, "their session group's nice; NULL no grouping",              \
	  v_nice(r->host_group_nice))                                                                          \
	X(host_cells_at_once, "INTEGER", "", ANY, 4,                                                           \
	  "cells measured at once when it was handed out, itself included (1: one at a time; --jobs); "     \
	  "NULL unknown (before this column)", pq_cv_opt(r->host_cells_at_once))                               \
	X(host_server_cpus, "TEXT", "", ANY, 4,                                                               \
	  "a browser's cell, or pqtls's client's under 10 ms RTT: the CPUs its server ran on, read back "     \
	  "(a CPU list); NULL when it shared every CPU with the client", pq_cv_text(r->host_server_cpus))    \
	X(host_client_cpus, "TEXT", "", ANY, 4, "the CPUs its client ran on, read back; NULL: every CPU",     \
	  pq_cv_text(r->host_client_cpus))                                                                  \
	X(link_fwd_cpus, "TEXT", "", ANY, 4,                                                                  \
	  "the CPUs its link's forwarder ran on, read back: the server's, or the client's under 10 ms RTT; " \
	  "NULL: every CPU", pq_cv_text(r->link_fwd_cpus))                                                   \
	X(host_client_wait_p50_us, "REAL", "us", DUR, 4, "the client's wait for a CPU per connection, median", \
	  pq_cv_optr(r->host_client_wait_p50_us))                                                                  \
	X(host_client_wait_max_us, "REAL", "us", DUR, 4, "its largest", pq_cv_optr(r->host_client_wait_max_us))    \
	X(host_server_wait_p50_us, "REAL", "us", DUR, 4, "the server's, accept to close, median",              \
	  pq_cv_optr(r->host_server_wait_p50_us))                                                                  \
	X(host_server_wait_max_us, "REAL", "us", DUR, 4, "its largest", pq_cv_optr(r->host_server_wait_max_us))    \
	W(LINK_WINDOW, C("link_ok", "INTEGER", "", ANY, "1 within the link's budget, 0 over, NULL not known")) \
	X(host_ok, "INTEGER", "", ANY, 3, "1 within the host's budget, 0 over, NULL not known", pq_cv_opt(r->host_ok)) \
	X(started_at, "TEXT NOT NULL", "", ANY, 3, "UTC", pq_cv_str(r->started_at))                                \
	X(wall_us, "INTEGER NOT NULL", "us", ANY, 3, "how long the cell took", pq_cv_int(r->wall_ns / 1000))

#define CELL_GET(...) \
	PQ_COL_GETTER(cell_, pq_store_cell_rec, x, const pq_store_cell_row *r = x->row; (void)r, __VA_ARGS__)
CELL_COLS(CELL_GET, NO_GET)

#define CELL_ROW(...) PQ_COL_ROW(cell_, __VA_ARGS__)
static const pq_col cell_cols[] = {CELL_COLS(CELL_ROW, AS_ROWS)};
enum { CELL_DIMS_AT = 10 }; /* after arm: the dimensions */

/* The conn table: the cell's id and the connection's place (the writer's own), then a
 * connection record's columns (load/fields.h). */
static const pq_col conn_cols[] = {
	C("cell_id", "INTEGER NOT NULL REFERENCES cell(cell_id)", "", ANY, "its cell"),
	C("conn_index", "INTEGER NOT NULL", "", ANY, "its place in the cell"),
};

const pq_table pq_tables[PQ_T_COUNT] = {
	[PQ_T_META] = {"meta", meta_cols, N(meta_cols), N(meta_cols), PQ_TI_NONE, "", " WITHOUT ROWID", ""},
	[PQ_T_RUN] = {"run", run_cols, N(run_cols), N(run_cols), PQ_TI_NONE, "", "", ""},
	[PQ_T_LINK_CHECK] = {"link_check", link_check_cols, N(link_check_cols), N(link_check_cols), PQ_TI_NONE, "", "",
			     ""},
	[PQ_T_CELL] = {"cell", cell_cols, N(cell_cols), CELL_DIMS_AT, PQ_TI_DIMS, "UNIQUE (cell_key, host_name)", "",
		       "CREATE INDEX cell_run ON cell(run_id);\nCREATE INDEX cell_arm ON cell(arm, rtt_us);\n"},
	[PQ_T_CONN] = {"conn", conn_cols, N(conn_cols), N(conn_cols), PQ_TI_LOAD, "PRIMARY KEY (cell_id, conn_index)",
		       " WITHOUT ROWID", ""},
};

/* How many rows table t takes in at ins_at: the stored dimensions, a record's columns. */
static size_t ninserted(enum pq_table_id t)
{
	size_t n = 0;
	if (pq_tables[t].inserted == PQ_TI_LOAD)
		return pq_load_nfields;
	for (int i = 0; pq_tables[t].inserted == PQ_TI_DIMS && i < PQ_DIM_COUNT; i++)
		n += pq_dims[i].column != NULL;
	return n;
}

size_t pq_table_ncols(enum pq_table_id t)
{
	return pq_tables[t].ncols + ninserted(t);
}

/* A dimension's column as a row: its range from its type, as the reader has always read it. */
static void dim_col(const pq_dim *k, pq_col *out)
{
	int text = strncmp(k->sql, "TEXT", 4) == 0;
	*out = (pq_col){k->column, k->sql, "", PQ_CR_COUNT, 3, 0, k->help, NULL};
	if (text)
		out->range = PQ_CR_ANY;
	else if (k->type == PQ_DT_DUR)
		out->range = PQ_CR_DUR;
	else if (k->type == PQ_DT_FRAC)
		out->range = PQ_CR_PCT;
}

/* Inserted row k of table t. */
static void inserted_col(enum pq_table_id t, size_t k, pq_col *out)
{
	if (pq_tables[t].inserted == PQ_TI_LOAD) {
		*out = pq_load_fields[k];
		return;
	}
	for (int d = 0; d < PQ_DIM_COUNT; d++)
		if (pq_dims[d].column && k-- == 0) {
			dim_col(&pq_dims[d], out);
			return;
		}
}

int pq_table_col(enum pq_table_id t, size_t i, pq_col *out)
{
	const pq_table *tb = &pq_tables[t];
	size_t ni = ninserted(t);
	if (i < tb->ins_at) {
		*out = tb->cols[i];
		return 0;
	}
	if (i < tb->ins_at + ni) {
		inserted_col(t, i - tb->ins_at, out);
		return 0;
	}
	if (i - ni < tb->ncols) {
		*out = tb->cols[i - ni];
		return 0;
	}
	return -1;
}

int pq_table_find(enum pq_table_id t, const char *name)
{
	pq_col c;
	for (size_t i = 0; pq_table_col(t, i, &c) == 0; i++)
		if (strcmp(c.name, name) == 0)
			return (int)i;
	return -1;
}

const char *pq_col_default(const pq_col *c, char *buf, size_t n)
{
	const char *d = strstr(c->sql, "DEFAULT ");
	if (!d) {
		snprintf(buf, n, "NULL");
		return buf;
	}
	d += strlen("DEFAULT ");
	/* a quoted text (no quote inside: the table's defaults are words) or a number */
	size_t len = d[0] == '\'' ? (size_t)(strchr(d + 1, '\'') ? strchr(d + 1, '\'') - d + 1 : 1)
				  : strcspn(d, " ,");
	snprintf(buf, n, "%.*s", (int)len, d);
	return buf;
}
