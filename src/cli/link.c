/* pqtls link: two network namespaces joined by an emulated WAN path (src/net/link.h),
 * and the commands that run programs across it. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli/commands.h"
#include "core/clock.h"
#include "core/units.h"
#include "net/check.h"
#include "net/link.h"
#include "net/listen.h"
#include "net/ns.h"
#include "net/probe.h"
#include "net/profile.h"

struct link_opts {
	const char *profile;
	int64_t rtt, delay, delay_up, delay_down, jitter;
	int jitter_dist, reorder;
	double loss, loss_up, loss_down;
	const char *burst_loss;
	uint64_t rate, rate_up, rate_down;
	const char *queue;
	long long mtu, initcwnd, initrwnd, seed;
	int cc, backend;
	const char *pcap;
	long long wait_port;
	int64_t wait_timeout, grace;
	int check, json, all;
	long long samples, port, bytes;
};

#define O(f) offsetof(struct link_opts, f)
/* The link's own options, shared by run, up and check. */
#define LINK_OPTS                                                                                         \
	{"profile", 'p', PQ_OPT_STR, O(profile), "NAME", NULL,                                            \
	 "start from a named profile (see 'pqtls link profiles'); options below override it", NULL, 0, 0},  \
	{"rtt", 0, PQ_OPT_DURATION, O(rtt), NULL, NULL, "round-trip time, split evenly over the two directions", \
	 NULL, 0, 0},                                                                                     \
	{"delay", 0, PQ_OPT_DURATION, O(delay), NULL, NULL, "one-way delay, both directions", NULL, 0, 0},   \
	{"delay-up", 0, PQ_OPT_DURATION, O(delay_up), NULL, NULL, "one-way delay client -> server", NULL, 0, 0}, \
	{"delay-down", 0, PQ_OPT_DURATION, O(delay_down), NULL, NULL, "one-way delay server -> client", NULL, 0, \
	 0},                                                                                              \
	{"jitter", 0, PQ_OPT_DURATION, O(jitter), NULL, NULL,                                             \
	 "delay variation per direction (sd; half-width for uniform)", NULL, 0, 0},                       \
	{"jitter-dist", 0, PQ_OPT_CHOICE, O(jitter_dist), NULL, "normal", "jitter distribution", PQ_DIST_CHOICES, \
	 0, 0},                                                                                           \
	{"reorder", 0, PQ_OPT_FLAG, O(reorder), NULL, NULL,                                               \
	 "let jitter reorder packets (default: keep order, as one path would)", NULL, 0, 0},              \
	{"loss", 0, PQ_OPT_FRACTION, O(loss), NULL, NULL, "random (Bernoulli) loss, each direction", NULL, 0, 0}, \
	{"loss-up", 0, PQ_OPT_FRACTION, O(loss_up), NULL, NULL, "loss client -> server", NULL, 0, 0},      \
	{"loss-down", 0, PQ_OPT_FRACTION, O(loss_down), NULL, NULL, "loss server -> client", NULL, 0, 0},  \
	{"burst-loss", 0, PQ_OPT_STR, O(burst_loss), "P,R[,BAD[,GOOD]]", NULL,                            \
	 "Gilbert-Elliott loss, each direction: P good->bad, R bad->good, loss in bad (100%) and good (0%)", \
	 NULL, 0, 0},                                                                                     \
	{"rate", 0, PQ_OPT_RATE, O(rate), NULL, NULL, "bottleneck rate, each direction (0 = unlimited)", NULL, 0, \
	 0},                                                                                              \
	{"rate-up", 0, PQ_OPT_RATE, O(rate_up), NULL, NULL, "rate client -> server", NULL, 0, 0},          \
	{"rate-down", 0, PQ_OPT_RATE, O(rate_down), NULL, NULL, "rate server -> client", NULL, 0, 0},      \
	{"queue", 0, PQ_OPT_STR, O(queue), "SIZE|Np", NULL,                                               \
	 "drop-tail queue at the rate limit: bytes (64KiB) or packets (100p)", NULL, 0, 0},               \
	{"mtu", 0, PQ_OPT_INT, O(mtu), "BYTES", "1500", "MTU of the link devices", NULL, 0, 0},             \
	{"initcwnd", 0, PQ_OPT_INT, O(initcwnd), "SEGMENTS", NULL, "server route's initial congestion window", \
	 NULL, 0, 0},                                                                                     \
	{"initrwnd", 0, PQ_OPT_INT, O(initrwnd), "SEGMENTS", NULL, "server route's initial receive window", NULL, \
	 0, 0},                                                                                           \
	{"cc", 0, PQ_OPT_CHOICE, O(cc), NULL, "default", "congestion control on both routes (ip route congctl)", \
	 PQ_CC_CHOICES, 0, 0},                                                                            \
	{"backend", 'b', PQ_OPT_CHOICE, O(backend), NULL, "auto", "emulation backend (auto: netem if the kernel " \
	 "has it)", PQ_BACKEND_CHOICES, 0, 0},                                                            \
	{"seed", 0, PQ_OPT_INT, O(seed), "N", "1", "seed for loss and jitter", NULL, 0, 0}

