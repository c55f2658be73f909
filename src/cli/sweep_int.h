/* Inside pqtls sweep (cli/sweep.c): what it shows (sweep_show.c) and its measurement in a
 * session of its own (sweep_session.c). Not for other commands.
 *
 * Contract: pq_sweep_fmt_eta writes s seconds as "1h02m" or "3m04s" into buf.
 * pq_sweep_progress is the runner's progress callback; arg is a pq_sweep_bar (the
 * estimate and the start), and it rewrites one line on stderr. pq_sweep_list_presets
 * prints the presets with their cells and estimated times (serial and at `jobs`) and
 * returns an exit code. pq_sweep_print_grid prints shard si/sn of grid g, one cell a line:
 * its index, key, estimated time alone ("12.3s") and point.
 * pq_sweep_own_session returns -1 when the sweep runs here (no session is wanted, or
 * fork failed), 0 in the child, which measures in a session of its own raised to `nice`,
 * and 1 in the parent once the child ended, with *code its exit code (a child killed by
 * a signal: the parent dies of the same; `out` names the results file in the message). */
#ifndef PQ_CLI_SWEEP_INT_H
#define PQ_CLI_SWEEP_INT_H

#include <stddef.h>
#include <stdint.h>

#include "cli/cli.h"
#include "exp/grid.h"
#include "exp/runner.h"

typedef struct pq_sweep_bar {
	double est_s;
	int64_t t0;
} pq_sweep_bar;

void pq_sweep_fmt_eta(char *buf, size_t n, double s);
void pq_sweep_progress(void *arg, const pq_exp_progress *p);
int pq_sweep_list_presets(unsigned jobs);
void pq_sweep_print_grid(const pq_exp_grid *g, unsigned si, unsigned sn, unsigned jobs, unsigned base, const char *why);
int pq_sweep_own_session(int nice, const char *out, int *code);

#endif
