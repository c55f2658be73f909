/* exp/dim.c: the table of dimensions. Every entry is whole (key, help, apply; a column has
 * an SQL type and an effective()); keys and columns are unique; the cell table holds
 * exactly the table's columns; and every dimension round-trips: spec text -> point ->
 * canonical text (the key changes) -> stored column -> the reader's dim[] (what
 * effective() says). Effective values: a profile's RTT is stored as that RTT, the
 * congestion control as read back (never 'default'), a remote server's path as NULL or
 * 'remote'. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testdb.h"
#include "testdir.h"
#include "teststore.h"
#include "exp/dim.h"
#include "exp/point.h"
#include "exp/rdb.h"

static void entries_whole(void **state)
{
	(void)state;
	for (int i = 0; i < PQ_DIM_COUNT; i++) {
		const pq_dim *k = &pq_dims[i];
		assert_non_null(k->key);
		assert_non_null(k->help);
		assert_non_null(k->def);
		assert_non_null(k->metavar);
		if (k->flags & PQ_DIM_STORED) {
			/* stored, never asked for: no spec key, no point field, no key text */
			assert_int_equal(pq_dim_find(k->key), -1);
			assert_null(k->apply);
			assert_null(k->canon);
			assert_non_null(k->column);
		} else {
			assert_int_equal(pq_dim_find(k->key), i);
		}
		if (!(k->flags & (PQ_DIM_GLOBAL | PQ_DIM_STORED)))
			assert_non_null(k->apply);
		if (k->column) {
			assert_non_null(k->sql);
			assert_non_null(k->effective);
			if (!(k->flags & PQ_DIM_STORED))
				assert_non_null(k->canon);
			assert_non_null(k->label);
			assert_non_null(k->unit);
			assert_int_equal(pq_dim_by_column(k->column), i);
		}
		if (k->type == PQ_DT_CHOICE)
			assert_non_null(k->choices);
	}
	assert_int_equal(pq_dim_find("nope"), -1);
}

static void canon_text(const pq_exp_point *p, char *buf, size_t n)
{
	assert_true(pq_exp_point_text(p, 1, buf, n) > 0);
}

/* "given=N;" says which link keys a spec named at all (not a value): blanked. */
static void unmask_given(char *t)
{
	char *g = strstr(t, ";given=");
	if (g) {
		g += 7;
		memmove(g, g + strcspn(g, ";"), strlen(g + strcspn(g, ";")) + 1);
	}
}

/* A default stated once: every dimension whose default text is a value (not prose such as
 * "the group alone") gives, when a spec sets it, the very cell an empty spec gives, so
 * the point's initial values (pq_exp_point_init) and the table's defaults cannot
 * drift apart. At least 25 keys' defaults are values: the check cannot pass empty. */
static void defaults_agree(void **state)
{
	(void)state;
	pq_exp_grid g0, g;
	char base[2048], text[2048], spec[256];
	ts_grid("", &g0);
	assert_int_equal(g0.n, 1);
	canon_text(&g0.cells[0].p, base, sizeof base);
	unmask_given(base);
	int checked = 0;
	for (int i = 0; i < PQ_DIM_COUNT; i++) {
		const pq_dim *k = &pq_dims[i];
		if (k->flags & (PQ_DIM_STORED | PQ_DIM_GLOBAL))
			continue;
		pq_exp_spec s;
		pq_diag d;
		pq_exp_spec_init(&s);
		snprintf(spec, sizeof spec, "%s = %s\n", k->key, k->def);
		int ok = pq_exp_spec_parse(&s, "t", spec, &d) == 0 && pq_exp_grid_expand(&s, &g, &d) == 0;
		pq_exp_spec_dispose(&s);
		if (!ok)
			continue; /* prose, or a value that needs another key (a browser's state) */
		assert_int_equal(g.n, 1);
		canon_text(&g.cells[0].p, text, sizeof text);
		unmask_given(text);
		if (strcmp(text, base) != 0)
			fail_msg("%s: its default text \"%s\" makes the cell %s, an empty spec %s", k->key, k->def, text, base);
		pq_exp_grid_dispose(&g);
		checked++;
	}
	pq_exp_grid_dispose(&g0);
	assert_true(checked >= 25);
}

