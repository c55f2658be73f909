#include "net/link.h"

#include <errno.h>
#include <math.h>
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

#include "core/units.h"
#include "net/fwd.h"
#include "net/link_backend.h"
#include "net/ns.h"
#include "net/sh.h"
#include "net/tun.h"

/* The backends by kind, and auto's order of preference: netem when the kernel has it and
 * it can honour every option, else pqtls's own forwarder. */
static const pq_link_ops *const backends[] = {
	[PQ_BACKEND_USERSPACE] = &pq_link_userspace,
	[PQ_BACKEND_NETEM] = &pq_link_netem,
};
static const pq_link_ops *const auto_order[] = {&pq_link_netem, &pq_link_userspace};

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
	return l->ops ? l->ops->kind : PQ_BACKEND_AUTO;
}

const pq_link_config *pq_link_cfg(const pq_link *l)
{
	return &l->cfg;
}

int pq_link_sysctl_set(int nsfd, const char *path, const char *value, pq_diag *d)
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
	int rc = pq_link_sysctl_set(nsfd, "/proc/sys/net/ipv4/tcp_no_metrics_save", "1", d);
	if (!rc)
		rc = pq_link_sysctl_set(nsfd, "/proc/sys/net/ipv4/tcp_rmem", "4096 131072 33554432", d);
	if (!rc)
		rc = pq_link_sysctl_set(nsfd, "/proc/sys/net/ipv4/tcp_wmem", "4096 16384 33554432", d);
	/* The link carries IPv4 only: without this, devices made later (ours) send IPv6 router
	 * solicitations across it. `lo` keeps ::1. Kernels without IPv6 lack the file. */
	pq_diag ignore;
	if (!rc && pq_link_sysctl_set(nsfd, "/proc/sys/net/ipv6/conf/default/disable_ipv6", "1", &ignore)) {
	}
	return rc;
}

/* Addresses, MTU and the route with its TCP settings, as one `ip -batch`. */
int pq_link_configure_side(pq_link *l, enum pq_side side, const char *dev, pq_diag *d)
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
		e += (size_t)snprintf(extra + e, sizeof extra - e, " congctl %s", pq_cc_name(l->cfg.cc));
	if (side == PQ_SIDE_CLIENT && l->cfg.tcp.quickack != PQ_KTCP_KEEP)
		snprintf(extra + e, sizeof extra - e, " quickack %d", l->cfg.tcp.quickack);
	snprintf(script, sizeof script,
		 "link set lo up\n"
		 "link set %s mtu %u txqueuelen 10000 up\n"
		 "addr add %s peer %s/32 dev %s\n"
		 "route replace %s/32 dev %s src %s%s\n",
		 dev, l->cfg.mtu, me, peer, dev, peer, dev, me, extra);
	char *argv[] = {"ip", "-n", l->ns[side], "-batch", "-", NULL};
	snprintf(l->dev, sizeof l->dev, "%s", dev);
	int rc = pq_sh_run(argv, script, NULL, d);
	return rc ? rc : pq_link_ktcp_apply(l, side, dev, d);
}

const pq_ktcp_state *pq_link_ktcp(const pq_link *l)
{
	return &l->ktcp;
}

int pq_link_kernel_caps(pq_ktcp_caps *caps, int qdiscs, pq_diag *d)
{
	if (!qdiscs)
		return pq_ktcp_caps_read(caps, NULL, d);
	char c[64], s[64];
	pq_link_names(atomic_fetch_add(&link_counter, 1), getpid(), c, s);
	int rc = pq_ns_create(s, d);
	if (rc)
		return pq_diag_prefix(d, rc, "probing the kernel's qdiscs");
	rc = pq_ktcp_caps_read(caps, s, d);
	pq_ns_remove(s);
	return rc;
}

/* The kernel TCP settings against what the kernel offers, before devices exist. */
static int check_kernel(pq_link *l, const pq_link_opts *o, pq_diag *d)
{
	pq_ktcp_caps own;
	const pq_ktcp_caps *caps = o ? o->caps : NULL;
	if (!caps) {
		int rc = pq_ktcp_caps_read(&own, l->cfg.tcp.qdisc[0] ? l->ns[PQ_SIDE_SERVER] : NULL, d);
		if (rc)
			return rc;
		caps = &own;
	}
	return pq_ktcp_validate(&l->cfg.tcp, pq_cc_name(l->cfg.cc), caps, l->cfg.names, d);
}

