/* Running helper programs (ip, tc) with an argument vector, never through a shell, and
 * collecting what they print so a failure can be reported with the tool's own words. */
#ifndef PQ_NET_SH_H
#define PQ_NET_SH_H

#include "core/buf.h"
#include "core/err.h"

/* Runs argv (argv[0] looked up in PATH) with `input` (may be NULL) on its stdin and
 * stdout+stderr captured into `out` (may be NULL), spawned (posix_spawn: nothing of the
 * calling process copied) with SIGPIPE at its default. Returns 0 when it exited 0;
 * otherwise PQ_ECHILD with a message quoting the command line and its output, or, when it
 * could not be started, "cannot run TOOL: why". */
int pq_sh_run(char *const argv[], const char *input, pq_buf *out, pq_diag *d) PQ_MUST_USE;

/* The command line as one string, for messages and tests ("ip -n x link set ..."). */
void pq_sh_join(char *const argv[], char *buf, size_t n);

#endif
