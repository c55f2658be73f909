/* Shared between the server's files: the server object and its workers. */
#ifndef PQ_SERVER_INTERNAL_H
#define PQ_SERVER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "server/server.h"

typedef struct pq_worker {
	struct pq_server *srv;
	int listen_fd;
	int epfd;
	pthread_t thread;
	int started;
	pq_server_stats stats;
} pq_worker;

struct pq_server {
	pq_server_config cfg;
	SSL_CTX *ctx;
	SSL *listener;          /* QUIC: OpenSSL's listener on workers[0].listen_fd (UDP) */
	BIO *qtap;              /* QUIC: the datagram tap under it (owned by the listener) */
	int stop_fd;            /* eventfd: readable = stop */
	atomic_int open_conns;  /* across workers, for max_conns */
	atomic_int tls_conns;   /* of those, the ones with TLS state (made at their first byte):
				 * what tests wait for instead of sleeping */
	pq_worker *workers;
	int nworkers;
	int running, waited;
	char address[80];
	uint16_t port;
	pq_server_stats stats;
};

/* The worker's loop (worker.c); returns when stop_fd becomes readable. */
void *pq_worker_main(void *arg);
/* The QUIC loop (quic.c), the same contract over the listener. */
void *pq_qworker_main(void *arg);
/* A worker loop's start (wloop.c): the thread's nice as the server's config asks (read
 * back into w->stats.nice), then w->epfd, an epoll set with listen_fd readable as
 * listen_tag and the server's stop_fd as stop_tag. 0, or -errno (w->epfd may be open:
 * call pq_worker_close all the same). */
int pq_worker_open(pq_worker *w, void *listen_tag, void *stop_tag) PQ_MUST_USE;
/* Its end: w->epfd closed and -1. */
void pq_worker_close(pq_worker *w);
/* Make the QUIC listener over a bound UDP socket (quic.c); the socket stays ours. */
int pq_server_quic_listen(pq_server *s, int fd, pq_diag *d);

/* Count one handshake under its negotiated parameters / one failure reason. */
void pq_server_stats_handshake(pq_server_stats *st, const char *version, const char *group,
			       const char *sigalg, int resumed);
void pq_server_stats_reason(pq_server_stats *st, const char *reason);
/* Count one connection's wait for a CPU, ns (negative: unknown, not counted). */
void pq_server_stats_wait(pq_server_stats *st, int64_t wait_ns);

#endif