void pq_link_opts_init(pq_link_opts *o)
{
	*o = (pq_link_opts){.comp_ns = -1, .early_ns = -1, .nice = PQ_FWD_DEFAULT_NICE,
			    .rt_prio = PQ_FWD_DEFAULT_RT_PRIO, .batch_ns = PQ_FWD_DEFAULT_BATCH_NS};
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
	l->nsfd[0] = l->nsfd[1] = -1;
	pq_link_names(atomic_fetch_add(&link_counter, 1), getpid(), l->ns[0], l->ns[1]);
	for (int s = 0; s < 2 && !rc; s++) {
		rc = pq_ns_create(l->ns[s], d);
		l->created[s] = !rc;
		if (!rc)
			rc = pq_ns_open(l->ns[s], &l->nsfd[s], d);
		if (!rc)
			rc = ns_sysctls(l->nsfd[s], d);
	}
	if (!rc)
		rc = check_kernel(l, o, d);
	if (rc)
		goto out;
	if (cfg->backend == PQ_BACKEND_AUTO) {
		/* The first that can; when none can, the last one's reason. */
		for (size_t i = 0; i < sizeof auto_order / sizeof auto_order[0]; i++) {
			pq_diag_clear(d);
			if (!(rc = auto_order[i]->usable(l, o, d))) {
				l->ops = auto_order[i];
				break;
			}
		}
	} else if ((unsigned)cfg->backend < sizeof backends / sizeof backends[0] &&
		   backends[cfg->backend]) {
		l->ops = backends[cfg->backend];
		rc = l->ops->usable(l, o, d);
	} else {
		rc = pq_diag_set(d, PQ_EINVAL, "backend %d is not known", (int)cfg->backend);
	}
	if (!rc)
		rc = l->ops->up(l, o, d);
	if (!rc)
		rc = pq_link_ktcp_read(l, &l->ktcp, d);
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

int pq_link_pin(pq_link *l, const cpu_set_t *cpus, char *list, size_t n)
{
	if (list && n)
		list[0] = '\0';
	if (!l->ops || !l->ops->pin)
		return PQ_EUNSUPPORTED;
	return l->stopped ? PQ_ESTATE : l->ops->pin(l, cpus, list, n);
}

int pq_link_stats_get(pq_link *l, pq_link_stats *out)
{
	if (l->stopped) {
		*out = l->final;
		return 0;
	}
	memset(out, 0, sizeof *out);
	out->backend = pq_link_backend(l);
	out->late.p50 = out->late.p99 = out->late.max = -1;
	out->fwd_wait_ns = -1;
	return l->ops ? l->ops->stats(l, out) : PQ_ESTATE;
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

int pq_link_stats_late_over(const pq_link_stats *s)
{
	return s->backend == PQ_BACKEND_USERSPACE && s->late.n > 0 && s->late.p99 > PQ_LINK_LATE_BUDGET_NS;
}

/* The counts now into *counts and, when the backend keeps a release schedule, the lateness
 * since the last call into *late (1), else 0 with *late empty. */
static int window_take(pq_link *l, pq_late_win *late, pq_link_stats *counts, int *kept)
{
	*kept = 0;
	pq_late_win_init(late);
	if (l->stopped || !l->ops || !l->ops->window)
		return pq_link_stats_get(l, counts);
	memset(counts, 0, sizeof *counts);
	counts->backend = pq_link_backend(l);
	counts->fwd_wait_ns = -1;
	int rc = l->ops->window(l, late, counts);
	*kept = rc == 0;
	return rc;
}

int pq_link_window_begin(pq_link *l)
{
	pq_late_win w;
	int kept;
	int rc = window_take(l, &w, &l->win0, &kept);
	pq_late_win_dispose(&w); /* what came before the window */
	return rc;
}

static void dir_delta(pq_path_stats *d, const pq_path_stats *now, const pq_path_stats *then)
{
	d->pkts_in = now->pkts_in - then->pkts_in;
	d->bytes_in = now->bytes_in - then->bytes_in;
	d->pkts_out = now->pkts_out - then->pkts_out;
	d->bytes_out = now->bytes_out - then->bytes_out;
	d->drop_loss = now->drop_loss - then->drop_loss;
	d->drop_queue = now->drop_queue - then->drop_queue;
	d->drop_unplanned = now->drop_unplanned - then->drop_unplanned;
}

int pq_link_window_end(pq_link *l, pq_link_window *out)
{
	pq_link_stats now;
	pq_late_win w;
	memset(out, 0, sizeof *out);
	out->fwd_wait_ns = -1;
	int rc = window_take(l, &w, &now, &out->late_known);
	pq_late_win_summary(&w, &out->late);
	pq_late_win_dispose(&w);
	if (rc)
		return rc;
	for (int i = 0; i < 2; i++)
		dir_delta(&out->dir[i], &now.dir[i], &l->win0.dir[i]);
	out->fwd_wait_ns = now.fwd_wait_ns >= 0 && l->win0.fwd_wait_ns >= 0 ? now.fwd_wait_ns - l->win0.fwd_wait_ns : -1;
	return 0;
}

uint64_t pq_link_window_unplanned(const pq_link_window *w)
{
	return w->dir[0].drop_unplanned + w->dir[1].drop_unplanned;
}

int pq_link_window_ok(const pq_link_window *w, char *why, size_t n)
{
	uint64_t unplanned = pq_link_window_unplanned(w);
	int late_over = w->late_known && w->late.n > 0 && w->late.p99 > (double)PQ_LINK_LATE_BUDGET_NS;
	if (why && n)
		why[0] = '\0';
	if (!late_over && !unplanned)
		return w->late_known && w->late.n > 0 ? 1 : -1;
	if (why && n) {
		char a[32], b[32];
		if (late_over)
			snprintf(why, n, "release lateness p99 %s over the %s budget%s",
				 pq_fmt_duration(a, sizeof a, (int64_t)w->late.p99),
				 pq_fmt_duration(b, sizeof b, PQ_LINK_LATE_BUDGET_NS), unplanned ? "; " : "");
		size_t len = strlen(why);
		if (unplanned && len < n)
			snprintf(why + len, n - len, "%llu unplanned drops (TUN, buffers or writes)",
				 (unsigned long long)unplanned);
	}
	return 0;
}

int pq_link_stop(pq_link *l, pq_diag *d)
{
	if (l->stopped)
		return 0;
	int rc = 0;
	if (pq_link_stats_get(l, &l->final))
		memset(&l->final, 0, sizeof l->final);
	if (l->ops)
		rc = l->ops->stop(l, &l->final, d);
	l->stopped = 1;
	return rc;
}

int pq_link_down(pq_link *l, pq_diag *d)
{
	if (!l)
		return 0;
	int rc = pq_link_stop(l, d);
	if (l->ops)
		l->ops->release(l);
	for (int s = 0; s < 2; s++) {
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
	l->nsfd[0] = l->nsfd[1] = -1;
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