#define END_OPTS {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0}

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static void catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* "100p" / "100pkt" / "100packets" are packets, anything else a size. */
static int parse_queue(const char *s, pq_dir_cfg *dc, pq_diag *d)
{
	char *end;
	errno = 0;
	unsigned long long n = strtoull(s, &end, 10);
	if (end != s && (!strcmp(end, "p") || !strcmp(end, "pkt") || !strcmp(end, "pkts") ||
			 !strcmp(end, "packets"))) {
		if (errno || n == 0 || n > 1000000)
			return pq_diag_set(d, PQ_ERANGE, "--queue: '%s' is out of range (accepted: 1p to 1000000p)", s);
		dc->queue_pkts = (uint32_t)n;
		dc->queue_bytes = 0;
		return 0;
	}
	uint64_t b;
	int rc = pq_parse_size(s, "--queue", &b, d);
	if (rc)
		return pq_diag_set(d, rc, "--queue: '%s' is neither a size (64KiB) nor a packet count (100p)", s);
	if (b == 0)
		return pq_diag_set(d, PQ_ERANGE, "--queue: 0 bytes holds nothing (accepted: at least the MTU)");
	dc->queue_bytes = b;
	dc->queue_pkts = 0;
	return 0;
}

/* "P,R[,BAD[,GOOD]]" as fractions ("1%,25%"). */
static int parse_burst(const char *s, pq_loss_cfg *l, pq_diag *d)
{
	char buf[128];
	double v[4] = {0, 0, 1.0, 0};
	snprintf(buf, sizeof buf, "%s", s);
	int n = 0;
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (n == 4)
			return pq_diag_set(d, PQ_EINVAL, "--burst-loss: '%s' has more than 4 values (P,R[,BAD[,GOOD]])", s);
		if (pq_parse_fraction(t, "--burst-loss", &v[n], d))
			return pq_diag_set(d, PQ_EINVAL, "--burst-loss: '%s' is not a probability (e.g. 1%% or 0.01); "
					   "expected P,R[,BAD[,GOOD]]", t);
		n++;
	}
	if (n < 2)
		return pq_diag_set(d, PQ_EINVAL, "--burst-loss: '%s' needs at least P and R (e.g. 1%%,25%%)", s);
	l->p = 0;
	l->ge_p = v[0];
	l->ge_r = v[1];
	l->loss_bad = v[2];
	l->loss_good = v[3];
	return 0;
}

static int given(const pq_cmd *cmd, const pq_cli_args *a, const char *name)
{
	return pq_cli_given(cmd, a, name);
}

/* Profile first, then every option that was given. */
static int build_config(const pq_cmd *cmd, const struct link_opts *o, const pq_cli_args *a, pq_link_config *c,
			pq_diag *d)
{
	int rc;
	pq_link_config_init(c);
	if (o->profile && (rc = pq_profile_apply(o->profile, c, d)))
		return rc;
	for (int i = 0; i < 2; i++) {
		pq_dir_cfg *dc = &c->dir[i];
		if (given(cmd, a, "rtt"))
			dc->delay_ns = o->rtt / 2 + (i == 0 ? o->rtt % 2 : 0);
		if (given(cmd, a, "delay"))
			dc->delay_ns = o->delay;
		if (given(cmd, a, "jitter"))
			dc->jitter_ns = o->jitter;
		if (given(cmd, a, "jitter-dist"))
			dc->jitter_dist = (enum pq_dist)o->jitter_dist;
		if (given(cmd, a, "reorder"))
			dc->reorder = 1;
		if (given(cmd, a, "loss")) {
			dc->loss.p = o->loss;
			dc->loss.ge_p = 0;
		}
		if (given(cmd, a, "burst-loss") && (rc = parse_burst(o->burst_loss, &dc->loss, d)))
			return rc;
		if (given(cmd, a, "rate"))
			dc->rate_bps = o->rate;
		if (given(cmd, a, "queue") && (rc = parse_queue(o->queue, dc, d)))
			return rc;
	}
	if (given(cmd, a, "delay-up"))
		c->dir[PQ_DIR_C2S].delay_ns = o->delay_up;
	if (given(cmd, a, "delay-down"))
		c->dir[PQ_DIR_S2C].delay_ns = o->delay_down;
	if (given(cmd, a, "loss-up"))
		c->dir[PQ_DIR_C2S].loss.p = o->loss_up;
	if (given(cmd, a, "loss-down"))
		c->dir[PQ_DIR_S2C].loss.p = o->loss_down;
	if (given(cmd, a, "rate-up"))
		c->dir[PQ_DIR_C2S].rate_bps = o->rate_up;
	if (given(cmd, a, "rate-down"))
		c->dir[PQ_DIR_S2C].rate_bps = o->rate_down;
	if (o->mtu < 0 || o->mtu > 65535 || o->initcwnd < 0 || o->initcwnd > 1000 || o->initrwnd < 0 ||
	    o->initrwnd > 1000)
		return pq_diag_set(d, PQ_ERANGE, "--mtu %lld / --initcwnd %lld / --initrwnd %lld: out of range "
				   "(MTU 576 to 9000; windows 1 to 1000 segments)", o->mtu, o->initcwnd, o->initrwnd);
	c->mtu = (uint32_t)o->mtu;
	if (given(cmd, a, "initcwnd"))
		c->initcwnd = (uint32_t)o->initcwnd;
	if (given(cmd, a, "initrwnd"))
		c->initrwnd = (uint32_t)o->initrwnd;
	if ((given(cmd, a, "initcwnd") && o->initcwnd == 0) || (given(cmd, a, "initrwnd") && o->initrwnd == 0))
		return pq_diag_set(d, PQ_ERANGE, "--initcwnd/--initrwnd: 0 segments is not a window (accepted: 1 to 1000)");
	c->cc = (enum pq_cc)o->cc;
	c->backend = (enum pq_backend)o->backend;
	c->seed = (uint64_t)o->seed;
	return pq_link_config_validate(c, d);
}

