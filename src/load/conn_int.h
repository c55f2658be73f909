/* Inside a load connection (load/conn.h): what its steps (conn.c) and its end (conn_end.c)
 * share. Not for other modules.
 *
 * Contract: pq_load_conn_mark sets phase ph's time once, the first call's. pq_load_conn_finish
 * ends c once (later calls do nothing): it keeps the first error with its detail (clipped
 * at a word), fills the record from the connection's accounting, frees the TLS object and
 * closes the socket, and leaves c DONE with no events and no timer. pq_load_conn_fail_status
 * acts on a failed TLS call's status: it returns the events to wait for, or 0 after
 * finishing c with the error the status names; pq_load_conn_ssl_fail does the same for an
 * SSL call's return value r. */
#ifndef PQ_LOAD_CONN_INT_H
#define PQ_LOAD_CONN_INT_H

#include <stdint.h>

#include "load/conn.h"
#include "tls/io.h"

void pq_load_conn_mark(pq_load_conn *c, enum pq_phase ph);
void pq_load_conn_finish(pq_load_conn *c, enum pq_load_err err, const char *detail);
uint32_t pq_load_conn_fail_status(pq_load_conn *c, const pq_tls_status *st);
uint32_t pq_load_conn_ssl_fail(pq_load_conn *c, int r);

#endif
