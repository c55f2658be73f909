/* Commands that are part of pqtls's design but not built yet. They are listed so that
 * `pqtls --help` shows the whole tool; running one says plainly that it does not exist
 * yet and exits 1. Each moves to its own file when it is built. */
#include <stdio.h>

#include "cli/commands.h"

static int planned_run(const pq_cmd *cmd, void *opts, pq_cli_args *args)
{
	(void)opts;
	(void)args;
	fprintf(stderr, "pqtls %s: not built yet: %s. Today: pqtls certs, serve, bench, link.\n",
		cmd->name, cmd->summary);
	return PQ_EXIT_FAIL;
}

#define PLANNED(var, nm, sum)                                                        \
	const pq_cmd var = {.name = nm, .summary = sum, .usage = "[options]",        \
			    .run = planned_run, .max_args = -1}

PLANNED(pq_cmd_model, "model", "(planned) predict round trips and cliffs from flight sizes");
PLANNED(pq_cmd_report, "report", "(planned) write the HTML report with plots from stored results");
