/* A results database as plain files, for tools that do not read SQLite: one CSV per
 * table and view (header row, RFC 4180 quoting, NULL as an empty field), or one JSON
 * object per connection with its cell's parameters (the conn_cell view).
 *
 * Contract: an export appears whole or not at all. The JSON lines file follows
 * core/wfile.h (a temporary beside it, renamed at the end; a device or FIFO is written in
 * place). The CSV set is made in a staging directory (DIR.tmp.XXXXXX beside a new DIR,
 * DIR/.export.tmp.XXXXXX in an existing one) and moved into DIR at the end. *stop (may
 * be NULL), set by a signal handler, is read once a row: when set, the export stops with
 * PQ_EINTERRUPTED and, as on any failure, removes every temporary file and directory it
 * made, leaving DIR or FILE as it was. */
#ifndef PQ_EXP_EXPORT_H
#define PQ_EXP_EXPORT_H

#include <signal.h>

#include "core/err.h"

int pq_exp_export_csv(const char *db_path, const char *dir, const volatile sig_atomic_t *stop,
		      pq_diag *d) PQ_MUST_USE;
int pq_exp_export_jsonl(const char *db_path, const char *file, const volatile sig_atomic_t *stop,
			pq_diag *d) PQ_MUST_USE;

#endif