static int config_or_usage(const pq_cmd *cmd, const char *path, const struct link_opts *o, const pq_cli_args *a,
			   pq_link_config *c)
{
	pq_diag d;
	pq_diag_clear(&d);
	if (build_config(cmd, o, a, c, &d))
		return pq_cli_usage_error(path, "%s", pq_diag_msg(&d));
	return 0;
}

static void announce(const pq_link *l)
{
	char desc[512];
	pq_link_config_describe(pq_link_cfg(l), desc, sizeof desc);
	fprintf(stderr, "pqtls link: %s <-> %s, backend %s: %s (client %s, server %s)\n",
		pq_link_ns_name(l, PQ_SIDE_CLIENT), pq_link_ns_name(l, PQ_SIDE_SERVER),
		pq_backend_name(pq_link_backend(l)), desc, PQ_LINK_CLIENT_ADDR, PQ_LINK_SERVER_ADDR);
}

static void report_stats(pq_link *l)
{
	pq_link_stats st;
	char line[512];
	if (pq_link_stats_get(l, &st))
		return;
	pq_link_stats_format(&st, line, sizeof line);
	fprintf(stderr, "pqtls %s\n", line);
	if (pq_link_stats_unplanned(&st))
		fprintf(stderr, "pqtls link: warning: %llu packets were dropped that the link configuration did "
			"not ask for; this run is not a valid measurement\n",
			(unsigned long long)pq_link_stats_unplanned(&st));
}

/* Copies argv with {server} and {client} replaced by the addresses. Freed by free_argv. */
static char **substitute(char **argv, int n)
{
	char **out = calloc((size_t)n + 1, sizeof *out);
	if (!out)
		return NULL;
	for (int i = 0; i < n; i++) {
		const char *s = argv[i];
		size_t cap = strlen(s) * 2 + 64, len = 0;
		char *r = malloc(cap);
		if (!r)
			break;
		while (*s && len + 32 < cap) {
			if (!strncmp(s, "{server}", 8)) {
				len += (size_t)snprintf(r + len, cap - len, "%s", PQ_LINK_SERVER_ADDR);
				s += 8;
			} else if (!strncmp(s, "{client}", 8)) {
				len += (size_t)snprintf(r + len, cap - len, "%s", PQ_LINK_CLIENT_ADDR);
				s += 8;
			} else {
				r[len++] = *s++;
			}
		}
		r[len] = '\0';
		out[i] = r;
	}
	return out;
}

static void free_argv(char **v)
{
	for (int i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static int exit_code_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return PQ_EXIT_FAIL;
}

/* Waits for pid, polling so a caught signal is noticed at once. 1 when it exited. */
static int wait_child(pid_t pid, int *status, int64_t timeout_ns)
{
	int64_t end = timeout_ns < 0 ? INT64_MAX : pq_mono_ns() + timeout_ns;
	while (pq_mono_ns() < end) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid || (r < 0 && errno == ECHILD))
			return 1;
		if (got_signal && timeout_ns < 0)
			return 0;
		struct timespec t = {0, 2 * 1000000};
		nanosleep(&t, NULL);
	}
	return 0;
}

/* SIGTERM to the server's process group, SIGKILL after the grace period. */
static void stop_group(pid_t pid, int64_t grace_ns)
{
	int status;
	if (pid <= 0)
		return;
	kill(-pid, SIGTERM);
	if (!wait_child(pid, &status, grace_ns)) {
		kill(-pid, SIGKILL);
		wait_child(pid, &status, 5 * PQ_NS_PER_S);
	}
	kill(-pid, SIGKILL); /* whatever the server started and left behind */
}

