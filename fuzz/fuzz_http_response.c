/* libFuzzer target: bench's HTTP response-head parser on any bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	int status = 0, keep_alive = 0;
	int64_t cl = 0;
	int hl = pq_http_parse_response(buf, size, &status, &cl, &keep_alive);
	if (hl > (int)size || (hl > 0 && (status < 100 || status > 599 || cl < -1)))
		abort();
	free(buf);
	return 0;
}
