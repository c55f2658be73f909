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

#endif
