/* Private to the link (src/net/link*.c): the link object and its emulation backends.
 * A backend is one file with one pq_link_ops table: it builds what moves packets
 * between the two namespaces link.c made (and configures with pq_link_configure_side),
 * counts them, and stops. A third backend (a real netem on another kernel, a remote link)
 * is one more file and one more entry in link.c's list. */
#ifndef PQ_NET_LINK_BACKEND_H
#define PQ_NET_LINK_BACKEND_H

#include "net/late.h"
#include "net/link.h"

struct pq_link_ops;

struct pq_link {
	pq_link_config cfg;
	const struct pq_link_ops *ops; /* NULL for an attached link */
	char ns[2][64];
	int nsfd[2];
	int created[2];
	int stopped;	      /* pq_link_stop ran: `final` holds the last stats */
	pq_link_stats final;
	pq_link_stats win0;   /* the counts when the current window began */
	pq_ktcp_state ktcp;   /* the kernel's TCP settings as read back after up */
	char dev[16];         /* the link device's name in both namespaces */
	void *be;	      /* the backend's own state */
};

typedef struct pq_link_ops {
	enum pq_backend kind;
	/* 0 when this backend can make l's link with options o here, else why not (a
	 * message naming the inputs by l->cfg.names). Called before up. */
	int (*usable)(pq_link *l, const pq_link_opts *o, pq_diag *d);
	/* Devices and emulation between l->ns[0] and l->ns[1]; on failure leaves what it
	 * made for release. */
	int (*up)(pq_link *l, const pq_link_opts *o, pq_diag *d);
	/* Counts so far into *out (zeroed, backend set, by the caller). */
	int (*stats)(pq_link *l, pq_link_stats *out);
	/* The release lateness since the last call into *late (net/late.h), starting a new
	 * window, and the counts so far (as stats, without the life's lateness, which costs a
	 * sort) into *counts (zeroed, backend set, by the caller). NULL when the backend keeps
	 * no release schedule: then stats gives the counts. */
	int (*window)(pq_link *l, pq_late_win *late, pq_link_stats *counts);
	/* Runs the thread that moves the packets on `cpus` (link.h, pq_link_pin). NULL when
	 * the kernel moves them (netem). */
	int (*pin)(pq_link *l, const cpu_set_t *cpus, char *list, size_t n);
	/* Stops moving packets; the last counts into *final (filled with stats first). */
	int (*stop)(pq_link *l, pq_link_stats *final, pq_diag *d);
	/* Frees l->be (after stop); the namespaces are link.c's. */
	void (*release)(pq_link *l);
} pq_link_ops;

extern const pq_link_ops pq_link_userspace, pq_link_netem;

/* Addresses, MTU and the route with its TCP settings on one side's device `dev`, then
 * the kernel TCP settings of l->cfg.tcp (pq_link_ktcp_apply). */
int pq_link_configure_side(pq_link *l, enum pq_side side, const char *dev, pq_diag *d) PQ_MUST_USE;
/* Writes `value` to /proc/sys file `path` inside namespace nsfd. */
int pq_link_sysctl_set(int nsfd, const char *path, const char *value, pq_diag *d) PQ_MUST_USE;
/* Pacing ratios and offloads on one side, the qdisc on the server's device. */
int pq_link_ktcp_apply(pq_link *l, enum pq_side side, const char *dev, pq_diag *d) PQ_MUST_USE;
/* What the kernel reports once the link carries packets (a connection across it, tc,
 * ip, sysctls, ethtool on l->dev). */
int pq_link_ktcp_read(pq_link *l, pq_ktcp_state *s, pq_diag *d) PQ_MUST_USE;

#endif
