/* The studies as data (report/study.h): every study names presets that exist, and each of
 * those presets' grids holds every cell the study wants, found the way the report finds
 * them (pq_study_matches over the dimensions a sweep of that grid would store). A grid
 * without a study's cells is told apart (the check can fail), and a want matches what it
 * asks and nothing else. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* cmocka needs the headers above. */
#include <cmocka.h>

#include "exp/dim.h"
#include "exp/grid.h"
#include "exp/preset.h"
#include "exp/spec.h"
#include "report/study.h"

typedef struct cells {
	pq_rdb_cell *c;
	size_t n;
} cells;

/* The cells a sweep of the preset would store, one per grid point of trial 1: each
 * dimension's effective value from the point and its link as the spec resolves it (the
 * kernel's read-backs, which a unit test cannot make, as the runner's defaults). */
static cells cells_of(const char *preset)
{
	const pq_exp_preset *p = pq_exp_preset_find(preset);
	if (!p)
		fail_msg("no preset '%s'", preset);
	pq_exp_spec s;
	pq_exp_grid g;
	pq_diag d;
	pq_exp_spec_init(&s);
	if (pq_exp_spec_parse(&s, preset, p->text, &d) < 0 || pq_exp_grid_expand(&s, &g, &d) < 0)
		fail_msg("preset %s: %s", preset, pq_diag_msg(&d));
	cells out = {calloc(g.n, sizeof *out.c), 0};
	assert_non_null(out.c);
	for (size_t i = 0; i < g.n; i++) {
		const pq_exp_point *pt = &g.cells[i].p;
		if (pt->trial != 1)
			continue;
		pq_link_config lc;
		pq_exp_eff e;
		if (pq_exp_point_link(pt, g.seed, preset, &lc, &d) < 0)
			fail_msg("preset %s: %s", preset, pq_diag_msg(&d));
		pq_exp_eff_from_link(&e, &lc);
		pq_rdb_cell *c = &out.c[out.n++];
		for (int k = 0; k < PQ_DIM_COUNT; k++)
			if (pq_dims[k].column)
				pq_dims[k].effective(pt, &e, &c->dim[k]);
		c->response_bytes = pt->response_bytes;
		c->quic = pt->quic;
	}
	pq_exp_grid_dispose(&g);
	pq_exp_spec_dispose(&s);
	return out;
}

static int holds(const cells *cs, const pq_study_want *w)
{
	for (size_t i = 0; i < cs->n; i++)
		if (!cs->c[i].quic && pq_study_matches(&cs->c[i], w))
			return 1;
	return 0;
}

/* The first want of st that the cells lack (at each of its RTTs), or -1; *rtt says where. */
static long missing(const pq_study *st, const cells *cs, long long *rtt)
{
	for (size_t k = 0; k < st->nwants; k++) {
		pq_study_want w = st->wants[k];
		for (size_t r = 0; r < (st->nrtts ? st->nrtts : 1); r++) {
			if (st->nrtts)
				w.rtt_us = PQ_IS(st->rtts_us[r]);
			*rtt = st->nrtts ? st->rtts_us[r] : -1;
			if (!holds(cs, &w))
				return (long)k;
		}
	}
	return -1;
}

static void every_study_in_its_presets(void **state)
{
	(void)state;
	size_t nstudies = 0;
	for (const pq_study *const *sp = pq_studies; *sp; sp++, nstudies++) {
		const pq_study *st = *sp;
		assert_non_null(st->rows);
		assert_true(st->nwants > 0);
		assert_true(st->name && *st->name && st->source && *st->source);
		char list[256];
		snprintf(list, sizeof list, "%s", st->presets);
		size_t npresets = 0;
		for (char *save = NULL, *name = strtok_r(list, ", ", &save); name; name = strtok_r(NULL, ", ", &save)) {
			cells cs = cells_of(name);
			long long rtt;
			long k = missing(st, &cs, &rtt);
			if (k >= 0)
				fail_msg("study %s: preset %s has no cell for '%s' at %lld us", st->id, name,
					 st->wants[k].what ? st->wants[k].what : "?", rtt);
			free(cs.c);
			npresets++;
		}
		assert_true(npresets > 0);
	}
	assert_int_equal(nstudies, 9);
}

