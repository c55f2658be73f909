/* HTTP/3 for `pqtls bench --quic --http3`: one GET over nghttp3 (HTTP/3 framing and
 * QPACK, Debian's libnghttp3) on OpenSSL 3.5's QUIC streams. The client opens its
 * control stream and the two QPACK streams (unidirectional) and one request stream
 * (bidirectional), accepts the server's unidirectional streams, and feeds every
 * stream's bytes to nghttp3 in both directions.
 *
 * Contract: the connection's SSL was set up for it before the handshake
 * (pq_load_h3_prepare: no default stream, incoming streams accepted). After the
 * handshake pq_load_h3_start makes the streams and submits the request; pq_load_h3_pump
 * moves what can move now and returns 1 when the response has ended, 0 to wait for the
 * network, or a negative error with a sentence in *why (valid until the connection is
 * freed): a response without :status, one nghttp3 refused as malformed, a request
 * stream the server reset (with its HTTP/3 error code by name), a connection that ended
 * first. The response's status and body bytes go into c->rec; every byte on the request
 * stream counts as progress (pq_load_conn_response_bytes: TTFB, the phase timeout).
 * pq_load_h3_free releases everything (safe on a connection that never started). */
#ifndef PQ_LOAD_H3_H
#define PQ_LOAD_H3_H

#include "load/conn.h"

int pq_load_h3_prepare(pq_load_conn *c) PQ_MUST_USE;
int pq_load_h3_start(pq_load_conn *c, const char **why) PQ_MUST_USE;
int pq_load_h3_pump(pq_load_conn *c, const char **why) PQ_MUST_USE;
void pq_load_h3_free(pq_load_conn *c);

#endif
