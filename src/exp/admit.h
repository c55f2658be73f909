/* The machine's cells in flight across sweeps: every `pqtls sweep` on this machine, at
 * --jobs N (exp/jobs.h) or one cell at a time (exp/runner.h pq_exp_run), records each cell
 * it starts in one small shared table, and
 * starts a cell only when the cells of every sweep in flight let it, as they would if one
 * sweep measured them all: each in-flight cell's class limit holds for the others, and the
 * CPU shares add up within the budget. Two sweeps on one machine (two presets, two shards of
 * one grid, a sweep beside a test) then neither overload it nor mark each other's cells
 * for waits one of them caused.
 *
 * A sweep whose next cell has been kept out by other sweeps' cells (not by its own) for
 * PQ_EXP_ADMIT_PATIENCE_NS, and whose way the cells in flight are expected to clear within
 * that time too (their start plus their estimated time alone), claims room for it: the
 * other sweeps start no cell that would keep it out, so the machine makes room for the
 * earliest claim as one sweep drains for its own cell that runs alone. Claims go in the
 * order the waits began. Claimed at once, two sweeps of mixed classes drained the machine
 * for each other cell after cell: `quick` beside `cliff-move` took 47 s where one after
 * the other took 24 s (2026-12-07); claimed while long cells were in the way, `ttfb-size`'s
 * first cell, which runs alone, held `loss` to the 42 cells it had in flight for their
 * minutes. A sweep kept out otherwise waits until the other sweeps' cells let it in (their
 * own phase that runs alone, their end): two sweeps take about as long together as one
 * after the other when their classes do not fit beside each other, less when they do.
 *
 * A quiet cell, one whose CPU share is PQ_EXP_ADMIT_QUIET_SHARE or less (a connection
 * waiting out lost packets at 195.6 ms, a few KiB a second), neither needs nor takes room
 * in other sweeps' class limits while the quiet cells of other sweeps add up to
 * PQ_EXP_ADMIT_QUIET_TOTAL or less; it counts in the CPU budget as any. Without that, a
 * sweep's cell that runs alone waited for another sweep's loss cells, minutes each, while
 * the machine idled: `ttfb-size` beside `loss` measured nothing for 4 minutes
 * (2026-12-07). Within one sweep its own order keeps such cells apart (exp/jobs.h), and
 * the rule does not apply.
 *
 * One table per set of CPUs: sweeps that may run on the same CPUs (their affinity mask,
 * core/cpus.h) share one; sweeps bound to CPUs of their own (shards under taskset, a Slurm
 * task each) do not hold each other back. The table is a file (PQ_EXP_ADMIT_FILE, a dash
 * and the CPUs' list, "cells-0-1", under $PQTLS_RUN_DIR, else PQ_EXP_ADMIT_DIR: a tmpfs,
 * gone at a reboot) of fixed-size slots, each written alone under an flock. A slot of
 * a process that is gone (killed) is dropped by whoever reads it next: nothing needs
 * cleaning after a kill. */
#ifndef PQ_EXP_ADMIT_H
#define PQ_EXP_ADMIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/err.h"

#define PQ_EXP_ADMIT_DIR "/run/pqtls"
#define PQ_EXP_ADMIT_FILE "cells"
#define PQ_EXP_ADMIT_SLOTS 512 /* cells in flight and claims on one machine, every sweep's */
#define PQ_EXP_ADMIT_PATIENCE_NS (30 * 1000000000LL)
#define PQ_EXP_ADMIT_QUIET_SHARE 0.01 /* CPUs: a cell this quiet ... */
#define PQ_EXP_ADMIT_QUIET_TOTAL 0.1  /* ... while other sweeps' quiet ones add up to this */

typedef struct pq_exp_admit pq_exp_admit;

/* The others' cells, as a decision needs them (exp/jobs.h pq_exp_jobs_may_start and
 * pq_exp_jobs_cpu_fits): how many are in flight (a claim counted as one; quiet cells not,
 * while few), the smallest class limit among those (SIZE_MAX: none), every one's CPU
 * share added up, and the quiet ones' alone. This sweep's own: quiet 0, every cell. */
typedef struct pq_exp_admit_load {
	size_t n, min_limit;
	double used, quiet;
	int64_t ends_ns; /* the latest expected end of the cells counted in n (0: none) */
} pq_exp_admit_load;

/* A cell to start: its class limit in force (its class's cap applied), CPU share, time
 * alone (ns, exp/runner.h pq_exp_cell_estimate_s), and the worker that measures it (a tag
 * unique within the sweep, >= 0). */
typedef struct pq_exp_admit_cell {
	size_t limit;
	double share;
	int tag;
	int64_t est_ns;
} pq_exp_admit_cell;

/* Opens (creating) the table of this process's CPUs in dir (NULL: $PQTLS_RUN_DIR, else
 * PQ_EXP_ADMIT_DIR); *path (n bytes) names the file, for messages. Fails with a message naming the
 * file when it cannot be created or read. */
int pq_exp_admit_open(pq_exp_admit **out, const char *dir, char *path, size_t n, pq_diag *d) PQ_MUST_USE;
/* The table of this process's CPUs in the default directory, for a sweep: NULL when it
 * cannot be opened, having said why on log (unless NULL); the sweep then decides alone. */
pq_exp_admit *pq_exp_admit_join(FILE *log);
/* The table's file, for messages. */
const char *pq_exp_admit_path(const pq_exp_admit *a);
/* Drops this process's cells and claim; NULL is fine. */
void pq_exp_admit_close(pq_exp_admit *a);

/* May cell c start beside `mine` (this sweep's cells in flight, as a load) and every
 * other sweep's cells and earlier claims, within `budget` CPUs? Yes: c is recorded in
 * flight (this process's claim dropped), 1. No because of the other sweeps: 0, and
 * once the cell has waited PQ_EXP_ADMIT_PATIENCE_NS for them (from the first such call),
 * this process's claim is made (or kept, with that first time). No because of its own cells:
 * 0, no claim. now_ns: CLOCK_MONOTONIC, shared by every process on the machine. A failure
 * to read or write the table is returned (the caller decides alone from then on). */
int pq_exp_admit_take(pq_exp_admit *a, const pq_exp_admit_load *mine, const pq_exp_admit_cell *c, double budget,
		      int64_t now_ns) PQ_MUST_USE;
/* Cell `tag` of this process ended: its slot is dropped. */
int pq_exp_admit_done(pq_exp_admit *a, int tag) PQ_MUST_USE;
/* Cell `tag` of this process is now expected to use `share` CPUs (learnt from its kind's
 * cells that ended since it started). */
int pq_exp_admit_share(pq_exp_admit *a, int tag, double share) PQ_MUST_USE;
/* The others' load as pq_exp_admit_take sees it (the claims earlier than this process's
 * counted as one cell each); for progress lines and tests. */
int pq_exp_admit_others(pq_exp_admit *a, pq_exp_admit_load *out) PQ_MUST_USE;

/* The decision itself, without a table: may a cell start beside these loads? */
int pq_exp_admit_fits(const pq_exp_admit_load *mine, const pq_exp_admit_load *others, const pq_exp_admit_cell *c,
		      double budget);

#endif
