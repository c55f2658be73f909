/* The key tables' analysis (report/agg.h pq_agg_split, report/pivot.h): what each arm fixes
 * goes to the arms table once, what varies within an arm stays in the key table, and the
 * arms against the one dimension that varies within them (a profile that only follows the
 * RTT is no part of a row); the page links each arm to its row, and a pivot with more
 * values than fit is drawn transposed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* cmocka needs the headers above. */
#include <cmocka.h>

#include "testreport.h"

static int has_dim(const size_t *v, size_t n, size_t d)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == d)
			return 1;
	return 0;
}

/* Three arms at nrtt RTTs (1, 2, ... ms apart from 10 ms), each RTT its own profile. */
static void arms_by_rtt(size_t nrtt, pq_rdb *db, pq_agg *a)
{
	static const char *const leaf[3] = {"ecdsa-p256", "ml-dsa-44", "ml-dsa-65"};
	static const char *const prof[10] = {"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9"};
	fx_cell c[30];
	size_t n = 0;
	for (size_t r = 0; r < nrtt; r++) /* RTTs given in descending order: the pivot sorts them */
		for (size_t k = 0; k < 3; k++)
			c[n++] = (fx_cell){leaf[k], leaf[k], k == 2 ? "X25519" : "X25519MLKEM768",
					   (long long)(10000 * (nrtt - r)), -1, 1000 + 4000 * (long long)k, 3000, 1, 0, 0,
					   20.0 * (double)(nrtt - r) + (double)k, 0, prof[r], NULL};
	agg_of(c, n, NULL, db, a);
}

static void split_and_pivot(void **state)
{
	(void)state;
	pq_rdb db;
	pq_agg a;
	arms_by_rtt(3, &db, &a);
	assert_true(has_dim(a.arm_dims, a.narm_dims, PQ_D_LEAF));
	assert_true(has_dim(a.arm_dims, a.narm_dims, PQ_D_GROUP));
	assert_false(has_dim(a.point_dims, a.npoint_dims, PQ_D_LEAF));
	assert_true(has_dim(a.point_dims, a.npoint_dims, PQ_D_RTT));
	assert_true(has_dim(a.point_dims, a.npoint_dims, PQ_D_PROFILE));
	assert_int_equal(a.npivots, 1);
	const pq_agg_pivot *p = &a.pivots[0];
	assert_int_equal(p->dim, PQ_D_RTT);
	assert_int_equal(p->nvals, 3);
	assert_string_equal(p->val[0], "10 ms");
	assert_string_equal(p->val[2], "30 ms");
	assert_int_equal(p->nrows, 3);
	assert_false(p->transposed);
	/* the profile follows the RTT: not part of the row */
	assert_string_equal(p->row[0], a.arms[p->row_arm[0]]);
	for (size_t r = 0; r < p->nrows; r++)
		for (size_t v = 0; v < p->nvals; v++) {
			assert_non_null(p->g[r][v]);
			assert_int_equal(p->g[r][v]->arm, p->row_arm[r]);
			assert_int_equal(p->g[r][v]->cell->rtt_us, (long long)(10000 * (v + 1)));
		}
	char *h = page_of(&db, &a);
	assert_non_null(strstr(h, "<h3 id=\"arms\">Arms</h3>"));
	assert_non_null(strstr(h, "<tr id=\"arm-0\"><td class=\"l\">ecdsa-p256</td>"));
	assert_non_null(strstr(h, "<a href=\"#arm-2\">ml-dsa-65</a>"));
	assert_non_null(strstr(h, "<table class=\"pivot\">"));
	/* the arms' own parts are no column of the long key table */
	const char *key = strstr(h, "<table class=\"sort key\">");
	assert_non_null(key);
	const char *head_end = strstr(key, "</thead>");
	assert_null(memmem(key, (size_t)(head_end - key), "<th>leaf</th>", 12));
	free(h);
	pq_agg_free(&a);
	pq_rdb_close(&db);
}

static void transposed(void **state)
{
	(void)state;
	pq_rdb db;
	pq_agg a;
	arms_by_rtt(PQ_AGG_PIVOT_COLS + 2, &db, &a);
	assert_int_equal(a.npivots, 1);
	assert_int_equal(a.pivots[0].nvals, PQ_AGG_PIVOT_COLS + 2);
	assert_true(a.pivots[0].transposed);
	pq_agg_free(&a);
	pq_rdb_close(&db);
}

/* One RTT: nothing varies within an arm, no pivot. */
static void no_pivot(void **state)
{
	(void)state;
	pq_rdb db;
	pq_agg a;
	arms_by_rtt(1, &db, &a);
	assert_int_equal(a.npivots, 0);
	assert_int_equal(a.npoint_dims, 0);
	pq_agg_free(&a);
	pq_rdb_close(&db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(split_and_pivot),
	    cmocka_unit_test(transposed),
	    cmocka_unit_test(no_pivot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