/* -------- run -------- */

static int link_run_run(const pq_cmd *cmd, void *optsp, pq_cli_args *a)
{
	const char *path = "pqtls link run";
	struct link_opts *o = optsp;
	pq_link_config cfg;
	int rc = config_or_usage(cmd, path, o, a, &cfg);
	if (rc)
		return rc;
	/* After the first "--": SERVER-CMD -- CLIENT-CMD */
	char **rest = a->dashdash >= 0 ? a->argv + a->dashdash : NULL;
	int nrest = a->dashdash >= 0 ? a->argc - a->dashdash : 0, split = -1;
	for (int i = 0; i < nrest; i++)
		if (!strcmp(rest[i], "--")) {
			split = i;
			break;
		}
	if (a->dashdash != 0 || split <= 0 || split == nrest - 1)
		return pq_cli_usage_error(path, "missing command: expected '-- SERVER-CMD ... -- CLIENT-CMD ...' "
					  "(e.g. -- pqtls serve --port 4433 -- pqtls bench {server}:4433)");
	if (o->wait_port < 0 || o->wait_port > 65535)
		return pq_cli_usage_error(path, "--wait-port: %lld is not a TCP port (accepted: 1 to 65535)", o->wait_port);
	char **srv = substitute(rest, split), **cli = substitute(rest + split + 1, nrest - split - 1);
	pq_link *l = NULL;
	pq_diag d;
	pq_diag_clear(&d);
	pid_t spid = 0, cpid = 0;
	int status = 0;
	catch_signals();
	pq_link_opts lo = {.pcap_path = o->pcap, .log = stderr, .comp_ns = -1};
	if (!srv || !cli) {
		rc = pq_cli_fail(path, "out of memory");
		goto out;
	}
	if (pq_link_up(&cfg, &lo, &l, &d)) {
		rc = pq_cli_fail(path, "%s", pq_diag_msg(&d));
		goto out;
	}
	announce(l);
	if (o->check) {
		pq_check_result cr;
		if (pq_check_run(l, NULL, &cr, &d) == 0) {
			char line[512];
			pq_check_format(&cr, line, sizeof line);
			fprintf(stderr, "pqtls link check: %s\n", line);
		} else {
			fprintf(stderr, "pqtls link check: %s\n", pq_diag_msg(&d));
		}
	}
	pq_exec_opts so = {.own_pgrp = 1, .stdin_null = 1, .die_with_owner = 1};
	if (pq_link_exec_in(l, PQ_SIDE_SERVER, srv, &so, &spid, &d)) {
		rc = pq_cli_fail(path, "%s", pq_diag_msg(&d));
		goto out;
	}
	if (o->wait_port && pq_listen_wait(l, (unsigned)o->wait_port, o->wait_timeout, spid, &status, &d)) {
		if (got_signal)
			goto interrupted;
		if (d.code == PQ_ECHILD) {
			spid = 0;
			rc = pq_cli_fail(path, "%s (exit status %d)", pq_diag_msg(&d), exit_code_of(status));
		} else {
			rc = pq_cli_fail(path, "%s", pq_diag_msg(&d));
		}
		goto out;
	}
	pq_exec_opts co = {.die_with_owner = 1};
	if (pq_link_exec_in(l, PQ_SIDE_CLIENT, cli, &co, &cpid, &d)) {
		rc = pq_cli_fail(path, "%s", pq_diag_msg(&d));
		goto out;
	}
	if (wait_child(cpid, &status, -1)) {
		cpid = 0;
		rc = exit_code_of(status);
		goto out;
	}
interrupted:
	fprintf(stderr, "pqtls link run: %s: stopping and removing the link\n", strsignal(got_signal));
	rc = 128 + got_signal;
out:
	if (cpid > 0) {
		kill(cpid, SIGTERM);
		if (!wait_child(cpid, &status, o->grace)) {
			kill(cpid, SIGKILL);
			wait_child(cpid, &status, 5 * PQ_NS_PER_S);
		}
	}
	stop_group(spid, o->grace);
	if (l) {
		if (pq_link_stop(l, &d))
			rc = rc ? rc : pq_cli_fail(path, "%s", pq_diag_msg(&d));
		report_stats(l);
		if (pq_link_down(l, &d))
			rc = rc ? rc : pq_cli_fail(path, "%s", pq_diag_msg(&d));
	}
	free_argv(srv);
	free_argv(cli);
	return rc;
}

