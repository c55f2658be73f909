/* Verdicts decided once (report/verdict.h): a study row's word, how two intervals lie,
 * a figure inside an interval with its edges, the phase a grid point is judged in
 * against the flight model, a loss cell against the loss model, and which of Chromium's
 * grid points are judged. Each rule is pinned at its boundary, so changing it (an
 * open edge, a NaN that agrees, the handshake judged where the first byte was measured)
 * fails here before it changes a page. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
/* cmocka needs the headers above. */
#include <cmocka.h>

#include "report/agg.h"
#include "report/verdict.h"

static void words(void **state)
{
	(void)state;
	assert_string_equal(pq_verdict_word(PQ_VERDICT_AGREES), "agrees");
	assert_string_equal(pq_verdict_word(PQ_VERDICT_DIFFERS), "differs");
	assert_string_equal(pq_verdict_word(PQ_VERDICT_UNJUDGED), "cannot be judged");
	/* the rows' agrees field holds these values, and findings index counts by them */
	assert_int_equal(PQ_VERDICT_AGREES, 1);
	assert_int_equal(PQ_VERDICT_DIFFERS, 0);
	assert_int_equal(PQ_VERDICT_UNJUDGED, -1);
	assert_string_equal(pq_verdict_word(7), "cannot be judged");
}

static void order(void **state)
{
	(void)state;
	assert_int_equal(pq_verdict_order_of(3, 4, 1, 2), PQ_VERDICT_ABOVE);
	assert_int_equal(pq_verdict_order_of(1, 2, 3, 4), PQ_VERDICT_BELOW);
	assert_int_equal(pq_verdict_order_of(1, 3, 2, 4), PQ_VERDICT_OVERLAP);
	assert_int_equal(pq_verdict_order_of(1, 4, 2, 3), PQ_VERDICT_OVERLAP); /* one inside the other */
	/* intervals that touch at an edge are not apart */
	assert_int_equal(pq_verdict_order_of(2, 3, 1, 2), PQ_VERDICT_OVERLAP);
	assert_int_equal(pq_verdict_order_of(1, 2, 2, 3), PQ_VERDICT_OVERLAP);
	/* just past the edge they are */
	assert_int_equal(pq_verdict_order_of(nextafter(2, 3), 3, 1, 2), PQ_VERDICT_ABOVE);
	assert_int_equal(pq_verdict_order_of(1, nextafter(2, 1), 2, 3), PQ_VERDICT_BELOW);
	/* an unknown bound tells nothing apart */
	assert_int_equal(pq_verdict_order_of(NAN, NAN, 1, 2), PQ_VERDICT_OVERLAP);
	assert_int_equal(pq_verdict_order_of(3, 4, NAN, NAN), PQ_VERDICT_OVERLAP);
	/* an open bound (a ratio over a zero rate) */
	assert_int_equal(pq_verdict_order_of(3, INFINITY, 1, 2), PQ_VERDICT_ABOVE);
}

static void inside(void **state)
{
	(void)state;
	assert_true(pq_verdict_inside(1.5, 1, 2));
	assert_true(pq_verdict_inside(1, 1, 2)); /* both edges included */
	assert_true(pq_verdict_inside(2, 1, 2));
	assert_false(pq_verdict_inside(nextafter(1, 0), 1, 2));
	assert_false(pq_verdict_inside(nextafter(2, 3), 1, 2));
	assert_true(pq_verdict_inside(5, 5, 5)); /* an empty-width interval */
	assert_false(pq_verdict_inside(NAN, 1, 2));
	assert_false(pq_verdict_inside(1.5, NAN, 2));
	assert_false(pq_verdict_inside(1.5, 1, NAN));
	assert_false(pq_verdict_inside(1.5, 2, 1)); /* lo above hi: nothing is inside */
}

static pq_agg_group group(double hs, double ttfb)
{
	pq_agg_group g;
	memset(&g, 0, sizeof g);
	g.has_model = 1;
	g.agrees = 1;
	g.model.handshake_t = 2;
	g.model.ttfb_t = 3;
	g.rounds[PQ_AGG_HS] = hs;
	g.rounds[PQ_AGG_TTFB] = ttfb;
	g.rounds[PQ_AGG_TTLB] = NAN;
	return g;
}

