/* exp/runner.c without root: a sweep against a "remote" server that is an in-process
 * pq_server on loopback. Every cell stored with its connections; a second run skips
 * them all (resume); with nothing listening, every connection is a row with its error
 * kind, the cells are stored as failed, and the sweep still ends normally. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "testdb.h"
#include "testdir.h"
#include "core/clock.h"
#include "exp/runner.h"
#include "server/server.h"

/* Runs "server = addr" with two groups x 2 trials x 3 connections into path. */
static void sweep(const char *addr, const char *ca, const char *path, pq_exp_run_summary *sum)
{
	char text[512];
	pq_exp_spec s;
	pq_exp_grid g;
	pq_exp_chains none = {0};
	pq_store *st;
	pq_diag d;
	snprintf(text, sizeof text,
		 "server = %s\nca = %s\ngroup = X25519, X25519MLKEM768\ntrials = 2\nconnections = 3\ntimeout = 2s\n",
		 addr, ca);
	pq_exp_spec_init(&s);
	assert_int_equal(pq_exp_spec_parse(&s, "r.spec", text, &d), 0);
	assert_int_equal(pq_exp_grid_expand(&s, &g, &d), 0);
	pq_exp_grid_order(&g);
	assert_int_equal(pq_store_open(path, s.name, g.hash, &st, &d), 0);
	pq_store_run r = {.spec_name = s.name, .grid_hash = g.hash, .remote = g.server, .seed = g.seed,
			  .shard_index = 1, .shard_count = 1, .cells_planned = g.n};
	assert_int_equal(pq_store_run_begin(st, &r, &d), 0);
	volatile sig_atomic_t stop = 0;
	pq_exp_run_opts o = {.stop = &stop, .test_server_fault_cell = -1};
	if (pq_exp_run(&g, &none, st, &o, sum, &d) < 0)
		fail_msg("%s", pq_diag_msg(&d));
	assert_int_equal(pq_store_run_end(st, "complete", &d), 0);
	pq_store_close(st);
	pq_exp_grid_dispose(&g);
	pq_exp_spec_dispose(&s);
}

static void remote_server_cells_and_resume(void **state)
{
	(void)state;
	pq_chain_spec cs;
	pq_chain_info info;
	pq_diag d;
	char ca[600], path[128];
	pq_chain_spec_init(&cs);
	cs.root = cs.inter = cs.leaf = pq_alg_find("ecdsa-p256");
	assert_true(pq_chain_cached(&cs, dir, &info, &d) >= 0);
	snprintf(ca, sizeof ca, "%s/root.pem", info.dir);
	pq_server_config sc = {.listen = "127.0.0.1:0", .threads = 1, .max_conns = 64,
			       .handshake_timeout_ns = 5 * PQ_NS_PER_S, .idle_timeout_ns = 5 * PQ_NS_PER_S,
			       .tls = {.role = PQ_TLS_SERVER, .certs_dir = info.dir, .groups = "X25519MLKEM768:X25519",
				       .tickets = 2}};
	pq_server *srv;
	assert_int_equal(pq_server_new(&sc, &srv, &d), 0);
	assert_int_equal(pq_server_start(srv, &d), 0);
	snprintf(path, sizeof path, "%s/r.db", dir);
	pq_exp_run_summary sum;
	sweep(pq_server_address(srv), ca, path, &sum);
	assert_int_equal(sum.cells_run, 4);
	assert_int_equal(sum.conns, 12);
	assert_int_equal(sum.conn_failures, 0);
	assert_int_equal(q(path, "SELECT COUNT(*) FROM conn WHERE error_kind = 'ok' AND ttfb_us > 0"), 12);
	assert_int_equal(q(path, "SELECT COUNT(DISTINCT tls_group) FROM conn"), 2);
	assert_int_equal(q(path, "SELECT COUNT(*) FROM cell WHERE host_runq_before >= 0 AND client_cpu_us >= 0"), 4);
	/* resume: everything is there already */
	sweep(pq_server_address(srv), ca, path, &sum);
	assert_int_equal(sum.cells_run, 0);
	assert_int_equal(sum.cells_skipped, 4);
	assert_int_equal(q(path, "SELECT COUNT(*) FROM conn"), 12);
	pq_server_stop(srv);
	pq_server_wait(srv);
	pq_server_free(srv);
}

static void nothing_listening_is_data(void **state)
{
	(void)state;
	char path[128];
	pq_exp_run_summary sum;
	snprintf(path, sizeof path, "%s/dead.db", dir);
	/* port 9 on loopback: nothing listens (discard is not run here) */
	sweep("127.0.0.1:9", "insecure", path, &sum);
	assert_int_equal(sum.cells_run, 4);
	assert_int_equal(sum.cells_failed, 4);
	assert_int_equal(q(path, "SELECT COUNT(*) FROM conn WHERE error_kind = 'refused'"), sum.conns);
	assert_true(sum.conns >= 4); /* the load stops early when its first connections all fail */
	assert_int_equal(q(path, "SELECT COUNT(*) FROM cell WHERE status = 'failed' AND failure_reason LIKE '%refused%'"), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(remote_server_cells_and_resume),
		cmocka_unit_test(nothing_listening_is_data),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
