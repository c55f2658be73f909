#include "net/link.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/units.h"
#include "net/fwd.h"
#include "net/netem.h"
#include "net/ns.h"
#include "net/sh.h"
#include "net/tun.h"

#define NETEM_DEV "pqv0"
/* Measured on the project's 2-core VM (docs/link.md): the forwarder's own path (TUN read
 * wake-up, write into the peer stack) costs about this much per direction beyond a plain
 * veth. Subtracted from each direction's delay so the configured RTT is what a ping sees. */
#define DEFAULT_COMP_NS (40 * PQ_NS_PER_US)

struct pq_link {
	pq_link_config cfg;
	enum pq_backend backend;
	char ns[2][64];
	int nsfd[2];
	int created[2];
	int devstat[2]; /* /proc/net/dev inside each side */
	pq_tun_counters base[2];
	pq_fwd fwd;
	int fwd_on;
	int stopped;          /* pq_link_stop ran: `final` holds the last stats */
	pq_link_stats final;
};

static atomic_uint link_counter;

void pq_link_names(unsigned n, pid_t pid, char c[64], char s[64])
{
	snprintf(c, 64, PQ_NS_PREFIX "%d-%u-c", (int)pid, n);
	snprintf(s, 64, PQ_NS_PREFIX "%d-%u-s", (int)pid, n);
}

static int has_cap(int cap)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2];
	if (syscall(SYS_capget, &h, data))
		return 0;
	return (data[cap / 32].effective >> (cap % 32)) & 1;
}

int pq_link_check_privileges(enum pq_backend b, pq_diag *d)
{
	int net = has_cap(CAP_NET_ADMIN), sys = has_cap(CAP_SYS_ADMIN);
	if (!net || !sys)
		return pq_diag_set(d, PQ_EPERM, "pqtls link needs %s%s%s to create network namespaces and "
				   "devices (run as root)", net ? "" : "CAP_NET_ADMIN", !net && !sys ? " and " : "",
				   sys ? "" : "CAP_SYS_ADMIN");
	if (b != PQ_BACKEND_NETEM && access(PQ_TUN_DEV, R_OK | W_OK))
		return pq_diag_set(d, PQ_EPERM, "the userspace backend needs read-write access to %s (%s)",
				   PQ_TUN_DEV, strerror(errno));
	return 0;
}

const char *pq_link_ns_name(const pq_link *l, enum pq_side side)
{
	return l->ns[side];
}

enum pq_backend pq_link_backend(const pq_link *l)
{
	return l->backend;
}

const pq_link_config *pq_link_cfg(const pq_link *l)
{
	return &l->cfg;
}

static int write_sysctl(int nsfd, const char *path, const char *value, pq_diag *d)
{
	int fd, rc = pq_ns_open_file(nsfd, path, O_WRONLY, &fd, d);
	if (rc)
		return rc;
	size_t n = strlen(value);
	if (write(fd, value, n) != (ssize_t)n)
		rc = pq_diag_set(d, -errno, "cannot set %s to '%s' inside the link: %s", path, value, strerror(errno));
	close(fd);
	return rc;
}

/* Per-namespace settings: no cached TCP metrics between runs, buffers for a fat pipe. */
static int ns_sysctls(int nsfd, pq_diag *d)
{
	int rc = write_sysctl(nsfd, "/proc/sys/net/ipv4/tcp_no_metrics_save", "1", d);
	if (!rc)
		rc = write_sysctl(nsfd, "/proc/sys/net/ipv4/tcp_rmem", "4096 131072 33554432", d);
	if (!rc)
		rc = write_sysctl(nsfd, "/proc/sys/net/ipv4/tcp_wmem", "4096 16384 33554432", d);
	/* The link carries IPv4 only: without this, devices made later (ours) send IPv6 router
	 * solicitations across it. `lo` keeps ::1. Kernels without IPv6 lack the file. */
	pq_diag ignore;
	if (!rc && write_sysctl(nsfd, "/proc/sys/net/ipv6/conf/default/disable_ipv6", "1", &ignore)) {
	}
	return rc;
}

