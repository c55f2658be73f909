/* report/clients.c: pqtls's client beside Chromium. The two groups of a grid point that
 * differ in `client` only are paired; a Chromium grid point with no pqtls partner is not;
 * the whole first byte's difference is split into Chromium's verification, dispatch and
 * the rest; its network-only first byte is set against pqtls's in round trips, within
 * 0.25 or not, at WAN grid points only; parts not stored are said, not guessed; each
 * client's model takes its own ClientHello; the size sweeps are a line per client and
 * their steps compared; no arm finding is drawn from Chromium's unmeasured round trips;
 * the terminal, the page, the findings and clients.csv show it. */
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
#include "report/clients.h"

/* pqtls (ttfb) and Chromium (its whole first byte) at 50, 70 and 1 ms, and a Chromium
 * grid point alone. */
static const fx_cell cells[] = {
    {"ml-dsa-65", "ml-dsa-65", "X25519MLKEM768", 50000, 0, 11000, 15700, 1, 0, 0, 200, 200},
    {"ml-dsa-65", "ml-dsa-65", "X25519MLKEM768", 50000, 0, 11000, 15700, 1, 0, 0, 270, 270},
    {"ml-dsa-65", "ml-dsa-65", "X25519MLKEM768", 70000, 0, 11000, 15700, 1, 0, 0, 280, 280},
    {"ml-dsa-65", "ml-dsa-65", "X25519MLKEM768", 70000, 0, 11000, 15700, 1, 0, 0, 380, 380},
    {"ml-dsa-65", "ml-dsa-65", "X25519MLKEM768", 1000, 0, 11000, 15700, 1, 0, 0, 10, 10},
    {"ml-dsa-65", "ml-dsa-65", "X25519MLKEM768", 1000, 0, 11000, 15700, 1, 0, 0, 60, 60},
    {"ecdsa-p256", "ecdsa-p256", "X25519MLKEM768", 50000, 0, 1000, 3000, 1, 0, 0, 220, 220},
};

/* Chromium at 50 ms: its flight in at 150 ms, verified in 48, the request out at 218, the
 * response's bytes in at 268 + 0.2 ms per connection and its headers at 270 + as much:
 * network-only 200.0 .. 201.4 ms. At 70 ms: network-only 315 ms, 0.5 RTT over pqtls's
 * 280. At 1 ms: no parts stored. */
static const char *const chromium_sql =
    "UPDATE cell SET client = 'chromium' WHERE cell_id IN (2, 4, 6, 7);"
    "UPDATE conn SET min_rtt_us = 0 WHERE cell_id IN (2, 4, 6, 7);" /* its tcp_info is not read */
    "UPDATE conn SET ch1_bytes = 1931, ttfb_us = 270000 + 200 * conn_index, browser_flight_us = 150000, "
    "browser_verify_us = 48000, browser_request_net_us = 218000, browser_ttfb_net_us = 268000 + 200 * conn_index "
    "WHERE cell_id = 2;"
    "UPDATE conn SET ch1_bytes = 1931, browser_flight_us = 210000, browser_verify_us = 48000, "
    "browser_request_net_us = 270000, browser_ttfb_net_us = 375000 WHERE cell_id = 4;"
    "UPDATE conn SET ch1_bytes = 1931, browser_flight_us = 150000, browser_verify_us = 30000, "
    "browser_request_net_us = 190000, browser_ttfb_net_us = 215000 WHERE cell_id = 7";

