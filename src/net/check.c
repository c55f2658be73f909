#include "net/check.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/units.h"
#include "core/wire.h"
#include "stats/sample.h"
#include "net/steal.h"

#define CHECK_PORT 7
#define Z99 2.5758

void pq_check_opts_init(pq_check_opts *o)
{
	o->rtt_samples = 200;
	o->rtt_gap_ns = 2 * PQ_NS_PER_MS;
	o->budget_median_ns = 250 * PQ_NS_PER_US;
	o->budget_rate = 0.03;
	o->loss_probes = 4000;
	o->rate_ns = 0;
}

int64_t pq_check_push_ns(int64_t rate_ns, uint64_t rate_bps)
{
	if (rate_ns > 0)
		return rate_ns;
	return rate_bps >= PQ_LINK_FAST_BPS ? PQ_CHECK_FAST_PUSH_NS : PQ_NS_PER_S;
}

void pq_check_wilson(int k, int n, double *lo, double *hi)
{
	pq_stats_wilson(k, n, Z99, lo, hi);
}

/* Sockets: [0] in the client namespace, [1] in the server namespace, both UDP, each
 * connected to the other's address. */
struct socks {
	int fd[2];
};

static int open_sock(void *arg)
{
	int *out = arg; /* out[0] = side, out[1] = fd */
	int side = out[0];
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	struct sockaddr_in me = {.sin_family = AF_INET, .sin_port = htons(CHECK_PORT)};
	struct sockaddr_in peer = me;
	inet_pton(AF_INET, side ? PQ_LINK_SERVER_ADDR : PQ_LINK_CLIENT_ADDR, &me.sin_addr);
	inet_pton(AF_INET, side ? PQ_LINK_CLIENT_ADDR : PQ_LINK_SERVER_ADDR, &peer.sin_addr);
	int buf = 8 << 20, one = 1;
	/* Each datagram carries the time the kernel took it in (for a packet from the link:
	 * when the forwarder wrote it), so the echo's RTT excludes the probe's own waits. */
	setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
	if (bind(fd, (struct sockaddr *)&me, sizeof me) || connect(fd, (struct sockaddr *)&peer, sizeof peer)) {
		int e = errno;
		close(fd);
		return -e;
	}
	out[1] = fd;
	return 0;
}

static int socks_open(pq_link *l, struct socks *s, pq_diag *d)
{
	s->fd[0] = s->fd[1] = -1;
	for (int side = 0; side < 2; side++) {
		int io[2] = {side, -1};
		int rc = pq_link_run_in(l, side, open_sock, io, d);
		if (rc)
			return pq_diag_set(d, rc, "check: cannot open a UDP socket on the %s side: %s",
					   side ? "server" : "client", pq_strerror(rc));
		s->fd[side] = io[1];
	}
	return 0;
}

static void socks_close(struct socks *s)
{
	for (int i = 0; i < 2; i++)
		if (s->fd[i] >= 0)
			close(s->fd[i]);
}

/* An echo probe. Times are CLOCK_REALTIME, the clock of the kernel's receive timestamps;
 * one process stamps both ends, so a step of that clock during one round trip is the
 * only error it can add. */
struct probe {
	uint32_t seq;
	int64_t t_sent; /* client: just before send() */
	int64_t turn;   /* server: its send() minus the kernel's receipt of the probe */
};

static int64_t real_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * PQ_NS_PER_S + ts.tv_nsec;
}

/* From a message's control data: the receive socket's drop count (SO_RXQ_OVFL; -1 none)
 * and the time the kernel took the datagram in (SO_TIMESTAMPNS, CLOCK_REALTIME; *at
 * unchanged when none). */
static int64_t rx_meta(struct msghdr *m, int64_t *at)
{
	int64_t drops = -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
			uint32_t v;
			memcpy(&v, CMSG_DATA(c), sizeof v);
			drops = v;
		} else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;
			memcpy(&ts, CMSG_DATA(c), sizeof ts);
			*at = (int64_t)ts.tv_sec * PQ_NS_PER_S + ts.tv_nsec;
		}
	return drops;
}

/* One probe from fd, with the kernel's receive time (*at; the time now when the kernel
 * gave none). 1 when one was read. */