/* Addresses, MTU and the route with its TCP settings, as one `ip -batch`. */
static int configure_side(pq_link *l, enum pq_side side, const char *dev, pq_diag *d)
{
	const char *me = side == PQ_SIDE_CLIENT ? PQ_LINK_CLIENT_ADDR : PQ_LINK_SERVER_ADDR;
	const char *peer = side == PQ_SIDE_CLIENT ? PQ_LINK_SERVER_ADDR : PQ_LINK_CLIENT_ADDR;
	char script[1024], extra[128] = "";
	size_t e = 0;
	if (side == PQ_SIDE_SERVER && l->cfg.initcwnd)
		e += (size_t)snprintf(extra + e, sizeof extra - e, " initcwnd %u", l->cfg.initcwnd);
	if (side == PQ_SIDE_SERVER && l->cfg.initrwnd)
		e += (size_t)snprintf(extra + e, sizeof extra - e, " initrwnd %u", l->cfg.initrwnd);
	if (l->cfg.cc)
		snprintf(extra + e, sizeof extra - e, " congctl %s", pq_cc_name(l->cfg.cc));
	snprintf(script, sizeof script,
		 "link set lo up\n"
		 "link set %s mtu %u txqueuelen 10000 up\n"
		 "addr add %s peer %s/32 dev %s\n"
		 "route replace %s/32 dev %s src %s%s\n",
		 dev, l->cfg.mtu, me, peer, dev, peer, dev, me, extra);
	char *argv[] = {"ip", "-n", l->ns[side], "-batch", "-", NULL};
	return pq_sh_run(argv, script, NULL, d);
}

static int up_userspace(pq_link *l, const pq_link_opts *o, pq_diag *d)
{
	int tun[2] = {-1, -1}, rc = 0;
	pq_pcapw *pcap = NULL;
	for (int s = 0; s < 2 && !rc; s++)
		rc = pq_tun_open_in(l->nsfd[s], PQ_LINK_IFNAME, &tun[s], d);
	for (int s = 0; s < 2 && !rc; s++)
		rc = configure_side(l, s, PQ_LINK_IFNAME, d);
	for (int s = 0; s < 2 && !rc; s++) {
		rc = pq_ns_open_file(l->nsfd[s], "/proc/thread-self/net/dev", O_RDONLY, &l->devstat[s], d);
		if (!rc)
			(void)pq_tun_counters_read(l->devstat[s], PQ_LINK_IFNAME, &l->base[s]);
	}
	if (!rc && o && o->pcap_path)
		rc = pq_pcapw_open(o->pcap_path, pq_name_of(l->cfg.names, "pcap"), &pcap, d);
	if (rc)
		goto out;
	int64_t comp = o && o->comp_ns >= 0 ? o->comp_ns : DEFAULT_COMP_NS;
	int64_t comp2[2] = {comp, comp};
	pq_fwd_tune tune = {.early_ns = o ? o->early_ns : -1,
			    .nice = o ? o->nice : PQ_FWD_DEFAULT_NICE};
	rc = pq_fwd_start(&l->fwd, &l->cfg, comp2, tun[0], tun[1], pcap, &tune, d);
	if (!rc) {
		l->fwd_on = 1;
		tun[0] = tun[1] = -1; /* owned by the forwarder now */
		pcap = NULL;
	}
out:
	for (int s = 0; s < 2; s++)
		if (tun[s] >= 0)
			close(tun[s]);
	if (pcap) {
		pq_diag ignore;
		(void)pq_pcapw_close(pcap, &ignore);
	}
	return rc;
}

static int up_netem(pq_link *l, const pq_link_opts *o, pq_diag *d)
{
	pq_netem_cmd c;
	if (o && o->pcap_path)
		return pq_diag_set(d, PQ_EUNSUPPORTED,
				   "%s needs the userspace backend (netem packets never pass through "
				   "pqtls); add %s userspace",
				   pq_name_of(l->cfg.names, "pcap"), pq_name_of(l->cfg.names, "backend"));
	/* Build both qdisc commands first: refuse before changing anything. */
	pq_netem_cmd q[2];
	for (int s = 0; s < 2; s++) {
		int rc = pq_netem_qdisc_cmd(&q[s], l->ns[s], NETEM_DEV, &l->cfg.dir[s], l->cfg.mtu,
					    l->cfg.names, d);
		if (rc)
			return rc;
	}
	pq_netem_veth_cmd(&c, l->ns[0], l->ns[1], NETEM_DEV);
	int rc = pq_sh_run(c.argv, NULL, NULL, d);
	for (int s = 0; s < 2 && !rc; s++)
		rc = configure_side(l, s, NETEM_DEV, d);
	for (int s = 0; s < 2 && !rc; s++)
		rc = pq_sh_run(q[s].argv, NULL, NULL, d);
	return rc;
}

