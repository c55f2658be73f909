/* libFuzzer target: one Zeek JSON-lines row (zeek/json) on any bytes; a row that parses
 * has an address of a known family, a version in range and strings inside the line. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zeek/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size ? size : 1);
	if (!line)
		return 0;
	memcpy(line, data, size);
	pq_zeek_rec r;
	if (pq_zeek_json_row(line, size, &r) == 0) {
		if ((r.resp.fam != 4 && r.resp.fam != 6) || r.version < 0 || r.version >= PQ_ZV_COUNT)
			abort();
		if (r.server_name && (r.server_name < line || r.server_name + r.server_name_len > line + size))
			abort();
		if (r.curve && (r.curve < line || r.curve + r.curve_len > line + size))
			abort();
	} else if (r.bad <= PQ_ZB_NONE || r.bad >= PQ_ZB_COUNT) {
		abort();
	}
	free(line);
	return 0;
}
