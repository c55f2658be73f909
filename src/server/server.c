#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/addr.h"
#include "core/sched.h"
#include "server/internal.h"
#include "tls/groups.h"
#include "tls/quic.h"

static int listen_one(const pq_addr *a, uint16_t port, int reuseport, const char *what, int *out,
		      pq_diag *d)
{
	struct sockaddr_storage ss = a->sa;
	if (ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)&ss)->sin_port = htons(port);
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1, rc = 0;
	if (fd < 0)
		return pq_diag_set(d, -errno, "%s: socket: %s", what, strerror(errno));
	/* SO_REUSEPORT: each worker has its own socket and the kernel spreads connections. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
	    (reuseport && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0) ||
	    pq_addr_nodelay(fd) < 0) {
		rc = pq_diag_set(d, -errno, "%s: setsockopt: %s", what, strerror(errno));
		goto out;
	}
	if (bind(fd, (struct sockaddr *)&ss, a->len) < 0) {
		rc = pq_diag_set(d, -errno, "%s: cannot bind %s:%u: %s", what, a->host, port,
				 strerror(errno));
		goto out;
	}
	if (listen(fd, 4096) < 0) {
		rc = pq_diag_set(d, -errno, "%s: listen: %s", what, strerror(errno));
		goto out;
	}
out:
	if (rc < 0)
		close(fd);
	else
		*out = fd;
	return rc;
}

static uint16_t bound_port(int fd, char *text, size_t n)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	getsockname(fd, (struct sockaddr *)&ss, &len);
	pq_addr_format((struct sockaddr *)&ss, text, n);
	return ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
					      : ((struct sockaddr_in *)&ss)->sin_port);
}

/* Bind (and listen, so a listener with SO_REUSEPORT conflicts too) a plain socket to
 * the address, note the port, close it. */
static int claim_port(const pq_addr *a, const char *what, uint16_t *port, pq_diag *d)
{
	int fd;
	char text[80];
	int rc = listen_one(a, a->port, 0, what, &fd, d);
	if (rc < 0)
		return rc;
	*port = bound_port(fd, text, sizeof text);
	close(fd);
	return 0;
}

/* QUIC: one UDP socket bound to the address (no SO_REUSEPORT: the kernel would spread
 * one connection's datagrams over sockets that do not share its state). */
