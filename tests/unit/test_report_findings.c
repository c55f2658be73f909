/* The findings the report opens with (report/findings.h), from a made-up database of the
 * quick preset's shape at 1, 70 and 148 ms: each sentence holds only where its evidence
 * says so (a bootstrap interval that excludes 0 and the flight model's whole round
 * trips), none at the CPU-bound 1 ms, and each links to anchors the page has. */
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
#include "report/findings.h"

static const char *const quickish_sql =
    "UPDATE cell SET resume_pct = 100, warmup_conns = 1 WHERE arm LIKE 'ml-dsa-65 %';"
    "UPDATE cell SET early_data = 1 WHERE arm = 'ml-dsa-65 0-RTT';"
    "UPDATE conn SET handshake_us = ttfb_us - (SELECT rtt_us FROM cell WHERE cell.cell_id = conn.cell_id) "
    "WHERE cell_id IN (SELECT cell_id FROM cell WHERE early_data = 0);"
    "UPDATE conn SET handshake_us = ttfb_us WHERE cell_id IN (SELECT cell_id FROM cell WHERE early_data = 1)";

/* An arm at 1, 70 and 148 ms: TTFB ms at each (the handshake one round trip less; 0-RTT:
 * the same). */
typedef struct arm_row {
	const char *arm, *leaf;
	int inter;
	long long chain, flight;
	double t[3];
} arm_row;

static const arm_row quickish[] = {
    {"ecdsa-p256", "ecdsa-p256", 1, 753, 3500, {8.0, 210.5, 444.5}},
    /* a whole round trip more at 70 and 148 ms, as the model says; CPU time at 1 ms */
    {"ml-dsa-65", "ml-dsa-65", 1, 11003, 15705, {14.0, 280.5, 592.5}},
    /* the same round trips: no measurable difference anywhere */
    {"ml-dsa-44", "ml-dsa-44", 1, 7945, 11000, {8.0, 210.5, 444.5}},
    /* measurable, a few ms: signing time, not a round trip */
    {"ml-dsa-65-leaf-only", "ml-dsa-65", 0, 5500, 8000, {10.0, 214.5, 448.5}},
    /* a round trip more the model does not predict: it disagrees, so nothing is said */
    {"rsa-2048", "rsa-2048", 1, 1900, 4500, {8.0, 280.5, 592.5}},
    {"ml-dsa-65 resumed", "ml-dsa-65", 1, 11003, 15705, {6.0, 210.5, 444.5}},
    {"ml-dsa-65 0-RTT", "ml-dsa-65", 1, 11003, 15705, {4.0, 140.5, 296.5}},
};
#define NARMS (sizeof quickish / sizeof quickish[0])

/* The database of the first n arms, analysed. */
static void quickish_agg(size_t n, pq_rdb *db, pq_agg *a)
{
	static const long long rtt[3] = {1000, 70000, 148000};
	fx_cell c[3 * NARMS];
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < 3; k++) {
			const arm_row *r = &quickish[i];
			c[3 * i + k] = (fx_cell){r->arm, r->leaf, "X25519MLKEM768", rtt[k], -1, r->chain, r->flight, r->inter,
						 0, 0, r->t[k], r->t[k], NULL, NULL};
		}
	agg_of(c, 3 * n, quickish_sql, db, a);
}


/* The finding whose text holds `s`, or NULL. */
static const pq_finding *finding(const pq_agg *a, const char *s)
{
	for (size_t i = 0; i < a->findings.n; i++)
		if (strstr(a->findings.f[i].text, s))
			return &a->findings.f[i];
	return NULL;
}

