/* The chains a grid needs, made (or found in the cache) before anything is measured, so a
 * chain that cannot be built (a pad size below the chain's natural size, an algorithm
 * OpenSSL lacks) fails the sweep at once with the spec line that asked for it. Each
 * distinct chain is built once (pq_chain_cached keys its cache by the parameters). */
#ifndef PQ_EXP_CHAINS_H
#define PQ_EXP_CHAINS_H

#include <stdio.h>

#include "core/err.h"
#include "exp/grid.h"
#include "pki/chain.h"

typedef struct pq_exp_chain {
	char key[512];        /* pq_chain_spec_key */
	pq_chain_info info;
	int cached;           /* came from the cache */
} pq_exp_chain;

typedef struct pq_exp_chains {
	pq_exp_chain *c;
	size_t n;
} pq_exp_chains;

/* Builds every chain of g's cells; `log` (may be NULL) gets one line per chain made. */
int pq_exp_chains_prepare(const pq_exp_grid *g, const char *cache_root, FILE *log, pq_exp_chains *out,
			  pq_diag *d) PQ_MUST_USE;
/* The chain of a cell, NULL if not prepared. */
const pq_exp_chain *pq_exp_chains_find(const pq_exp_chains *cs, const pq_exp_point *p);
/* The chain spec of a cell with 'pad-chain-to = like ALG' resolved to the DER size of
 * ALG's natural chain (which must be prepared); 0 on success, PQ_ESTATE when it is not. */
int pq_exp_chains_spec(const pq_exp_chains *cs, const pq_exp_point *p, pq_chain_spec *s);
void pq_exp_chains_dispose(pq_exp_chains *cs);

/* "ml-dsa-65 leaf <- 1 x ml-dsa-65 <- ml-dsa-65 root, 11003 B" */
void pq_exp_chain_describe(const pq_exp_chain *c, char *buf, size_t n);
/* Modelled first flight for a group name (bytes, and segments at the MSS of a link with
 * this MTU: pq_wire_mss, core/wire.h); -1 when the group is not one
 * the accounting models. */
void pq_exp_chain_flight(const pq_exp_chain *c, const char *group, unsigned mtu, long long *bytes,
			 long long *segs);

#endif
