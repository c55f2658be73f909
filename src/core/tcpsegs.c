#include "core/tcpsegs.h"

#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

uint32_t pq_tcp_data_segs_out(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof ti;
	memset(&ti, 0, sizeof ti);
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 ||
	    len < offsetof(struct tcp_info, tcpi_data_segs_out) + sizeof ti.tcpi_data_segs_out)
		return 0;
	return ti.tcpi_data_segs_out;
}
