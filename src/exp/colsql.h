/* SQL made from the column table (exp/cols.h): the schema a new results database gets, the
 * writers' INSERTs, the readers' SELECTs of a file of any version this pqtls reads (a
 * column the file lacks reads as its default), and the migration that upgrades an older
 * file in place. */
#ifndef PQ_EXP_COLSQL_H
#define PQ_EXP_COLSQL_H

#include <sqlite3.h>
#include <stddef.h>

#include "core/buf.h"
#include "core/err.h"
#include "exp/cols.h"

/* The schema: the CREATE TABLEs and indexes from the column table, then schema.sql's
 * views (their marks filled), then user_version. malloc'd (free it), NULL without memory. */
char *pq_cols_schema_sql(void);
/* schema.sql's views alone, their marks filled; malloc'd, NULL without memory. */
char *pq_cols_views_sql(void);
/* "INSERT INTO t (a, b) VALUES (:a, :b)" over every column a writer fills (not PQ_COL_DB);
 * the binders bind ":name". Length, or PQ_ETOOBIG. */
int pq_cols_insert_sql(enum pq_table_id t, char *buf, size_t n);
/* Which of t's columns the file's table has (schema "main", "src"...): present[i] for
 * column i, n at least pq_table_ncols(t). 0 or a negative error (the table is missing). */
int pq_cols_present(sqlite3 *db, const char *schema, enum pq_table_id t, unsigned char *present, size_t n);
/* "a, b, NULL AS c" into b: the columns `names` (NULL-terminated; NULL: every column of t,
 * in table order), each the file's own or, where the file lacks it, its default under its
 * name, so a reader finds column k of names at position k. A name t does not have is
 * PQ_EINVAL. */
int pq_cols_select_sql(sqlite3 *db, const char *schema, enum pq_table_id t, const char *const *names,
		       pq_buf *b) PQ_MUST_USE;
/* Brings a file of version PQ_SCHEMA_OLDEST up to PQ_SCHEMA_VERSION in one transaction:
 * every column of the table it lacks added with its default (ALTER TABLE ADD COLUMN), the
 * views made again, the version written; a current file that lacks a column (written
 * before the column was added) the same way. 0 with nothing done when it is current and
 * whole; the caller holds the file's write lock. Errors name path. */
int pq_cols_migrate(sqlite3 *db, const char *path, pq_diag *d) PQ_MUST_USE;

#endif