static void sentences(void **state)
{
	(void)state;
	pq_rdb db;
	pq_agg a;
	quickish_agg(NARMS, &db, &a);
	const pq_finding *f = finding(&a, "An ml-dsa-65 leaf + 1 intermediate chain (15.7 kB first flight) costs one more "
					  "round trip at 70 and 148 ms (+70.0 ms, +148.0 ms TTFB against ecdsa-p256), as the "
					  "flight model predicts: its first flight (");
	assert_non_null(f);
	assert_non_null(strstr(f->text, " segments) is past the initial window of 10 segments"));
	assert_string_equal(f->link[0].id, "key-g4"); /* ml-dsa-65 at 70 ms */
	assert_string_equal(f->link[0].label, "key table, 70 ms");
	assert_string_equal(f->link[1].id, "key-g5");
	/* the resumed arm after it, then 0-RTT */
	assert_true(finding(&a, "Resumption removes that cost: ml-dsa-65 resumed takes as many round trips as ecdsa-p256 "
				"at 70 and 148 ms (no measurable difference at either)") == f + 1);
	assert_non_null(finding(&a, "0-RTT (ml-dsa-65 0-RTT) brings the first byte one round trip sooner at 70 and 148 ms "
				    "(-70.0 ms, -148.0 ms TTFB against ecdsa-p256)"));
	/* one sentence groups the arms with no measurable difference */
	assert_non_null(finding(&a, "No measurable difference in TTFB from ecdsa-p256 at any RTT measured for ml-dsa-44 "
				    "(each bootstrap interval contains 0)"));
	/* 1 ms is CPU-bound: the 6 ms there are no round trip */
	assert_null(finding(&a, "at 1,"));
	assert_null(finding(&a, "at 1 ms"));
	/* a few measurable ms are no finding; a round trip the model does not predict neither */
	assert_null(finding(&a, "leaf-only"));
	assert_null(finding(&a, "rsa-2048"));
	assert_non_null(finding(&a, "The flight model agrees with 12 of 21 grid points; the other 9: CPU time ~ RTT (7), "
				    "unexplained (2)"));
	/* the blog's rows, counted by verdict, the differing ones linked */
	f = finding(&a, "The blog (seeds/000) ");
	assert_non_null(f);
	assert_non_null(strstr(f->text, " rows here"));
	assert_string_equal(f->link[f->nlinks - 1].id, "studies");
	pq_agg_free(&a);
	pq_rdb_close(&db);
}

/* Two key exchanges per arm (blog-certsize's shape): the finding names each RTT once and
 * says it holds with each group, not "at 70, 148, 70 and 148 ms". */
static void two_groups(void **state)
{
	(void)state;
	static const long long rtt[3] = {1000, 70000, 148000};
	static const char *const groups[2] = {"X25519MLKEM768", "X25519"};
	fx_cell c[12];
	size_t n = 0;
	for (size_t i = 0; i < 2; i++) /* ecdsa-p256 and ml-dsa-65 of the quick shape */
		for (size_t gi = 0; gi < 2; gi++)
			for (size_t k = 0; k < 3; k++) {
				const arm_row *r = &quickish[i];
				c[n++] = (fx_cell){r->arm, r->leaf, groups[gi], rtt[k], -1, r->chain, r->flight, r->inter,
						   0, 0, r->t[k], r->t[k], NULL, NULL};
			}
	pq_rdb db;
	pq_agg a;
	agg_of(c, n, quickish_sql, &db, &a);
	const pq_finding *f = finding(&a, "costs one more round trip at 70 and 148 ms, with each group (+70.0 ms, "
					  "+148.0 ms, +70.0 ms, +148.0 ms TTFB against ecdsa-p256)");
	if (!f)
		fail_msg("no such finding; the first: %s", a.findings.n ? a.findings.f[0].text : "(none)");
	assert_null(finding(&a, "70, 148"));
	pq_agg_free(&a);
	pq_rdb_close(&db);
}

/* Over QUIC the round trips a chain costs are QUIC's amplification budget's, not TCP's
 * initial window: the finding says so and counts no TCP segments. ML-DSA-87's 21.2 kB
 * flight also outgrows OpenSSL's 16 kB CRYPTO buffer: its flight takes three round trips,
 * four to the first byte, one more than TCP's ECDSA with its connect. */
