/* The report's dimensions (report/agg_dim.c, declared in report/agg.h): a stored value as the page words it, and the
 * list of what every cell shares. Each case is a one-cell database (testreport.h) with
 * the column set by SQL: a browser's state that pqtls's client does not have, one that a
 * database from before the column lacks, an OCSP staple's bytes or none, a padded chain's
 * size or its natural one, a rate of 0 (unlimited); and the intermediates a server sent
 * with trust anchor identifiers. */
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
#include "report/agg.h"

static const fx_cell one = {"ecdsa-p256", "ecdsa-p256", "X25519MLKEM768", 50000, 0, 1000, 3000, 1, 0, 0, 160, 160};

/* dimension i of the one cell after `sql`, as the page shows it */
static void shown(const char *sql, size_t i, char *v, size_t n, pq_rdb *db, pq_agg *a)
{
	agg_of(&one, 1, sql, db, a);
	pq_agg_dim_show(&db->cells[0], i, v, n);
}

static void done(pq_rdb *db, pq_agg *a)
{
	pq_agg_free(a);
	pq_rdb_close(db);
}

/* The notes' line of what every cell shares holds `s`. */
static int shared_says(const pq_agg *a, const char *s)
{
	for (size_t i = 0; i < a->nnotes; i++)
		if (strncmp(a->notes[i], "The same in every cell:", 23) == 0)
			return strstr(a->notes[i], s) != NULL;
	fail_msg("no line of what every cell shares");
	return 0;
}

/* pqtls's client has no browser state: "none" in its rows, nothing in the shared line; a
 * browser's cell without one (a database from before the column) is "not known". */
static void browser_state(void **state)
{
	(void)state;
	pq_rdb db;
	pq_agg a;
	char v[32];
	shown("", PQ_D_BROWSER_STATE, v, sizeof v, &db, &a);
	assert_string_equal(v, "none");
	assert_false(shared_says(&a, "browser state"));
	assert_true(shared_says(&a, "client pqtls"));
	done(&db, &a);
	shown("UPDATE cell SET client = 'chromium', browser_state = NULL;", PQ_D_BROWSER_STATE, v, sizeof v, &db, &a);
	assert_string_equal(v, "not known");
	done(&db, &a);
	shown("UPDATE cell SET client = 'chromium', browser_state = 'warm';", PQ_D_BROWSER_STATE, v, sizeof v, &db, &a);
	assert_string_equal(v, "warm");
	assert_true(shared_says(&a, "browser state warm"));
	done(&db, &a);
}

/* The note on cells that did not complete counts them in words that agree with the count. */
static void incomplete(void **state)
{
	(void)state;
	pq_rdb db;
	pq_agg a;
	agg_of(&one, 1, "UPDATE cell SET status = 'failures';", &db, &a);
	int said = 0;
	for (size_t i = 0; i < a.nnotes; i++)
		said |= strcmp(a.notes[i], "1 cell did not complete (status other than ok); 0 grid points have no "
					   "successful connection and show no times.") == 0;
	assert_true(said);
	done(&db, &a);
	agg_of(&one, 1, "", &db, &a);
	for (size_t i = 0; i < a.nnotes; i++)
		assert_null(strstr(a.notes[i], "did not complete"));
	done(&db, &a);
}

/* The staple is stored as its bytes: none without one, never "0 B". */
static void ocsp(void **state)
{
	(void)state;
	pq_rdb db;
	pq_agg a;
	char v[32];
	shown("UPDATE cell SET chain_ocsp_bytes = 0;", PQ_D_OCSP, v, sizeof v, &db, &a);
	assert_string_equal(v, "none");
	assert_true(shared_says(&a, "OCSP none"));
	done(&db, &a);
	shown("UPDATE cell SET chain_ocsp_bytes = 2500;", PQ_D_OCSP, v, sizeof v, &db, &a);
	assert_string_equal(v, "2500 B");
	done(&db, &a);
	shown("UPDATE cell SET chain_ocsp_bytes = NULL;", PQ_D_OCSP, v, sizeof v, &db, &a);
	assert_string_equal(v, "not known");
	done(&db, &a);
}

/* A zero that means a word (the dimension's default text says which) and a padded size. */
static void zero_words(void **state)
{
	(void)state;
	pq_rdb db;
	pq_agg a;
	char v[32];
	shown("UPDATE cell SET rate_bps = 0;", PQ_D_RATE, v, sizeof v, &db, &a);
	assert_string_equal(v, "unlimited");
	done(&db, &a);
	shown("UPDATE cell SET chain_pad_to_bytes = 0;", PQ_D_PAD, v, sizeof v, &db, &a);
	assert_string_equal(v, "natural");
	done(&db, &a);
}

/* With trust anchor identifiers the server sends no intermediate: the flight model's
 * count; without them (or in a database from before the column) the chain's. */
static void sent_intermediates(void **state)
{
	(void)state;
	pq_rdb db;
	pq_agg a;
	agg_of(&one, 1, "UPDATE cell SET chain_tai = 'yes';", &db, &a);
	assert_int_equal(db.cells[0].intermediates, 1);
	assert_int_equal(pq_agg_sent_intermediates(&db.cells[0]), 0);
	done(&db, &a);
	agg_of(&one, 1, "UPDATE cell SET chain_tai = 'no';", &db, &a);
	assert_int_equal(pq_agg_sent_intermediates(&db.cells[0]), 1);
	done(&db, &a);
	agg_of(&one, 1, "UPDATE cell SET chain_tai = NULL;", &db, &a);
	assert_int_equal(pq_agg_sent_intermediates(&db.cells[0]), 1);
	done(&db, &a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(browser_state),
	    cmocka_unit_test(ocsp),
	    cmocka_unit_test(incomplete),
	    cmocka_unit_test(zero_words),
	    cmocka_unit_test(sent_intermediates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