/* The check fails where the cells are not: quick's grid has no MTC chain for Table VI, no
 * 1 MiB response for the blog's payload and no loss for Paquin et al.'s RTTs. */
static void a_grid_without_the_cells_is_told(void **state)
{
	(void)state;
	cells cs = cells_of("quick");
	size_t told = 0;
	for (const pq_study *const *sp = pq_studies; *sp; sp++) {
		const pq_study *st = *sp;
		long long rtt;
		if (!strcmp(st->id, "paper-table6") || !strcmp(st->id, "blog-payload") || !strcmp(st->id, "paquin-loss")) {
			assert_true(missing(st, &cs, &rtt) >= 0);
			told++;
		}
		if (!strcmp(st->id, "blog-certsize"))
			assert_int_equal(missing(st, &cs, &rtt), -1);
	}
	assert_int_equal(told, 3);
	free(cs.c);
}

static void text(pq_rdb_cell *c, enum pq_dim_id k, const char *v)
{
	c->dim[k].kind = PQ_DV_TEXT;
	snprintf(c->dim[k].s, sizeof c->dim[k].s, "%s", v);
}

static void num(pq_rdb_cell *c, enum pq_dim_id k, long long v)
{
	c->dim[k].kind = PQ_DV_INT;
	c->dim[k].i = v;
}

/* A want asks for what it names and nothing else: text by value (mtc "none" and
 * compression "off" where the cell holds none), numbers given as PQ_IS, 0 for any;
 * resumption all or none; padded or natural. */
static void a_want_matches_what_it_asks(void **state)
{
	(void)state;
	pq_rdb_cell c;
	memset(&c, 0, sizeof c);
	text(&c, PQ_D_LEAF, "ml-dsa-44");
	text(&c, PQ_D_GROUP, "X25519");
	num(&c, PQ_D_INTERMEDIATES, 1);
	num(&c, PQ_D_RTT, 50000);
	num(&c, PQ_D_RESUME, 0);
	c.response_bytes = 1024;
	pq_study_want any = {0};
	assert_true(pq_study_matches(&c, &any));
	pq_study_want w = {.leaf = "ML-DSA-44", .mtc = "none", .comp = "off", .inter_n = PQ_IS(1), .rtt_us = PQ_IS(50000),
			   .resumed = PQ_IS(0), .padded = PQ_IS(0), .resp = PQ_IS(1024)};
	assert_true(pq_study_matches(&c, &w));
	pq_study_want v = w;
	v.inter_n = PQ_IS(0); /* 0 intermediates asked: not "any" */
	assert_false(pq_study_matches(&c, &v));
	v = w;
	v.rtt_us = PQ_IS(0);
	assert_false(pq_study_matches(&c, &v));
	v = w;
	v.resumed = PQ_IS(1);
	assert_false(pq_study_matches(&c, &v));
	num(&c, PQ_D_RESUME, 100);
	assert_true(pq_study_matches(&c, &v));
	assert_false(pq_study_matches(&c, &w));
	num(&c, PQ_D_RESUME, 0);
	v = w;
	v.mtc = "landmark";
	assert_false(pq_study_matches(&c, &v));
	text(&c, PQ_D_MTC, "landmark");
	assert_true(pq_study_matches(&c, &v));
	text(&c, PQ_D_MTC, "none");
	v = w;
	v.padded = PQ_IS(1);
	assert_false(pq_study_matches(&c, &v));
	num(&c, PQ_D_PAD, 10240);
	assert_true(pq_study_matches(&c, &v));
	assert_false(pq_study_matches(&c, &w));
	num(&c, PQ_D_PAD, 0);
	v = w;
	v.group = "X25519MLKEM768";
	assert_false(pq_study_matches(&c, &v));
	v = w;
	v.resp = PQ_IS(2048);
	assert_false(pq_study_matches(&c, &v));
}

/* One row per study id; a study's name is what the page's study column shows. */
static void ids_are_unique(void **state)
{
	(void)state;
	for (const pq_study *const *a = pq_studies; *a; a++)
		for (const pq_study *const *b = a + 1; *b; b++)
			assert_string_not_equal((*a)->id, (*b)->id);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_study_in_its_presets),
	    cmocka_unit_test(a_grid_without_the_cells_is_told),
	    cmocka_unit_test(a_want_matches_what_it_asks),
	    cmocka_unit_test(ids_are_unique),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
