/* Supervising child processes: the programs a command runs (across a link, in a sweep)
 * are started with their arguments filled in, waited for with a deadline, and stopped
 * with SIGTERM, then SIGKILL after a grace period.
 *
 * Contract: pq_child_wait polls (every 2 ms) so a signal handler that sets *interrupt
 * ends a wait without deadline at once; it never blocks signals itself. Times are
 * CLOCK_MONOTONIC nanoseconds. */
#ifndef PQ_CORE_CHILD_H
#define PQ_CORE_CHILD_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/names.h"

/* A copy of argv[0..n-1] with every "{key}" of `vars` replaced by its value ("{server}"
 * -> "10.77.0.2"); other text, braces included, is kept. NULL-terminated; NULL when out
 * of memory. Free with pq_child_free_argv. */
char **pq_child_substitute(char *const argv[], int n, const pq_name *vars);
void pq_child_free_argv(char **argv);

/* A shell-style exit code for a wait status: the exit status, or 128 + the signal. */
int pq_child_exit_code(int status);
/* A wait status in words: "killed by signal 11 (Segmentation fault)", "exited with status 1". */
void pq_child_describe_status(int status, char *buf, size_t n);

/* Waits for pid for up to timeout_ns (< 0: no limit). Returns 1 when it ended (*status
 * set; also when pid is not a child any more), 0 when the time ran out or, for a wait
 * without limit, when *interrupt (may be NULL) became non-zero. */
int pq_child_wait(pid_t pid, int *status, int64_t timeout_ns,
		  const volatile sig_atomic_t *interrupt);

/* SIGTERM to pid, SIGKILL after grace_ns; waits for it (at most 5 s after the SIGKILL).
 * pid <= 0 is ignored. */
void pq_child_stop(pid_t pid, int64_t grace_ns);

/* The same for pid's process group (a server and whatever it started), and a last
 * SIGKILL to the group for what it left behind. */
void pq_child_stop_group(pid_t pid, int64_t grace_ns);

#endif
