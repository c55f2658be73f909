#include "load/tcpinfo.h"

#include <errno.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

int pq_tcpinfo_read(int fd, pq_load_record *r)
{
	struct tcp_info ti;
	socklen_t len = sizeof ti;
	memset(&ti, 0, sizeof ti);
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		return -errno;
	r->srtt_us = ti.tcpi_rtt;
	r->rttvar_us = ti.tcpi_rttvar;
	r->retrans = ti.tcpi_total_retrans;
	r->cwnd = ti.tcpi_snd_cwnd;
	r->mss = ti.tcpi_snd_mss;
	/* Older kernels return a shorter struct: only read what they filled. */
	if (len >= offsetof(struct tcp_info, tcpi_min_rtt) + sizeof ti.tcpi_min_rtt)
		r->min_rtt_us = ti.tcpi_min_rtt;
	if (len >= offsetof(struct tcp_info, tcpi_segs_in) + sizeof ti.tcpi_segs_in) {
		r->tcp_segs[PQ_TX] = ti.tcpi_segs_out;
		r->tcp_segs[PQ_RX] = ti.tcpi_segs_in;
	}
	if (len >= offsetof(struct tcp_info, tcpi_bytes_received) + sizeof ti.tcpi_bytes_received)
		r->tcp_bytes[PQ_RX] = ti.tcpi_bytes_received;
	if (len >= offsetof(struct tcp_info, tcpi_bytes_sent) + sizeof ti.tcpi_bytes_sent)
		r->tcp_bytes[PQ_TX] = ti.tcpi_bytes_sent;
	return 0;
}
