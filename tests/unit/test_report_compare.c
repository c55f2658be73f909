/* Two runs side by side (report/compare.h): grid points matched by host and point_key,
 * the bootstrap difference B - A where both hold a point, the points only one holds, and
 * the header's word on the grids; the terminal, Markdown, page and compare.csv show them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
/* cmocka needs the headers above. */
#include <cmocka.h>

#include "testreport.h"
#include "report/compare.h"

/* Run A: three grid points; run B: the first two again, the second 50 ms slower, and a
 * fourth of its own. */
static const fx_cell run_a[] = {
    {"ecdsa-p256", "ecdsa-p256", "X25519", 50000, 0, 1000, 3000, 1, 0, 0, 150, 150},
    {"ml-dsa-65", "ml-dsa-65", "X25519", 50000, 0, 11000, 15700, 1, 0, 0, 200, 200},
    {"ml-dsa-44", "ml-dsa-44", "X25519", 50000, 0, 8000, 11000, 1, 0, 0, 150, 150},
};
static const fx_cell run_b[] = {
    {"ecdsa-p256", "ecdsa-p256", "X25519", 50000, 0, 1000, 3000, 1, 0, 0, 150, 150},
    {"ml-dsa-65", "ml-dsa-65", "X25519", 50000, 0, 11000, 15700, 1, 0, 0, 250, 250},
    {"rsa-2048", "rsa-2048", "X25519", 50000, 0, 2000, 4000, 1, 0, 0, 150, 150},
};

typedef struct two {
	pq_rdb da, db;
	pq_agg a, b;
	pq_compare c;
} two;

static void two_of(two *t, const char *sql_a, const char *sql_b)
{
	agg_of(run_a, 3, sql_a, &t->da, &t->a);
	agg_of(run_b, 3, sql_b, &t->db, &t->b);
	pq_diag d = {0};
	assert_int_equal(pq_compare_build(&t->da, &t->a, "a.db", &t->db, &t->b, "b.db", &t->c, &d), 0);
}

static void two_free(two *t)
{
	pq_compare_free(&t->c);
	pq_agg_free(&t->a);
	pq_agg_free(&t->b);
	pq_rdb_close(&t->da);
	pq_rdb_close(&t->db);
}

static void matched(void **state)
{
	(void)state;
	two t;
	/* the third point of B is another grid point than A's third (its own point_key) */
	two_of(&t, NULL, "UPDATE cell SET point_key = 'p9' WHERE arm = 'rsa-2048'");
	const pq_compare *c = &t.c;
	assert_int_equal(c->shared, 2);
	assert_int_equal(c->only_a, 1);
	assert_int_equal(c->only_b, 1);
	assert_int_equal(c->n, 4);
	assert_int_equal(c->measurable, 1);
	/* ecdsa: the same 8 values in both, no measurable difference */
	assert_string_equal(c->p[0].ga->cell->arm, "ecdsa-p256");
	assert_true(c->p[0].has_diff && !c->p[0].diff.measurable);
	/* ml-dsa-65: B - A = +50 ms, in TTFB */
	assert_int_equal(c->p[1].phase, PQ_AGG_TTFB);
	assert_true(c->p[1].diff.measurable);
	assert_float_equal(c->p[1].diff.diff, 50, 1e-9);
	assert_null(c->p[2].gb);
	assert_string_equal(c->p[2].ga->cell->arm, "ml-dsa-44");
	assert_null(c->p[3].ga);
	assert_string_equal(c->p[3].gb->cell->arm, "rsa-2048");
	/* one grid (the same spec), two runs */
	assert_int_equal(c->same_grid, 1);
	assert_int_equal(c->same_run, 0);
	assert_non_null(strstr(c->grid, "a.db and b.db are runs of one grid (spec hash "));
	assert_non_null(strstr(c->summary, "2 grid points in both: 1 with no measurable difference in TTFB, 1 differs (the "
					   "most: ml-dsa-65, +50.00 ms [+50.00, +50.00]); 1 only in a.db, 1 only in b.db"));
	two_free(&t);
}

/* Another grid is compared where its points meet A's, and the header says so; a copy of
 * one database is named as such. */
