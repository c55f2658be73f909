/* A thread's scheduling as the kernel accounts it: how long it has waited, runnable, for a
 * CPU inside this machine (the run_delay of its schedstat, ns), and its nice value.
 *
 * The wait is what makes a connection late on a busy VM without TCP, the link or the
 * protocol having anything to do with it: a woken client or server that waits for a CPU
 * (docs/model.md). Time the hypervisor takes the whole vCPU away (steal) is not in it.
 *
 * A meter keeps /proc/thread-self/schedstat open for the thread that opened it, so a
 * reading is one pread(2) (a few microseconds): cheap enough to take at each connection's
 * start and end. A meter that could not open reads -1 (unknown), never 0. */
#ifndef PQ_CORE_SCHED_H
#define PQ_CORE_SCHED_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

/* The wait (second field) of a schedstat text "RUN WAIT SLICES"; PQ_EPARSE otherwise. */
int pq_sched_parse(const char *text, int64_t *wait_ns) PQ_MUST_USE;

typedef struct pq_sched_meter {
	int fd; /* -1: none */
} pq_sched_meter;

/* For the calling thread (read it from that thread only). Never fails: without the file
 * the meter reads -1. */
void pq_sched_meter_open(pq_sched_meter *m);
/* The thread's wait for a CPU since it started, ns; -1 unknown. */
int64_t pq_sched_meter_read(const pq_sched_meter *m);
void pq_sched_meter_close(pq_sched_meter *m);
/* Between two readings: b - a, or -1 when either is unknown (or b < a). */
int64_t pq_sched_delta(int64_t a, int64_t b);

/* The wait of thread `tid` of this process, ns; -1 unknown (tid 0 included). */
int64_t pq_sched_tid_wait_ns(int tid);

/* The names of the threads a measurement runs, as the kernel shows them
 * (/proc/PID/task/TID/comm, `top -H`, `perf sched timehist`), so that a trace of the
 * machine tells a link's forwarder from a cell's server and from the keep-awake spinners
 * (bench/waits.sh lays the endpoints' waits for a CPU over them). A process's first
 * thread keeps its `pqtls` (a worker's is the cell's client), so `pgrep -x pqtls` still
 * finds every process of a sweep and nothing else. */
#define PQ_SCHED_NAME_FWD "pqtls-fwd"
#define PQ_SCHED_NAME_SERVER "pqtls-srv"
#define PQ_SCHED_NAME_AWAKE "pqtls-awake"
/* Names the calling thread: 0, PQ_EINVAL for a name the kernel would cut (over 15 bytes)
 * or an empty one, -errno when it refuses. */
int pq_sched_name_thread(const char *name);

/* Endpoints' nice values: PQ_SCHED_NICE_KEEP leaves the thread's as it is. */
#define PQ_SCHED_NICE_KEEP 100
#define PQ_SCHED_NICE_MIN (-20)
#define PQ_SCHED_NICE_MAX 19
/* Sets the calling thread's nice to `want` (PQ_SCHED_NICE_KEEP: no change; threads it
 * creates afterwards inherit it) and returns the value in force, read back: `want`, or
 * what it was when the kernel refused (a raise needs CAP_SYS_NICE). */
int pq_sched_set_nice(int want);

/* The calling process's scheduling group: with the kernel's autogroups (one per session,
 * sched_autogroup_enabled), a session's threads share one weight against other sessions,
 * whatever their own nice, so a build in another terminal can hold the endpoints back
 * however they are niced; the group's nice sets that weight. "/autogroup-1008 nice 0"
 * into *nice; PQ_EPARSE otherwise. */
int pq_sched_group_parse(const char *text, int *nice) PQ_MUST_USE;
/* The group's nice in force, or PQ_SCHED_NICE_KEEP when the kernel does not group by
 * session (no file, or sched_autogroup_enabled 0). */
int pq_sched_group_nice(void);
/* Sets it (a raise needs root) and returns it as read back (PQ_SCHED_NICE_KEEP: no
 * grouping). Every process of the session shares it while the session lasts. */
int pq_sched_set_group_nice(int want);

/* Two machines on one, for a cell whose client is heavy. A cold Chromium spends tens of
 * ms of CPU on a navigation, in several processes that wake one another; sharing every
 * CPU with it, the cell's server waited 6-12 ms for a CPU in a median connection (its
 * budget at 1-148 ms RTT: 1-15 ms), and the browser's own certificate verification took
 * 88-99 ms. With the server and the link's forwarder on one CPU and the browser on the
 * others, as on two machines, the server waited under 1 ms and the verification took
 * 53-70 ms (docs/tls.md, "A browser's cell on two machines"; under 10 ms RTT the
 * forwarder goes beside the browser instead, src/exp/runner_int.h). `all` is the set the
 * calling thread may use, `server` its first CPU, `client` the rest. */
typedef struct pq_sched_split {
	cpu_set_t all, server, client;
} pq_sched_split;
/* 0 and the split; PQ_EUNSUPPORTED when the thread may use fewer than two CPUs (nothing
 * to split), -errno when the kernel does not say. */
int pq_sched_split_get(pq_sched_split *s) PQ_MUST_USE;
/* Runs thread `tid` (0: the calling one; threads and processes it starts afterwards
 * inherit it) on `cpus`; 0 or -errno. With `list`, the set in force, read back, as a
 * CPU list ("0", "1-3"; "" when it cannot be read). */
int pq_sched_pin(int tid, const cpu_set_t *cpus, char *list, size_t n);
/* The CPUs thread or process `tid` (0: the calling thread) may run on, read back as a CPU
 * list into `list` ("" when it cannot be read); 0 or -errno. */
int pq_sched_cpus_of(int tid, char *list, size_t n);
/* A set as the kernel writes CPU lists: "0", "1-3", "0,2-3" ("" for none; cut to fit n). */
void pq_sched_cpulist(const cpu_set_t *set, char *buf, size_t n);

#endif