static void round_trip(void **state)
{
	(void)state;
	pq_exp_grid g0;
	char base[2048], text[2048], spec[256], buf[64], path[300];
	/* every point has a rate, as a queue needs one */
	ts_grid("rate = 10Mbit\n", &g0);
	canon_text(&g0.cells[0].p, base, sizeof base);
	for (int i = 0; i < PQ_DIM_COUNT; i++) {
		const pq_dim *k = &pq_dims[i];
		if (k->flags & (PQ_DIM_GLOBAL | PQ_DIM_STORED))
			continue; /* stored-only columns are checked below, with every cell's */
		pq_exp_grid g;
		/* the offer must hold the group (X25519MLKEM768 by default), the share the offer */
		const char *v = i == PQ_D_GROUPS || i == PQ_D_KEY_SHARE ? "X25519MLKEM768" : ts_sample(k, buf, sizeof buf);
		/* sct-alg changes a chain only with SCTs (pq_dim_irrelevant): both with two;
		 * the browser's state is the browser's: a cell of client pqtls refuses it */
		const char *with = i == PQ_D_SCT_ALG ? "scts = 2\nrate = 10Mbit\n" : i == PQ_D_RATE ? "" : "rate = 10Mbit\n";
		snprintf(spec, sizeof spec, "%s = %s\n%s%s", k->key, v, with,
			 i == PQ_D_BROWSER_STATE ? "client = chromium\n" : "");
		ts_grid(spec, &g);
		assert_int_equal(g.n, 1);
		canon_text(&g.cells[0].p, text, sizeof text);
		char alone[2048];
		pq_exp_grid ga;
		ts_grid(with, &ga);
		canon_text(&ga.cells[0].p, alone, sizeof alone);
		pq_exp_grid_dispose(&ga);
		if (strcmp(text, i == PQ_D_SCT_ALG ? alone : base) == 0)
			fail_msg("%s: the canonical text does not change with it", k->key);
		if ((k->flags & PQ_DIM_LINK) && strcmp(g.cells[0].link_key, g0.cells[0].link_key) == 0)
			fail_msg("%s: a link dimension, but the link key does not change", k->key);
		if (!(k->flags & PQ_DIM_LINK) && strcmp(g.cells[0].link_key, g0.cells[0].link_key) != 0)
			fail_msg("%s: not a link dimension, but the link key changes", k->key);
		snprintf(path, sizeof path, "%s/rt-%s.db", dir, k->key);
		unlink(path);
		ts_store(path, &g, 2);
		pq_rdb db;
		pq_diag d = {0};
		assert_int_equal(pq_rdb_open(path, &db, &d), 0);
		assert_int_equal(db.ncells, 1);
		pq_exp_eff e;
		ts_eff(&g.cells[0], "cubic", &e);
		for (int j = 0; j < PQ_DIM_COUNT; j++) {
			if (!pq_dims[j].column)
				continue;
			pq_dimval want;
			pq_dims[j].effective(&g.cells[0].p, &e, &want);
			if (!pq_dimval_equal(&db.cells[0].dim[j], &want)) {
				char a[80], b[80];
				pq_dimval_format(&pq_dims[j], &db.cells[0].dim[j], a, sizeof a);
				pq_dimval_format(&pq_dims[j], &want, b, sizeof b);
				fail_msg("%s: column %s read back '%s', stored '%s'", spec, pq_dims[j].column, a, b);
			}
		}
		pq_rdb_close(&db);
		pq_exp_grid_dispose(&g);
	}
	pq_exp_grid_dispose(&g0);
}

/* The cell table's columns are generated from the table, with its SQL types. */
static void schema_columns(void **state)
{
	(void)state;
	char path[300];
	pq_diag d;
	snprintf(path, sizeof path, "%s/schema.db", dir);
	unlink(path);
	assert_int_equal(pq_store_create(path, "t", "h", &d), 0);
	for (int i = 0; i < PQ_DIM_COUNT; i++) {
		if (!pq_dims[i].column)
			continue;
		char sql[400];
		char *want = sqlite3_mprintf("%q", pq_dims[i].sql); /* DEFAULT 'tcp' has quotes */
		snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM pragma_table_info('cell') WHERE name = '%s' AND "
					  "type || CASE WHEN \"notnull\" THEN ' NOT NULL' ELSE '' END || "
					  "CASE WHEN dflt_value IS NULL THEN '' ELSE ' DEFAULT ' || dflt_value END = '%s'",
			 pq_dims[i].column, want);
		sqlite3_free(want);
		if (q(path, sql) != 1)
			fail_msg("cell has no column %s %s", pq_dims[i].column, pq_dims[i].sql);
	}
	assert_int_equal(q(path, "PRAGMA user_version"), PQ_SCHEMA_VERSION);
}

