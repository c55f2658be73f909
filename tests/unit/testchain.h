/* For unit tests that need a real certificate chain: make one in-process with the chain
 * factory (pq_chain_make: root, one intermediate and leaf of one algorithm, the leaf
 * naming localhost and 127.0.0.1) in a temporary directory, as a cmocka group setup,
 * and remove it in the teardown. A chain that cannot be made fails the group setup, so
 * every test of the group fails: none can pass by skipping. */
#ifndef PQ_TESTS_TESTCHAIN_H
#define PQ_TESTS_TESTCHAIN_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pki/chain.h"
#include "pki/dir.h"

static char chain_dir[256];
static pq_chain_info chain_info; /* sizes and accounting of the chain made */

static int testchain_make(const char *alg)
{
	pq_chain_spec s;
	pq_diag d = {0};
	pq_chain_spec_init(&s);
	s.root = s.inter = s.leaf = pq_alg_find(alg);
	if (!s.leaf) {
		fprintf(stderr, "testchain: unknown algorithm '%s'\n", alg);
		return -1;
	}
	const char *tmp = getenv("TMPDIR");
	snprintf(chain_dir, sizeof chain_dir, "%s/pqtls-unit-%s.%d", tmp && *tmp ? tmp : "/tmp",
		 alg, (int)getpid());
	if (pq_chain_make(&s, chain_dir, 0, &chain_info, &d) != 0) {
		fprintf(stderr, "testchain: cannot make a %s chain in %s: %s\n", alg, chain_dir,
			pq_diag_msg(&d));
		chain_dir[0] = '\0';
		return -1;
	}
	return 0;
}

static int testchain_remove(void **state)
{
	(void)state;
	if (chain_dir[0])
		pq_pki_dir_remove(chain_dir);
	return 0;
}

#endif
