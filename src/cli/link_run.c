/* pqtls link run / up / down / exec: parsing and printing around the link's life
 * (net/life.h) and the supervision of the programs run across it (core/child.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "cli/link_cli.h"
#include "core/child.h"
#include "net/life.h"
#include "net/link.h"

/* "{server}" and "{client}" in a command's arguments become the link's addresses. */
static const pq_name addr_vars[] = {
	{"server", PQ_LINK_SERVER_ADDR}, {"client", PQ_LINK_CLIENT_ADDR}, {NULL, NULL}};

/* -------- run -------- */

static int link_run_run(const pq_cmd *cmd, void *optsp, pq_cli_args *a)
{
	const char *path = "pqtls link run";
	struct link_opts *o = optsp;
	pq_link_config cfg;
	/* Not pq_linkcli_setup: the commands are checked between the configuration and the
	 * environment, so a missing command is named before a variable out of range. */
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
	pq_link_opts lo;
	if ((rc = pq_linkcli_opts(&lo, path, o->pcap)))
		return rc;
	char **srv = pq_child_substitute(rest, split, addr_vars),
	     **cli = pq_child_substitute(rest + split + 1, nrest - split - 1, addr_vars);
	pq_link *l = NULL;
	pq_diag d;
	pq_cli_catch_signals();
	if (!srv || !cli) {
		rc = pq_cli_fail(path, "out of memory");
		goto out;
	}
	if (pq_link_up(&cfg, &lo, &l, &d)) {
		rc = pq_cli_fail(path, "%s", pq_diag_msg(&d));
		goto out;
	}
	pq_linkcli_announce(l);
	if (o->check)
		pq_linkcli_check_line(l);
	if (o->wait_udp && !o->wait_port)
		return pq_cli_usage_error(path, "--wait-udp says --wait-port is a UDP port; give --wait-port PORT too");
	pq_life_run_opts ro = {.wait_port = (unsigned)o->wait_port, .wait_udp = o->wait_udp,
			       .wait_timeout_ns = o->wait_timeout,
			       .grace_ns = o->grace, .interrupt = &pq_cli_signal};
	int code;
	int lrc = pq_life_run(l, srv, cli, &ro, &code, &d);
	if (lrc == PQ_EINTERRUPTED) {
		fprintf(stderr, "pqtls link run: %s: stopping and removing the link\n",
			strsignal(pq_cli_signal));
		rc = 128 + pq_cli_signal;
	} else if (lrc == PQ_ECHILD) {
		rc = pq_cli_fail(path, "%s (exit status %d)", pq_diag_msg(&d), code);
	} else {
		rc = lrc ? pq_cli_fail(path, "%s", pq_diag_msg(&d)) : code;
	}
	rc = pq_linkcli_finish(l, path, rc);
out:
	pq_child_free_argv(srv);
	pq_child_free_argv(cli);
	return rc;
}