/* The views carry every dimension column, generated from the table: arm_stats and
 * cell_stats under the cell's names, conn_cell too, but a name conn also has (tls_group:
 * what the connection negotiated) as NAME_asked; no view has a name twice. */
static void view_columns(void **state)
{
	(void)state;
	char path[300], sql[400];
	pq_diag d;
	snprintf(path, sizeof path, "%s/views.db", dir);
	unlink(path);
	assert_int_equal(pq_store_create(path, "t", "h", &d), 0);
	static const char *const views[] = {"conn_cell", "cell_stats", "arm_stats"};
	for (size_t v = 0; v < sizeof views / sizeof views[0]; v++) {
		for (int i = 0; i < PQ_DIM_COUNT; i++) {
			const char *col = pq_dims[i].column;
			if (!col)
				continue;
			snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM pragma_table_info('conn') WHERE name = '%s'", col);
			int beside_conn = v == 0 && q(path, sql) == 1;
			snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM pragma_table_info('%s') WHERE name = '%s%s'",
				 views[v], col, beside_conn ? "_asked" : "");
			if (q(path, sql) != 1)
				fail_msg("view %s lacks the dimension column %s", views[v], col);
		}
		snprintf(sql, sizeof sql,
			 "SELECT COUNT(*) - COUNT(DISTINCT name) + SUM(instr(name, ':') > 0) FROM pragma_table_info('%s')",
			 views[v]);
		assert_int_equal(q(path, sql), 0);
	}
	/* conn's own tls_group is still the negotiated one */
	assert_int_equal(q(path, "SELECT COUNT(*) FROM pragma_table_info('conn_cell') WHERE name = 'tls_group'"), 1);
}

/* An asymmetric link (pqtls link --rate-up/--rate-down, --loss-up/--loss-down; the sweep's
 * own keys set both directions alike): each direction's rate and loss is stored in its
 * column, read back by the reader and shown by the views. */
static void asymmetric_link(void **state)
{
	(void)state;
	pq_link_config lc;
	pq_link_config_init(&lc);
	pq_link_config_set_rtt(&lc, 40 * 1000000LL);
	lc.dir[PQ_DIR_C2S].rate_bps = 1000000;
	lc.dir[PQ_DIR_S2C].rate_bps = 20000000;
	lc.dir[PQ_DIR_C2S].loss.p = 0.02;
	lc.dir[PQ_DIR_S2C].loss.p = 0.005;
	pq_exp_eff e;
	pq_exp_eff_from_link(&e, &lc);
	snprintf(e.cc, sizeof e.cc, "cubic");
	pq_exp_grid g;
	ts_grid("rtt = 40ms\nsig = ecdsa-p256\n", &g);
	pq_dimval v;
	pq_dims[PQ_D_RATE].effective(&g.cells[0].p, &e, &v);
	assert_int_equal(v.kind, PQ_DV_INT);
	assert_int_equal(v.i, 20000000);
	pq_dims[PQ_D_RATE_C2S].effective(&g.cells[0].p, &e, &v);
	assert_int_equal(v.i, 1000000);
	pq_dims[PQ_D_LOSS_C2S].effective(&g.cells[0].p, &e, &v);
	assert_int_equal(v.kind, PQ_DV_REAL);
	assert_true(v.f == 2.0);

	char path[300];
	snprintf(path, sizeof path, "%s/asym.db", dir);
	unlink(path);
	ts_store_eff(path, &g, 2, &e);
	pq_exp_grid_dispose(&g);
	pq_rdb db;
	pq_diag d = {0};
	assert_int_equal(pq_rdb_open(path, &db, &d), 0);
	assert_int_equal(db.cells[0].dim[PQ_D_RATE].i, 20000000);
	assert_int_equal(db.cells[0].dim[PQ_D_RATE_C2S].i, 1000000);
	assert_true(db.cells[0].dim[PQ_D_LOSS].f == 0.5);
	assert_true(db.cells[0].dim[PQ_D_LOSS_C2S].f == 2.0);
	pq_rdb_close(&db);
	assert_int_equal(q(path, "SELECT COUNT(*) FROM arm_stats WHERE rate_bps = 20000000 AND c2s_rate_bps = 1000000 "
				 "AND loss_pct = 0.5 AND c2s_loss_pct = 2"),
			 1);
	assert_int_equal(q(path, "SELECT COUNT(*) FROM conn_cell WHERE c2s_rate_bps = 1000000"), 2);

	/* a remote server: neither direction is ours to know */
	pq_exp_eff_remote(&e);
	ts_grid("server = 127.0.0.1:9\n", &g);
	pq_dims[PQ_D_RATE_C2S].effective(&g.cells[0].p, &e, &v);
	assert_int_equal(v.kind, PQ_DV_NULL);
	pq_dims[PQ_D_LOSS_C2S].effective(&g.cells[0].p, &e, &v);
	assert_int_equal(v.kind, PQ_DV_NULL);
	pq_exp_grid_dispose(&g);

	/* stored, not asked for: no spec key, no option */
	pq_exp_spec s;
	pq_exp_spec_init(&s);
	assert_true(pq_exp_spec_parse(&s, "t", "rate-c2s = 1Mbit\n", &d) < 0);
	assert_non_null(strstr(d.msg, "unknown key 'rate-c2s'"));
	assert_null(strstr(d.msg, "loss-c2s"));
	pq_exp_spec_dispose(&s);
}