void pq_link_opts_init(pq_link_opts *o)
{
	*o = (pq_link_opts){.comp_ns = -1, .early_ns = -1, .nice = PQ_FWD_DEFAULT_NICE};
}

int pq_link_up(const pq_link_config *cfg, const pq_link_opts *o, pq_link **out, pq_diag *d)
{
	*out = NULL;
	int rc = pq_link_config_validate(cfg, d);
	if (rc)
		return rc;
	if ((rc = pq_link_check_privileges(cfg->backend, d)))
		return rc;
	pq_ns_sweep(o ? o->log : NULL);
	pq_link *l = calloc(1, sizeof *l);
	if (!l)
		return pq_diag_set(d, PQ_ENOMEM, "out of memory");
	l->cfg = *cfg;
	l->nsfd[0] = l->nsfd[1] = l->devstat[0] = l->devstat[1] = -1;
	pq_link_names(atomic_fetch_add(&link_counter, 1), getpid(), l->ns[0], l->ns[1]);
	for (int s = 0; s < 2 && !rc; s++) {
		rc = pq_ns_create(l->ns[s], d);
		l->created[s] = !rc;
		if (!rc)
			rc = pq_ns_open(l->ns[s], &l->nsfd[s], d);
		if (!rc)
			rc = ns_sysctls(l->nsfd[s], d);
	}
	if (rc)
		goto out;
	l->backend = cfg->backend;
	if (l->backend == PQ_BACKEND_AUTO || l->backend == PQ_BACKEND_NETEM) {
		pq_diag why;
		pq_diag_clear(&why);
		int have = pq_netem_available(l->ns[0], &why);
		if (!have && l->backend == PQ_BACKEND_NETEM) {
			const char *b = pq_name_of(l->cfg.names, "backend");
			rc = pq_diag_set(d, PQ_EUNSUPPORTED,
					 "%s netem: this kernel cannot run netem (%s); use %s userspace", b,
					 pq_diag_msg(&why), b);
			goto out;
		}
		/* netem cannot write a pcap; auto keeps the backend that can honour every option */
		if (l->backend == PQ_BACKEND_AUTO)
			l->backend = have && !(o && o->pcap_path) ? PQ_BACKEND_NETEM : PQ_BACKEND_USERSPACE;
	}
	if (l->backend == PQ_BACKEND_USERSPACE && access(PQ_TUN_DEV, R_OK | W_OK)) {
		rc = pq_diag_set(d, PQ_EPERM, "the userspace backend needs read-write access to %s (%s)",
				 PQ_TUN_DEV, strerror(errno));
		goto out;
	}
	rc = l->backend == PQ_BACKEND_NETEM ? up_netem(l, o, d) : up_userspace(l, o, d);
out:
	if (rc) {
		pq_diag ignore;
		(void)pq_link_down(l, &ignore);
		l = NULL;
	}
	*out = l;
	return rc;
}