static int recv_probe(int fd, struct probe *p, int64_t *at)
{
	char ctl[CMSG_SPACE(sizeof(struct timespec))];
	struct iovec iov = {p, sizeof *p};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
	if (recvmsg(fd, &m, 0) != (ssize_t)sizeof *p)
		return 0;
	*at = real_ns();
	(void)rx_meta(&m, at);
	return 1;
}

static void drain(int fd)
{
	char b[2048];
	while (recv(fd, b, sizeof b, 0) > 0)
		;
}

/* Echo: the client sends a probe every gap; the server side echoes it; one thread serves
 * both sockets, as any ping would. Two RTTs per echo: `rtt` from the kernel's receive
 * times, less the server side's turnaround (what the link took: judged), and `seen` as
 * the probe saw it, receive handled minus sent (the link plus the probe's own waits for a
 * CPU: the host's noise). */
static int measure_rtt(struct socks *s, const pq_check_opts *o, int64_t rtt_cfg, pq_stats *rtt, pq_stats *seen,
		       int *lost)
{
	int n = o->rtt_samples, sent = 0, got = 0;
	int64_t next = pq_mono_ns(), wait_end = INT64_MAX;
	int64_t timeout = rtt_cfg * 2 + 500 * PQ_NS_PER_MS;
	while (got < n) {
		int64_t now = pq_mono_ns();
		if (sent < n && now >= next) {
			struct probe p = {(uint32_t)sent, real_ns(), 0};
			if (send(s->fd[0], &p, sizeof p, 0) == (ssize_t)sizeof p)
				sent++;
			next += o->rtt_gap_ns;
			if (sent == n)
				wait_end = now + timeout;
		}
		if (now > wait_end)
			break;
		int64_t until = sent < n ? next : wait_end;
		int64_t left = until > now ? until - now : 0;
		struct timespec ts = {left / PQ_NS_PER_S, left % PQ_NS_PER_S};
		struct pollfd pf[2] = {{s->fd[0], POLLIN, 0}, {s->fd[1], POLLIN, 0}};
		if (ppoll(pf, 2, &ts, NULL) < 0 && errno != EINTR)
			return -errno;
		struct probe p;
		int64_t at;
		while (recv_probe(s->fd[1], &p, &at)) {
			p.turn = real_ns() - at;
			if (send(s->fd[1], &p, sizeof p, 0) < 0) { /* lost echo shows as a lost sample */
			}
		}
		while (recv_probe(s->fd[0], &p, &at)) {
			int rc = pq_stats_add(rtt, (double)(at - p.t_sent - p.turn));
			if (!rc)
				rc = pq_stats_add(seen, (double)(real_ns() - p.t_sent));
			if (rc)
				return rc;
			got++;
		}
	}
	*lost = n - got;
	return 0;
}

double pq_check_rate_from_arrivals(const int64_t *t, const uint64_t *bytes, size_t n, int64_t edge_ns)
{
	if (n < 2)
		return 0;
	if (edge_ns < 0 || t[n - 1] - t[0] <= 4 * edge_ns) /* too short to lose both ends: keep them */
		edge_ns = 0;
	size_t i0 = 0, i1 = n - 1;
	while (i0 < n - 1 && t[i0] < t[0] + edge_ns)
		i0++;
	while (i1 > i0 && t[i1] > t[n - 1] - edge_ns)
		i1--;
	if (i1 <= i0 || t[i1] <= t[i0])
		return 0;
	uint64_t sum = 0;
	for (size_t i = i0 + 1; i <= i1; i++)
		sum += bytes[i];
	return (double)sum * 8.0 / ((double)(t[i1] - t[i0]) / 1e9);
}

#define RATE_DRAIN_NS (3 * PQ_NS_PER_S)
#define RATE_MAX_ARRIVALS (1u << 20)

/* Keeps the bottleneck busy for pq_check_push_ns, sending from `tx` in 1 ms bursts at
 * PQ_CHECK_PUSH_OVER times the configured rate (the link's queue, or its unlimited
 * backlog, absorbs the bursts), and measures the rate at which the link delivered IP
 * bytes (payload + 28) to `rx`: what the socket received and what it dropped for want of
 * a reader (a probe starved of a CPU; the kernel counts them, SO_RXQ_OVFL), each counted
 * with the packet that reported it, at the time the kernel took each in (rx_meta: a
 * receiver that reads late, beside other cells, would read the times late and spread), by
 * pq_check_rate_from_arrivals: the first and last edge_ns of arrivals are left out, as a
 * link with jitter spreads the push's ends by a few standard deviations, which would read
 * as a lower rate (-4 % at 10 ms). *offered: what the sender handed to its socket over
 * the push. Sleeping between bursts leaves the CPU to the forwarder. */
