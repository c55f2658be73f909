/* The TCP data segments a socket has sent (tcpi_data_segs_out of TCP_INFO): how many
 * segments a flight of writes became, as the kernel cut it. Kept apart because
 * <linux/tcp.h> cannot be mixed with <netinet/tcp.h>.
 *
 * Contract: returns the count, or 0 when the kernel does not say (an older struct, not
 * a TCP socket). */
#ifndef PQ_CORE_TCPSEGS_H
#define PQ_CORE_TCPSEGS_H

#include <stdint.h>

uint32_t pq_tcp_data_segs_out(int fd);

/* The same less what the kernel sent again (tcpi_total_retrans: a tail loss probe, a
 * retransmission), for the segments a flight became between two readings taken after
 * the connection is up (a SYN sent again counts in tcpi_total_retrans too, so only the
 * difference means something; it is modular). A probe's 1,411 one-byte writes were once
 * reported as 1,412 segments on a busy machine, one of them a probe sent again. */
uint32_t pq_tcp_segs_sent_once(int fd);

#endif
