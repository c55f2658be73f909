/* pqtls certs: placeholder until its issue lands; replaced by the real command. */
#include <stdio.h>

#include "cli/commands.h"

static int certs_run(const pq_cmd *cmd, void *opts, pq_cli_args *args)
{
	(void)opts;
	(void)args;
	fprintf(stderr, "pqtls %s: not built yet\n", cmd->name);
	return PQ_EXIT_FAIL;
}

const pq_cmd pq_cmd_certs = {.name = "certs", .summary = "(in progress)", .run = certs_run, .max_args = -1};
