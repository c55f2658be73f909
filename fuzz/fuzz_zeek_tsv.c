/* libFuzzer target: a Zeek TSV log, header lines and rows, through the line scanner
 * (zeek/scan -> zeek/tsv) into an aggregate, fed in two pieces so that lines split
 * across reads are exercised; checks that every line is counted once, as a row, a
 * header line or a skipped line. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zeek/scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	pq_zeek_agg agg;
	pq_zeek_scan s;
	pq_zeek_agg_init(&agg, NULL);
	pq_zeek_scan_init(&s, &agg, "fuzz.log", 0, 0);
	/* The first byte chooses where the first read ends. */
	size_t cut = size ? (size_t)data[0] * size / 256 : 0;
	long used = pq_zeek_scan_buf(&s, buf, cut, 0);
	if (used < 0 || (size_t)used > cut)
		abort();
	long rest = pq_zeek_scan_buf(&s, buf + used, size - (size_t)used, 1);
	if (rest < 0 || (size_t)used + (size_t)rest != size)
		abort();
	uint64_t bad = 0;
	for (int b = 0; b < PQ_ZB_COUNT; b++)
		bad += agg.bad[b];
	if (agg.rows + bad > s.line)
		abort();
	pq_zeek_scan_finish(&s);
	pq_zeek_agg_dispose(&agg);
	free(buf);
	return 0;
}
