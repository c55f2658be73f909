/* exp/chains.c: each distinct chain of a grid built once (through the cache), its
 * description and modelled flight; a chain that cannot be built names the spec line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testdir.h"
#include "exp/chains.h"

static int grid(const char *text, pq_exp_spec *s, pq_exp_grid *g, pq_diag *d)
{
	pq_exp_spec_init(s);
	int rc = pq_exp_spec_parse(s, "c.spec", text, d);
	return rc < 0 ? rc : pq_exp_grid_expand(s, g, d);
}

static void builds_each_once(void **state)
{
	(void)state;
	pq_exp_spec s;
	pq_exp_grid g;
	pq_exp_chains cs;
	pq_diag d;
	assert_int_equal(grid("sig = ecdsa-p256\nrtt = 1ms, 2ms\ngroup = X25519, X25519MLKEM768\n"
			      "intermediates = 0, 1\n", &s, &g, &d), 0);
	assert_int_equal(g.n, 8);
	assert_int_equal(pq_exp_chains_prepare(&g, dir, NULL, &cs, &d), 0);
	assert_int_equal(cs.n, 2); /* intermediates 0 and 1: two chains for eight cells */
	const pq_exp_chain *c = pq_exp_chains_find(&cs, &g.cells[0].p);
	assert_non_null(c);
	char desc[256];
	pq_exp_chain_describe(c, desc, sizeof desc);
	assert_non_null(strstr(desc, "ecdsa-p256 leaf <- 0 x ecdsa-p256 <- ecdsa-p256 root"));
	long long b1, s1, b2, s2;
	pq_exp_chain_flight(c, "X25519", 1500, &b1, &s1);
	pq_exp_chain_flight(c, "X25519MLKEM768", 1500, &b2, &s2);
	assert_true(b1 > (long long)c->info.cert_msg);
	assert_true(b2 > b1 + 1000); /* the ML-KEM share is over a kilobyte */
	long long b3, s3;
	pq_exp_chain_flight(c, "X25519MLKEM768", 576, &b3, &s3);
	assert_int_equal(b3, b2);
	assert_int_equal(s3, (b2 + 523) / 524); /* segments at MSS 576 - 52 */
	pq_exp_chain_flight(c, "no-such-group", 1500, &b1, &s1);
	assert_int_equal(b1, -1);
	pq_exp_chains_dispose(&cs);
	/* a second time everything comes from the cache */
	assert_int_equal(pq_exp_chains_prepare(&g, dir, NULL, &cs, &d), 0);
	assert_true(cs.c[0].cached && cs.c[1].cached);
	pq_exp_chains_dispose(&cs);
	pq_exp_grid_dispose(&g);
	pq_exp_spec_dispose(&s);
}

static void pad_below_minimum(void **state)
{
	(void)state;
	pq_exp_spec s;
	pq_exp_grid g;
	pq_exp_chains cs;
	pq_diag d;
	assert_int_equal(grid("sig = ecdsa-p256\n\npad-chain-to = 100\n", &s, &g, &d), 0);
	assert_true(pq_exp_chains_prepare(&g, dir, NULL, &cs, &d) < 0);
	assert_non_null(strstr(pq_diag_msg(&d), "c.spec:3: pad-chain-to: the chain of arm"));
	assert_non_null(strstr(pq_diag_msg(&d), "below the chain's natural size"));
	assert_int_equal(cs.n, 0);
	pq_exp_grid_dispose(&g);
	pq_exp_spec_dispose(&s);
}

static void pad_like_another_chain(void **state)
{
	(void)state;
	pq_exp_spec s;
	pq_exp_grid g;
	pq_exp_chains cs;
	pq_diag d;
	assert_int_equal(grid("sig = ecdsa-p256\nintermediates = 0, 1\npad-chain-to = like ml-dsa-44\n", &s, &g, &d), 0);
	assert_int_equal(pq_exp_chains_prepare(&g, dir, NULL, &cs, &d), 0);
	assert_int_equal(cs.n, 4); /* two ML-DSA-44 references, two padded ECDSA chains */
	for (size_t i = 0; i < g.n; i++) {
		pq_exp_point ref = g.cells[i].p;
		ref.leaf = ref.inter = ref.root = pq_alg_find("ml-dsa-44");
		ref.pad_like = NULL;
		const pq_exp_chain *c = pq_exp_chains_find(&cs, &g.cells[i].p), *r = pq_exp_chains_find(&cs, &ref);
		assert_non_null(c);
		assert_non_null(r);
		assert_int_equal(c->info.chain_der, r->info.chain_der);
		assert_string_equal(c->info.cert[0].key_alg, "ecdsa-p256");
	}
	pq_exp_chains_dispose(&cs);
	pq_exp_grid_dispose(&g);
	pq_exp_spec_dispose(&s);
	/* smaller than the chain itself: refused with the line */
	assert_int_equal(grid("sig = ml-dsa-65\npad-chain-to = like ecdsa-p256\n", &s, &g, &d), 0);
	assert_true(pq_exp_chains_prepare(&g, dir, NULL, &cs, &d) < 0);
	assert_non_null(strstr(pq_diag_msg(&d), "c.spec:2: pad-chain-to: the chain of arm"));
	pq_exp_grid_dispose(&g);
	pq_exp_spec_dispose(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(builds_each_once),
		cmocka_unit_test(pad_below_minimum),
		cmocka_unit_test(pad_like_another_chain),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