static int measure_rate(struct socks *s, int dir, uint64_t rate_cfg, uint32_t mtu, int64_t edge_ns,
			const pq_check_opts *o, double *rate, double *offered)
{
	int tx = s->fd[dir == PQ_DIR_C2S ? 0 : 1], rx = s->fd[dir == PQ_DIR_C2S ? 1 : 0];
	static char buf[9000];
	size_t payload = mtu - PQ_WIRE_IPV4_HDR - PQ_WIRE_UDP_HDR;
	double ip_bits = (double)mtu * 8.0, sent_bits = 0;
	int64_t push_ns = pq_check_push_ns(o->rate_ns, rate_cfg);
	/* what the push sends, and some; past RATE_MAX_ARRIVALS (12 Gbit/s for a second) the
	 * rate is that of the arrivals kept, the push's first part */
	double want = PQ_CHECK_PUSH_OVER * (double)rate_cfg * ((double)push_ns / 1e9) / ip_bits + 1024;
	size_t cap = want < RATE_MAX_ARRIVALS ? (size_t)want : RATE_MAX_ARRIVALS, n = 0;
	int64_t *at = malloc(cap * sizeof *at);
	uint64_t *bytes = malloc(cap * sizeof *bytes);
	int rc = 0;
	if (!at || !bytes) {
		rc = PQ_ENOMEM;
		goto out;
	}
	int one = 1;
	(void)setsockopt(rx, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof one); /* without it: received only */
	drain(rx);
	int64_t t0 = pq_mono_ns(), last = 0, end = t0 + push_ns, drops = -1;
	for (;;) {
		int64_t now = pq_mono_ns();
		double budget = PQ_CHECK_PUSH_OVER * (double)rate_cfg * (double)(now - t0 + PQ_NS_PER_MS) / 1e9;
		while (now < end && sent_bits < budget && send(tx, buf, payload, 0) == (ssize_t)payload)
			sent_bits += ip_bits;
		for (;;) {
			char ctl[CMSG_SPACE(sizeof(uint32_t)) + CMSG_SPACE(sizeof(struct timespec))];
			struct iovec iov = {buf, sizeof buf};
			struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
			ssize_t r = recvmsg(rx, &m, 0);
			if (r <= 0)
				break;
			int64_t kt = real_ns();
			int64_t d = rx_meta(&m, &kt);
			uint64_t lost = d >= 0 && drops >= 0 && d > drops ? (uint64_t)(d - drops) : 0;
			drops = d > drops ? d : drops;
			last = pq_mono_ns();
			if (n < cap) {
				at[n] = kt;
				bytes[n++] = (uint64_t)r + 28 + lost * (uint64_t)mtu;
			}
		}
		if (now >= end + RATE_DRAIN_NS || (now >= end && last && now - last > 300 * PQ_NS_PER_MS))
			break;
		struct timespec ts = {0, 1000000};
		struct pollfd pf = {rx, POLLIN, 0};
		ppoll(&pf, 1, &ts, NULL);
	}
	*rate = pq_check_rate_from_arrivals(at, bytes, n, edge_ns);
	*offered = sent_bits / ((double)push_ns / 1e9);
	rc = n > 10 ? 0 : PQ_EIO;
out:
	free(at);
	free(bytes);
	return rc;
}

static void measure_loss(struct socks *s, int dir, int n, int64_t delay_ns, int *received)
{
	int tx = s->fd[dir == PQ_DIR_C2S ? 0 : 1], rx = s->fd[dir == PQ_DIR_C2S ? 1 : 0];
	char b[64] = {0};
	int got = 0;
	drain(rx);
	for (int i = 0; i < n; i++) {
		/* 50 us apart: far below any queue limit, so only configured loss removes probes. */
		int64_t until = pq_mono_ns() + 50 * PQ_NS_PER_US;
		if (send(tx, b, sizeof b, 0) < 0)
			i--;
		while (recv(rx, b, sizeof b, 0) > 0)
			got++;
		while (pq_mono_ns() < until)
			;
	}
	int64_t end = pq_mono_ns() + delay_ns + 300 * PQ_NS_PER_MS;
	while (pq_mono_ns() < end) {
		struct pollfd pf = {rx, POLLIN, 0};
		poll(&pf, 1, 20);
		while (recv(rx, b, sizeof b, 0) > 0)
			got++;
	}
	*received = got;
}