static const pq_opt run_opts[] = {
	LINK_OPTS,
	{"pcap", 'w', PQ_OPT_STR, O(pcap), "FILE", NULL, "write the packets that crossed the link to FILE (pcap)",
	 NULL, 0, 0},
	{"wait-port", 0, PQ_OPT_INT, O(wait_port), "PORT", "0",
	 "start the client only once the server listens on this TCP port", NULL, 0, 0},
	{"wait-timeout", 0, PQ_OPT_DURATION, O(wait_timeout), NULL, "10s", "how long --wait-port waits", NULL, 0, 0},
	{"grace", 0, PQ_OPT_DURATION, O(grace), NULL, "2s", "after the client ends: SIGTERM the server, SIGKILL "
	 "after this long", NULL, 0, 0},
	{"check", 0, PQ_OPT_FLAG, O(check), NULL, NULL, "measure the link (as 'link check') before the commands",
	 NULL, 0, 0},
	END_OPTS,
};

static const pq_cmd link_run_cmd = {
	.name = "run",
	.summary = "run a server command and a client command across an emulated link, then remove it",
	.usage = "[link options] -- SERVER-CMD [ARGS] -- CLIENT-CMD [ARGS]",
	.description =
		"The server command runs in the server namespace (address " PQ_LINK_SERVER_ADDR "), the client\n"
		"command in the client namespace (" PQ_LINK_CLIENT_ADDR "). Both see PQTLS_SERVER_ADDR and\n"
		"PQTLS_CLIENT_ADDR; '{server}' and '{client}' in their arguments become the addresses.\n"
		"The exit status is the client's. A line of link statistics ends every run.\n\n"
		"Examples:\n"
		"  pqtls link run --rtt 70ms --wait-port 4433 -- pqtls serve --port 4433 -- \\\n"
		"      pqtls bench {server}:4433\n"
		"  pqtls link run --profile trans-pacific --loss 1% --wait-port 4433 -- \\\n"
		"      openssl s_server -accept 4433 -www ... -- curl -k https://{server}:4433/",
	.opts = run_opts,
	.opts_size = sizeof(struct link_opts),
	.run = link_run_run,
	.max_args = 0,
};

/* -------- up / down / exec -------- */

static int link_up_run(const pq_cmd *cmd, void *optsp, pq_cli_args *a)
{
	const char *path = "pqtls link up";
	struct link_opts *o = optsp;
	pq_link_config cfg;
	int rc = config_or_usage(cmd, path, o, a, &cfg);
	if (rc)
		return rc;
	pq_diag d;
	if (pq_link_check_privileges(cfg.backend, &d))
		return pq_cli_fail(path, "%s", pq_diag_msg(&d));
	int p[2];
	if (pipe(p))
		return pq_cli_fail(path, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return pq_cli_fail(path, "fork: %s", strerror(errno));
	if (pid == 0) {
		/* The link's owner: holds the forwarder until `link down` sends SIGTERM. */
		close(p[0]);
		setsid();
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGTERM);
		sigaddset(&set, SIGINT);
		sigaddset(&set, SIGHUP);
		sigprocmask(SIG_BLOCK, &set, NULL);
		pq_link *l = NULL;
		pq_link_opts lo = {.pcap_path = o->pcap, .log = stderr, .comp_ns = -1};
		if (pq_link_up(&cfg, &lo, &l, &d)) {
			dprintf(p[1], "E%s\n", pq_diag_msg(&d));
			_exit(1);
		}
		char desc[512];
		pq_link_config_describe(&cfg, desc, sizeof desc);
		const char *c = pq_link_ns_name(l, PQ_SIDE_CLIENT);
		dprintf(p[1], "O%.*s %s %s\n", (int)(strlen(c) - 2), c, pq_backend_name(pq_link_backend(l)), desc);
		close(p[1]);
		int devnull = open("/dev/null", O_RDWR);
		if (devnull >= 0) {
			dup2(devnull, 0);
			dup2(devnull, 1);
			dup2(devnull, 2);
		}
		int sig;
		sigwait(&set, &sig);
		(void)pq_link_down(l, &d);
		_exit(0);
	}
	close(p[1]);
	char buf[1024] = "";
	FILE *f = fdopen(p[0], "r");
	if (!f || !fgets(buf, sizeof buf, f))
		snprintf(buf, sizeof buf, "Ethe link process ended without saying why");
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	if (buf[0] != 'O') {
		waitpid(pid, NULL, 0);
		return pq_cli_fail(path, "%s", buf + 1);
	}
	char name[64], backend[32];
	int off = 0;
	if (sscanf(buf + 1, "%63s %31s %n", name, backend, &off) < 2)
		return pq_cli_fail(path, "unexpected answer from the link process: %s", buf);
	printf("%s\n", name);
	fprintf(stderr, "pqtls link up: %s (pid %d), backend %s: %s\n"
		"  client %s in %s-c, server %s in %s-s\n"
		"  pqtls link exec %s server -- CMD   /   pqtls link down %s\n",
		name, (int)pid, backend, buf + 1 + off, PQ_LINK_CLIENT_ADDR, name, PQ_LINK_SERVER_ADDR, name, name,
		name);
	return PQ_EXIT_OK;
}

