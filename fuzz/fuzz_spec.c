/* libFuzzer target: the sweep spec reader (exp/spec.c) on any text, then, for grids small
 * enough to expand quickly, the grid expansion, shards and run order: no crash, and every
 * cell key unique and the shards a partition. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exp/grid.h"

/* Cells the grid would have (capped), from the spec's lists. */
static size_t cells(const pq_exp_spec *s)
{
	size_t total = 0;
	for (size_t a = 0; a < (s->narms ? s->narms : 1); a++) {
		size_t n = 1;
		for (int k = 0; k < PQ_DIM_COUNT && n <= 4096; k++) {
			const pq_exp_list *l = s->narms && s->arm[a]->key[k].given ? &s->arm[a]->key[k] : &s->global.key[k];
			if (l->given)
				n *= l->n;
		}
		total += n;
	}
	return total;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	pq_exp_spec s;
	pq_exp_grid g;
	pq_diag d;
	pq_exp_spec_init(&s);
	if (pq_exp_spec_parse(&s, "fuzz.spec", text, &d) == 0 && cells(&s) <= 2000 &&
	    pq_exp_grid_expand(&s, &g, &d) == 0) {
		size_t whole = g.n;
		for (size_t i = 0; i < g.n; i++)
			for (size_t j = i + 1; j < g.n; j++)
				if (strcmp(g.cells[i].key, g.cells[j].key) == 0)
					abort();
		pq_exp_grid_shard(&g, 1, 1);
		if (g.n != whole)
			abort();
		pq_exp_grid_order(&g);
		if (g.n != whole)
			abort();
		pq_exp_grid_dispose(&g);
	}
	pq_exp_spec_dispose(&s);
	free(text);
	return 0;
}