static int bind_udp(const pq_addr *a, const char *what, int *out, pq_diag *d)
{
	int fd = socket(a->sa.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return pq_diag_set(d, -errno, "%s: socket: %s", what, strerror(errno));
	if (bind(fd, (const struct sockaddr *)&a->sa, a->len) < 0) {
		int e = errno;
		close(fd);
		return pq_diag_set(d, -e, "%s: cannot bind UDP %s:%u: %s", what, a->host, a->port,
				   strerror(e));
	}
	*out = fd;
	return 0;
}

/* What QUIC cannot honour, named. */
static int check_quic(const pq_server_config *cfg, pq_diag *d)
{
	if (!cfg->tls.quic)
		return cfg->quic_retry ? pq_diag_set(d, PQ_EINVAL, "%s is a QUIC setting (with %s)",
						     pq_name_of(cfg->names, "quic_retry"),
						     pq_name_of(cfg->names, "quic"))
				       : 0;
	if (cfg->threads != 1)
		return pq_diag_set(d, PQ_EUNSUPPORTED,
				   "%s %d: the QUIC server runs one thread on one UDP socket (give 1)",
				   pq_name_of(cfg->names, "threads"), cfg->threads);
	if (cfg->flight_one_write)
		return pq_diag_set(d, PQ_EUNSUPPORTED,
				   "%s is a TCP write rule; QUIC packs the flight into datagrams itself",
				   pq_name_of(cfg->names, "flight_one_write"));
	return 0;
}

int pq_server_config_check(const pq_server_config *cfg, pq_diag *d)
{
	int rc = check_quic(cfg, d);
	if (rc == 0 && cfg->tls.groups)
		rc = pq_tls_groups_check(cfg->tls.groups, PQ_TLS_GROUPS_OPENSSL, pq_name_of(cfg->tls.names, "groups"), d);
	return rc < 0 || !cfg->tls.quic ? rc : pq_tls_quic_check(&cfg->tls, d);
}

static int listen_quic(pq_server *s, const pq_addr *a, const char *what, pq_diag *d)
{
	int rc = bind_udp(a, what, &s->workers[0].listen_fd, d);
	if (rc < 0)
		return rc;
	s->workers[0].srv = s;
	s->port = bound_port(s->workers[0].listen_fd, s->address, sizeof s->address);
	return pq_server_quic_listen(s, s->workers[0].listen_fd, d);
}

int pq_server_new(const pq_server_config *cfg, pq_server **out, pq_diag *d)
{
	pq_addr a;
	const char *what = pq_name_of(cfg->names, "listen");
	int rc = pq_addr_parse(cfg->listen ? cfg->listen : "127.0.0.1:8443", what, 1, &a, d);
	if (rc < 0)
		return rc;
	if (cfg->threads < 1 || cfg->threads > 256)
		return pq_diag_set(d, PQ_ERANGE, "%s: %d is not in 1..256",
				   pq_name_of(cfg->names, "threads"), cfg->threads);
	if (cfg->max_conns < 1)
		return pq_diag_set(d, PQ_ERANGE, "%s: %d must be at least 1",
				   pq_name_of(cfg->names, "max_conns"), cfg->max_conns);
	if ((rc = pq_server_config_check(cfg, d)) < 0)
		return rc;

	pq_server *s = calloc(1, sizeof *s);
	if (!s)
		return pq_diag_set(d, PQ_ENOMEM, "out of memory");
	s->cfg = *cfg;
	s->cfg.tls.role = PQ_TLS_SERVER;
	s->stop_fd = -1;
	s->stats.nice = PQ_SCHED_NICE_KEEP; /* until a worker says */
	s->workers = calloc((size_t)cfg->threads, sizeof *s->workers);
	if (!s->workers) {
		rc = pq_diag_set(d, PQ_ENOMEM, "out of memory");
		goto out;
	}
	for (int i = 0; i < cfg->threads; i++)
		s->workers[i].listen_fd = s->workers[i].epfd = -1;
	s->nworkers = cfg->threads;
	if ((rc = pq_tls_ctx_new(&s->cfg.tls, &s->ctx, d)) < 0)
		goto out;
	/* An idle kept-alive connection gives its 16 KB+ record buffers back until its next
	 * request, so thousands of them cost little. */
	SSL_CTX_set_mode(s->ctx, SSL_MODE_RELEASE_BUFFERS);
	s->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->stop_fd < 0) {
		rc = pq_diag_set(d, -errno, "eventfd: %s", strerror(errno));
		goto out;
	}
	if (cfg->tls.quic) {
		rc = listen_quic(s, &a, what, d);
		goto out;
	}
	/* SO_REUSEPORT would let us silently share a port with another server of the same
	 * user, so first claim it with a plain socket: that fails if anyone listens there,
	 * and settles the port when 0 was asked. Our workers' sockets then share it. */
	uint16_t port;
	if ((rc = claim_port(&a, what, &port, d)) < 0)
		goto out;
	s->port = port;
	for (int i = 0; i < s->nworkers; i++) {
		if ((rc = listen_one(&a, port, 1, what, &s->workers[i].listen_fd, d)) < 0)
			goto out;
		s->workers[i].srv = s;
	}
	bound_port(s->workers[0].listen_fd, s->address, sizeof s->address);
out:
	if (rc < 0)
		pq_server_free(s);
	else
		*out = s;
	return rc;
}

int pq_server_start(pq_server *s, pq_diag *d)
{
	for (int i = 0; i < s->nworkers; i++) {
		int e = pthread_create(&s->workers[i].thread, NULL,
				       s->listener ? pq_qworker_main : pq_worker_main, &s->workers[i]);
		if (e) {
			pq_server_stop(s);
			pq_server_wait(s);
			return pq_diag_set(d, -e, "cannot start worker thread: %s", strerror(e));
		}
		s->workers[i].started = 1;
	}
	s->running = 1;
	return 0;
}

void pq_server_stop(pq_server *s)
{
	uint64_t one = 1;
	/* write(2) is async-signal-safe; the result does not matter (counter saturates). */
	ssize_t n = write(s->stop_fd, &one, sizeof one);
	(void)n;
}

void pq_server_wait(pq_server *s)
{
	if (s->waited)
		return;
	for (int i = 0; i < s->nworkers; i++)
		if (s->workers[i].started) {
			pthread_join(s->workers[i].thread, NULL);
			s->workers[i].started = 0;
			pq_server_stats_merge(&s->stats, &s->workers[i].stats);
		}
	s->waited = s->running;
	s->running = 0;
}

void pq_server_free(pq_server *s)
{
	if (!s)
		return;
	if (s->running) {
		pq_server_stop(s);
		pq_server_wait(s);
	}
	SSL_free(s->listener); /* before its socket closes */
	for (int i = 0; s->workers && i < s->nworkers; i++)
		if (s->workers[i].listen_fd >= 0)
			close(s->workers[i].listen_fd);
	free(s->workers);
	if (s->stop_fd >= 0)
		close(s->stop_fd);
	pq_tls_ctx_free(s->ctx);
	free(s);
}

const char *pq_server_address(const pq_server *s)
{
	return s->address;
}

uint16_t pq_server_port(const pq_server *s)
{
	return s->port;
}

const pq_server_stats *pq_server_get_stats(const pq_server *s)
{
	return &s->stats;
}
