/* pqtls: a post-quantum TLS latency lab. The command table; each command lives in
 * src/cli/NAME.c. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "core/wfile.h"
#include "exp/srvproc.h"

static const pq_cmd *const commands[] = {
	&pq_cmd_certs, &pq_cmd_serve, &pq_cmd_bench,   &pq_cmd_check, &pq_cmd_link, &pq_cmd_sweep, &pq_cmd_merge,
	&pq_cmd_model, &pq_cmd_report, &pq_cmd_zeek, &pq_cmd_version, NULL,
};

int main(int argc, char **argv)
{
	/* A peer that closes mid-write must give EPIPE, not kill the process. */
	signal(SIGPIPE, SIG_IGN);
	if (argc >= 2 && strcmp(argv[1], "--version") == 0)
		argv[1] = "version";
	/* A sweep's cell server, exec'd by exp/srvproc.c with its pipes: not a command. */
	if (argc == 4 && strcmp(argv[1], PQ_EXP_SRV_EXEC_ARG) == 0)
		pq_exp_srv_exec_main(atoi(argv[2]), atoi(argv[3]));
	int rc;
	if (argc < 2) {
		fprintf(stderr, "pqtls: a post-quantum TLS latency lab\n\nUsage: pqtls COMMAND [options]\n\n");
		rc = pq_cli_dispatch(commands, "pqtls", 0, argv + 1);
	} else {
		rc = pq_cli_dispatch(commands, "pqtls", argc - 1, argv + 1);
	}
	/* Whatever a command printed (tables, --json to stdout) reached its destination: a full
	 * disk under `> file` is a failure, not a truncated file and exit 0 (a command that
	 * failed has said why already). A reader that stopped reading (EPIPE: `| head`)
	 * chose to. */
	pq_diag d;
	int out = rc == 0 ? pq_wfile_stdout_check(NULL, &d) : 0;
	if (out < 0 && out != -EPIPE) {
		fprintf(stderr, "pqtls: %s\n", pq_diag_msg(&d));
		rc = 1;
	}
	return rc;
}