static void grids(void **state)
{
	(void)state;
	two t;
	two_of(&t, NULL, "UPDATE run SET spec_hash = 'ffee0011'");
	assert_int_equal(t.c.same_grid, 0);
	assert_non_null(strstr(t.c.grid, "a.db and b.db are of different grids (spec hash "));
	assert_non_null(strstr(t.c.grid, " against ffee0011): only the grid points both hold are compared"));
	two_free(&t);
	two_of(&t, "UPDATE run SET run_uuid = 'u1'", "UPDATE run SET run_uuid = 'u1'");
	assert_int_equal(t.c.same_run, 1);
	assert_non_null(strstr(t.c.grid, "a.db and b.db hold the same run (run_uuid u1): one is a copy of the other"));
	two_free(&t);
}

/* Runs of two grids that differ wholesale in a dimension (every cell of A cubic, every
 * cell of B bbr): it is set aside and said (never within one grid), and the points meet on every other dimension, whatever their
 * point_keys; a dimension with several values in a run is never set aside. */
static void set_aside(void **state)
{
	(void)state;
	two t;
	/* runs of one grid (shards, repeats) are compared point for point: nothing set aside */
	two_of(&t, "UPDATE cell SET cc = 'cubic'", "UPDATE cell SET cc = 'bbr', point_key = point_key || '-bbr'");
	assert_int_equal(t.c.same_grid, 1);
	assert_int_equal(t.c.naside, 0);
	assert_int_equal(t.c.shared, 0);
	two_free(&t);
	two_of(&t, "UPDATE cell SET cc = 'cubic'",
	       "UPDATE run SET spec_hash = 'ffee0011'; UPDATE cell SET cc = 'bbr', point_key = point_key || '-bbr'; "
	       "UPDATE cell SET point_key = 'p9' WHERE arm = 'rsa-2048'");
	assert_int_equal(t.c.naside, 1);
	assert_int_equal(t.c.aside[0], PQ_D_CC);
	assert_string_equal(t.c.aside_text, "CC: cubic in A, bbr in B");
	assert_int_equal(t.c.shared, 2);
	assert_int_equal(t.c.only_a, 1);
	assert_int_equal(t.c.only_b, 1);
	assert_non_null(strstr(t.c.summary, "Set aside, as each run holds one value of it and not the other's (grid points "
					    "are matched on every other dimension): CC: cubic in A, bbr in B. 2 grid points"));
	char label[200];
	pq_compare_label(&t.c, &t.c.p[1], label, sizeof label);
	assert_string_equal(label, "ml-dsa-65"); /* the set-aside cc is said once, not per point */
	two_free(&t);
	/* B holds cubic and bbr: nothing is set aside, points are matched by point_key */
	two_of(&t, "UPDATE cell SET cc = 'cubic'", "UPDATE cell SET cc = 'bbr', point_key = 'p9' WHERE arm = 'rsa-2048'");
	assert_int_equal(t.c.naside, 0);
	assert_string_equal(t.c.aside_text, "");
	assert_int_equal(t.c.shared, 2);
	two_free(&t);
}

/* A difference the hosts' waits can explain is not measurable: B's ml-dsa-65 endpoints
 * waited 55 ms for a CPU in a median connection, more than the +50 ms; at 10 ms the
 * difference stands. Points without a known wait are judged by the bootstrap alone. */
static void waits(void **state)
{
	(void)state;
	two t;
	two_of(&t, NULL, "UPDATE cell SET host_client_wait_p50_us = 30000, host_server_wait_p50_us = 25000 "
			 "WHERE arm = 'ml-dsa-65'");
	const pq_compare_point *p = &t.c.p[1];
	assert_true(p->diff.measurable && p->within_waits && !p->measurable);
	assert_float_equal(p->waits_ms, 55, 1e-9);
	assert_int_equal(t.c.measurable, 0);
	char buf[300];
	pq_compare_verdict(p, buf, sizeof buf);
	assert_string_equal(buf, "within the hosts' waits: +50.00 [+50.00, +50.00] ms, the endpoints waited up to 55.00 ms");
	assert_non_null(strstr(t.c.summary, "with no measurable difference in TTFB at any"));
	two_free(&t);
	two_of(&t, NULL, "UPDATE cell SET host_client_wait_p50_us = 6000, host_server_wait_p50_us = 4000");
	p = &t.c.p[1];
	assert_true(p->measurable && !p->within_waits);
	assert_float_equal(p->waits_ms, 10, 1e-9);
	assert_int_equal(t.c.measurable, 1);
	pq_compare_verdict(p, buf, sizeof buf);
	assert_string_equal(buf, "+50.00 [+50.00, +50.00] ms (x1.250 [1.250, 1.250])");
	two_free(&t);
	two_of(&t, NULL, NULL); /* no wait known */
	assert_true(isnan(t.c.p[1].waits_ms) && t.c.p[1].measurable);
	two_free(&t);
}