static const pq_opt up_opts[] = {
	LINK_OPTS,
	{"pcap", 'w', PQ_OPT_STR, O(pcap), "FILE", NULL, "write the packets that crossed the link to FILE (pcap; "
	 "complete after 'link down')", NULL, 0, 0},
	END_OPTS,
};

static const pq_cmd link_up_cmd = {
	.name = "up",
	.summary = "create a link and keep it until 'pqtls link down NAME' (prints NAME)",
	.usage = "[link options]",
	.opts = up_opts,
	.opts_size = sizeof(struct link_opts),
	.run = link_up_run,
	.max_args = 0,
};

/* NAME is pqtls-PID-N (the namespaces are NAME-c and NAME-s). */
static int parse_link_name(const char *path, const char *name, pid_t *pid)
{
	char c[80];
	unsigned n;
	char side;
	snprintf(c, sizeof c, "%s-c", name);
	if (pq_ns_parse_name(c, pid, &n, &side))
		return pq_cli_usage_error(path, "'%s' is not a link name (expected pqtls-PID-N, as 'link up' printed)",
					  name);
	return 0;
}

/* Asks the owner to finish (it writes its pcap and removes its namespaces), waits a
 * bounded time, then removes whatever is left. */
static void down_one(const char *base)
{
	char c[80], s[80], nsfile[128];
	pid_t pid;
	unsigned n;
	char side;
	snprintf(c, sizeof c, "%s-c", base);
	snprintf(s, sizeof s, "%s-s", base);
	snprintf(nsfile, sizeof nsfile, PQ_NS_DIR "/%s", c);
	if (!pq_ns_parse_name(c, &pid, &n, &side) && pid != getpid() && pq_ns_owner_alive(pid) &&
	    kill(pid, SIGTERM) == 0) {
		for (int i = 0; i < 500 && access(nsfile, F_OK) == 0; i++) {
			struct timespec t = {0, 10 * 1000000};
			nanosleep(&t, NULL);
		}
	}
	int k = pq_ns_remove(c), l = pq_ns_remove(s);
	int killed = (k > 0 ? k : 0) + (l > 0 ? l : 0);
	fprintf(stderr, "pqtls link down: removed %s", base);
	if (killed)
		fprintf(stderr, " (%d process%s inside killed)", killed, killed == 1 ? "" : "es");
	fputc('\n', stderr);
}

static int link_down_run(const pq_cmd *cmd, void *optsp, pq_cli_args *a)
{
	(void)cmd;
	const char *path = "pqtls link down";
	struct link_opts *o = optsp;
	pq_diag d;
	if (pq_link_check_privileges(PQ_BACKEND_NETEM, &d))
		return pq_cli_fail(path, "%s", pq_diag_msg(&d));
	if (o->all) {
		int n = pq_ns_sweep(stderr);
		char list[8192];
		pq_ns_list(list, sizeof list);
		for (char *line = list, *e; *line; line = e + 1) {
			e = strchr(line, '\n');
			*e = '\0';
			size_t len = strlen(line);
			/* one call per link, from its client-side name */
			if (len > 2 && !strcmp(line + len - 2, "-c")) {
				line[len - 2] = '\0';
				down_one(line);
				n++;
			}
		}
		/* a server side whose client side is already gone */
		pq_ns_list(list, sizeof list);
		for (char *line = list, *e; *line; line = e + 1) {
			e = strchr(line, '\n');
			*e = '\0';
			pq_ns_remove(line);
		}
		if (!n)
			fprintf(stderr, "pqtls link down: no pqtls links\n");
		return PQ_EXIT_OK;
	}
	if (a->argc != 1)
		return pq_cli_usage_error(path, "missing link name (or --all)");
	pid_t pid;
	int rc = parse_link_name(path, a->argv[0], &pid);
	if (rc)
		return rc;
	char nsfile[128];
	snprintf(nsfile, sizeof nsfile, PQ_NS_DIR "/%s-c", a->argv[0]);
	if (access(nsfile, F_OK))
		return pq_cli_fail(path, "no link named %s", a->argv[0]);
	down_one(a->argv[0]);
	return PQ_EXIT_OK;
}

static const pq_opt down_opts[] = {
	{"all", 0, PQ_OPT_FLAG, O(all), NULL, NULL, "remove every pqtls link on this machine", NULL, 0, 0},
	END_OPTS,
};

static const pq_cmd link_down_cmd = {
	.name = "down",
	.summary = "remove a link made by 'link up' (and what runs inside it)",
	.usage = "NAME | --all",
	.opts = down_opts,
	.opts_size = sizeof(struct link_opts),
	.run = link_down_run,
	.max_args = 1,
};

