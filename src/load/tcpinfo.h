/* The kernel's view of a TCP connection (getsockopt TCP_INFO): smoothed RTT, retransmits,
 * congestion window, bytes and segments each way. Kept apart because <linux/tcp.h>
 * (which has the newer fields) cannot be mixed with <netinet/tcp.h>. */
#ifndef PQ_LOAD_TCPINFO_H
#define PQ_LOAD_TCPINFO_H

#include "load/record.h"

/* Fill the record's tcp_* fields from fd; returns 0 or -errno (fields untouched). */
int pq_tcpinfo_read(int fd, pq_load_record *r);

#endif