static void paired(void **state)
{
	(void)state;
	pq_rdb db;
	pq_agg a;
	agg_of(cells, sizeof cells / sizeof cells[0], chromium_sql, &db, &a);
	assert_int_equal(a.npairs, 3); /* ecdsa-p256 has no pqtls grid point */
	const pq_agg_pair *p = &a.pairs[0];
	assert_int_equal(p->pq->cell->rtt_us, 50000);
	assert_false(p->pq->browser);
	assert_true(p->br->browser);
	assert_true(p->has_fb && p->has_net);
	assert_true(fabs(p->fb.diff - 70.7) < 1e-9);
	assert_true(fabs(p->net_ms - 200.7) < 1e-9);
	assert_true(fabs(p->net.diff - 0.7) < 1e-9);
	assert_true(fabs(p->verify_ms - 48) < 1e-9);
	assert_true(fabs(p->dispatch_ms - 20) < 1e-9);
	assert_true(fabs(p->rest_ms - 2.7) < 1e-9);
	assert_true(fabs(p->net_rtts - 0.014) < 1e-9);
	assert_true(p->wan && p->within);
	/* each client's model with its own ClientHello: Chromium's as sent, in one record */
	assert_true(p->pq->has_model && p->br->has_model);
	assert_int_equal(p->br->model_ch, 1936);
	assert_true(p->pq->model_ch > 0 && p->pq->model_ch != 1936);
	p = &a.pairs[1]; /* 70 ms: half a round trip over */
	assert_int_equal(p->pq->cell->rtt_us, 70000);
	assert_true(fabs(p->net.diff - 35) < 1e-9);
	assert_true(fabs(p->net_rtts - 0.5) < 1e-9);
	assert_true(p->wan && !p->within);
	assert_true(fabs(p->dispatch_ms - 12) < 1e-9);
	p = &a.pairs[2]; /* 1 ms: not a WAN point, and no parts stored */
	assert_false(p->wan);
	assert_true(p->has_fb && !p->has_net);
	assert_true(isnan(p->verify_ms) && isnan(p->rest_ms) && isnan(p->net_rtts));
	assert_true(p->br->has_model);
	assert_int_equal(p->br->model_ch, p->pq->model_ch); /* no ClientHello of its own stored */
	char b[200];
	pq_clients_split_text(p, b, sizeof b);
	assert_string_equal(b, "+50.0 ms (its parts not stored)");
	pq_clients_split_text(&a.pairs[0], b, sizeof b);
	assert_string_equal(b, "+70.7 = verification 48.0 + dispatch 20.0 + rest +2.7 ms");
	const pq_agg_pairs_sum *s = &a.pairs_sum;
	assert_int_equal(s->wan, 2);
	assert_int_equal(s->within, 1);
	assert_true(fabs(s->worst_rtts - 0.5) < 1e-9);
	assert_true(s->verify_lo == 48 && s->verify_hi == 48);
	assert_true(s->dispatch_lo == 12 && s->dispatch_hi == 20);
	pq_agg_free(&a);
	pq_rdb_close(&db);
}

/* Without Chromium nothing is paired, and nothing is said. */
static void pqtls_only(void **state)
{
	(void)state;
	pq_rdb db;
	pq_agg a;
	agg_of(cells, 1, NULL, &db, &a);
	assert_int_equal(a.npairs, 0);
	char b[100] = "x";
	pq_clients_summary_text(&a, b, sizeof b);
	assert_string_equal(b, "");
	char *h = page_of(&db, &a), *t = text_of(&a, 0);
	assert_null(strstr(h, "id=\"clients\""));
	assert_null(strstr(t, "beside Chromium"));
	free(h);
	free(t);
	pq_agg_free(&a);
	pq_rdb_close(&db);
}

/* A padded size sweep measured by both clients is two lines, and their steps compared. */
static void lines_per_client(void **state)
{
	(void)state;
	fx_cell sweep[8];
	for (size_t i = 0; i < 8; i++) /* sizes 8, 12, 16, 20 kB; one round trip more past the window */
		sweep[i] = (fx_cell){"padded", "ecdsa-p256", "X25519MLKEM768", 50000, 0, 8000 + 4000 * (long long)(i / 2),
				     10000 + 4000 * (long long)(i / 2), 1, 0, 0, i / 2 >= 2 ? 200 : 150, 0};
	pq_rdb db;
	pq_agg a;
	/* Chromium's network-only first byte is pqtls's (flight + ttfb_net - request), its
	 * whole one 62 ms later: a step of a round trip would hide in neither */
	agg_of(sweep, 8, "UPDATE cell SET client = 'chromium' WHERE cell_id % 2 = 0;"
			 "UPDATE conn SET ch1_bytes = 1931, browser_flight_us = 150000, browser_verify_us = 40000, "
			 "browser_request_net_us = 210000, browser_ttfb_net_us = ttfb_us + 60000, "
			 "ttfb_us = ttfb_us + 62000 WHERE cell_id % 2 = 0",
	       &db, &a);
	size_t mine = 0, br = 0;
	for (size_t i = 0; i < a.nlines; i++) {
		const pq_agg_line *l = &a.lines[i];
		if (l->arm != 0)
			continue;
		mine++;
		br += (size_t)l->browser;
		assert_int_equal(l->n, 4);		/* one client's points only */
		assert_true(fabs(l->fb[0] - 150) < 1e-9); /* Chromium's network-only first byte */
		assert_true(fabs(l->fbw[0] - (l->browser ? 212 : 150)) < 1e-9);
		assert_int_equal(l->nsteps, 1);
	}
	assert_int_equal(mine, 2);
	assert_int_equal(br, 1);
	assert_int_equal(a.pairs_sum.lines_both, 1);
	assert_int_equal(a.pairs_sum.steps_same, 1);
	pq_agg_free(&a);
	pq_rdb_close(&db);
}