static void model_phase(void **state)
{
	(void)state;
	/* the first byte where it was measured */
	pq_agg_group g = group(2.1, 3.2);
	pq_verdict_model v = pq_verdict_model_of(&g);
	assert_true(v.judged);
	assert_int_equal(v.phase, PQ_AGG_TTFB);
	assert_true(v.predicted == 3);
	assert_true(v.measured == 3.2);
	assert_true(v.agrees);
	/* else the handshake */
	g = group(2.1, NAN);
	v = pq_verdict_model_of(&g);
	assert_true(v.judged);
	assert_int_equal(v.phase, PQ_AGG_HS);
	assert_true(v.predicted == 2);
	assert_true(v.measured == 2.1);
	/* a first byte measured and no handshake: still the first byte */
	g = group(NAN, 3.2);
	v = pq_verdict_model_of(&g);
	assert_true(v.judged);
	assert_int_equal(v.phase, PQ_AGG_TTFB);
	/* no sample in any phase (NaN medians): not judged */
	g = group(NAN, NAN);
	v = pq_verdict_model_of(&g);
	assert_false(v.judged);
	assert_int_equal(v.phase, PQ_AGG_HS);
	/* an infinite first byte is no measurement: the handshake is judged */
	g = group(2.1, INFINITY);
	v = pq_verdict_model_of(&g);
	assert_int_equal(v.phase, PQ_AGG_HS);
	assert_true(v.judged);
	/* no model: not judged, however measured */
	g = group(2.1, 3.2);
	g.has_model = 0;
	v = pq_verdict_model_of(&g);
	assert_false(v.judged);
	/* the verdict is pq_agg_judge's, carried over as it is */
	g = group(2.1, 3.2);
	g.agrees = 0;
	v = pq_verdict_model_of(&g);
	assert_false(v.agrees);
	assert_true(v.judged);
}

static void loss_pct(void **state)
{
	(void)state;
	/* within one round trip of the measured percentile, the edge included */
	assert_true(pq_verdict_loss_pct(150, 100, NAN, NAN, 50));
	assert_true(pq_verdict_loss_pct(50, 100, NAN, NAN, 50));
	assert_false(pq_verdict_loss_pct(nextafter(150, 200), 100, NAN, NAN, 50));
	/* or inside the measured interval, its edges included */
	assert_true(pq_verdict_loss_pct(300, 100, 90, 300, 50));
	assert_false(pq_verdict_loss_pct(nextafter(300, 400), 100, 90, 300, 50));
	/* no interval (too few connections): the round trip alone */
	assert_false(pq_verdict_loss_pct(300, 100, NAN, NAN, 50));
	/* no figure: never agrees */
	assert_false(pq_verdict_loss_pct(NAN, 100, 0, 1000, 50));
	assert_false(pq_verdict_loss_pct(100, NAN, NAN, NAN, 50));
}

static void loss_cell(void **state)
{
	(void)state;
	pq_agg_group g;
	memset(&g, 0, sizeof g);
	g.loss_agree[0] = 0; /* the p25 is shown, not judged */
	g.loss_agree[1] = g.loss_agree[2] = 1;
	assert_int_equal(pq_verdict_loss_of(&g), PQ_VERDICT_LOSS_AGREES);
	g.loss_agree[2] = 0;
	assert_int_equal(pq_verdict_loss_of(&g), PQ_VERDICT_LOSS_P95);
	g.loss_agree[1] = 0; /* both differ: the median is named */
	assert_int_equal(pq_verdict_loss_of(&g), PQ_VERDICT_LOSS_MEDIAN);
	g.loss_agree[2] = 1;
	assert_int_equal(pq_verdict_loss_of(&g), PQ_VERDICT_LOSS_MEDIAN);
}

static void pair(void **state)
{
	(void)state;
	pq_agg_pair p;
	memset(&p, 0, sizeof p);
	p.wan = p.has_net = 1;
	assert_true(pq_verdict_pair_judged(&p));
	p.wan = 0; /* CPU time ~ RTT: not judged */
	assert_false(pq_verdict_pair_judged(&p));
	p.wan = 1;
	p.has_net = 0; /* too few values */
	assert_false(pq_verdict_pair_judged(&p));
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(words), cmocka_unit_test(order), cmocka_unit_test(inside),
					   cmocka_unit_test(model_phase), cmocka_unit_test(loss_pct), cmocka_unit_test(loss_cell),
					   cmocka_unit_test(pair)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
