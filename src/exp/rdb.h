/* The one reader of results databases (docs/results.md): report, `zeek savings`,
 * `sweep export` and `merge` open a database here, and the store checks a file it
 * reopens with the same version check.
 *
 * Contract: every function returns 0 or a negative error whose message (one table in
 * rdb.c) names the file and what is wrong: not there or not readable; not a regular file
 * (a FIFO, a directory, a device: refused before SQLite touches it, so nothing hangs);
 * not an SQLite file; damaged (truncated or overwritten: "malformed"); a hot journal
 * beside it (a writer was interrupted mid-transaction); locked by a writer; not a pqtls
 * database (no meta table or meta.schema_version); a schema_version that is not a whole
 * number; a version outside PQ_SCHEMA_OLDEST..PQ_SCHEMA_VERSION (older: refused, since cell
 * keys and stored values changed; newer: written by a newer pqtls). The file is opened
 * read-only and never changed: a file of an older version this pqtls reads is read as it
 * is, a column it lacks reading as the column's default (exp/cols.h), as the upgrade a
 * sweep writing into it makes (exp/colsql.h) would fill it.
 *
 * pq_rdb_open also reads every cell and connection, typed: each cell carries the stored
 * (effective) value of every dimension (dim[], exp/dim.h) and its measurement; numbers
 * that are text ('NaN', 'abc') refuse the file, naming the row and column, rather than
 * reading as 0, and so do numbers no measurement produces (PQ_ERANGE; each column's range is
 * the column table's, exp/cols.h): a negative duration or RTT, one over a day
 * (PQ_RDB_MAX_US), a percentage outside 0..100, a negative count, size or rate, so the
 * report never shows them as measured; columns are read by name; cells whose conn rows are fewer than they recorded are counted and said
 * in `note`; a NUL inside a text value is kept visible as "\0" so two values never read
 * alike. */
#ifndef PQ_EXP_RDB_H
#define PQ_EXP_RDB_H

#include <stddef.h>

#include "core/err.h"
#include "exp/cols.h"
#include "exp/dim.h"

/* The results schema this pqtls writes and reads (meta.schema_version, user_version).
 * 3: cell dimension columns are the dimension table's, holding effective values; cell
 * keys hash the table's canonical text. 4: the endpoints' nice and waits for a CPU per
 * cell (host_nice, host_*_wait_*_us) and per connection (conn.client_wait_us), judged in
 * host_ok. */
#define PQ_SCHEMA_VERSION 4
/* The oldest version read and upgraded is PQ_SCHEMA_OLDEST (exp/cols.h). */

/* The longest duration a stored measurement can hold, us: a day (a cell's connection
 * times out long before). */
#define PQ_RDB_MAX_US 86400e6

struct sqlite3;

/* Opens path read-only with every check above; *db is the caller's to sqlite3_close. */
int pq_rdb_open_db(const char *path, struct sqlite3 **db, pq_diag *d) PQ_MUST_USE;
/* The file's version into *version when this pqtls reads it (PQ_SCHEMA_OLDEST to
 * PQ_SCHEMA_VERSION), else the error above. */
int pq_rdb_read_version(struct sqlite3 *db, const char *path, int *version, pq_diag *d) PQ_MUST_USE;
/* The version check of a writer, on an open handle: the file is PQ_SCHEMA_VERSION (an
 * older one is upgraded first, exp/colsql.h: pq_cols_migrate). */
int pq_rdb_check_version(struct sqlite3 *db, const char *path, pq_diag *d) PQ_MUST_USE;

typedef struct pq_rdb_conn {
	double connect_us, handshake_us, ttfb_us, ttlb_us; /* NaN when not reached */
	double min_rtt_us;
	int ok, resumed, early_sent, retrans;
	int hrr; /* the server answered with a HelloRetryRequest */
	double ch1_bytes; /* the ClientHello message (4-byte header included); NaN: not stored */
	/* Chromium's (client = chromium; NaN for pqtls's client): the server's first flight
	 * received, its certificate verification's length, the request's bytes sent and the
	 * first response bytes received (load/netlog.h) */
	double br_flight_us, br_verify_us, br_req_net_us, br_ttfb_net_us;
} pq_rdb_conn;

