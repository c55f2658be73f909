/* The userspace forwarder: one thread holding both TUN fds, moving each packet through
 * its direction's path and writing it into the other namespace when it is due.
 *
 * Timing: a packet's release time comes from the path (exact, in the schedule). To hit
 * it, the thread arms an absolute timerfd `early_ns` before it, then busy-waits the rest
 * (reading the TUNs meanwhile, so arrivals are stamped promptly). No real-time
 * scheduling: a spinning SCHED_FIFO thread is throttled by the kernel for tens of ms. */
#ifndef PQ_NET_FWD_H
#define PQ_NET_FWD_H

#include <pthread.h>
#include <stdint.h>

#include "core/err.h"
#include "core/stats.h"
#include "net/linkcfg.h"
#include "net/path.h"
#include "net/pcapw.h"

typedef struct pq_fwd_stats {
	pq_path_stats dir[2];
	pq_summary late;     /* release lateness in ns (actual write - due) */
} pq_fwd_stats;

/* How the forwarder thread runs. It wakes early_ns before a release and busy-waits to
 * the exact time (0..10 ms; outside that range, the default), at a nice value of its
 * own (a heavier CFS weight, never a real-time class). */
#define PQ_FWD_DEFAULT_EARLY_NS (150 * 1000)
#define PQ_FWD_DEFAULT_NICE (-19)
typedef struct pq_fwd_tune {
	int64_t early_ns;
	int nice;
} pq_fwd_tune;

typedef struct pq_fwd {
	int tun[2];          /* [PQ_DIR_C2S] = client TUN (read side), [PQ_DIR_S2C] = server TUN */
	pq_path path[2];
	pq_pkt_pool pool;
	int timer_fd, stop_fd, epoll_fd;
	int64_t early_ns;
	int nice;            /* the thread's nice value */
	pq_pcapw *pcap;
	pthread_t thread;
	int running;
	volatile int stop_req; /* set (atomically) by pq_fwd_stop: the spin loop may never reach epoll */
	pthread_mutex_t mu;  /* guards path stats and `late` against pq_fwd_stats_get */
	pq_stats late;
	uint64_t write_errors[2];
} pq_fwd;

/* Builds the paths from cfg (each direction's delay reduced by comp_ns[dir], the
 * measured fixed cost of the forwarder's own path, never below 0) and starts the thread.
 * Takes ownership of the TUN fds and of pcap (may be NULL). tune NULL: the defaults. */
int pq_fwd_start(pq_fwd *f, const pq_link_config *cfg, const int64_t comp_ns[2], int tun_c, int tun_s,
		 pq_pcapw *pcap, const pq_fwd_tune *tune, pq_diag *d) PQ_MUST_USE;
/* Stops and joins the thread, closes the TUNs (the devices vanish) and the pcap. */
int pq_fwd_stop(pq_fwd *f, pq_diag *d);
void pq_fwd_stats_get(pq_fwd *f, pq_fwd_stats *out);
/* Frees what pq_fwd_stop keeps for a last pq_fwd_stats_get. */
void pq_fwd_dispose(pq_fwd *f);

#endif