/* The terminal, Markdown, the page's section and compare.csv. */
static void rendered(void **state)
{
	(void)state;
	two t;
	two_of(&t, NULL, "UPDATE cell SET point_key = 'p9' WHERE arm = 'rsa-2048'");
	pq_out o;
	pq_out_init(&o, 1 << 20);
	pq_report_compare_text(&o, &t.c, 0);
	const char *x = pq_buf_str(&o.b);
	assert_non_null(strstr(x, "Two runs side by side: A = a.db (spec t, 3 grid points), B = b.db (spec t, 3 grid "
				  "points); bootstrap seed 1.\n"));
	assert_non_null(strstr(x, "\nIn both, 2 grid points: medians in ms with 95 % intervals, and the difference B minus A "
				  "(measurable when its interval excludes 0 and reaches beyond the endpoints' waits for a "
				  "CPU in either run).\n"
				  "grid point  phase  A ms [95% CI]            B ms [95% CI]            B minus A (bootstrap)\n"));
	assert_non_null(strstr(x, "\nml-dsa-65   TTFB   200.00 [200.00, 200.00]  250.00 [250.00, 250.00]  +50.00 [+50.00, "
				  "+50.00] ms (x1.250 [1.250, 1.250])\n"));
	assert_non_null(strstr(x, "\nOnly in A (a.db): 1 grid point.\ngrid point  phase  ms [95% CI]"));
	assert_non_null(strstr(x, "\nOnly in B (b.db): 1 grid point.\ngrid point  phase  ms [95% CI]"));
	pq_buf_reset(&o.b);
	pq_report_compare_text(&o, &t.c, 1);
	x = pq_buf_str(&o.b);
	assert_non_null(strstr(x, "### Two runs side by side: A = a.db"));
	assert_non_null(strstr(x, "| ml-dsa-65 | TTFB | 200.00 \\[200.00, 200.00\\] | 250.00 \\[250.00, 250.00\\] |"));
	pq_out_dispose(&o);
	pq_out_init(&o, 1 << 22);
	pq_report_html(&o, &t.da, &t.a, "a.db", &t.c);
	assert_int_equal(o.err, 0);
	x = pq_buf_str(&o.b);
	assert_non_null(strstr(x, "<h2 id=\"compare\">Two runs side by side</h2><p>A = <code>a.db</code>"));
	assert_true(strstr(x, "id=\"compare\"") < strstr(x, "id=\"key\""));
	assert_non_null(strstr(x, "<td class=\"l bad\">+50.00 [+50.00, +50.00] ms"));
	assert_non_null(strstr(x, "<h3>Only in B (1)</h3>"));
	pq_out_dispose(&o);
	char dir[] = "/tmp/pqtls-cmp-XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	pq_diag d = {0};
	assert_int_equal(pq_report_compare_csv(&t.c, dir, &d), 0);
	snprintf(path, sizeof path, "%s/compare.csv", dir);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char line[600];
	size_t rows = 0, both = 0;
	while (fgets(line, sizeof line, f)) {
		rows++;
		both += strstr(line, ",both,TTFB,8,") != NULL;
		if (strstr(line, "\"ml-dsa-65\""))
			assert_non_null(strstr(line, ",both,TTFB,8,200.000,200.000,200.000,8,250.000,250.000,250.000,50.000,50.000,"
						     "50.000,1\n"));
	}
	fclose(f);
	assert_int_equal(rows, 5); /* the header and four grid points */
	assert_int_equal(both, 2);
	unlink(path);
	rmdir(dir);
	two_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(matched),
	    cmocka_unit_test(grids),
	    cmocka_unit_test(set_aside),
	    cmocka_unit_test(rendered),
	    cmocka_unit_test(waits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
