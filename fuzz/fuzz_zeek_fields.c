/* libFuzzer target: the small Zeek field decoders (escapes, addresses, CIDR prefixes,
 * times, versions) and the longest-prefix trie, on any string. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zeek/lpm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size ? size : 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	pq_zeek_addr a;
	unsigned plen;
	int64_t t;
	pq_zeek_time_parse(s, size, &t);
	if (pq_zeek_version(s, size) >= PQ_ZV_COUNT)
		abort();
	if (pq_zeek_cidr_parse(s, size, &a, &plen) == 0) {
		pq_zeek_lpm lpm;
		if (pq_zeek_lpm_init(&lpm) == 0) {
			if (pq_zeek_lpm_insert(&lpm, &a, plen, 7))
				abort();
			unsigned got;
			if (pq_zeek_lpm_lookup(&lpm, &a, &got) != 7 || got != plen)
				abort();
			pq_zeek_lpm_dispose(&lpm);
		}
	}
	if (pq_zeek_addr_parse(s, size, &a) == 0) {
		char txt[64];
		pq_zeek_addr_format(&a, txt, sizeof txt);
		pq_zeek_addr b;
		if (pq_zeek_addr_parse(txt, strlen(txt), &b) || memcmp(&a, &b, sizeof a))
			abort();
	}
	long n = pq_zeek_unescape(s, size);
	if (n > (long)size)
		abort();
	free(s);
	return 0;
}
