#include "net/probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"

#define REQ_LEN 20

static void nodelay(int fd)
{
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static int write_n(int fd, uint64_t n)
{
	static char buf[1 << 16];
	while (n) {
		size_t k = n < sizeof buf ? (size_t)n : sizeof buf;
		ssize_t w = write(fd, buf, k);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		n -= (uint64_t)w;
	}
	return 0;
}

static int read_full(int fd, char *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

int pq_probe_serve(unsigned port, uint64_t fixed_bytes, pq_diag *d)
{
	int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	if (ls < 0)
		return pq_diag_set(d, -errno, "socket: %s", strerror(errno));
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	if (bind(ls, (struct sockaddr *)&sa, sizeof sa) || listen(ls, 64)) {
		int e = errno;
		close(ls);
		return pq_diag_set(d, -e, "cannot listen on TCP port %u: %s", port, strerror(e));
	}
	int rc = pq_probe_serve_fd(ls, fixed_bytes, d);
	close(ls);
	return rc;
}

int pq_probe_serve_fd(int ls, uint64_t fixed_bytes, pq_diag *d)
{
	for (;;) {
		int c = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			break;
		}
		nodelay(c);
		uint64_t n = fixed_bytes;
		char req[REQ_LEN + 1] = {0};
		if (!n && read_full(c, req, REQ_LEN) == 0)
			n = strtoull(req, NULL, 10);
		if (write_n(c, n) == 0)
			shutdown(c, SHUT_WR);
		close(c);
	}
	int e = errno;
	return pq_diag_set(d, -e, "accept: %s", strerror(e));
}

int pq_probe_fetch(const char *addr, unsigned port, uint64_t bytes, pq_clock *clock, int64_t *ns,
		   pq_diag *d)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		return pq_diag_set(d, PQ_EINVAL, "'%s' is not an IPv4 address", addr);
	int rc = 0, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return pq_diag_set(d, -errno, "socket: %s", strerror(errno));
	nodelay(fd);
	int rcvbuf = 32 << 20;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
	int64_t t0 = pq_clock_now(clock);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
		rc = pq_diag_set(d, -errno, "connect to %s:%u: %s", addr, port, strerror(errno));
		goto out;
	}
	char req[REQ_LEN + 1];
	snprintf(req, sizeof req, "%0*llu", REQ_LEN, (unsigned long long)bytes);
	if (write(fd, req, REQ_LEN) != REQ_LEN) {
		rc = pq_diag_set(d, -errno, "send to %s:%u: %s", addr, port, strerror(errno));
		goto out;
	}
	static char buf[1 << 16];
	uint64_t got = 0;
	while (got < bytes) {
		ssize_t r = read(fd, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = pq_diag_set(d, PQ_EIO, "%s:%u closed after %llu of %llu bytes", addr, port,
					 (unsigned long long)got, (unsigned long long)bytes);
			goto out;
		}
		got += (uint64_t)r;
	}
	*ns = pq_clock_now(clock) - t0;
out:
	close(fd);
	return rc;
}

int pq_probe_fetch_report(const char *addr, unsigned port, uint64_t bytes, int samples,
			  pq_clock *clock, FILE *out, pq_diag *d)
{
	for (int i = 0; i < samples; i++) {
		int64_t ns;
		int rc = pq_probe_fetch(addr, port, bytes, clock, &ns, d);
		if (rc)
			return rc;
		fprintf(out, "%llu %.3f %.1f\n", (unsigned long long)bytes, (double)ns / 1e6,
			(double)bytes * 8.0 / ((double)ns / 1e9) / 1e6);
		fflush(out);
	}
	return 0;
}
