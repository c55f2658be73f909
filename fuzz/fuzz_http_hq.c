/* libFuzzer target: serve --quic's hq-interop request-line parser on any bytes, with the
 * stream ended or not. It must never read past len, and a line it accepts must route. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t n = size - 1;
	char *buf = malloc(n ? n : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, n);
	pq_http_req req;
	int hl = pq_http_parse_hq(buf, n, data[0] & 1, &req);
	if (hl > (int)n)
		abort();
	if (hl > 0) {
		pq_http_resp resp;
		pq_http_route(&req, &resp);
		if (memchr(req.path, '\0', sizeof req.path) == NULL || req.path[0] != '/')
			abort();
	}
	free(buf);
	return 0;
}