static void quic_words(void **state)
{
	(void)state;
	static const long long rtt[2] = {70000, 148000};
	fx_cell c[4];
	for (size_t k = 0; k < 2; k++) {
		c[k] = (fx_cell){"ecdsa-p256", "ecdsa-p256", "X25519MLKEM768", rtt[k], -1, 753, 3500, 1,
				 0, 0, 3.0 * (double)rtt[k] / 1e3 + 0.5, 3.0 * (double)rtt[k] / 1e3 + 0.5, NULL, NULL};
		c[2 + k] = (fx_cell){"QUIC ml-dsa-87", "ml-dsa-87", "X25519MLKEM768", rtt[k], -1, 15183, 21203, 1,
				     0, 0, 4.0 * (double)rtt[k] / 1e3 + 0.5, 4.0 * (double)rtt[k] / 1e3 + 0.5, NULL, NULL};
	}
	pq_rdb db;
	pq_agg a;
	agg_of(c, 4,
	       "UPDATE cell SET transport = 'quic' WHERE arm = 'QUIC ml-dsa-87';"
	       "UPDATE conn SET handshake_us = ttfb_us - (SELECT rtt_us FROM cell WHERE cell.cell_id = conn.cell_id)",
	       &db, &a);
	const pq_finding *f = finding(&a, "QUIC ml-dsa-87 costs one more round trip at 70 and 148 ms");
	if (!f)
		fail_msg("no such finding; the first: %s", a.findings.n ? a.findings.f[0].text : "(none)");
	assert_non_null(strstr(f->text, ": over QUIC its first flight takes 3 round trips, past the server's budget of "
					"3x the client's Initial bytes"));
	assert_null(strstr(f->text, "segments"));
	pq_agg_free(&a);
	pq_rdb_close(&db);
}

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The page opens with the findings, right after its title, and every link of theirs is an
 * anchor of the page; the terminal and Markdown print them before the key table. */
static void rendered(void **state)
{
	(void)state;
	pq_rdb db;
	pq_agg a;
	quickish_agg(NARMS, &db, &a);
	char *h = page_of(&db, &a), *t = text_of(&a, 0), *m = text_of(&a, 1);
	const char *s = strstr(h, "</h1><section id=\"findings\"><h2>Findings</h2><ul class=\"findings\"><li>An ml-dsa-65 leaf");
	assert_non_null(s);
	assert_true(s < strstr(h, "id=\"key\""));
	size_t links = 0;
	for (size_t i = 0; i < a.findings.n; i++)
		for (size_t k = 0; k < a.findings.f[i].nlinks; k++) {
			char want[64];
			snprintf(want, sizeof want, "id=\"%s\"", a.findings.f[i].link[k].id);
			if (!strstr(h, want))
				fail_msg("finding %zu links to #%s, which the page does not have", i, a.findings.f[i].link[k].id);
			links++;
		}
	assert_true(links >= a.findings.n);
	assert_non_null(strstr(h, "<tr id=\"key-g4\"><td class=\"l\"><a href=\"#arm-1\">ml-dsa-65</a></td>"));
	assert_non_null(strstr(h, "<tr id=\"study-1\">"));
	assert_true(starts(t, "Findings (generated from the analysis below"));
	assert_non_null(strstr(t, "\n- An ml-dsa-65 leaf + 1 intermediate chain (15.7 kB first flight) costs one more"));
	assert_true(strstr(t, "\n- The flight model agrees") < strstr(t, "host h: one row per grid point"));
	assert_true(starts(m, "### Findings\n\n- An ml-dsa-65 leaf"));
	assert_non_null(strstr(m, "CPU time \\~ RTT")); /* escaped for Markdown like every cell */
	free(h);
	free(t);
	free(m);
	pq_agg_free(&a);
	pq_rdb_close(&db);
}

/* No baseline difference at all (one arm): no arm sentence, and the model's count still. */
static void one_arm(void **state)
{
	(void)state;
	pq_rdb db;
	pq_agg a;
	quickish_agg(1, &db, &a);
	assert_null(finding(&a, "round trip more"));
	assert_null(finding(&a, "No measurable difference"));
	assert_non_null(finding(&a, "The flight model agrees with 2 of 3 grid points; the other 1: CPU time ~ RTT (1)"));
	assert_int_equal(a.findings.more, 0);
	pq_agg_free(&a);
	pq_rdb_close(&db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(sentences),
	    cmocka_unit_test(two_groups),
	    cmocka_unit_test(quic_words),
	    cmocka_unit_test(rendered),
	    cmocka_unit_test(one_arm),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
