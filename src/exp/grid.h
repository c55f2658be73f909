/* Grid expansion: a spec becomes its cells (arm x every dimension's values x trial), each
 * with its deterministic keys and its position in the canonical order; sharding picks a
 * deterministic subset; the run order groups cells by link and trial and shuffles each
 * group from the seed, so arms are interleaved and a slow moment hits them alike. */
#ifndef PQ_EXP_GRID_H
#define PQ_EXP_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "exp/point.h"
#include "exp/spec.h"

/* Why a limit: every cell starts a TLS server and commits one transaction, and even the
 * smallest cell takes about a second on an emulated link; 20000 cells is most of a day
 * here. A bigger study is several specs, or shards on several machines. */
#define PQ_EXP_MAX_CELLS 20000

typedef struct pq_exp_cell {
	pq_exp_point p;
	char key[PQ_EXP_KEY_HEX], link_key[PQ_EXP_KEY_HEX];
	char point_key[PQ_EXP_KEY_HEX]; /* the parameters without the trial */
	char across_key[PQ_EXP_KEY_HEX]; /* the grid point across arms: without the trial and
					  * every dimension any [arm] section sets */
	size_t index;         /* in the canonical order, 0-based */
	size_t group;         /* (link, trial) group in the canonical order */
	size_t arm;           /* section index (0 when the spec has no arms) */
	const char *pad_where; /* where pad-chain-to was given (for chain errors), or NULL;
				* this and arm_where point into the spec: keep it while the grid is used */
	const char *arm_where; /* the [arm] line, or the spec name */
} pq_exp_cell;

typedef struct pq_exp_grid {
	pq_exp_cell *cells;
	size_t n;
	size_t ngroups;
	int trials;
	uint64_t seed;
	char server[128];      /* remote HOST:PORT, "" = in-process over a link */
	char servername[64];
	char ca[256];
	char hash[65];         /* SHA-256 hex over every cell key and the seed */
} pq_exp_grid;

/* Expands; checks every link configuration and the cell limit. */
int pq_exp_grid_expand(const pq_exp_spec *s, pq_exp_grid *g, pq_diag *d) PQ_MUST_USE;
void pq_exp_grid_dispose(pq_exp_grid *g);

/* Keeps the cells of shard `index` (1-based) of `count`: whole (link, trial) groups,
 * group g going to shard g mod count + 1. */
void pq_exp_grid_shard(pq_exp_grid *g, unsigned index, unsigned count);

/* Parses "I/N" (1 <= I <= N <= 10000); `what` names the input. */
int pq_exp_shard_parse(const char *s, const char *what, unsigned *index, unsigned *count,
		       pq_diag *d) PQ_MUST_USE;

/* Puts the cells in run order: by link (first appearance), then trial, each (link, trial)
 * group shuffled with a generator seeded from the seed and the group. */
void pq_exp_grid_order(pq_exp_grid *g);

#endif
