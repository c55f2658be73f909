/* Waiting until a server inside the link listens: reads /proc/net/tcp and tcp6 (or, for
 * a UDP server such as QUIC's, /proc/net/udp and udp6) as seen from the server
 * namespace, so it works for any program without connecting to it. */
#ifndef PQ_NET_LISTEN_H
#define PQ_NET_LISTEN_H

#include <stdint.h>
#include <sys/types.h>

#include "core/err.h"
#include "net/link.h"

/* 1 when `text` (the contents of /proc/net/tcp or tcp6) has a socket in LISTEN on `port`;
 * udp: `text` is /proc/net/udp or udp6 and a socket bound to `port`, not connected,
 * counts (its state reads 07). */
int pq_listen_parse(const char *text, unsigned port, int udp);

/* Polls every millisecond until something listens on TCP `port` (udp: a UDP socket is
 * bound to it) in the server namespace.
 * Fails with PQ_ETIMEOUT after timeout_ns, or PQ_ECHILD as soon as process `pid` (the
 * server; 0 = do not watch) has exited, with its status in *status. */
int pq_listen_wait(pq_link *l, unsigned port, int udp, int64_t timeout_ns, pid_t pid,
		   int *status, pq_diag *d) PQ_MUST_USE;

#endif
