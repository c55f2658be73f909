/* Chromium's NetLog (--log-net-log=FILE --net-log-capture-mode=Everything) read into one
 * pq_load_record: the TCP connection that carried a navigation, as pqtls's own client
 * records its connections.
 *
 * The log is one JSON object: "constants" (logEventTypes and netError: names to numbers,
 * clientInfo.version) and "events", each {time (ms, a string), type, phase (1 begin, 2
 * end, 0 none), source {id, type}, params}. The navigation is the last URL_REQUEST whose
 * URL_REQUEST_START_JOB is a "main frame" request for `url`; its HTTP stream job
 * (HTTP_STREAM_REQUEST_BOUND_TO_JOB) names the socket (SOCKET_POOL_BOUND_TO_SOCKET) that
 * carried it, which may be a speculative connection opened before the navigation. When
 * the navigation failed before a socket was bound, the last socket connected to `addr`
 * stands for it and the navigation's net_error says why. A browser that navigated before
 * (warm: another origin; resumed: the same URL) has its earlier sockets left out of the
 * count of connections: those counted connected after the main-frame request before the
 * navigation ended.
 *
 * Times are from the socket's TCP_CONNECT begin (pqtls's connect(2)), at the NetLog's
 * millisecond resolution: connect (TCP_CONNECT end), client_hello (its first bytes sent
 * in the SSL_CONNECT), server_hello, handshake (SSL_CONNECT end: after the browser's
 * certificate verification and Finished), request (the transaction's send begin), ttfb
 * (response headers read), ttlb and end (the last bytes received before the request
 * ended). Beside them the network-only times (record.h: br_*): the last bytes of the
 * server's first flight received before verification began, the verification's length,
 * the request's bytes sent and the first response bytes received on the socket.
 * Negotiated: group and signature scheme by their code points (OpenSSL's names where
 * known, else "0x11ec"), resumption, the ClientHello message's bytes (its 4-byte header
 * included, as pqtls counts it) and, with `mss` > 0, its flight's segments (its bytes on
 * the wire over the MSS). A log cut short (a killed browser) is read up to its last
 * whole event.
 *
 * Contract: pq_netlog_read returns 0 with *r filled (r->err says how the navigation
 * ended: PQ_LERR_NONE, or the kind and net error name in err_detail), or PQ_EPARSE when
 * buf is not a NetLog (no constants or events; the message says which). version (may be
 * NULL) receives clientInfo.version ("" unknown). */
#ifndef PQ_LOAD_NETLOG_H
#define PQ_LOAD_NETLOG_H

#include <stddef.h>

#include "core/err.h"
#include "load/record.h"

typedef struct pq_netlog_target {
	const char *url;  /* "https://10.0.0.2:8443/", as the navigation asked for it */
	const char *addr; /* "10.0.0.2:8443": the server's address as the socket connected */
	unsigned mss;     /* bytes per segment for the ClientHello's flight; 0 unknown */
} pq_netlog_target;

int pq_netlog_read(const char *buf, size_t len, const pq_netlog_target *t, pq_load_record *r, char *version,
		   size_t vn, pq_diag *d) PQ_MUST_USE;

#endif
