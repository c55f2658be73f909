/* Inside the results reader (exp/rdb.h): its refusals, said once (rdb.c), and the typed
 * reading of an open file by name (rdb_read.c). Not for other modules. */
#ifndef PQ_EXP_RDB_INT_H
#define PQ_EXP_RDB_INT_H

#include <sqlite3.h>

#include "exp/rdb.h"

/* Every reason a database is refused (their words: rdb.c). */
enum pq_rdb_why {
	PQ_RDB_W_OPEN, PQ_RDB_W_NOTREG, PQ_RDB_W_NOTDB, PQ_RDB_W_DAMAGED, PQ_RDB_W_HOTJ, PQ_RDB_W_LOCKED,
	PQ_RDB_W_NOMETA, PQ_RDB_W_NOVER, PQ_RDB_W_BADVER, PQ_RDB_W_NOCELL, PQ_RDB_W_NOTNUM, PQ_RDB_W_RANGE,
	PQ_RDB_W_SQL, PQ_RDB_W_NOMEM,
};

/* "PATH: [DETAIL: ]REASON" into d; returns err. */
int pq_rdb_fail(pq_diag *d, int err, const char *path, enum pq_rdb_why w, const char *detail);
/* An SQLite failure, by its extended code rc, as one of the reasons. */
int pq_rdb_sql_fail(sqlite3 *db, int rc, const char *path, const char *what, pq_diag *d);
/* Every cell, connection, run and link check of an open file (one read transaction is
 * the caller's), by name, whatever version this pqtls reads. */
int pq_rdb_load(sqlite3 *db, const char *path, pq_rdb *out, pq_diag *d);

#endif
