/* A cell's server in a child process of its own, so that a crash of the server (a real
 * SIGSEGV or abort in OpenSSL or our code) ends that process only: the sweep records a
 * failed cell with the reason and goes on. pq_exp_srv_start starts it in the calling
 * thread's network namespace and on its CPUs (call it inside the link's server side):
 * given the pqtls binary, spawned from it (posix_spawn: nothing of this process copied),
 * else forked (the unit tests); the child makes and starts a pq_server (as `pqtls
 * serve` would) and reports its port or why it could not start; pq_exp_srv_finish asks
 * it to stop, reads its statistics and reaps it.
 *
 * The child only serves: it closes every descriptor it inherited (the database and its
 * lock, the link's devices) but stdio and its pipes, and ends with _exit, so no handler
 * of the parent runs in it. When the parent dies, the child's control pipe
 * reads end-of-file and it stops too. Supervised with core/child.c: a child that does
 * not end within its grace is killed. */
#ifndef PQ_EXP_SRVPROC_H
#define PQ_EXP_SRVPROC_H

#include <stdint.h>
#include <sys/types.h>

#include "core/err.h"
#include "server/server.h"

typedef struct pq_exp_srv {
	pid_t pid;     /* 0: none */
	int ctl, res;  /* to the child (commands), from it (start message, statistics) */
	uint16_t port;
} pq_exp_srv;

/* Faults a test can make the server suffer, for real, in its own process. */
enum pq_exp_srv_fault { PQ_EXP_SRV_FAULT_NONE, PQ_EXP_SRV_FAULT_ABORT, PQ_EXP_SRV_FAULT_SEGV };

/* 0 with s->port set once the server listens; else its own reason in *d. With `exe` (the
 * pqtls binary; NULL: fork only, as the unit tests do) the child is that binary, run with
 * PQ_EXP_SRV_EXEC_ARG and the pipes' numbers, and reads its configuration from the control
 * pipe: nothing of the starting process (its threads' locks, its allocator) lives on in the
 * server. A binary that cannot be started: -errno, "server process: cannot start EXE: why". */
int pq_exp_srv_start(pq_exp_srv *s, const pq_server_config *cfg, const char *exe, pq_diag *d) PQ_MUST_USE;
/* The first argument that makes the pqtls binary a cell's server (main.c); not a command. */
#define PQ_EXP_SRV_EXEC_ARG "__cell-server"
/* The spawned server: reads its configuration from ctl, then serves as the forked child
 * does. Never returns. */
void pq_exp_srv_exec_main(int ctl, int res) __attribute__((noreturn));
/* Tests: the server process aborts or dereferences NULL now (async: it dies soon). */
void pq_exp_srv_fault(pq_exp_srv *s, enum pq_exp_srv_fault f);
/* Stops the server and reaps it: 0 with *st its statistics and *cpu_ns its process's
 * CPU time; PQ_EIO when it died (d: "the server died: killed by signal 11 (Segmentation
 * fault)"), both zero. */
int pq_exp_srv_finish(pq_exp_srv *s, pq_server_stats *st, int64_t *cpu_ns, pq_diag *d) PQ_MUST_USE;

#endif
