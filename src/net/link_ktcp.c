/* The link's kernel TCP settings (net/ktcp.h) set on its namespaces and devices, and read
 * back once the link carries packets. Private to the link (link_backend.h). */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/buf.h"
#include "net/link_backend.h"
#include "net/ns.h"
#include "net/sh.h"

static int write_int(int nsfd, const char *path, int v, pq_diag *d)
{
	char value[16];
	snprintf(value, sizeof value, "%d", v);
	return pq_link_sysctl_set(nsfd, path, value, d);
}

static int read_int(int nsfd, const char *path, int *v, pq_diag *d)
{
	int fd, rc = pq_ns_open_file(nsfd, path, O_RDONLY, &fd, d);
	if (rc)
		return rc;
	if ((rc = pq_ktcp_read_int_fd(fd, v)))
		rc = pq_diag_set(d, rc, "cannot read %s inside the link", path);
	close(fd);
	return rc;
}

/* The whole of a /proc/sys file of n integers (tcp_rmem's three). */
static int read_ints(int nsfd, const char *path, int *v, size_t n, pq_diag *d)
{
	int fd, rc = pq_ns_open_file(nsfd, path, O_RDONLY, &fd, d);
	if (rc)
		return rc;
	char buf[128];
	ssize_t got = pread(fd, buf, sizeof buf - 1, 0);
	close(fd);
	if (got > 0)
		buf[got] = '\0';
	if (got <= 0 || pq_ktcp_parse_ints(buf, v, n))
		rc = pq_diag_set(d, PQ_EPARSE, "cannot read %zu integers from %s inside the link", n, path);
	return rc;
}

#define SS_RATIO "/proc/sys/net/ipv4/tcp_pacing_ss_ratio"
#define RMEM "/proc/sys/net/ipv4/tcp_rmem"
#define CA_RATIO "/proc/sys/net/ipv4/tcp_pacing_ca_ratio"

typedef struct offload_arg {
	const char *dev;
	int tso, gso;
	pq_diag *d;
	int rc;
} offload_arg;

static int offload_set_in(void *arg)
{
	offload_arg *a = arg;
	a->rc = pq_ktcp_offload_set(a->dev, a->tso, a->gso, a->d);
	return a->rc;
}

static int offload_get_in(void *arg)
{
	offload_arg *a = arg;
	a->rc = pq_ktcp_offload_get(a->dev, &a->tso, &a->gso, a->d);
	return a->rc;
}

int pq_link_ktcp_apply(pq_link *l, enum pq_side side, const char *dev, pq_diag *d)
{
	const pq_ktcp_cfg *t = &l->cfg.tcp;
	int rc = 0;
	if (t->pacing_ss_ratio >= 0)
		rc = write_int(l->nsfd[side], SS_RATIO, t->pacing_ss_ratio, d);
	if (!rc && t->pacing_ca_ratio >= 0)
		rc = write_int(l->nsfd[side], CA_RATIO, t->pacing_ca_ratio, d);
	if (!rc && (t->tso != PQ_KTCP_KEEP || t->gso != PQ_KTCP_KEEP)) {
		offload_arg a = {dev, t->tso, t->gso, d, 0};
		if ((rc = pq_link_run_in(l, side, offload_set_in, &a, d)) >= 0)
			rc = a.rc;
	}
	if (!rc && side == PQ_SIDE_SERVER && t->qdisc[0]) {
		char *argv[] = {"tc", "-n", l->ns[side], "qdisc", "replace", "dev", (char *)dev, "root",
				(char *)t->qdisc, NULL};
		rc = pq_sh_run(argv, NULL, NULL, d);
	}
	return rc;
}

/* One connection across the link, client to server: what the server's end of it runs is
 * what the link's connections run. */
typedef struct probe {
	int lfd, cfd, sfd;
	int err; /* errno of the first call that failed */
	struct sockaddr_in addr;
} probe;

static int probe_listen(void *arg)
{
	probe *p = arg;
	socklen_t len = sizeof p->addr;
	p->addr = (struct sockaddr_in){.sin_family = AF_INET};
	inet_pton(AF_INET, PQ_LINK_SERVER_ADDR, &p->addr.sin_addr);
	p->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (p->lfd < 0 || bind(p->lfd, (struct sockaddr *)&p->addr, sizeof p->addr) || listen(p->lfd, 1) ||
	    getsockname(p->lfd, (struct sockaddr *)&p->addr, &len))
		p->err = errno;
	return 0;
}

static int probe_connect(void *arg)
{
	probe *p = arg;
	if (p->err)
		return 0;
	p->cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (p->cfd < 0 || (connect(p->cfd, (struct sockaddr *)&p->addr, sizeof p->addr) && errno != EINPROGRESS))
		p->err = errno;
	return 0;
}

