/* libFuzzer target: x509.log / files.log text (TSV headers and rows, JSON rows) into the
 * certificate table (zeek/certs), then one chain of its ids weighed; every line is a
 * certificate, a file, or counted as bad. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zeek/certs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	pq_zeek_certdb db;
	pq_zeek_certdb_init(&db);
	if (pq_zeek_certdb_add_text(&db, text, size) == 0) {
		/* A chain of every id the table holds, in table order. */
		char key[4096];
		size_t k = 0, it = 0, kl;
		const void *id;
		while (pq_zeek_map_next(&db.certs, &it, &id, &kl) && k + kl + 1 < sizeof key) {
			if (k)
				key[k++] = '\n';
			memcpy(key + k, id, kl);
			k += kl;
		}
		pq_zeek_map chains;
		pq_zeek_map_init(&chains, sizeof(uint64_t));
		uint64_t *w = k ? pq_zeek_map_get(&chains, key, k, NULL) : NULL;
		if (w)
			*w = 3;
		pq_zeek_certstats st;
		if (pq_zeek_certs_eval(&db, &chains, "X25519MLKEM768", &st, NULL) == 0 &&
		    (st.known_conns > st.conns || st.fits[0] + st.plus1[0] + st.plus2[0] != st.known_conns))
			abort();
		pq_zeek_map_dispose(&chains);
	}
	pq_zeek_certdb_dispose(&db);
	free(text);
	return 0;
}