static void effective_values(void **state)
{
	(void)state;
	char path[300];
	/* the paper's TTFB sweep: a profile sets the RTT; the route sets no cc */
	snprintf(path, sizeof path, "%s/eff.db", dir);
	ts_db(path, "profile = paper-50\nsig = ecdsa-p256\n", 2);
	assert_int_equal(q(path, "SELECT rtt_us FROM cell"), 50000);
	assert_int_equal(q(path, "SELECT COUNT(*) FROM cell WHERE cc = 'cubic' AND link_profile = 'paper-50' AND "
				 "initcwnd_segs = 10 AND mtu_bytes = 1500 AND mss_bytes = 1448"),
			 1);
	assert_int_equal(q(path, "SELECT COUNT(*) FROM cell WHERE cc = 'default' OR cc IS NULL"), 0);
	/* given over the profile, the given value is in force */
	snprintf(path, sizeof path, "%s/eff2.db", dir);
	ts_db(path, "profile = paper-50\nrtt = 20ms\ncc = reno\ninitcwnd = 4\n", 2);
	assert_int_equal(q(path, "SELECT COUNT(*) FROM cell WHERE rtt_us = 20000 AND cc = 'reno' AND "
				 "initcwnd_segs = 4"),
			 1);
	/* the transport, as the cell holds it */
	snprintf(path, sizeof path, "%s/transport.db", dir);
	ts_db(path, "transport = tcp, quic\nsig = ecdsa-p256\n", 2);
	assert_int_equal(q(path, "SELECT COUNT(*) FROM cell WHERE transport = 'tcp'"), 1);
	assert_int_equal(q(path, "SELECT COUNT(*) FROM cell WHERE transport = 'quic'"), 1);
	snprintf(path, sizeof path, "%s/retry.db", dir);
	ts_db(path, "transport = quic-retry\nsig = ecdsa-p256\n", 2);
	assert_int_equal(q(path, "SELECT COUNT(*) FROM cell WHERE transport = 'quic-retry'"), 1);
	/* a remote server: the path is not ours to know */
	snprintf(path, sizeof path, "%s/remote.db", dir);
	ts_db(path, "server = 127.0.0.1:9\ngroup = X25519\n", 2);
	assert_int_equal(q(path, "SELECT COUNT(*) FROM cell WHERE rtt_us IS NULL AND loss_pct IS NULL AND "
				 "mtu_bytes IS NULL AND initcwnd_segs IS NULL AND cc = 'remote' AND chain_leaf = 'remote' "
				 "AND link_profile = 'remote' AND tickets IS NULL AND tls_group = 'X25519'"),
			 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(entries_whole),
		cmocka_unit_test(round_trip),
		cmocka_unit_test(defaults_agree),
		cmocka_unit_test(schema_columns),
		cmocka_unit_test(effective_values),
		cmocka_unit_test(view_columns),
		cmocka_unit_test(asymmetric_link),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