static int link_exec_run(const pq_cmd *cmd, void *optsp, pq_cli_args *a)
{
	(void)cmd;
	(void)optsp;
	const char *path = "pqtls link exec";
	if (a->dashdash != 2 || a->argc < 3)
		return pq_cli_usage_error(path, "usage: pqtls link exec NAME client|server -- CMD [ARGS]");
	pid_t owner;
	int rc = parse_link_name(path, a->argv[0], &owner);
	if (rc)
		return rc;
	const char *side = a->argv[1];
	if (strcmp(side, "client") && strcmp(side, "server"))
		return pq_cli_usage_error(path, "side '%s': expected client or server", side);
	pq_diag d;
	pq_link *l = NULL;
	if (pq_link_attach(a->argv[0], &l, &d))
		return pq_cli_fail(path, "%s", pq_diag_msg(&d));
	char **argv = substitute(a->argv + 2, a->argc - 2);
	pid_t pid;
	int status = 0;
	rc = PQ_EXIT_FAIL;
	if (argv && !pq_link_exec_in(l, side[0] == 'c' ? PQ_SIDE_CLIENT : PQ_SIDE_SERVER, argv, NULL, &pid, &d)) {
		signal(SIGINT, SIG_IGN); /* the child gets it from the terminal */
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		rc = exit_code_of(status);
	} else {
		pq_cli_fail(path, "%s", argv ? pq_diag_msg(&d) : "out of memory");
	}
	free_argv(argv);
	pq_link_detach(l);
	return rc;
}

static const pq_cmd link_exec_cmd = {
	.name = "exec",
	.summary = "run a command inside one side of a link made by 'link up'",
	.usage = "NAME client|server -- CMD [ARGS]",
	.run = link_exec_run,
	.min_args = 2,
	.max_args = 2,
};

/* -------- profiles -------- */

static int link_profiles_run(const pq_cmd *cmd, void *optsp, pq_cli_args *a)
{
	(void)cmd;
	(void)a;
	struct link_opts *o = optsp;
	char r[32], j[32], rate[32];
	if (o->json) {
		cJSON *arr = cJSON_CreateArray();
		for (const pq_profile *p = pq_profiles; p->name; p++) {
			cJSON *x = cJSON_CreateObject();
			cJSON_AddStringToObject(x, "name", p->name);
			cJSON_AddNumberToObject(x, "rtt_ms", (double)p->rtt_ns / 1e6);
			cJSON_AddNumberToObject(x, "jitter_ms", (double)p->jitter_ns / 1e6);
			cJSON_AddNumberToObject(x, "loss", p->loss);
			cJSON_AddNumberToObject(x, "rate_bps", (double)p->rate_bps);
			cJSON_AddNumberToObject(x, "queue_packets", p->rate_bps ? p->queue_pkts : 0);
			cJSON_AddStringToObject(x, "source", p->source);
			cJSON_AddItemToArray(arr, x);
		}
		char *s = cJSON_PrintUnformatted(arr);
		if (s)
			printf("%s\n", s);
		free(s);
		cJSON_Delete(arr);
		return s ? PQ_EXIT_OK : PQ_EXIT_FAIL;
	}
	printf("%-14s %9s %9s %6s %12s %6s  %s\n", "profile", "rtt", "jitter", "loss", "rate", "queue", "source");
	for (const pq_profile *p = pq_profiles; p->name; p++) {
		char loss[16], q[16];
		snprintf(loss, sizeof loss, "%g%%", p->loss * 100);
		snprintf(q, sizeof q, p->rate_bps ? "%up" : "-", p->queue_pkts);
		printf("%-14s %9s %9s %6s %12s %6s  %s\n", p->name, pq_fmt_duration(r, sizeof r, p->rtt_ns),
		       p->jitter_ns ? pq_fmt_duration(j, sizeof j, p->jitter_ns) : "-", loss,
		       p->rate_bps ? pq_fmt_rate(rate, sizeof rate, p->rate_bps) : "unlimited", q, p->source);
	}
	return PQ_EXIT_OK;
}

static const pq_opt json_opts[] = {
	{"json", 0, PQ_OPT_FLAG, O(json), NULL, NULL, "print JSON", NULL, 0, 0},
	END_OPTS,
};

static const pq_cmd link_profiles_cmd = {
	.name = "profiles",
	.summary = "list the named link profiles with their values",
	.usage = "[--json]",
	.opts = json_opts,
	.opts_size = sizeof(struct link_opts),
	.run = link_profiles_run,
	.max_args = 0,
};

/* -------- check -------- */