int pq_link_exec_in(pq_link *l, enum pq_side side, char *const argv[], const pq_exec_opts *eo,
		    pid_t *pid, pq_diag *d)
{
	static const pq_exec_opts none = {0};
	if (!eo)
		eo = &none;
	if (!argv || !argv[0])
		return pq_diag_set(d, PQ_EUSAGE, "no command given for the %s side",
				   side == PQ_SIDE_CLIENT ? "client" : "server");
	pid_t owner = getpid();
	*pid = fork();
	if (*pid < 0)
		return pq_diag_set(d, -errno, "cannot start '%s': %s", argv[0], strerror(errno));
	if (*pid > 0)
		return 0;
	/* child */
	if (eo->die_with_owner) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != owner)
			_exit(127);
	}
	if (eo->own_pgrp)
		setpgid(0, 0);
	sigset_t none_set;
	sigemptyset(&none_set);
	sigprocmask(SIG_SETMASK, &none_set, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (setns(l->nsfd[side], CLONE_NEWNET)) {
		dprintf(2, "pqtls link: cannot enter namespace %s: %s\n", l->ns[side], strerror(errno));
		_exit(127);
	}
	if (eo->stdin_null) {
		int fd = open("/dev/null", O_RDONLY);
		if (fd >= 0) {
			dup2(fd, 0);
			close(fd);
		}
	}
	setenv("PQTLS_SERVER_ADDR", PQ_LINK_SERVER_ADDR, 1);
	setenv("PQTLS_CLIENT_ADDR", PQ_LINK_CLIENT_ADDR, 1);
	setenv("PQTLS_LINK_SIDE", side == PQ_SIDE_CLIENT ? "client" : "server", 1);
	setenv("PQTLS_LINK_NS", l->ns[side], 1);
	execvp(argv[0], argv);
	dprintf(2, "pqtls link: cannot run '%s': %s\n", argv[0], strerror(errno));
	_exit(127);
}

int pq_link_open_in(pq_link *l, enum pq_side side, const char *path, int flags, int *fd, pq_diag *d)
{
	return pq_ns_open_file(l->nsfd[side], path, flags, fd, d);
}

int pq_link_run_in(pq_link *l, enum pq_side side, int (*fn)(void *arg), void *arg, pq_diag *d)
{
	int saved, rc = pq_ns_enter(l->nsfd[side], &saved, d);
	if (rc)
		return rc;
	rc = fn(arg);
	pq_ns_leave(saved);
	return rc;
}

static void add_tun_drops(pq_link *l, pq_link_stats *out)
{
	pq_tun_counters now[2];
	for (int s = 0; s < 2; s++)
		if (l->devstat[s] < 0 || pq_tun_counters_read(l->devstat[s], PQ_LINK_IFNAME, &now[s]))
			return;
	/* The client TUN's tx drops are uplink packets we never read; the server TUN's rx drops
	 * are uplink packets its stack refused after we wrote them; and the other way round. */
	out->dir[PQ_DIR_C2S].drop_unplanned += (now[0].tx_dropped - l->base[0].tx_dropped) +
					       (now[1].rx_dropped - l->base[1].rx_dropped);
	out->dir[PQ_DIR_S2C].drop_unplanned += (now[1].tx_dropped - l->base[1].tx_dropped) +
					       (now[0].rx_dropped - l->base[0].rx_dropped);
}

static void netem_stats(pq_link *l, pq_link_stats *out)
{
	for (int s = 0; s < 2; s++) {
		char *argv[] = {"tc", "-s", "-n", l->ns[s], "qdisc", "show", "dev", NETEM_DEV, NULL};
		pq_buf b;
		pq_buf_init(&b, 64 * 1024);
		pq_diag ignore;
		uint64_t bytes, pkts, dropped;
		if (!pq_sh_run(argv, NULL, &b, &ignore) &&
		    !pq_netem_parse_stats(pq_buf_str(&b), &bytes, &pkts, &dropped)) {
			out->dir[s].pkts_out = pkts;
			out->dir[s].bytes_out = bytes;
			/* netem counts its random loss and queue overflow together */
			out->dir[s].drop_loss = dropped;
		}
		pq_buf_dispose(&b);
	}
}

int pq_link_stats_get(pq_link *l, pq_link_stats *out)
{
	if (l->stopped) {
		*out = l->final;
		return 0;
	}
	memset(out, 0, sizeof *out);
	out->backend = l->backend;
	out->late.p50 = out->late.p99 = out->late.max = -1;
	if (l->backend == PQ_BACKEND_NETEM) {
		netem_stats(l, out);
		return 0;
	}
	if (!l->fwd_on)
		return PQ_ESTATE;
	pq_fwd_stats fs;
	pq_fwd_stats_get(&l->fwd, &fs);
	out->dir[0] = fs.dir[0];
	out->dir[1] = fs.dir[1];
	out->late = fs.late;
	add_tun_drops(l, out);
	return 0;
}

