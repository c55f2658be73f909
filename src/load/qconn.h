/* The QUIC half of a client connection (conn.c calls it when params->quic): the
 * connected UDP socket under OpenSSL's QUIC connection, with the datagram tap that feeds
 * c->wire, and OpenSSL's timer as c->tick_ns.
 *
 * Contract: pq_load_qconn_open is called on a connection whose SSL object exists; it
 * returns 0 (c->fd set, the SSL non-blocking over it) or -errno / PQ_ETLS with *why set
 * to a sentence. pq_load_qconn_timer reads OpenSSL's next timer into c->tick_ns. */
#ifndef PQ_LOAD_QCONN_H
#define PQ_LOAD_QCONN_H

#include "load/conn.h"

int pq_load_qconn_open(pq_load_conn *c, const char **why) PQ_MUST_USE;
void pq_load_qconn_timer(pq_load_conn *c);

/* When the QUIC connection has been closed by the peer: 1 and a sentence in buf (its
 * transport error code, the TLS alert for a handshake failure, its reason text).
 * 0 when it was not closed by the peer. */
int pq_load_qconn_peer_close(pq_load_conn *c, char *buf, size_t n);

/* Copy c->wire into the record (at the end of the connection). */
void pq_load_qconn_record(pq_load_conn *c);

#endif
