/* A results database as plain files, for tools that do not read SQLite: one CSV per
 * table and view (header row, RFC 4180 quoting, NULL as an empty field), or one JSON
 * object per connection with its cell's parameters (the conn_cell view). Files are
 * written through temporary names and renamed, so a failed export leaves none half done. */
#ifndef PQ_EXP_EXPORT_H
#define PQ_EXP_EXPORT_H

#include "core/err.h"

int pq_exp_export_csv(const char *db_path, const char *dir, pq_diag *d) PQ_MUST_USE;
int pq_exp_export_jsonl(const char *db_path, const char *file, pq_diag *d) PQ_MUST_USE;

#endif
