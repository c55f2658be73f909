/* A tiny plain-TCP sender and receiver for measuring what the link does to TCP itself
 * (initcwnd steps, throughput), without TLS in the way. Both set TCP_NODELAY.
 *
 * Protocol: the client connects and sends its wanted byte count as 20 ASCII digits; the
 * server writes that many bytes (or a fixed byte count, if it was given one, without
 * waiting) and closes. The client times connect() start to the last byte. */
#ifndef PQ_NET_PROBE_H
#define PQ_NET_PROBE_H

#include <stdint.h>
#include <stdio.h>

#include "core/clock.h"
#include "core/err.h"

/* Serves on every address's `port` until killed. fixed_bytes 0: each client says how
 * many. Returns only on an error (a port it cannot listen on, a failed accept). */
int pq_probe_serve(unsigned port, uint64_t fixed_bytes, pq_diag *d) PQ_MUST_USE;

/* The same on a socket the caller listens on (and closes), until accept(2) fails, as it
 * does once the caller shuts the socket down: the error, with d set. */
int pq_probe_serve_fd(int listen_fd, uint64_t fixed_bytes, pq_diag *d) PQ_MUST_USE;

/* One fetch of `bytes` from addr:port; *ns = connect start to last byte by `clock`. */
int pq_probe_fetch(const char *addr, unsigned port, uint64_t bytes, pq_clock *clock, int64_t *ns,
		   pq_diag *d) PQ_MUST_USE;

/* `samples` fetches, one line per fetch to out: "BYTES MILLISECONDS MBIT/S"; stops at
 * the first that fails (the lines before it written). */
int pq_probe_fetch_report(const char *addr, unsigned port, uint64_t bytes, int samples,
			  pq_clock *clock, FILE *out, pq_diag *d) PQ_MUST_USE;

#endif
