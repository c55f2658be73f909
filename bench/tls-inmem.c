/* pqtls-inmem DIR [N]: N full TLS 1.3 handshakes (default 200) between a server context
 * made as `pqtls serve --certs DIR` makes it (OpenSSL's default groups, two tickets) and
 * a client that does not verify, in this one thread over a memory BIO pair; prints
 *   server-us-per-handshake client-us-per-handshake group sigalg
 * (CPU time of each side's OpenSSL calls). bench/handshake-rate.sh uses it as the cost of
 * OpenSSL's own handshake with no sockets, kernel or peer process. */
#include <stdio.h>
#include <stdlib.h>

#include "core/err.h"
#include "tls/ctx.h"
#include "tls/mem.h"

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: pqtls-inmem DIR [N]  (DIR from pqtls certs; N handshakes, default 200)\n");
		return 2;
	}
	char *end = NULL;
	unsigned long long n = argc == 3 ? strtoull(argv[2], &end, 10) : 200;
	if (argc == 3 && (*end || n == 0)) {
		fprintf(stderr, "pqtls-inmem: N '%s' is not a positive number\n", argv[2]);
		return 2;
	}
	SSL_CTX *s = NULL, *c = NULL;
	pq_diag d;
	pq_tls_mem_result r;
	int rc = 1;
	pq_tls_config srv = {.role = PQ_TLS_SERVER, .certs_dir = argv[1], .tickets = 2};
	pq_tls_config cli = {.role = PQ_TLS_CLIENT, .insecure = 1};
	if (pq_tls_ctx_new(&srv, &s, &d) < 0 || pq_tls_ctx_new(&cli, &c, &d) < 0 ||
	    pq_tls_mem_handshakes(s, c, n, NULL, &r, &d) < 0) {
		fprintf(stderr, "pqtls-inmem: %s\n", d.msg);
		goto out;
	}
	printf("%.1f %.1f %s %s\n", (double)r.server_ns / 1e3 / (double)r.handshakes,
	       (double)r.client_ns / 1e3 / (double)r.handshakes, r.group, r.sigalg);
	rc = 0;
out:
	pq_tls_ctx_free(s);
	pq_tls_ctx_free(c);
	return rc;
}
