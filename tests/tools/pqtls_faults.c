/* pqtls-faults sweep [SPEC] [options]: `pqtls sweep` with the faults the tests need to see a
 * link miss its budget (--fault-link-late DURATION: every link releases each packet that
 * much late). Built beside pqtls for the integration tests only (sweep_fidelity.sh reaches
 * it as $PQTLS_FAULTS); pqtls itself has no such option, so no user meets it by accident. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "exp/srvproc.h"

static const pq_cmd *const commands[] = {&pq_cmd_sweep_faults, NULL};

int main(int argc, char **argv)
{
	/* as pqtls: a peer that closes mid-write gives EPIPE, not a killed process */
	signal(SIGPIPE, SIG_IGN);
	/* a sweep's cell server, exec'd from this binary as from pqtls (exp/srvproc.h) */
	if (argc == 4 && strcmp(argv[1], PQ_EXP_SRV_EXEC_ARG) == 0)
		pq_exp_srv_exec_main(atoi(argv[2]), atoi(argv[3]));
	return pq_cli_dispatch(commands, "pqtls-faults", argc - 1, argv + 1);
}
