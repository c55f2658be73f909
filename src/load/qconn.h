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

/* When the QUIC connection has been closed by the peer: the error kind and its words in
 * buf. A TLS alert during the handshake (the crypto error 0x100 + alert) is PQ_LERR_ALERT
 * and names the alert; any other close is PQ_LERR_CLOSED: its code (a transport error
 * by name), `when` it came (a phrase such as "before its ServerHello") and its reason
 * text. PQ_LERR_NONE when the peer did not close it. */
enum pq_load_err pq_load_qconn_peer_close(pq_load_conn *c, int in_handshake, const char *when,
					  char *buf, size_t n);

/* Copy c->wire into the record (at the end of the connection). */
void pq_load_qconn_record(pq_load_conn *c);

#endif
