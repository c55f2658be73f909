#include "net/tun.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "net/ns.h"

int pq_tun_open_in(int nsfd, const char *ifname, int *fd, pq_diag *d)
{
	int saved, rc = pq_ns_enter(nsfd, &saved, d);
	if (rc)
		return rc;
	*fd = open(PQ_TUN_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (*fd < 0) {
		rc = pq_diag_set(d, -errno, "cannot open %s: %s%s", PQ_TUN_DEV, strerror(errno),
				 errno == EACCES || errno == EPERM ? " (needs read-write access to it, usually root)" : "");
		goto out;
	}
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
	if (ioctl(*fd, TUNSETIFF, &ifr) < 0) {
		rc = pq_diag_set(d, -errno, "cannot create TUN device %s: %s%s", ifname, strerror(errno),
				 errno == EPERM ? " (needs CAP_NET_ADMIN)" : "");
		close(*fd);
		*fd = -1;
	}
out:
	pq_ns_leave(saved);
	return rc;
}

int pq_tun_counters_parse(const char *text, const char *ifname, pq_tun_counters *c)
{
	size_t nl = strlen(ifname);
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		while (*line == ' ')
			line++;
		if (strncmp(line, ifname, nl) != 0 || line[nl] != ':')
			continue;
		unsigned long long v[16];
		if (sscanf(line + nl + 1, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11]) != 12)
			return PQ_EPARSE;
		c->rx_packets = v[1];
		c->rx_dropped = v[3];
		c->tx_packets = v[9];
		c->tx_dropped = v[11];
		return 0;
	}
	return PQ_EINVAL;
}

int pq_tun_counters_read(int procfd, const char *ifname, pq_tun_counters *c)
{
	char buf[8192];
	ssize_t n = pread(procfd, buf, sizeof buf - 1, 0);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return pq_tun_counters_parse(buf, ifname, c);
}