static const pq_opt run_opts[] = {
	LINK_OPTS,
	{"pcap", 'w', PQ_OPT_STR, O(pcap), "FILE", NULL, "write the packets that crossed the link to FILE (pcap; "
	 "on a write error, e.g. a full disk, no FILE is kept and the run fails)",
	 NULL, 0, 0},
	{"wait-port", 0, PQ_OPT_INT, O(wait_port), "PORT", "0",
	 "start the client only once the server listens on this TCP port", NULL, 0, 0},
	{"wait-udp", 0, PQ_OPT_FLAG, O(wait_udp), NULL, NULL,
	 "--wait-port is a UDP port: wait until a socket is bound to it (a QUIC server, pqtls serve --quic)",
	 NULL, 0, 0},
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
		"  pqtls link run --rtt 50ms --wait-port 4433 --wait-udp -- pqtls serve --quic --certs DIR \\\n"
		"      --listen {server}:4433 -- pqtls bench {server}:4433 --quic --ca DIR/root.pem --servername localhost\n"
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
	pq_link_opts lo;
	int rc = pq_linkcli_setup(cmd, path, o, a, o->pcap, &cfg, &lo);
	if (rc)
		return rc;
	pq_diag d;
	pq_life_link h;
	if (pq_link_check_privileges(cfg.backend, &d) || pq_life_up(&cfg, &lo, &h, &d))
		return pq_cli_fail(path, "%s", pq_diag_msg(&d));
	printf("%s\n", h.name);
	fprintf(stderr, "pqtls link up: %s (pid %d), backend %s: %s\n"
		"  client %s in %s-c, server %s in %s-s\n"
		"  pqtls link exec %s server -- CMD   /   pqtls link down %s\n",
		h.name, (int)h.holder, pq_backend_name(h.backend), h.desc, PQ_LINK_CLIENT_ADDR, h.name,
		PQ_LINK_SERVER_ADDR, h.name, h.name, h.name);
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

/* Each link taken down; arg (may be NULL) counts those whose holder failed (its capture). */
static void print_down(void *arg, const char *name, int killed, const char *failure)
{
	fprintf(stderr, "pqtls link down: removed %s", name);
	if (killed)
		fprintf(stderr, " (%d process%s inside killed)", killed, killed == 1 ? "" : "es");
	fputc('\n', stderr);
	if (failure) {
		fprintf(stderr, "pqtls link down: %s\n", failure);
		if (arg)
			++*(int *)arg;
	}
}

static int link_down_run(const pq_cmd *cmd, void *optsp, pq_cli_args *a)
{
	(void)cmd;
	const char *path = "pqtls link down";
	struct link_opts *o = optsp;
	pq_diag d;
	int killed = 0, rc;
	if (pq_link_check_privileges(PQ_BACKEND_NETEM, &d))
		return pq_cli_fail(path, "%s", pq_diag_msg(&d));
	if (o->all) {
		int failed = 0;
		int n = pq_life_down_all(0, stderr, print_down, &failed);
		if (n < 0)
			return pq_cli_fail(path, "cannot list the namespaces: %s", strerror(-n));
		if (!n)
			fprintf(stderr, "pqtls link down: no pqtls links\n");
		return failed ? PQ_EXIT_FAIL : PQ_EXIT_OK;
	}
	if (a->argc != 1)
		return pq_cli_usage_error(path, "missing link name (or --all)");
	pid_t holder;
	if (pq_life_parse_name(a->argv[0], "NAME", &holder, &d))
		return pq_cli_usage_error(path, "%s", pq_diag_msg(&d));
	rc = pq_life_down(a->argv[0], &killed, &d);
	if (rc && rc != PQ_EIO)
		return pq_cli_fail(path, "%s", pq_diag_msg(&d));
	print_down(NULL, a->argv[0], killed, rc ? pq_diag_msg(&d) : NULL);
	return rc ? PQ_EXIT_FAIL : PQ_EXIT_OK;
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
	pq_diag d;
	if (pq_life_parse_name(a->argv[0], "NAME", &owner, &d))
		return pq_cli_usage_error(path, "%s", pq_diag_msg(&d));
	const char *side = a->argv[1];
	if (strcmp(side, "client") && strcmp(side, "server"))
		return pq_cli_usage_error(path, "side '%s': expected client or server", side);
	pq_link *l = NULL;
	if (pq_link_attach(a->argv[0], &l, &d))
		return pq_cli_fail(path, "%s", pq_diag_msg(&d));
	char **argv = pq_child_substitute(a->argv + 2, a->argc - 2, addr_vars);
	pid_t pid;
	int status = 0, rc = PQ_EXIT_FAIL;
	if (argv && !pq_link_exec_in(l, side[0] == 'c' ? PQ_SIDE_CLIENT : PQ_SIDE_SERVER, argv, NULL, &pid, &d)) {
		signal(SIGINT, SIG_IGN); /* the child gets it from the terminal */
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		rc = pq_child_exit_code(status);
	} else {
		pq_cli_fail(path, "%s", argv ? pq_diag_msg(&d) : "out of memory");
	}
	pq_child_free_argv(argv);
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
