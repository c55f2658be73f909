/* exp/pctsql.c: the one percentile in SQL. Its two fragments, run by SQLite on value sets
 * of every small size, give pq_stats_quantile's double; both views of the schema are made
 * from them (no percentile SQL of their own); a mark it cannot read or a buffer too small
 * is an error, never a half-written fragment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exp/colsql.h"
#include "exp/pctsql.h"
#include "exp/store.h"
#include "stats/sample.h"

static void fragments(void **state)
{
	(void)state;
	char b[1024];
	int n = pq_pctsql_value("a.ttfb_us 950", b, sizeof b);
	assert_int_equal(n, (int)strlen(b));
	assert_string_equal(b, "CASE WHEN a.ttfb_us_950_m = 0 THEN a.ttfb_us_950_lo ELSE a.ttfb_us_950_lo + "
			       "(a.ttfb_us_950_m / 1000.0) * (a.ttfb_us_950_hi - a.ttfb_us_950_lo) END");
	n = pq_pctsql_parts("ttfb_us r_fb n_fb 500", b, sizeof b);
	assert_int_equal(n, (int)strlen(b));
	assert_non_null(strstr(b, "MAX(CASE WHEN r_fb = (n_fb - 1) * 500 / 1000 + 1 THEN ttfb_us END) AS ttfb_us_500_lo,"));
	assert_non_null(strstr(b, "MAX(CASE WHEN r_fb = (n_fb - 1) * 500 / 1000 + 2 THEN ttfb_us END) AS ttfb_us_500_hi,"));
	assert_non_null(strstr(b, "MAX((n_fb - 1) * 500 % 1000) AS ttfb_us_500_m"));
}

static void bad_marks(void **state)
{
	(void)state;
	char b[1024], small[40];
	static const char *const parts[] = {"", "ttfb_us r_fb n_fb", "ttfb_us r_fb n_fb 1001", "ttfb_us r_fb n_fb 500 x",
					    "ttfb_us; r_fb n_fb 500", "ttfb_us r_fb n_fb p"};
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		assert_int_equal(pq_pctsql_parts(parts[i], b, sizeof b), PQ_EPARSE);
	static const char *const values[] = {"", "a.ttfb_us", "a.ttfb_us 950 1", "a.ttfb_us' 950", "a.ttfb_us -1"};
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
		assert_int_equal(pq_pctsql_value(values[i], b, sizeof b), PQ_EPARSE);
	assert_int_equal(pq_pctsql_value("a.ttfb_us 950", small, sizeof small), PQ_ETOOBIG);
	assert_int_equal(pq_pctsql_parts("ttfb_us r_fb n_fb 500", small, sizeof small), PQ_ETOOBIG);
}

/* The fragments over v(x) for n = 1..12 values (a NULL among them, as a failed phase),
 * against pq_stats_quantile on the same values, exactly. */
static void sql_is_the_percentile(void **state)
{
	(void)state;
	sqlite3 *db;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE v (x INTEGER)", NULL, NULL, NULL), SQLITE_OK);
	static const unsigned ps[] = {0, 250, 500, 950, 999, 1000};
	double xs[12];
	for (size_t n = 1; n <= 12; n++) {
		xs[n - 1] = (double)((n * 7919) % 1000); /* scattered, not sorted */
		char ins[96];
		snprintf(ins, sizeof ins, "INSERT INTO v VALUES (%.0f), (NULL)", xs[n - 1]);
		assert_int_equal(sqlite3_exec(db, ins, NULL, NULL, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_exec(db, "DELETE FROM v WHERE x IS NULL AND rowid <> (SELECT MAX(rowid) FROM v)",
					      NULL, NULL, NULL),
				 SQLITE_OK);
		double sorted[12];
		memcpy(sorted, xs, n * sizeof *xs);
		pq_stats_sort(sorted, n);
		for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
			char args[64], parts[512], value[512], sql[2048];
			snprintf(args, sizeof args, "x r c %u", ps[k]);
			assert_true(pq_pctsql_parts(args, parts, sizeof parts) > 0);
			snprintf(args, sizeof args, "a.x %u", ps[k]);
			assert_true(pq_pctsql_value(args, value, sizeof value) > 0);
			snprintf(sql, sizeof sql,
				 "WITH o AS (SELECT x, ROW_NUMBER() OVER (ORDER BY x NULLS LAST) AS r, COUNT(x) OVER () AS c "
				 "FROM v), a AS (SELECT %s FROM o) SELECT %s FROM a",
				 parts, value);
			sqlite3_stmt *st;
			assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
			assert_int_equal(sqlite3_step(st), SQLITE_ROW);
			double got = sqlite3_column_double(st, 0), want = pq_stats_quantile(sorted, n, ps[k]);
			if (got != want)
				fail_msg("n = %zu, p = %u: SQL %.17g, pq_stats_quantile %.17g", n, ps[k], got, want);
			sqlite3_finalize(st);
		}
	}
	sqlite3_close(db);
}

/* The text of `view` in the schema, up to its closing ';'. */
static char *view_of(const char *schema, const char *view)
{
	char head[64];
	snprintf(head, sizeof head, "CREATE VIEW %s AS", view);
	const char *s = strstr(schema, head), *e = s ? strstr(s, ";\n") : NULL;
	assert_non_null(e);
	return strndup(s, (size_t)(e - s));
}

static void views_use_it(void **state)
{
	(void)state;
	char *schema = pq_cols_schema_sql();
	assert_non_null(schema);
	assert_null(strstr(schema, "@PCT")); /* every mark filled */
	static const char *const views[] = {"cell_stats", "arm_stats"};
	for (size_t i = 0; i < 2; i++) {
		char *v = view_of(schema, views[i]), frag[1024];
		static const char *const ph[] = {"handshake_us r_hs n_hs", "ttfb_us r_fb n_fb", "ttlb_us r_lb n_lb"};
		for (size_t k = 0; k < 3; k++)
			for (unsigned p = 500; p <= 950; p += 450) {
				char args[64];
				snprintf(args, sizeof args, "%s %u", ph[k], p);
				assert_true(pq_pctsql_parts(args, frag, sizeof frag) > 0);
				assert_non_null(strstr(v, frag));
				snprintf(args, sizeof args, "a.%.*s %u", (int)strcspn(ph[k], " "), ph[k], p);
				assert_true(pq_pctsql_value(args, frag, sizeof frag) > 0);
				assert_non_null(strstr(v, frag));
			}
		/* and nothing else interpolates: one CASE per percentile column the view shows */
		size_t cases = 0;
		for (const char *c = v; (c = strstr(c, "_m = 0 THEN")); c++)
			cases++;
		assert_int_equal(cases, i == 0 ? 7 : 6);
		free(v);
	}
	free(schema);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(fragments),
	    cmocka_unit_test(bad_marks),
	    cmocka_unit_test(sql_is_the_percentile),
	    cmocka_unit_test(views_use_it),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
