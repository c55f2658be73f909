/* The candidates table: built only for TCP + QUIC runs of link-only arms, one row per arm
 * sorted by first-flight bytes, one column per transport / window / RTT, the model's
 * verdict; the HTML formats what was built. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
/* cmocka needs the headers above. */
#include <cmocka.h>

#include "report/cand.h"
#include "report/out.h"

static pq_rdb_cell cells[8];
static pq_agg_group groups[8];

/* arm a (0 or 1), transport, initcwnd, rtt ms, flight bytes, model flight rounds */
static void put(size_t i, int arm, int quic, int iw, int rtt, long long flight, unsigned rounds)
{
	pq_rdb_cell *c = &cells[i];
	memset(c, 0, sizeof *c);
	snprintf(c->arm, sizeof c->arm, "%s", arm ? "big" : "small");
	c->quic = quic;
	c->initcwnd = iw;
	c->rtt_us = rtt * 1000LL;
	c->flight_bytes = flight;
	c->chain_der_bytes = flight - 2000;
	c->response_bytes = 1024;
	pq_agg_group *g = &groups[i];
	memset(g, 0, sizeof *g);
	g->cell = c;
	g->arm = arm;
	g->has_model = 1;
	g->model.flight_rounds = rounds;
	g->model.ttfb_t = (quic ? 2 : 3) + rounds - 1;
	g->rounds[PQ_AGG_TTFB] = g->model.ttfb_t + 0.1;
	g->agrees = 1;
}

static void build_and_render(void **state)
{
	(void)state;
	pq_agg a = {0};
	/* the big arm first in the database: the table sorts it after the small one */
	put(0, 1, 0, 10, 50, 20000, 2);
	put(1, 1, 0, 46, 50, 20000, 1);
	put(2, 1, 1, 10, 50, 20000, 3);
	put(3, 0, 0, 10, 50, 3000, 1);
	put(4, 0, 0, 46, 50, 3000, 1);
	put(5, 0, 1, 10, 50, 3000, 1);
	put(6, 0, 1, 46, 50, 3000, 1); /* QUIC has no initcwnd: the same column */
	groups[2].agrees = 0;
	snprintf(groups[2].agree_tag, sizeof groups[2].agree_tag, "host CPU");
	a.g = groups;
	a.n = 7;
	a.narms = 2;
	assert_int_equal(pq_cand_build(&a), 0);
	assert_int_equal(a.ncands, 2);
	assert_int_equal(a.ncand_cols, 3);
	assert_string_equal(a.cands[0].arm, "small");
	assert_int_equal(a.cands[1].flight_bytes, 20000);
	char buf[64];
	pq_cand_col_label(&a.cand_cols[0], buf, sizeof buf);
	assert_string_equal(buf, "TCP IW10 50 ms");
	pq_cand_col_label(&a.cand_cols[2], buf, sizeof buf);
	assert_string_equal(buf, "QUIC 50 ms");
	pq_cand_verdict(a.cands[1].g[0], buf, sizeof buf);
	assert_string_equal(buf, "costs 1 round trip");
	pq_cand_verdict(a.cands[1].g[2], buf, sizeof buf);
	assert_string_equal(buf, "costs 2 round trips");
	pq_cand_verdict(a.cands[0].g[1], buf, sizeof buf);
	assert_string_equal(buf, "fits");
	pq_out o;
	pq_out_init(&o, 1 << 16);
	pq_cand_html(&o, &a);
	assert_int_equal(o.err, 0);
	const char *h = o.b.p;
	assert_non_null(strstr(h, "id=\"candidates\""));
	assert_true(strstr(h, ">small<") < strstr(h, ">big<"));
	assert_non_null(strstr(h, "4 / 4.10, costs 2 round trips (measured: host CPU)"));
	assert_non_null(strstr(h, "5 of 6 cells measured where the model puts them"));
	pq_out_dispose(&o);
	free(a.cands);

	/* TCP alone: no table */
	pq_agg b = {0};
	b.g = groups;
	b.n = 2;
	b.narms = 2;
	assert_int_equal(pq_cand_build(&b), 0);
	assert_int_equal(b.ncands, 0);
	pq_out_init(&o, 1 << 10);
	pq_cand_html(&o, &b);
	assert_int_equal(o.b.len, 0);
	pq_out_dispose(&o);
	/* arms that share one chain (key-share's, which differ in the key share): no candidates */
	put(0, 0, 0, 10, 50, 3000, 1);
	put(1, 1, 1, 10, 50, 3000, 1);
	b.n = 2;
	assert_int_equal(pq_cand_build(&b), 0);
	assert_int_equal(b.ncands, 0);
	put(0, 1, 0, 10, 50, 20000, 2);
	put(1, 1, 0, 46, 50, 20000, 1);
	/* a size sweep is not this shape */
	b.n = 7;
	b.kind[1] = PQ_AGG_SIZE;
	assert_int_equal(pq_cand_build(&b), 0);
	assert_int_equal(b.ncands, 0);
	free(b.cands);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(build_and_render)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
