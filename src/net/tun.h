/* TUN devices opened inside a namespace: the fd stays usable from anywhere, the device
 * lives in the namespace, and it disappears when the last fd closes (even on SIGKILL). */
#ifndef PQ_NET_TUN_H
#define PQ_NET_TUN_H

#include <stdint.h>

#include "core/err.h"

#define PQ_TUN_DEV "/dev/net/tun"

/* Creates TUN device `ifname` (IFF_TUN | IFF_NO_PI, non-blocking) in namespace nsfd. */
int pq_tun_open_in(int nsfd, const char *ifname, int *fd, pq_diag *d) PQ_MUST_USE;

/* Counters of one device from a /proc/net/dev file opened inside its namespace. */
typedef struct pq_tun_counters {
	uint64_t rx_packets, rx_dropped, tx_packets, tx_dropped;
} pq_tun_counters;
int pq_tun_counters_read(int procfd, const char *ifname, pq_tun_counters *c);
/* Parses /proc/net/dev text (exposed for tests). */
int pq_tun_counters_parse(const char *text, const char *ifname, pq_tun_counters *c);

#endif
