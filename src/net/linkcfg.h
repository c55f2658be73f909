/* What an emulated link is: per-direction delay, jitter, loss, rate and queue, plus the
 * things that are the same both ways (MTU, the server route's TCP settings, backend).
 * Pure data and validation, no system calls, so the CLI, profiles and the experiment
 * runner all build and check configurations the same way. */
#ifndef PQ_NET_LINKCFG_H
#define PQ_NET_LINKCFG_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/names.h"
#include "net/ktcp.h"
#include "net/stage.h"

/* Directions: client to server (uplink) and server to client (downlink). */
enum pq_dir { PQ_DIR_C2S = 0, PQ_DIR_S2C = 1 };

typedef struct pq_dir_cfg {
	int64_t delay_ns;   /* one-way propagation delay */
	int64_t jitter_ns;  /* 0 = none; see pq_stage_jitter_new */
	enum pq_dist jitter_dist;
	int reorder;        /* jitter may reorder packets */
	pq_loss_cfg loss;
	uint64_t rate_bps;  /* 0 = unlimited */
	uint64_t queue_bytes; /* drop-tail limits, 0 = none of that kind */
	uint32_t queue_pkts;
} pq_dir_cfg;

enum pq_cc { PQ_CC_DEFAULT, PQ_CC_CUBIC, PQ_CC_BBR, PQ_CC_RENO };
#define PQ_CC_CHOICES "default|cubic|bbr|reno"
const char *pq_cc_name(enum pq_cc cc); /* NULL for default */

enum pq_backend { PQ_BACKEND_AUTO, PQ_BACKEND_USERSPACE, PQ_BACKEND_NETEM };
#define PQ_BACKEND_CHOICES "auto|userspace|netem"
const char *pq_backend_name(enum pq_backend b);
const char *pq_dist_name(enum pq_dist d);

typedef struct pq_link_config {
	pq_dir_cfg dir[2];
	uint32_t mtu;
	uint32_t initcwnd, initrwnd; /* server route; 0 = kernel default */
	enum pq_cc cc;
	pq_ktcp_cfg tcp;             /* qdisc, pacing ratios, quick-ACK, offloads (net/ktcp.h) */
	enum pq_backend backend;
	uint64_t seed;
	char profile[32];            /* name of the profile it came from, "" when none */
	/* What the caller calls the inputs in messages: "loss", "burst_loss", "queue", "rate",
	 * "mtu", "initcwnd", "initrwnd", "backend", "reorder", "pcap", "profile", "wait_port",
	 * "wait_timeout", and net/ktcp.h's "cc", "qdisc", "pacing_ss_ratio", "pacing_ca_ratio";
	 * NULL: those keys (core/names.h). */
	const pq_name *names;
} pq_link_config;

/* Limits the validator enforces (and messages quote). */
#define PQ_LINK_MAX_DELAY_NS (10LL * 1000000000LL) /* one-way, 10 s */
#define PQ_LINK_MIN_MTU 576u
#define PQ_LINK_MAX_MTU 9000u
#define PQ_LINK_MAX_RATE_BPS 100000000000ull       /* 100 Gbit/s */
/* Below this a 1500-byte packet takes over 1.5 s on the wire: no TLS handshake or
 * self-check finishes within any timeout, so a lower rate is a typo (1bit for 1Mbit). */
#define PQ_LINK_MIN_RATE_BPS 8000ull                /* 8 kbit/s */

/* Zero delay, no loss, unlimited rate, MTU 1500, auto backend, seed 1. */
void pq_link_config_init(pq_link_config *c);

/* A rate (bit/s; 0 = unlimited) within PQ_LINK_MIN_RATE_BPS..PQ_LINK_MAX_RATE_BPS, or
 * PQ_ERANGE naming `what` (the caller's name for it), the value and the accepted range. */
int pq_link_rate_check(uint64_t bps, const char *what, pq_diag *d) PQ_MUST_USE;

/* Checks every field; on error names the field, the value and the accepted range. */
int pq_link_config_validate(const pq_link_config *c, pq_diag *d) PQ_MUST_USE;

/* Both directions' delay summed: what a ping across the link should show. */
int64_t pq_link_config_rtt_ns(const pq_link_config *c);

/* A fast link: one whose rate (either direction, PQ_LINK_FAST_BPS or more) keeps the
 * userspace forwarder busy while it is used at that rate; on this 2-vCPU VM a forwarder
 * carries 1.5 Gbit/s with a CPU of its own and little to spare. A sweep of cells at once
 * checks such links once, with the machine to itself (exp/jobs.h), and the check pushes
 * them briefly (net/check.h). */
#define PQ_LINK_FAST_BPS 100000000ULL
int pq_link_config_fast(const pq_link_config *c);

/* Splits a round-trip time over the two directions: the server->client half rounded
 * down, client->server the rest, so the two always add up to rtt_ns. */
void pq_link_config_set_rtt(pq_link_config *c, int64_t rtt_ns);

/* A drop-tail queue limit as users write it: a size ("64KiB") or a packet count ("100p",
 * "100pkt", "100packets"; 1 to 1000000). Sets one of dc's two limits and clears the
 * other. `what` names the input in messages. */
int pq_linkcfg_parse_queue(const char *s, const char *what, pq_dir_cfg *dc, pq_diag *d) PQ_MUST_USE;

/* Gilbert-Elliott loss as "P,R[,BAD[,GOOD]]" (fractions: "1%,25%"): P good->bad,
 * R bad->good, the loss in the bad (default 100 %) and good (0 %) state. Replaces any
 * Bernoulli loss in *l. */
int pq_linkcfg_parse_burst(const char *s, const char *what, pq_loss_cfg *l, pq_diag *d) PQ_MUST_USE;

/* One line describing the link ("rtt 70.0 ms, rate 20.0 Mbit/s both ways, ..."). */
void pq_link_config_describe(const pq_link_config *c, char *buf, size_t n);

#endif
