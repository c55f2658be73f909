/* pqtls link run / up / down / exec: starting, watching and stopping the programs that
 * run across a link. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/link_cli.h"
#include "core/clock.h"
#include "net/check.h"
#include "net/link.h"
#include "net/listen.h"
#include "net/ns.h"

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
		if (pq_linkcli_signal && timeout_ns < 0)
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
	int rc = pq_linkcli_config(cmd, path, o, a, &cfg);
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
					  "(e.g. -- pqtls serve --certs DIR --listen {server}:4433 -- pqtls bench {server}:4433 --insecure)");
	if (o->wait_port < 0 || o->wait_port > 65535)
		return pq_cli_usage_error(path, "--wait-port: %lld is not a TCP port (accepted: 1 to 65535)", o->wait_port);
	char **srv = substitute(rest, split), **cli = substitute(rest + split + 1, nrest - split - 1);
	pq_link *l = NULL;
	pq_diag d;
	pq_diag_clear(&d);
	pid_t spid = 0, cpid = 0;
	int status = 0;
	pq_linkcli_catch_signals();
	pq_link_opts lo;
	pq_linkcli_opts(&lo, o->pcap);
	if (!srv || !cli) {
		rc = pq_cli_fail(path, "out of memory");
		goto out;
	}
	if (pq_link_up(&cfg, &lo, &l, &d)) {
		rc = pq_cli_fail(path, "%s", pq_diag_msg(&d));
		goto out;
	}
	pq_linkcli_announce(l);
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
		if (pq_linkcli_signal)
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
	fprintf(stderr, "pqtls link run: %s: stopping and removing the link\n", strsignal(pq_linkcli_signal));
	rc = 128 + pq_linkcli_signal;
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
		pq_linkcli_report_stats(l);
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

const pq_cmd pq_linkcli_run = {
	.name = "run",
	.summary = "run a server command and a client command across an emulated link, then remove it",
	.usage = "[link options] -- SERVER-CMD [ARGS] -- CLIENT-CMD [ARGS]",
	.description =
		"The server command runs in the server namespace (address " PQ_LINK_SERVER_ADDR "), the client\n"
		"command in the client namespace (" PQ_LINK_CLIENT_ADDR "). Both see PQTLS_SERVER_ADDR and\n"
		"PQTLS_CLIENT_ADDR; '{server}' and '{client}' in their arguments become the addresses.\n"
		"The exit status is the client's. A line of link statistics ends every run.\n\n"
		"Examples:\n"
		"  pqtls link run --rtt 70ms --wait-port 4433 -- pqtls serve --certs DIR --listen {server}:4433 -- \\\n"
		"      pqtls bench {server}:4433 --ca DIR/root.pem --servername localhost\n"
		"  pqtls link run --profile trans-pacific --loss 1% --wait-port 4433 -- \\\n"
		"      openssl s_server -accept 4433 -www ... -- curl -k https://{server}:4433/\n\n"
		LINK_ENV_HELP,
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
	int rc = pq_linkcli_config(cmd, path, o, a, &cfg);
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
		pq_link_opts lo;
		pq_linkcli_opts(&lo, o->pcap);
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

const pq_cmd pq_linkcli_up = {
	.name = "up",
	.summary = "create a link and keep it until 'pqtls link down NAME' (prints NAME)",
	.usage = "[link options]",
	.description = LINK_ENV_HELP,
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

const pq_cmd pq_linkcli_down = {
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

const pq_cmd pq_linkcli_exec = {
	.name = "exec",
	.summary = "run a command inside one side of a link made by 'link up'",
	.usage = "NAME client|server -- CMD [ARGS]",
	.run = link_exec_run,
	.min_args = 2,
	.max_args = 2,
};
