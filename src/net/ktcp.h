/* The kernel's TCP settings on a link, made explicit: what a spec or the link command
 * asks for (pq_ktcp_cfg), what this kernel can do (pq_ktcp_caps), and what the kernel
 * reports once they are set (pq_ktcp_state, read back: never "default").
 *
 *   congestion control  both routes' congctl; read back from a connection across the
 *                       link (getsockopt TCP_CONGESTION on the server's accepted socket),
 *                       with that connection's initial cwnd and MSS (tcp_info)
 *   qdisc               root qdisc of the server's link device (tc); fq is what makes
 *                       Linux pace every flow; BBR paces on its own without it
 *   pacing ratios       net.ipv4.tcp_pacing_ss_ratio / tcp_pacing_ca_ratio in both
 *                       namespaces (per namespace): the rate a paced flow is held to,
 *                       in % of cwnd / srtt, in slow start and after it
 *   quick-ACK           the client route's quickack metric: 1 ACKs every segment at once,
 *                       0 lets Linux delay ACKs once its first quick ACKs are spent
 *   TSO, GSO            segmentation offloads of both link devices (ethtool ioctl)
 *   receive window      read only: the client's initial window as the server's socket of
 *                       that connection sees it, and tcp_rmem in the client's namespace,
 *                       from which Linux derives it (model/tcp.h)
 *
 * Validation is pure (pq_ktcp_validate against caps), so it runs before anything is
 * measured and is tested without root; pq_ktcp_caps_read and the set/read-back helpers
 * touch the kernel. */
#ifndef PQ_NET_KTCP_H
#define PQ_NET_KTCP_H

#include <stddef.h>

#include "core/err.h"
#include "core/names.h"

#define PQ_KTCP_CC_LIST "/proc/sys/net/ipv4/tcp_available_congestion_control"
/* Root qdiscs pqtls knows how to ask for (with no parameters); which of them this kernel
 * has is probed (pq_ktcp_caps_read). */
#define PQ_KTCP_QDISCS "pfifo_fast|pfifo|bfifo|noqueue|fq|fq_codel|sfq|cake|prio"
#define PQ_KTCP_QDISC_CHOICES "kernel|" PQ_KTCP_QDISCS /* as a spec key: kernel = leave it */
#define PQ_KTCP_RATIO_MAX 1000 /* the kernel's bound on the pacing ratios, % */

enum pq_ktcp_onoff { PQ_KTCP_KEEP = -1, PQ_KTCP_OFF = 0, PQ_KTCP_ON = 1 };

typedef struct pq_ktcp_cfg {
	char qdisc[32];        /* server device root qdisc; "" keeps the device's own */
	int pacing_ss_ratio;   /* %, 0..1000; -1 keeps the kernel's */
	int pacing_ca_ratio;
	int quickack;          /* enum pq_ktcp_onoff, client route */
	int tso, gso;          /* enum pq_ktcp_onoff, both link devices */
} pq_ktcp_cfg;

/* Keeps everything as the kernel has it. */
void pq_ktcp_cfg_init(pq_ktcp_cfg *c);

typedef struct pq_ktcp_caps {
	char cc[256];         /* tcp_available_congestion_control, space-separated */
	char cc_default[32];  /* what a new namespace runs (the host's tcp_congestion_control) */
	char qdiscs[256];     /* the kinds of PQ_KTCP_QDISCS this kernel could attach */
} pq_ktcp_caps;

/* Is `word` one of the words of `list` (separated by spaces or '|')? */
int pq_ktcp_in_list(const char *list, const char *word);

/* The checks that need no kernel: a qdisc pqtls knows, ratios in -1..1000. */
int pq_ktcp_cfg_check(const pq_ktcp_cfg *c, const pq_name *names, pq_diag *d) PQ_MUST_USE;
/* Appends ", qdisc fq, pacing ratios 200%/120%, quickack on, ..." for what c sets. */
void pq_ktcp_cfg_describe(const pq_ktcp_cfg *c, char *buf, size_t n);

/* Refuses, naming the input (by `names`: "cc", "qdisc", "pacing_ss_ratio",
 * "pacing_ca_ratio") and what this kernel offers: a congestion control not in caps->cc,
 * a qdisc not in caps->qdiscs (or not one pqtls knows), ratios out of 0..1000. `cc` is
 * the congestion control asked for, NULL or "" for the namespace default. */
int pq_ktcp_validate(const pq_ktcp_cfg *c, const char *cc, const pq_ktcp_caps *caps, const pq_name *names,
		     pq_diag *d) PQ_MUST_USE;

/* The available congestion controls and the default, from /proc; the qdiscs by
 * attaching each of PQ_KTCP_QDISCS to `lo` in namespace `ns` (a scratch one: what was
 * attached is removed again), or none when ns is NULL (nothing asks for a qdisc). */
int pq_ktcp_caps_read(pq_ktcp_caps *caps, const char *ns, pq_diag *d) PQ_MUST_USE;

typedef struct pq_ktcp_state {
	char cc[32];            /* the server's socket across the link runs this */
	unsigned initcwnd, mss; /* that socket's cwnd before any data, and its MSS */
	unsigned long long pacing_bps; /* its tcp_info pacing rate, bytes/s (enforced only when paced) */
	char qdisc[16];         /* root qdisc of the server's link device */
	int pacing_ss_ratio, pacing_ca_ratio; /* server namespace */
	int quickack;           /* client route's quickack metric (0 when it has none) */
	int tso[2], gso[2];     /* per side (client 0, server 1): 1 on, 0 off */
	unsigned client_rwnd;   /* the client's receive window as that socket saw it after the
				 * handshake (tcp_info snd_wnd), bytes: what the server may send
				 * before the client's first ACK of data */
	int client_rmem[3];     /* net.ipv4.tcp_rmem in the client's namespace: min, default, max */
} pq_ktcp_state;

/* "cc cubic, initcwnd 10, mss 1448, pacing rate 579.2 kB/s, qdisc pfifo_fast, pacing
 *  200%/120%, quickack 0, tso off/off, gso on/on, client rwnd 64512 (tcp_rmem 4096 131072
 *  33554432)" */
void pq_ktcp_state_format(const pq_ktcp_state *s, char *buf, size_t n);

/* The parsers of what tc and ip print (pure): the root qdisc's kind in `tc qdisc show
 * dev DEV`, and a route's metric ("quickack", "initcwnd") in `ip route show`: 0 when the
 * route lists none. PQ_EPARSE when the text has no root qdisc. */
int pq_ktcp_parse_qdisc(const char *tc_out, char *kind, size_t n) PQ_MUST_USE;
unsigned pq_ktcp_parse_route_metric(const char *ip_out, const char *metric);

/* Segmentation offloads of device `dev` in the calling thread's namespace (ethtool
 * ioctl): set (PQ_KTCP_KEEP leaves one alone; a device that cannot do it is refused,
 * naming it) and read back. */
int pq_ktcp_offload_set(const char *dev, int tso, int gso, pq_diag *d) PQ_MUST_USE;
int pq_ktcp_offload_get(const char *dev, int *tso, int *gso, pq_diag *d) PQ_MUST_USE;

/* Reads a /proc/sys integer through an open descriptor (from the start). */
int pq_ktcp_read_int_fd(int fd, int *v) PQ_MUST_USE;

/* Parses exactly n integers separated by white space ("4096\t131072\t33554432\n", as
 * /proc/sys/net/ipv4/tcp_rmem reads); PQ_EPARSE when the text holds fewer or other words. */
int pq_ktcp_parse_ints(const char *text, int *v, size_t n) PQ_MUST_USE;

#endif