void pq_check_probe_from(pq_check_result *r, pq_stats *seen)
{
	pq_summary sum;
	pq_stats_summary(seen, &sum);
	r->probe_p50_ns = sum.p50;
	r->probe_p99_ns = sum.p99;
}

void pq_check_rtt_from(pq_check_result *r, pq_stats *rtt)
{
	pq_summary sum;
	pq_stats_summary(rtt, &sum);
	r->rtt_n = (int)sum.n;
	r->rtt_p50_ns = sum.p50;
	r->rtt_p99_ns = sum.p99;
	r->rtt_min_ns = sum.min;
	r->rtt_max_ns = sum.max;
	r->err_p50_ns = sum.p50 - (double)r->rtt_cfg_ns;
	r->err_p99_ns = sum.p99 - (double)r->rtt_cfg_ns;
}

/* One direction's loss: counted by the loss stage itself when the link keeps accounts
 * (every packet of the check passed it), else by the probes that arrived. */
static void judge_loss(pq_check_result *r, int dir, const pq_dir_cfg *dc)
{
	pq_check_dir *cd = &r->dir[dir];
	double want = pq_loss_mean(&dc->loss);
	if (want <= 0)
		return;
	const pq_path_stats *ps = &r->link.dir[dir];
	double k, n;
	cd->measured_loss = 1;
	cd->loss_by_link = r->link.late_known && ps->pkts_in > 0;
	if (cd->loss_by_link) {
		k = (double)ps->drop_loss;
		n = (double)ps->pkts_in;
	} else {
		k = (double)(cd->probes_sent - cd->probes_got);
		n = (double)cd->probes_sent;
	}
	cd->loss = n > 0 ? k / n : 1.0;
	pq_stats_wilson(k, n, Z99, &cd->loss_lo, &cd->loss_hi);
	/* Bursty loss is correlated, so the binomial interval is too narrow for it:
	 * Gilbert-Elliott links are measured and shown but not judged. */
	cd->loss_ok = dc->loss.ge_p > 0 || (want >= cd->loss_lo && want <= cd->loss_hi);
}

double pq_check_probe_tail_ns(const pq_check_result *r)
{
	return r->rtt_n > 0 ? r->probe_p99_ns - r->rtt_p50_ns : -1;
}

void pq_check_judge(pq_check_result *r, const pq_link_config *c, const pq_check_opts *oin)
{
	pq_check_opts o;
	if (oin)
		o = *oin;
	else
		pq_check_opts_init(&o);
	int lossy = 0;
	for (int i = 0; i < 2; i++)
		lossy |= c->dir[i].loss.p > 0 || c->dir[i].loss.ge_p > 0;
	r->rtt_judged = !c->dir[0].jitter_ns && !c->dir[1].jitter_ns && !c->dir[0].rate_bps && !c->dir[1].rate_bps;
	/* A lost echo on a lossless link: the link's own counts say whether it dropped it
	 * (below); without them it is the only sign. An echo that came back late is the
	 * probe's tail, reported, not judged. */
	int lost_ok = lossy || r->link.late_known || r->rtt_lost == 0;
	r->rtt_ok = r->rtt_n > 0 &&
		    (!r->rtt_judged || (fabs(r->err_p50_ns) <= (double)o.budget_median_ns && lost_ok));
	r->link_ok = pq_link_window_ok(&r->link, r->link_why, sizeof r->link_why);
	r->ok = r->rtt_ok && r->link_ok != 0;
	for (int dir = 0; dir < 2; dir++) {
		const pq_dir_cfg *dc = &c->dir[dir];
		pq_check_dir *cd = &r->dir[dir];
		if (cd->measured_rate) {
			cd->rate_err = dc->rate_bps ? cd->rate_bps / (double)dc->rate_bps - 1.0 : 0;
			/* never faster than the rate; at least what it was asked for, less the budget */
			cd->offered_short = cd->offered_bps > 0 && cd->offered_bps < (1.0 - o.budget_rate) * (double)dc->rate_bps;
			double asked = cd->offered_short ? cd->offered_bps : (double)dc->rate_bps;
			cd->rate_ok = cd->rate_bps > 0 && cd->rate_err <= o.budget_rate &&
				      cd->rate_bps >= (1.0 - o.budget_rate) * asked;
			r->ok &= cd->rate_ok;
		}
		judge_loss(r, dir, dc);
		if (cd->measured_loss)
			r->ok &= cd->loss_ok;
	}
}

