/* CPUs kept from halting while a sweep measures, one of two ways.
 *
 * Why: an idle vCPU of a VM halts, and a halted vCPU wakes late (the hypervisor schedules
 * it again); a link's forwarder sleeping to its next release then releases late, although
 * it waited for no CPU inside the machine (issue "a link that does not wake late";
 * bench/awake.sh measures it).
 *
 * Polling (pq_awake_poll_start): a CPU latency request of 0 us held open on
 * /dev/cpu_dma_latency (the kernel's PM QoS). The cpuidle governor then picks only the
 * polling idle state: an idle CPU runs the kernel's idle loop, checking for work, instead
 * of halting, and a thread woken onto it needs no interrupt between CPUs (the idle loop
 * sees the flag). Its time is idle time in /proc/stat and is charged to no cgroup. Only
 * where the active cpuidle driver's first state is that loop ("POLL": x86's drivers,
 * haltpoll in a KVM guest); elsewhere state 0 is a halt of its own (ARM's WFI). The
 * request ends when its file is closed, by pq_awake_stop or the process's death.
 * Measured here against the spinners (docs/sweep.md, "Measured here"): the same release
 * lateness, half the endpoints' waits for a CPU, and a wait of about 100 ms in 1 of 5 runs
 * against 5 of 5.
 *
 * Spinners (pq_awake_start): one busy thread per CPU at SCHED_IDLE, in a process of its
 * own that leads a session of its own (so its own scheduling group under autogroups, set
 * to the lowest weight, nice 19). A busy thread that only takes cycles nobody else wants
 * keeps every vCPU running: SCHED_IDLE yields to any normal thread at once within its
 * group, and its group, at nice 19, weighs 15 against 1024 for a default session, so
 * other work on the machine loses about 1.5 % of a CPU to it. Each thread is at nice 19 as
 * well, so that /proc/stat counts the spinners' time as "nice", not as the busy time a
 * sweep weighs its own share against (exp/jobs).
 *
 * The process dies with its parent (PR_SET_PDEATHSIG) however the parent ends. */
#ifndef PQ_CORE_AWAKE_H
#define PQ_CORE_AWAKE_H

#include <sys/types.h>

#include "core/err.h"

typedef struct pq_awake {
	pid_t pid;  /* the spinners' process; 0: not running */
	int qos_fd; /* the CPU latency request held; -1: none (pq_awake_init) */
} pq_awake;

/* Where the polling way looks; NULL members are the kernel's paths. */
typedef struct pq_awake_paths {
	const char *cpu_dir; /* /sys/devices/system/cpu */
	const char *qos;     /* /dev/cpu_dma_latency */
} pq_awake_paths;

/* Nothing running, nothing held. */
void pq_awake_init(pq_awake *a);
/* Holds a CPU latency request of 0 us and reads the machine's back (0, or the request did
 * not take). p: NULL for the kernel's paths. On failure nothing is held and the error says
 * why: no cpuidle driver, a first idle state that does not poll (named), the request's
 * file not writable (not root) or read back other than 0. */
int pq_awake_poll_start(pq_awake *a, const pq_awake_paths *p, pq_diag *d) PQ_MUST_USE;

/* Starts `threads` spinners (0: one per online CPU). On failure nothing runs and the
 * error says why (fork refused). */
int pq_awake_start(pq_awake *a, unsigned threads, pq_diag *d) PQ_MUST_USE;
/* Stops and reaps the spinners and drops the request (nothing when neither is held). */
void pq_awake_stop(pq_awake *a);

#endif
