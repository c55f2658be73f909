/* Endpoint addresses as users type them: "127.0.0.1:8443", "[::1]:8443", "localhost:443".
 *
 * Contract: pq_addr_parse resolves HOST (numeric, or a name through the system
 * resolver) and PORT (1..65535, or 0 when allow_port0) into *out, keeping the host text
 * for SNI and certificate checks; on failure *out is untouched and *d names `what`. */
#ifndef PQ_NET_ADDR_H
#define PQ_NET_ADDR_H

#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>

#include "core/err.h"

typedef struct pq_addr {
	struct sockaddr_storage sa;
	socklen_t len;
	char host[256]; /* as typed, without brackets */
	uint16_t port;
} pq_addr;

int pq_addr_parse(const char *s, const char *what, int allow_port0, pq_addr *out,
		  pq_diag *d) PQ_MUST_USE;

/* "127.0.0.1:8443" / "[::1]:8443" for a socket address; returns buf. */
const char *pq_addr_format(const struct sockaddr *sa, char *buf, size_t n);

/* Set TCP_NODELAY: Nagle and delayed ACKs would add stalls that look like crypto cost. */
int pq_addr_nodelay(int fd) PQ_MUST_USE;

#endif
