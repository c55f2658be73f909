/* Results databases for unit tests, made by the real store (so pqtls's one schema is the
 * only one): ts_grid expands spec text; ts_eff is what the runner would find in force for
 * a cell on its link (with `cc` as the kernel's read-back); ts_store puts cells with
 * `nconns` successful connections each (phases 1, 2, ... 8 us) into path, ts_db both into
 * a new file. Fixtures that
 * need chosen values then UPDATE the rows. Include after cmocka.h and sqlite3.h. */
#ifndef PQ_TEST_TESTSTORE_H
#define PQ_TEST_TESTSTORE_H

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exp/dim.h"
#include "exp/grid.h"
#include "exp/spec.h"
#include "exp/store.h"

/* A value of the dimension's type that is not its default. */
__attribute__((unused)) static const char *ts_sample(const pq_dim *k, char *buf, size_t n)
{
	switch (k->type) {
	case PQ_DT_INT:
	case PQ_DT_DOUBLE:
		snprintf(buf, n, "%lld", k->min + 1 == atoll(k->def) ? k->min : k->min + 1);
		return buf;
	case PQ_DT_SIZE:
		return "4KiB";
	case PQ_DT_DUR:
		return "7ms";
	case PQ_DT_FRAC:
		return "3%";
	case PQ_DT_RATE:
		return "5Mbit";
	case PQ_DT_CHOICE: {
		const char *bar = strrchr(k->choices, '|');
		snprintf(buf, n, "%s", bar ? bar + 1 : k->choices);
		return buf;
	}
	case PQ_DT_ALG:
		return "ecdsa-p256";
	case PQ_DT_RESP:
		return "4KiB";
	case PQ_DT_PROFILE:
		return "paper-50";
	case PQ_DT_STR:
		return "X25519";
	case PQ_DT_GROUPS: /* a server's list must take the group (X25519MLKEM768 by default) */
		return strchr(k->choices, '/') ? "X25519MLKEM768/X25519" : "X25519";
	}
	return "?";
}

__attribute__((unused)) static void ts_grid(const char *text, pq_exp_grid *g)
{
	pq_exp_spec s;
	pq_diag d;
	pq_exp_spec_init(&s);
	assert_int_equal(pq_exp_spec_parse(&s, "t", text, &d), 0);
	assert_int_equal(pq_exp_grid_expand(&s, g, &d), 0);
	pq_exp_spec_dispose(&s);
}

__attribute__((unused)) static void ts_eff(const pq_exp_cell *c, const char *ns_cc, pq_exp_eff *e)
{
	pq_link_config lc;
	pq_diag d;
	assert_int_equal(pq_exp_point_link(&c->p, 1, "t", &lc, &d), 0);
	if (c->p.remote) {
		pq_exp_eff_remote(e);
	} else {
		pq_exp_eff_from_link(e, &lc);
		/* as the runner: the route's congestion control, else the namespace's */
		snprintf(e->cc, sizeof e->cc, "%s", pq_cc_name(c->p.cc) ? pq_cc_name(c->p.cc) : ns_cc);
		e->mss = 1448;
	}
	e->client_timeout_ns = pq_exp_point_client_timeout(&c->p, &lc);
}

/* ts_store with every cell's values in force given (e), not what ts_eff finds. */
__attribute__((unused)) static void ts_store_eff(const char *path, const pq_exp_grid *g, size_t nconns,
						 const pq_exp_eff *given)
{
	pq_store *st;
	pq_diag d;
	assert_int_equal(pq_store_open(path, "t", g->hash, &st, &d), 0);
	pq_store_run r = {.spec_name = "t", .grid_hash = g->hash, .seed = 1, .shard_index = 1, .shard_count = 1};
	assert_int_equal(pq_store_run_begin(st, &r, &d), 0);
	pq_load_record *recs = calloc(nconns ? nconns : 1, sizeof *recs);
	assert_non_null(recs);
	for (size_t i = 0; i < nconns; i++)
		for (int p = 0; p < PQ_PH_COUNT; p++)
			recs[i].t[p] = 1000 * (p + 1);
	for (size_t i = 0; i < g->n; i++) {
		pq_store_cell_row row;
		pq_exp_eff e;
		pq_store_cell_row_init(&row);
		if (given)
			e = *given;
		else
			ts_eff(&g->cells[i], "cubic", &e);
		assert_int_equal(pq_store_cell(st, &g->cells[i], &e, &row, recs, nconns, &d), 0);
	}
	free(recs);
	assert_int_equal(pq_store_run_end(st, "complete", &d), 0);
	pq_store_close(st);
}

__attribute__((unused)) static void ts_store(const char *path, const pq_exp_grid *g, size_t nconns)
{
	ts_store_eff(path, g, nconns, NULL);
}

/* A new database at path: the grid of spec text, stored by ts_store. */
__attribute__((unused)) static void ts_db(const char *path, const char *spec, size_t nconns)
{
	pq_exp_grid g;
	unlink(path);
	ts_grid(spec, &g);
	ts_store(path, &g, nconns);
	pq_exp_grid_dispose(&g);
}

/* Runs sql on path (a test's own change to a database). */
__attribute__((unused)) static void ts_exec(const char *path, const char *sql)
{
	sqlite3 *db;
	char *err = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
	if (rc != SQLITE_OK)
		fprintf(stderr, "ts_exec: %s: %s\n", sql, err ? err : "?");
	sqlite3_free(err);
	sqlite3_close(db);
	assert_int_equal(rc, SQLITE_OK);
}

#endif
