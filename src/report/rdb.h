/* Reading a results database (docs/results.md) for the report: every cell and every
 * connection into memory, and the run and link_check tables as text for display.
 *
 * Contract: pq_rdb_open returns 0 with *out filled (free with pq_rdb_close) or a
 * negative error whose message names the file and what is wrong: not there, not an
 * SQLite file, not a pqtls database (no meta table or schema_version), written by a
 * newer pqtls (schema_version above PQ_RDB_SCHEMA), locked by another process, or
 * holding no measured cell. The file is opened read-only and never changed. */
#ifndef PQ_REPORT_RDB_H
#define PQ_REPORT_RDB_H

#include <stddef.h>

#include "core/err.h"

#define PQ_RDB_SCHEMA 2

typedef struct pq_rdb_conn {
	double connect_us, handshake_us, ttfb_us, ttlb_us; /* NaN when not reached */
	double min_rtt_us;
	int ok, resumed, retrans;
} pq_rdb_conn;

typedef struct pq_rdb_cell {
	long long id, rtt_us, response_bytes, chain_der_bytes, pad_to_bytes;
	long long flight_bytes, flight_segs;
	char host[96], arm[96], leaf[48], group[48], link_key[48], status[16];
	char point_key[48]; /* the grid point across trials (schema 2); "" in schema 1 */
	int intermediates, initcwnd, mtu, early_data, trial;
	int one_write; /* flight_one_write (0 where the column is absent) */
	double resume_pct, loss_pct, jitter_us, rate_bps;
	char cc[32]; /* the server's congestion control ("default" in older databases: unknown) */
	size_t c0, nc; /* its connections: conns[c0 .. c0 + nc - 1] */
} pq_rdb_cell;

typedef struct pq_rdb_table {
	size_t ncols, nrows;
	char **cols; /* ncols names */
	char **vals; /* nrows x ncols, NULL for SQL NULL */
} pq_rdb_table;

typedef struct pq_rdb {
	int schema;
	char spec_name[128];
	pq_rdb_cell *cells;
	size_t ncells;
	pq_rdb_conn *conns;
	size_t nconns;
	pq_rdb_table run, link_check;
} pq_rdb;

int pq_rdb_open(const char *path, pq_rdb *out, pq_diag *d) PQ_MUST_USE;
void pq_rdb_close(pq_rdb *db);

/* Column `name` of row r, or NULL (absent column or SQL NULL). */
const char *pq_rdb_get(const pq_rdb_table *t, size_t r, const char *name);

#endif
