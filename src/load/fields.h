/* A connection record's columns (load/record.h), one row each (core/col.h): its name, SQL
 * type, unit, range, what fills it and the getter that reads it from a pq_load_record.
 * The results database's conn table (exp/cols.h) and `pqtls bench`'s --csv and --jsonl
 * (load/writers.c) walk the same rows, so a connection's value has one name and one
 * meaning wherever it is written. A new measurement of a connection is a field of the
 * record and a row here. */
#ifndef PQ_LOAD_FIELDS_H
#define PQ_LOAD_FIELDS_H

#include <stddef.h>

#include "core/col.h"

extern const pq_col pq_load_fields[];
extern const size_t pq_load_nfields;

#endif