static int link_check_run(const pq_cmd *cmd, void *optsp, pq_cli_args *a)
{
	const char *path = "pqtls link check";
	struct link_opts *o = optsp;
	pq_link_config cfg;
	int rc = config_or_usage(cmd, path, o, a, &cfg);
	if (rc)
		return rc;
	pq_diag d;
	pq_link *l = NULL;
	catch_signals();
	pq_link_opts lo = {.log = stderr, .comp_ns = -1};
	if (pq_link_up(&cfg, &lo, &l, &d))
		return pq_cli_fail(path, "%s", pq_diag_msg(&d));
	if (!o->json)
		announce(l);
	pq_check_opts co;
	pq_check_opts_init(&co);
	co.rtt_samples = (int)o->samples;
	pq_check_result r;
	rc = pq_check_run(l, &co, &r, &d);
	if (rc) {
		rc = pq_cli_fail(path, "%s", pq_diag_msg(&d));
	} else if (o->json) {
		char *s = pq_check_json(&r);
		printf("%s\n", s ? s : "{}");
		free(s);
		rc = r.ok ? PQ_EXIT_OK : PQ_EXIT_FAIL;
	} else {
		char line[1024];
		pq_check_format(&r, line, sizeof line);
		printf("%s\n", line);
		rc = r.ok ? PQ_EXIT_OK : PQ_EXIT_FAIL;
	}
	if (!o->json)
		report_stats(l);
	(void)pq_link_down(l, &d);
	return rc;
}

static const pq_opt check_opts[] = {
	LINK_OPTS,
	{"samples", 'n', PQ_OPT_INT, O(samples), "N", "200", "round trips to time", NULL, 10, 100000},
	{"json", 0, PQ_OPT_FLAG, O(json), NULL, NULL, "print JSON", NULL, 0, 0},
	END_OPTS,
};

static const pq_cmd link_check_cmd = {
	.name = "check",
	.summary = "build a link, measure its RTT, rate and loss against the configuration, and report",
	.usage = "[link options] [--samples N] [--json]",
	.description = "Exit status 0 when every measured value is within its budget, 1 when one is not.",
	.opts = check_opts,
	.opts_size = sizeof(struct link_opts),
	.run = link_check_run,
	.max_args = 0,
};

/* -------- probes (for tests and benches) -------- */

static int link_probe_server_run(const pq_cmd *cmd, void *optsp, pq_cli_args *a)
{
	(void)cmd;
	(void)a;
	struct link_opts *o = optsp;
	pq_diag d;
	if (pq_probe_serve((unsigned)o->port, (uint64_t)o->bytes, &d))
		return pq_cli_fail("pqtls link probe-server", "%s", pq_diag_msg(&d));
	return PQ_EXIT_OK;
}

static const pq_opt probe_server_opts[] = {
	{"port", 0, PQ_OPT_INT, O(port), "PORT", "5201", "TCP port to listen on", NULL, 1, 65535},
	{"bytes", 0, PQ_OPT_INT, O(bytes), "N", "0", "bytes to write on each accepted connection (0: read the "
	 "count as 8 ASCII digits from the client first)", NULL, 0, 1e12},
	END_OPTS,
};

static const pq_cmd link_probe_server_cmd = {
	.name = "probe-server",
	.summary = "(testing) plain TCP sender: writes N bytes to each connection, TCP_NODELAY",
	.usage = "[--port PORT] [--bytes N]",
	.opts = probe_server_opts,
	.opts_size = sizeof(struct link_opts),
	.run = link_probe_server_run,
	.max_args = 0,
};

static int link_probe_client_run(const pq_cmd *cmd, void *optsp, pq_cli_args *a)
{
	(void)cmd;
	struct link_opts *o = optsp;
	pq_diag d;
	if (pq_probe_fetch_report(a->argv[0], (unsigned)o->port, (uint64_t)o->bytes, (int)o->samples, stdout, &d))
		return pq_cli_fail("pqtls link probe-client", "%s", pq_diag_msg(&d));
	return PQ_EXIT_OK;
}

static const pq_opt probe_client_opts[] = {
	{"port", 0, PQ_OPT_INT, O(port), "PORT", "5201", "server TCP port", NULL, 1, 65535},
	{"bytes", 0, PQ_OPT_INT, O(bytes), "N", "14480", "bytes to fetch per connection", NULL, 1, 1e12},
	{"samples", 'n', PQ_OPT_INT, O(samples), "N", "1", "connections, one after another", NULL, 1, 100000},
	END_OPTS,
};

static const pq_cmd link_probe_client_cmd = {
	.name = "probe-client",
	.summary = "(testing) plain TCP receiver: connect, ask for N bytes, print ms from connect to last byte",
	.usage = "[--port PORT] [--bytes N] [-n N] ADDRESS",
	.opts = probe_client_opts,
	.opts_size = sizeof(struct link_opts),
	.run = link_probe_client_run,
	.min_args = 1,
	.max_args = 1,
};

static const pq_cmd *const link_subs[] = {
	&link_run_cmd,	    &link_up_cmd,	   &link_down_cmd,	   &link_exec_cmd, &link_check_cmd,
	&link_profiles_cmd, &link_probe_server_cmd, &link_probe_client_cmd, NULL,
};

const pq_cmd pq_cmd_link = {
	.name = "link",
	.summary = "emulated WAN links between two network namespaces (run, up, down, exec, check, profiles)",
	.usage = "SUBCOMMAND [options]",
	.subs = link_subs,
};