/* The terminal, Markdown, the page's section (after the key table, findings first), the
 * findings and clients.csv. */
static void rendered(void **state)
{
	(void)state;
	pq_rdb db;
	pq_agg a;
	agg_of(cells, sizeof cells / sizeof cells[0], chromium_sql, &db, &a);
	char sum[600];
	pq_clients_summary_text(&a, sum, sizeof sum);
	assert_string_equal(sum, "Chromium's network-only first byte is within 0.25 round trips of pqtls's client's at 1 "
				 "of 2 WAN grid points (the largest difference +0.50 round trips); its certificate "
				 "verification took 48.0 to 48.0 ms (medians per grid point) and its request's dispatch "
				 "12.0 to 20.0 ms");
	int found = 0;
	for (size_t i = 0; i < a.findings.n; i++) {
		found |= strcmp(a.findings.f[i].text, sum) == 0 && strcmp(a.findings.f[i].link[0].id, "clients") == 0;
		/* Chromium's ecdsa-p256 is a round trip under its ml-dsa-65 in its whole first
		 * byte, but its round trips are not measured: no arm finding is drawn from it */
		assert_null(strstr(a.findings.f[i].text, "ecdsa-p256"));
	}
	assert_true(found);
	char *t = text_of(&a, 0);
	assert_non_null(strstr(t, "pqtls's client beside Chromium: medians in ms"));
	assert_non_null(strstr(t, "+35.00 [+35.00, +35.00] ms (x1.125 [1.125, 1.125]), +0.50 RTT (over 0.25)"));
	assert_non_null(strstr(t, "+70.7 = verification 48.0 + dispatch 20.0 + rest +2.7 ms"));
	assert_non_null(strstr(t, "(ClientHello "));
	free(t);
	t = text_of(&a, 1);
	assert_non_null(strstr(t, "### pqtls's client beside Chromium"));
	free(t);
	char *h = page_of(&db, &a);
	const char *sec = strstr(h, "<h2 id=\"clients\">");
	assert_non_null(sec);
	assert_true(strstr(h, "id=\"findings\"") < strstr(h, "id=\"key\""));
	assert_true(strstr(h, "id=\"key\"") < sec);
	assert_non_null(strstr(sec, "<td class=\"l bad\">+35.00"));
	assert_non_null(strstr(h, "href=\"#clients\">both clients</a>"));
	free(h);
	char dir[] = "/tmp/pqtls-clients-XXXXXX", path[80], line[1200];
	assert_non_null(mkdtemp(dir));
	pq_diag d = {0};
	assert_int_equal(pq_report_csv(&a, dir, &d), 0);
	snprintf(path, sizeof path, "%s/clients.csv", dir);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t rows = 0;
	while (fgets(line, sizeof line, f))
		if (rows++ == 1)
			assert_non_null(strstr(line, ",0.014,50.000,1,1,48.000,20.000,2.700,"));
	fclose(f);
	assert_int_equal(rows, 4); /* the heading and three pairs */
	const char *names[] = {"key.csv", "agreement.csv", "cdf.csv", "loss.csv", "clients.csv"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
	pq_agg_free(&a);
	pq_rdb_close(&db);
}

/* A warm browser at 70 ms: ecdsa-p256 (classical) verified in 3.7 ms (median), ml-dsa-65
 * in 9.7, ml-dsa-44 as fast as ecdsa-p256; a warm ml-dsa-65 at 50 ms has no classical
 * partner; a cold browser's ml-dsa-87 at 70 ms is paired with pqtls's, not with the warm
 * ones (its state is cold, pqtls's cell has none). Eight connections each, 0.2 ms apart. */
static const fx_cell warm_cells[] = {
    {"ecdsa-p256 warm", "ecdsa-p256", "X25519MLKEM768", 70000, 0, 1000, 3000, 1, 0, 0, 300, 300},
    {"ml-dsa-65 warm", "ml-dsa-65", "X25519MLKEM768", 70000, 0, 11000, 15700, 1, 0, 0, 310, 310},
    {"ml-dsa-44 warm", "ml-dsa-44", "X25519MLKEM768", 70000, 0, 8000, 12000, 1, 0, 0, 305, 305},
    {"ml-dsa-65 warm", "ml-dsa-65", "X25519MLKEM768", 50000, 0, 11000, 15700, 1, 0, 0, 250, 250},
    {"ml-dsa-87", "ml-dsa-87", "X25519MLKEM768", 70000, 0, 15000, 20000, 1, 0, 0, 290, 290},
    {"ml-dsa-87", "ml-dsa-87", "X25519MLKEM768", 70000, 0, 15000, 20000, 1, 0, 0, 380, 380},
};
static const char *const warm_sql =
    "UPDATE cell SET client = 'chromium', browser_state = 'warm' WHERE cell_id IN (1, 2, 3, 4);"
    "UPDATE cell SET client = 'chromium', browser_state = 'cold' WHERE cell_id = 6;"
    "UPDATE conn SET browser_verify_us = 3000 + 200 * conn_index WHERE cell_id IN (1, 3);"
    "UPDATE conn SET browser_verify_us = 9000 + 200 * conn_index WHERE cell_id IN (2, 4, 6);";

static void warm_verification(void **state)
{
	(void)state;
	pq_rdb db;
	pq_agg a;
	agg_of(warm_cells, sizeof warm_cells / sizeof warm_cells[0], warm_sql, &db, &a);
	assert_int_equal(a.npairs, 1); /* the cold browser's ml-dsa-87 beside pqtls's */
	assert_string_equal(a.pairs[0].br->cell->arm, "ml-dsa-87");
	assert_int_equal(a.nwarm, 2);
	const pq_agg_warm *w = &a.warm[0];
	assert_string_equal(w->pq->cell->arm, "ml-dsa-65 warm");
	assert_string_equal(w->cl->cell->arm, "ecdsa-p256 warm");
	assert_true(w->has);
	assert_true(fabs(w->pq_ms - 9.7) < 1e-9 && fabs(w->cl_ms - 3.7) < 1e-9);
	assert_true(fabs(w->verify.diff - 6.0) < 1e-9);
	assert_true(w->verify.diff_lo > 0 && w->verify.diff_lo <= 6.0 && w->verify.diff_hi >= 6.0);
	w = &a.warm[1];
	assert_string_equal(w->pq->cell->arm, "ml-dsa-44 warm");
	assert_true(fabs(w->verify.diff) < 1e-9 && !w->verify.measurable);
	char sum[900];
	pq_clients_warm_text(&a, sum, sizeof sum);
	assert_non_null(strstr(sum, "A warm Chromium's certificate verification (another origin first) at 70 ms: "
				    "ml-dsa-65 warm 9.7 ms against ecdsa-p256 warm's 3.7, +6.0 ["));
	assert_non_null(strstr(sum, ", ml-dsa-44 warm 3.7 ms against ecdsa-p256 warm's 3.7, +0.0 ["));
	int found = 0;
	for (size_t i = 0; i < a.findings.n; i++)
		found |= strcmp(a.findings.f[i].text, sum) == 0 && strcmp(a.findings.f[i].link[0].id, "clients-warm") == 0;
	assert_true(found);
	char *h = page_of(&db, &a);
	const char *sec = strstr(h, "<h3 id=\"clients-warm\">");
	assert_non_null(sec);
	assert_non_null(strstr(sec, "<td class=\"l\">ml-dsa-65 warm</td><td class=\"l\">ecdsa-p256 warm</td><td>70</td>"
				    "<td>9.7</td><td>3.7</td>"));
	free(h);
	pq_agg_free(&a);
	pq_rdb_close(&db);
}

/* No warm classical grid point: nothing to compare, nothing said. */
static void warm_alone(void **state)
{
	(void)state;
	pq_rdb db;
	pq_agg a;
	agg_of(warm_cells + 1, 1, "UPDATE cell SET client = 'chromium', browser_state = 'warm';"
				  "UPDATE conn SET browser_verify_us = 9000;", &db, &a);
	assert_int_equal(a.nwarm, 0);
	char sum[100] = "x";
	pq_clients_warm_text(&a, sum, sizeof sum);
	assert_string_equal(sum, "");
	char *h = page_of(&db, &a);
	assert_null(strstr(h, "clients-warm"));
	free(h);
	pq_agg_free(&a);
	pq_rdb_close(&db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(paired),
	    cmocka_unit_test(pqtls_only),
	    cmocka_unit_test(lines_per_client),
	    cmocka_unit_test(rendered),
	    cmocka_unit_test(warm_verification),
	    cmocka_unit_test(warm_alone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
