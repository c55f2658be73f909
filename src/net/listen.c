#include "net/listen.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"

int pq_listen_parse(const char *text, unsigned port, int udp)
{
	/* Lines: "  sl  local_address rem_address   st ..." with hex "ADDR:PORT" and hex state;
	 * 0A is TCP_LISTEN; an unconnected UDP socket shows 07 (TCP_CLOSE). */
	unsigned want = udp ? 0x07 : 0x0A;
	for (const char *line = strchr(text, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		char local[80];
		unsigned st;
		if (sscanf(line + 1, " %*[^:]: %79s %*s %x", local, &st) != 2)
			continue;
		const char *colon = strrchr(local, ':');
		unsigned p;
		if (colon && sscanf(colon + 1, "%x", &p) == 1 && p == port && st == want)
			return 1;
	}
	return 0;
}

static int listening(int fd, unsigned port, int udp)
{
	static char buf[1 << 16];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return pq_listen_parse(buf, port, udp);
}

int pq_listen_wait(pq_link *l, unsigned port, int udp, int64_t timeout_ns, pid_t pid,
		   int *status, pq_diag *d)
{
	int fd4 = -1, fd6 = -1, rc;
	const char *p4 = udp ? "/proc/thread-self/net/udp" : "/proc/thread-self/net/tcp";
	const char *p6 = udp ? "/proc/thread-self/net/udp6" : "/proc/thread-self/net/tcp6";
	if ((rc = pq_link_open_in(l, PQ_SIDE_SERVER, p4, O_RDONLY, &fd4, d)))
		return rc;
	if (pq_link_open_in(l, PQ_SIDE_SERVER, p6, O_RDONLY, &fd6, NULL))
		fd6 = -1; /* IPv6 may be disabled */
	int64_t deadline = pq_mono_ns() + timeout_ns;
	rc = PQ_ETIMEOUT;
	while (pq_mono_ns() < deadline) {
		if (listening(fd4, port, udp) || (fd6 >= 0 && listening(fd6, port, udp))) {
			rc = 0;
			break;
		}
		if (pid > 0 && waitpid(pid, status, WNOHANG) == pid) {
			rc = pq_diag_set(d, PQ_ECHILD, "%s %u: the server exited before it listened",
					 pq_name_of(pq_link_cfg(l)->names, "wait_port"), port);
			break;
		}
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
	}
	if (rc == PQ_ETIMEOUT) {
		char t[32];
		snprintf(t, sizeof t, "%.1f s", (double)timeout_ns / 1e9);
		const pq_name *names = pq_link_cfg(l)->names;
		rc = pq_diag_set(d, PQ_ETIMEOUT,
				 "%s %u: nothing listened on %s port %u in the server namespace "
				 "within %s (see %s)",
				 pq_name_of(names, "wait_port"), port, udp ? "UDP" : "TCP", port, t,
				 pq_name_of(names, "wait_timeout"));
	}
	close(fd4);
	if (fd6 >= 0)
		close(fd6);
	return rc;
}
