/* The results database's tables as data (docs/results.md): one row per stored column
 * (core/col.h: its name, SQL type and constraint, unit, the range a reader accepts, the
 * schema version that added it, what fills it, its getter), one entry per table. The cell
 * table's dimension columns are exp/dim.h's rows, put in at ins_at; the conn table's rows
 * are a connection record's columns (load/fields.h), which bench writes too.
 *
 * Everything that names a stored column walks these rows: the schema's CREATE TABLEs
 * (exp/colsql.h), the writers' INSERTs (exp/store.c, exp/store_cell.c), the reader's
 * SELECTs (exp/rdb.c, by name), the CSV export, merge, and the migration that brings a
 * file of an older version up to this one. Adding a column is one row with its getter
 * (a connection's in load/fields.c) and the field it reads. */
#ifndef PQ_EXP_COLS_H
#define PQ_EXP_COLS_H

#include <stddef.h>

#include "core/col.h"

enum pq_table_id { PQ_T_META, PQ_T_RUN, PQ_T_LINK_CHECK, PQ_T_CELL, PQ_T_CONN, PQ_T_COUNT };

/* The rows a table takes in from elsewhere: none, the stored dimensions (exp/dim.h), a
 * connection record's columns (load/fields.h). */
enum pq_table_ins { PQ_TI_NONE, PQ_TI_DIMS, PQ_TI_LOAD };

typedef struct pq_table {
	const char *name;
	const pq_col *cols;    /* its own rows */
	size_t ncols;
	size_t ins_at;         /* the rows taken in go before cols[ins_at] */
	enum pq_table_ins inserted;
	const char *tail;      /* table constraints after the columns ("" none) */
	const char *options;   /* after the closing parenthesis ("" or " WITHOUT ROWID") */
	const char *indexes;   /* CREATE INDEX statements of the table ("" none) */
} pq_table;

extern const pq_table pq_tables[PQ_T_COUNT];

/* The oldest schema version this pqtls reads as it is and upgrades when it writes. */
#define PQ_SCHEMA_OLDEST 3

/* How many columns table t has, the rows taken in included. */
size_t pq_table_ncols(enum pq_table_id t);
/* Column i of table t (a dimension's made from exp/dim.h's row): 0, or -1 past the end. */
int pq_table_col(enum pq_table_id t, size_t i, pq_col *out);
/* The index of column `name` in table t, or -1. */
int pq_table_find(enum pq_table_id t, const char *name);
/* The literal a missing column reads as: its DEFAULT's ("'tcp'", "0"), else "NULL".
 * Into buf (n bytes); returns buf. */
const char *pq_col_default(const pq_col *c, char *buf, size_t n);

#endif
