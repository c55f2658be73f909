/* libFuzzer target: the server's HTTP request parser and router on any bytes. The
 * parser must never read past len, and a head it accepts must route and format. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly `size` bytes, so ASan sees any read past the end. */
	char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	pq_http_req req;
	int hl = pq_http_parse_request(buf, size, &req);
	if (hl > (int)size)
		abort();
	if (hl > 0) {
		pq_http_resp resp;
		char head[256];
		pq_http_route(&req, &resp);
		if (pq_http_format_head(&resp, head, sizeof head) < 0)
			abort();
		if (memchr(req.path, '\0', sizeof req.path) == NULL)
			abort();
	}
	free(buf);
	return 0;
}
