#include "core/tcpsegs.h"

#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

/* TCP_INFO with tcpi_data_segs_out in it, or 0. */
static int info(int fd, struct tcp_info *ti)
{
	socklen_t len = sizeof *ti;
	memset(ti, 0, sizeof *ti);
	return getsockopt(fd, IPPROTO_TCP, TCP_INFO, ti, &len) == 0 &&
	       len >= offsetof(struct tcp_info, tcpi_data_segs_out) + sizeof ti->tcpi_data_segs_out;
}

uint32_t pq_tcp_data_segs_out(int fd)
{
	struct tcp_info ti;
	return info(fd, &ti) ? ti.tcpi_data_segs_out : 0;
}

uint32_t pq_tcp_segs_sent_once(int fd)
{
	struct tcp_info ti;
	return info(fd, &ti) ? ti.tcpi_data_segs_out - ti.tcpi_total_retrans : 0;
}
