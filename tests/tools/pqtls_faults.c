/* pqtls-faults sweep [SPEC] [options]: `pqtls sweep` with the faults the tests need to see a
 * link miss its budget (--fault-link-late DURATION: every link releases each packet that
 * much late). Built beside pqtls for the integration tests only (sweep_fidelity.sh reaches
 * it as $PQTLS_FAULTS); pqtls itself has no such option, so no user meets it by accident. */
#include <signal.h>

#include "cli/commands.h"

static const pq_cmd *const commands[] = {&pq_cmd_sweep_faults, NULL};

int main(int argc, char **argv)
{
	/* as pqtls: a peer that closes mid-write gives EPIPE, not a killed process */
	signal(SIGPIPE, SIG_IGN);
	return pq_cli_dispatch(commands, "pqtls-faults", argc - 1, argv + 1);
}