/* Chromium's first byte split as the conn_cell view splits it (exp/schema.sql; the two are
 * pinned equal by test_exp_rdb): the network's part (its first flight in, then one
 * request's round trip) and its request's dispatch (verification's end to the request's
 * bytes sent); NaN where a part is not stored. */
double pq_rdb_conn_br_network_us(const pq_rdb_conn *n);
double pq_rdb_conn_br_dispatch_us(const pq_rdb_conn *n);

/* What the link and the host did while a cell ran (its fidelity columns, docs/results.md):
 * NaN or -1 where not measured (netem, a remote server). */
typedef struct pq_rdb_fidelity {
	double late_p50_us, late_p99_us, late_max_us; /* the forwarder's release lateness */
	double steal_pct;
	double fwd_wait_us; /* the forwarder's own wait for a CPU inside the machine */
	long long releases, drop_loss, drop_queue, drop_unplanned;
	int link_ok, host_ok, check_ok; /* 1 within budget, 0 over, -1 not known */
	/* the endpoints: the median connection's wait for a CPU, client and server, and the
	 * nice values they and their session's group ran at (PQ_RDB_NICE_NONE: not known) */
	double client_wait_p50_us, server_wait_p50_us;
	int nice, group_nice;
	/* the median of its connections' times to the first response's last byte (NaN: none
	 * reached one), us: with the RTT, what the host's wait budget is a share of */
	double conn_p50_us;
} pq_rdb_fidelity;
#define PQ_RDB_NICE_NONE 100

typedef struct pq_rdb_cell {
	pq_dimval dim[PQ_DIM_COUNT]; /* as stored; PQ_DV_NULL for dimensions without a column */
	/* The fields the report reads by name (NULL numbers read as 0 here; dim[] keeps NULL). */
	long long id, rtt_us, response_bytes, chain_der_bytes, pad_to_bytes;
	long long flight_bytes, flight_segs;
	char host[96], arm[96], leaf[48], group[48], link_key[48], status[16];
	char chain_desc[160]; /* "" when NULL (a remote server's chain is not described) */
	char point_key[48]; /* the grid point across trials */
	int intermediates, initcwnd, mtu, early_data, trial;
	int one_write;
	int quic, quic_retry; /* transport = quic, quic-retry */
	double resume_pct, loss_pct, jitter_us, rate_bps, c2s_rate_bps; /* rates: 0 unlimited */
	long long conns_recorded; /* conns_ok + conns_failed as the cell recorded them */
	size_t c0, nc;            /* its connections: conns[c0 .. c0 + nc - 1] */
	pq_rdb_fidelity fid;
} pq_rdb_cell;

typedef struct pq_rdb_table {
	size_t ncols, nrows;
	char **cols; /* ncols names */
	char **vals; /* nrows x ncols, NULL for SQL NULL */
} pq_rdb_table;

typedef struct pq_rdb {
	int schema; /* the file's version, as it is */
	char spec_name[128];
	pq_rdb_cell *cells;
	size_t ncells;
	pq_rdb_conn *conns;
	size_t nconns;
	size_t cells_short;  /* cells with fewer conn rows than they recorded */
	long long conns_missing;
	char note[512];      /* "" or a sentence on what is missing, for the reader to print */
	pq_rdb_table run, link_check;
} pq_rdb;

int pq_rdb_open(const char *path, pq_rdb *out, pq_diag *d) PQ_MUST_USE;
void pq_rdb_close(pq_rdb *db);

/* Column `name` of row r, or NULL (absent column or SQL NULL). */
const char *pq_rdb_get(const pq_rdb_table *t, size_t r, const char *name);

#endif
