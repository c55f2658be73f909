/* The report's unit tests' fixture: a results database of the real schema (the store's,
 * teststore.h) with chosen cells, each holding 8 identical successful connections, opened
 * and analysed; and a page or the terminal text of an analysis as a string. Include after
 * cmocka.h and sqlite3.h. */
#ifndef PQ_TEST_TESTREPORT_H
#define PQ_TEST_TESTREPORT_H

#include "teststore.h"
#include "exp/rdb.h"
#include "report/agg.h"
#include "report/html.h"
#include "report/tables.h"

/* A database of the real schema with the given cells, each holding 8 identical
 * successful connections (TTFB `ttfb` ms, TTLB `ttlb` ms, min RTT = the cell's RTT). */
typedef struct fx_cell {
	const char *arm, *leaf, *group;
	long long rtt_us, resp, chain, flight;
	int inter;
	double rate_bps, jitter_us, ttfb, ttlb;
	const char *profile, *mtc; /* NULL: none */
} fx_cell;

__attribute__((unused)) static void make_results(const char *path, const fx_cell *c, size_t n)
{
	char spec[128];
	snprintf(spec, sizeof spec, "rtt = 1ms..%zums step 1ms\nsig = ecdsa-p256\n", n);
	ts_db(path, spec, 8);
	for (size_t i = 0; i < n; i++) {
		char sql[1400];
		snprintf(sql, sizeof sql,
			 "UPDATE cell SET link_profile = '%s', chain_mtc = '%s', chain_intermediate = '%s' WHERE cell_id = %zu;"
			 "UPDATE cell SET point_key = 'p%zu', host_name = 'h', arm = '%s', chain_leaf = '%s', "
			 "tls_group = '%s', link_key = 'l%lld', rtt_us = %lld, response_bytes = %lld, "
			 "chain_der_bytes = %lld, chain_pad_to_bytes = 0, first_flight_bytes = %lld, first_flight_segs = 8, "
			 "chain_intermediates = %d, initcwnd_segs = 10, jitter_us = %g, rate_bps = %g WHERE cell_id = %zu;"
			 "UPDATE conn SET connect_us = %lld, handshake_us = %g, ttfb_us = %g, ttlb_us = %g, "
			 "min_rtt_us = %lld WHERE cell_id = %zu",
			 c[i].profile ? c[i].profile : "", c[i].mtc ? c[i].mtc : "none", c[i].leaf, i + 1,
			 i, c[i].arm, c[i].leaf, c[i].group, c[i].rtt_us, c[i].rtt_us, c[i].resp, c[i].chain,
			 c[i].flight, c[i].inter, c[i].jitter_us, c[i].rate_bps, i + 1, c[i].rtt_us, c[i].ttfb * 500,
			 c[i].ttfb * 1e3, c[i].ttlb * 1e3, c[i].rtt_us, i + 1);
		ts_exec(path, sql);
	}
}

/* A database of cells c (then `sql`, when not NULL, run on it), opened and analysed; the
 * file is removed once open (the reader holds it). */
__attribute__((unused)) static void agg_of(const fx_cell *c, size_t n, const char *sql, pq_rdb *db, pq_agg *a)
{
	char path[] = "/tmp/pqtls-agg-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	make_results(path, c, n);
	if (sql)
		ts_exec(path, sql);
	pq_diag d = {0};
	assert_int_equal(pq_rdb_open(path, db, &d), 0);
	assert_int_equal(pq_agg_build(db, 1, a, &d), 0);
	unlink(path);
}

/* The page of an analysis, or its terminal (md 0) or Markdown (md 1) text; free() it. */
__attribute__((unused)) static char *page_of(const pq_rdb *db, const pq_agg *a)
{
	pq_out o;
	pq_out_init(&o, 1 << 22);
	pq_report_html(&o, db, a, "x.db", NULL);
	assert_int_equal(o.err, 0);
	char *h = strdup(pq_buf_str(&o.b));
	pq_out_dispose(&o);
	assert_non_null(h);
	return h;
}

__attribute__((unused)) static char *text_of(const pq_agg *a, int md)
{
	pq_out o;
	pq_out_init(&o, 1 << 22);
	pq_report_key_text(&o, a, md);
	assert_int_equal(o.err, 0);
	char *t = strdup(pq_buf_str(&o.b));
	pq_out_dispose(&o);
	assert_non_null(t);
	return t;
}

#endif
