/* THE percentile of pqtls (src/stats/sample.h: linear interpolation between closest ranks,
 * lo and frac by integer arithmetic) written once in SQL, for the views of schema.sql
 * (cell_stats, arm_stats), which pq_cols_schema_sql (exp/colsql.h) fills from these two fragments:
 *
 *   "@PCT_PARTS COLUMN RANK COUNT P@" in an aggregate over rows numbered RANK (1-based, in
 *   COLUMN's order, NULLs last) of COUNT non-NULL values: COLUMN_P_lo and COLUMN_P_hi,
 *   the values at ranks floor(h) + 1 and floor(h) + 2 for h = (COUNT - 1) P / 1000, and
 *   COLUMN_P_m, h's remainder in thousandths;
 *   "@PCT COLUMN P@" (COLUMN qualified by the aggregate's alias, a.ttfb_us): the quantile
 *   from those three, COLUMN_P_lo + m / 1000 (COLUMN_P_hi - COLUMN_P_lo), or COLUMN_P_lo
 *   itself when m = 0 (the highest rank has no value above it).
 *
 * Each takes the mark's text between its keyword and the closing '@' and writes the SQL
 * into buf; it returns the length, PQ_EPARSE for a mark it cannot read (schema.sql is
 * wrong) or PQ_ETOOBIG when buf is too small. */
#ifndef PQ_EXP_PCTSQL_H
#define PQ_EXP_PCTSQL_H

#include <stddef.h>

#include "core/err.h"

int pq_pctsql_parts(const char *args, char *buf, size_t n) PQ_MUST_USE;
int pq_pctsql_value(const char *args, char *buf, size_t n) PQ_MUST_USE;

#endif
