/* Raw per-connection records to files: CSV (one header line, one row per connection)
 * and JSON Lines (one object per connection), with the same fields in the same order:
 * `id`, then a connection record's columns under the results database's names
 * (load/fields.h), then `quic` and `quic_first_dgram_bytes`. Times are microseconds from
 * the run's start or from the connection's start; bytes are bytes; what was not reached
 * or not measured is -1 in CSV (empty for a text) and null in JSON.
 *
 * Contract: the file appears complete or not at all (core/wfile.h: written beside PATH
 * and renamed, every write checked; a device or FIFO is written in place); on failure
 * nothing is left and *d names `what` (the caller's name for the output) and the path.
 * "-" writes to stdout. */
#ifndef PQ_LOAD_WRITERS_H
#define PQ_LOAD_WRITERS_H

#include <stddef.h>
#include <stdio.h>

#include "core/err.h"
#include "core/wfile.h"
#include "load/record.h"

/* An output opened before the run, so a path that cannot be written fails before the
 * first connection rather than after the whole measurement: the temporary file is
 * created now (PATH a directory is refused; a FIFO waits for its reader), filled and renamed by commit, removed by
 * abort. "-" is stdout. `what` names the input in messages (e.g. the option). */
typedef void (*pq_load_stream_fn)(FILE *f, const pq_load_record *recs, size_t n);
typedef pq_wfile pq_load_out;

int pq_load_out_open(pq_load_out *o, const char *path, const char *what, pq_diag *d) PQ_MUST_USE;
/* fn NULL: only close and rename (the rows were streamed with the row functions below). */
int pq_load_out_commit(pq_load_out *o, pq_load_stream_fn fn, const pq_load_record *recs, size_t n,
		       pq_diag *d) PQ_MUST_USE;
/* After rows were streamed into o->f: a write error so far (a full disk, a file size
 * limit) as an error naming the output, else 0. Call it right after writing, so errno
 * is the write's. */
int pq_load_out_check(const pq_load_out *o, pq_diag *d) PQ_MUST_USE;
void pq_load_out_abort(pq_load_out *o);

int pq_load_write_csv(const char *path, const char *what, const pq_load_record *recs, size_t n,
		      pq_diag *d) PQ_MUST_USE;
int pq_load_write_jsonl(const char *path, const char *what, const pq_load_record *recs, size_t n,
			pq_diag *d) PQ_MUST_USE;

/* The same rows to an open stream (used by the writers and by tests). */
void pq_load_csv_stream(FILE *f, const pq_load_record *recs, size_t n);
void pq_load_jsonl_stream(FILE *f, const pq_load_record *recs, size_t n);
/* One at a time, for records streamed as connections finish. */
void pq_load_csv_header(FILE *f);
void pq_load_csv_row(FILE *f, const pq_load_record *r);
void pq_load_jsonl_row(FILE *f, const pq_load_record *r);

#endif