int pq_check_run(pq_link *l, const pq_check_opts *oin, pq_check_result *r, pq_diag *d)
{
	pq_check_opts o;
	if (oin)
		o = *oin;
	else
		pq_check_opts_init(&o);
	if (o.rtt_samples <= 0)
		o.rtt_samples = 200;
	const pq_link_config *c = pq_link_cfg(l);
	memset(r, 0, sizeof *r);
	r->host_steal = -1;
	r->runq_before = r->runq_after = -1;
	r->link.fwd_wait_ns = -1;
	r->backend = pq_link_backend(l);
	r->rtt_cfg_ns = pq_link_config_rtt_ns(c);
	struct socks s;
	pq_stats rtt, seen;
	pq_stats_init(&rtt);
	pq_stats_init(&seen);
	/* The measuring thread gets the forwarder's CFS weight while it measures, so other
	 * work on the machine shows less in the probe's tail (restored at the end). */
	id_t tid = (id_t)gettid();
	errno = 0;
	int old_nice = getpriority(PRIO_PROCESS, tid);
	int reniced = errno == 0 && setpriority(PRIO_PROCESS, tid, -19) == 0;
	pq_steal_sample steal0, steal1;
	int have_steal = pq_steal_read(&steal0) == 0;
	r->runq_before = have_steal ? steal0.runq : -1;
	int rc = socks_open(l, &s, d);
	if (rc)
		goto out;
	/* Without the link's counts (a backend that cannot give them now) the check goes on
	 * as netem's does: the probes decide. */
	int counted = pq_link_window_begin(l) == 0;
	if ((rc = measure_rtt(&s, &o, r->rtt_cfg_ns, &rtt, &seen, &r->rtt_lost))) {
		rc = pq_diag_set(d, rc, "check: timing echoes failed: %s", pq_strerror(rc));
		goto out;
	}
	pq_check_rtt_from(r, &rtt);
	pq_check_probe_from(r, &seen);
	for (int dir = 0; dir < 2; dir++) {
		const pq_dir_cfg *dc = &c->dir[dir];
		pq_check_dir *cd = &r->dir[dir];
		if (dc->rate_bps && !dc->loss.p && !dc->loss.ge_p) {
			cd->measured_rate = 1;
			/* the push's ends, spread by the jitter: four standard deviations each way */
			int64_t edge = 4 * (c->dir[0].jitter_ns > c->dir[1].jitter_ns ? c->dir[0].jitter_ns : c->dir[1].jitter_ns);
			if (measure_rate(&s, dir, dc->rate_bps, c->mtu, edge, &o, &cd->rate_bps, &cd->offered_bps) != 0)
				cd->rate_bps = 0;
		}
		if (pq_loss_mean(&dc->loss) > 0) {
			cd->probes_sent = o.loss_probes;
			measure_loss(&s, dir, o.loss_probes, dc->delay_ns + dc->jitter_ns * 4, &cd->probes_got);
		}
	}
	if (!counted || pq_link_window_end(l, &r->link) < 0) {
		memset(&r->link, 0, sizeof r->link); /* late_known 0 */
		r->link.fwd_wait_ns = -1;
	}
	pq_check_judge(r, c, &o);
	if (have_steal && pq_steal_read(&steal1) == 0) {
		r->host_steal = pq_steal_fraction(&steal0, &steal1);
		r->runq_after = steal1.runq;
	}
out:
	/* Restoring the weight can only fail if the thread lost CAP_SYS_NICE meanwhile; the
	 * measurement is done either way. */
	if (reniced)
		(void)setpriority(PRIO_PROCESS, tid, old_nice);
	socks_close(&s);
	pq_stats_dispose(&rtt);
	pq_stats_dispose(&seen);
	return rc;
}