/* The probe's accepted socket: cc, cwnd before any data, MSS. */
static int probe_run(pq_link *l, pq_ktcp_state *s, pq_diag *d)
{
	probe p = {-1, -1, -1, 0, {0}};
	int rc = pq_link_run_in(l, PQ_SIDE_SERVER, probe_listen, &p, d);
	if (!rc)
		rc = pq_link_run_in(l, PQ_SIDE_CLIENT, probe_connect, &p, d);
	if (!rc && p.err)
		rc = pq_diag_set(d, -p.err, "kernel TCP read-back: cannot open a connection across the link: %s",
				 strerror(p.err));
	if (rc)
		goto out;
	/* Generous: the SYN crosses the link twice, and a lost one is retried after 1 s. */
	int64_t rtt_ms = pq_link_config_rtt_ns(&l->cfg) / 1000000;
	struct pollfd pf = {p.lfd, POLLIN, 0};
	/* A signal (^C, a sweep's SIGTERM) interrupts the wait, not the link: wait out the rest. */
	int64_t until = pq_mono_ns() + (3500 + 4 * rtt_ms) * PQ_NS_PER_MS;
	int n;
	for (;;) {
		int64_t left = (until - pq_mono_ns()) / PQ_NS_PER_MS;
		n = poll(&pf, 1, left > 0 ? (int)left : 0);
		if (n >= 0 || errno != EINTR)
			break;
	}
	if (n <= 0 || (p.sfd = accept4(p.lfd, NULL, NULL, SOCK_CLOEXEC)) < 0) {
		rc = pq_diag_set(d, PQ_ETIMEOUT, "kernel TCP read-back: a connection across the link was not "
				 "accepted within %lld ms", (long long)(3500 + 4 * rtt_ms));
		goto out;
	}
	socklen_t len = sizeof s->cc;
	struct tcp_info ti;
	socklen_t tl = sizeof ti;
	memset(s->cc, 0, sizeof s->cc);
	if (getsockopt(p.sfd, IPPROTO_TCP, TCP_CONGESTION, s->cc, &len) ||
	    getsockopt(p.sfd, IPPROTO_TCP, TCP_INFO, &ti, &tl)) {
		rc = pq_diag_set(d, -errno, "kernel TCP read-back: getsockopt: %s", strerror(errno));
		goto out;
	}
	s->cc[sizeof s->cc - 1] = '\0';
	s->initcwnd = ti.tcpi_snd_cwnd;
	s->mss = ti.tcpi_snd_mss;
	s->pacing_bps = ti.tcpi_pacing_rate;
	/* The window the client's ACK of the SYN-ACK advertised: what the server may send
	 * before the client ACKs any data (model/tcp.h). */
	s->client_rwnd = ti.tcpi_snd_wnd;
out:
	if (p.sfd >= 0)
		close(p.sfd);
	if (p.cfd >= 0)
		close(p.cfd);
	if (p.lfd >= 0)
		close(p.lfd);
	return rc;
}

static int show(char *const argv[], pq_buf *out, pq_diag *d)
{
	pq_buf_reset(out);
	return pq_sh_run(argv, NULL, out, d);
}

int pq_link_ktcp_read(pq_link *l, pq_ktcp_state *s, pq_diag *d)
{
	const char *dev = l->dev;
	memset(s, 0, sizeof *s);
	pq_buf out;
	pq_buf_init(&out, 1 << 16);
	char *tc[] = {"tc", "-n", l->ns[PQ_SIDE_SERVER], "qdisc", "show", "dev", (char *)dev, NULL};
	char *ip[] = {"ip", "-n", l->ns[PQ_SIDE_CLIENT], "route", "show", PQ_LINK_SERVER_ADDR "/32", NULL};
	int rc = probe_run(l, s, d);
	if (!rc && !(rc = show(tc, &out, d)) && pq_ktcp_parse_qdisc(pq_buf_str(&out), s->qdisc, sizeof s->qdisc))
		rc = pq_diag_set(d, PQ_EPARSE, "kernel TCP read-back: no root qdisc in '%s'", pq_buf_str(&out));
	if (!rc && !(rc = show(ip, &out, d)))
		s->quickack = (int)pq_ktcp_parse_route_metric(pq_buf_str(&out), "quickack");
	if (!rc)
		rc = read_int(l->nsfd[PQ_SIDE_SERVER], SS_RATIO, &s->pacing_ss_ratio, d);
	if (!rc)
		rc = read_int(l->nsfd[PQ_SIDE_SERVER], CA_RATIO, &s->pacing_ca_ratio, d);
	if (!rc)
		rc = read_ints(l->nsfd[PQ_SIDE_CLIENT], RMEM, s->client_rmem, 3, d);
	for (int side = 0; side < 2 && !rc; side++) {
		offload_arg a = {dev, 0, 0, d, 0};
		if ((rc = pq_link_run_in(l, (enum pq_side)side, offload_get_in, &a, d)) >= 0)
			rc = a.rc;
		s->tso[side] = a.tso;
		s->gso[side] = a.gso;
	}
	pq_buf_dispose(&out);
	return rc;
}
