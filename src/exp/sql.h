/* Small helpers over SQLite prepared statements: bind by parameter name (":col"), step a
 * statement that returns no rows, read one text value. A name the statement does not
 * have is ignored, so one binder serves several statements. */
#ifndef PQ_EXP_SQL_H
#define PQ_EXP_SQL_H

#include <sqlite3.h>
#include <stddef.h>

#include "core/err.h"

typedef struct pq_sql_stmt {
	sqlite3 *db;
	sqlite3_stmt *st;
} pq_sql_stmt;

int pq_sql_prepare(pq_sql_stmt *s, sqlite3 *db, const char *sql, pq_diag *d) PQ_MUST_USE;
void pq_sql_text(pq_sql_stmt *s, const char *name, const char *v); /* NULL binds NULL */
void pq_sql_int(pq_sql_stmt *s, const char *name, long long v);
void pq_sql_double(pq_sql_stmt *s, const char *name, double v);
void pq_sql_null(pq_sql_stmt *s, const char *name);
/* Steps to SQLITE_DONE and finalizes; `what` names the action in the message. */
int pq_sql_step_done(pq_sql_stmt *s, const char *what, pq_diag *d) PQ_MUST_USE;
/* Steps to SQLITE_DONE and resets for the next row (does not finalize). */
int pq_sql_step_reset(pq_sql_stmt *s, const char *what, pq_diag *d) PQ_MUST_USE;
void pq_sql_finalize(pq_sql_stmt *s);

/* First column of the first row as text into out ("" when no row); negative on error. */
int pq_sql_get_text(sqlite3 *db, const char *sql, char *out, size_t n) PQ_MUST_USE;
/* Runs sql with ?1 and ?2 bound to two texts. */
int pq_sql_exec_text2(sqlite3 *db, const char *sql, const char *a, const char *b) PQ_MUST_USE;
/* sqlite3_exec with the message into *d. */
int pq_sql_exec(sqlite3 *db, const char *sql, const char *what, pq_diag *d) PQ_MUST_USE;

#endif
