#include "net/addr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"

int pq_addr_parse(const char *s, const char *what, int allow_port0, pq_addr *out, pq_diag *d)
{
	char host[256];
	const char *port_s;
	if (s[0] == '[') {
		const char *end = strchr(s, ']');
		if (!end || end[1] != ':' || (size_t)(end - s - 1) >= sizeof host)
			return pq_diag_set(d, PQ_EINVAL,
					   "%s: '%s' is not [IPV6]:PORT (e.g. [::1]:8443)", what, s);
		memcpy(host, s + 1, (size_t)(end - s - 1));
		host[end - s - 1] = '\0';
		port_s = end + 2;
	} else {
		const char *colon = strrchr(s, ':');
		if (!colon || colon == s || (size_t)(colon - s) >= sizeof host ||
		    memchr(s, ':', (size_t)(colon - s)))
			return pq_diag_set(d, PQ_EINVAL,
					   "%s: '%s' is not HOST:PORT (e.g. 127.0.0.1:8443)", what, s);
		memcpy(host, s, (size_t)(colon - s));
		host[colon - s] = '\0';
		port_s = colon + 1;
	}
	long long port;
	int rc = pq_parse_int(port_s, what, allow_port0 ? 0 : 1, 65535, &port, d);
	if (rc < 0)
		return pq_diag_set(d, PQ_EINVAL, "%s: port '%s' in '%s' is not a number in %d..65535", what,
				   port_s, s, allow_port0 ? 0 : 1);

	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
	struct addrinfo *res = NULL;
	int gai = getaddrinfo(host, port_s, &hints, &res);
	if (gai != 0 || !res)
		return pq_diag_set(d, PQ_EINVAL, "%s: cannot resolve host '%s': %s", what, host,
				   gai_strerror(gai));
	memset(out, 0, sizeof *out);
	memcpy(&out->sa, res->ai_addr, res->ai_addrlen);
	out->len = res->ai_addrlen;
	snprintf(out->host, sizeof out->host, "%s", host);
	out->port = (uint16_t)port;
	freeaddrinfo(res);
	return 0;
}

const char *pq_addr_format(const struct sockaddr *sa, char *buf, size_t n)
{
	char ip[INET6_ADDRSTRLEN] = "?";
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
		inet_ntop(AF_INET6, &s6->sin6_addr, ip, sizeof ip);
		snprintf(buf, n, "[%s]:%u", ip, ntohs(s6->sin6_port));
	} else {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
		inet_ntop(AF_INET, &s4->sin_addr, ip, sizeof ip);
		snprintf(buf, n, "%s:%u", ip, ntohs(s4->sin_port));
	}
	return buf;
}

int pq_addr_nodelay(int fd)
{
	int one = 1;
	return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0 ? -errno : 0;
}