uint64_t pq_link_stats_unplanned(const pq_link_stats *s)
{
	return s->dir[0].drop_unplanned + s->dir[1].drop_unplanned;
}

void pq_link_stats_format(const pq_link_stats *s, char *buf, size_t n)
{
	char a[32], b[32], c[32];
	const pq_path_stats *u = &s->dir[0], *w = &s->dir[1];
	int len = snprintf(buf, n,
			   "link: backend %s; c->s %llu pkts %s, s->c %llu pkts %s; drops: loss %llu, queue %llu, "
			   "unplanned %llu",
			   pq_backend_name(s->backend), (unsigned long long)u->pkts_out,
			   pq_fmt_size(a, sizeof a, u->bytes_out), (unsigned long long)w->pkts_out,
			   pq_fmt_size(b, sizeof b, w->bytes_out), (unsigned long long)(u->drop_loss + w->drop_loss),
			   (unsigned long long)(u->drop_queue + w->drop_queue),
			   (unsigned long long)pq_link_stats_unplanned(s));
	if (len < 0 || (size_t)len >= n)
		return;
	if (s->backend == PQ_BACKEND_USERSPACE && s->late.n > 0)
		snprintf(buf + len, n - (size_t)len, "; release lateness p50 %s p99 %s max %s",
			 pq_fmt_duration(a, sizeof a, (int64_t)s->late.p50),
			 pq_fmt_duration(b, sizeof b, (int64_t)s->late.p99),
			 pq_fmt_duration(c, sizeof c, (int64_t)s->late.max));
}

int pq_link_stop(pq_link *l, pq_diag *d)
{
	if (l->stopped)
		return 0;
	int rc = 0;
	if (pq_link_stats_get(l, &l->final))
		memset(&l->final, 0, sizeof l->final);
	if (l->fwd_on) {
		/* The TUN counters die with the devices: keep the drops they showed, and take the
		 * forwarder's own counters after it stopped, so packets released in between count. */
		uint64_t tun_drops[2];
		pq_fwd_stats fs;
		pq_fwd_stats_get(&l->fwd, &fs);
		for (int i = 0; i < 2; i++)
			tun_drops[i] = l->final.dir[i].drop_unplanned - fs.dir[i].drop_unplanned;
		rc = pq_fwd_stop(&l->fwd, d);
		pq_fwd_stats_get(&l->fwd, &fs);
		for (int i = 0; i < 2; i++) {
			l->final.dir[i] = fs.dir[i];
			l->final.dir[i].drop_unplanned += tun_drops[i];
		}
		l->final.late = fs.late;
		pq_fwd_dispose(&l->fwd);
		l->fwd_on = 0;
	}
	l->stopped = 1;
	return rc;
}

int pq_link_down(pq_link *l, pq_diag *d)
{
	if (!l)
		return 0;
	int rc = pq_link_stop(l, d);
	for (int s = 0; s < 2; s++) {
		if (l->devstat[s] >= 0)
			close(l->devstat[s]);
		if (l->nsfd[s] >= 0)
			close(l->nsfd[s]);
		if (l->created[s])
			pq_ns_remove(l->ns[s]);
	}
	free(l);
	return rc;
}

int pq_link_attach(const char *base, pq_link **out, pq_diag *d)
{
	*out = NULL;
	pq_link *l = calloc(1, sizeof *l);
	if (!l)
		return pq_diag_set(d, PQ_ENOMEM, "out of memory");
	l->nsfd[0] = l->nsfd[1] = l->devstat[0] = l->devstat[1] = -1;
	int rc = 0;
	for (int s = 0; s < 2 && !rc; s++) {
		snprintf(l->ns[s], sizeof l->ns[s], "%s-%c", base, s ? 's' : 'c');
		rc = pq_ns_open(l->ns[s], &l->nsfd[s], d);
	}
	if (rc) {
		pq_link_detach(l);
		return pq_diag_set(d, rc, "no link named %s (%s)", base, pq_strerror(rc));
	}
	*out = l;
	return 0;
}

void pq_link_detach(pq_link *l)
{
	if (!l)
		return;
	for (int s = 0; s < 2; s++)
		if (l->nsfd[s] >= 0)
			close(l->nsfd[s]);
	free(l);
}
