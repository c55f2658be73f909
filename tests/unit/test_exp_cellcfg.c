/* exp/cellcfg.c: the one builder of the endpoints' configurations. Each dimension's
 * PQ_DIM_SERVER / PQ_DIM_CLIENT flag is true both ways: set to another value, a flagged
 * dimension changes that configuration and an unflagged one does not (the link's may
 * lengthen both timeouts); every dimension reaches something. The defaults bench and
 * serve get from the builder are the cell's; the warm-up rule; a key exchange that cannot
 * be offered is refused by its key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "teststore.h"
#include "core/clock.h"
#include "exp/cellcfg.h"

/* Every field the builder sets, as text. */
static void server_text(const pq_server_config *s, char *buf, size_t n)
{
	snprintf(buf, n, "threads=%d max=%d hs=%lld idle=%lld one=%d close=%d retry=%d quic=%d groups=%s comp=%s "
			 "tickets=%d early=%u",
		 s->threads, s->max_conns, (long long)s->handshake_timeout_ns, (long long)s->idle_timeout_ns,
		 s->flight_one_write, s->close_each, s->quic_retry, s->tls.quic, s->tls.groups, s->tls.cert_comp,
		 s->tls.tickets, (unsigned)s->tls.max_early_data);
}

static void client_text(const pq_exp_cfg *c, char *buf, size_t n)
{
	const pq_load_config *l = &c->load;
	snprintf(buf, n, "quic=%d groups=%s comp=%s ocsp=%d cap=%llu n=%lld thr=%d c=%d rate=%g poisson=%d inflight=%d "
			 "req=%d path=%s resume=%g warmup=%lld timeout=%lld early=%d browser=%d state=%d",
		 l->tls.quic, l->tls.groups, l->tls.cert_comp, l->tls.ocsp, (unsigned long long)l->tls.max_cert_list,
		 l->connections, l->threads, l->concurrency, l->rate, l->poisson, l->max_inflight,
		 l->requests_per_conn, l->path, l->resume, l->warmup, (long long)l->timeout_ns, l->early_data,
		 c->browser, c->browser_state);
}

/* The configurations of the one cell of spec text, on its link. */
static void built(const char *spec, char *srv, char *cli, size_t n)
{
	pq_exp_grid g;
	pq_link_config lc;
	pq_exp_cfg c;
	pq_diag d;
	ts_grid(spec, &g);
	assert_int_equal(g.n, 1);
	assert_int_equal(pq_exp_point_link(&g.cells[0].p, 1, "t", &lc, &d), 0);
	if (pq_exp_cfg_build(&g.cells[0].p, &lc, &c, &d) < 0)
		fail_msg("%s: %s", spec, pq_diag_msg(&d));
	server_text(&c.server, srv, n);
	client_text(&c, cli, n);
	pq_exp_grid_dispose(&g);
}

static void flags_hold(void **state)
{
	(void)state;
	char s0[512], c0[512], s1[512], c1[512], buf[64], spec[256];
	int server = 0, client = 0;
	for (int i = 0; i < PQ_DIM_COUNT; i++) {
		const pq_dim *k = &pq_dims[i];
		if (k->flags & (PQ_DIM_GLOBAL | PQ_DIM_STORED))
			continue;
		if (!(k->flags & (PQ_DIM_LINK | PQ_DIM_KERNEL | PQ_DIM_CHAIN | PQ_DIM_SERVER | PQ_DIM_CLIENT)))
			fail_msg("%s reaches no link, chain, server or client", k->key);
		/* values a point takes alone: the offer holds the group and the shares */
		const char *v = ts_sample(k, buf, sizeof buf), *with = "";
		if (i == PQ_D_GROUPS)
			v = "X25519MLKEM768:X25519";
		if (i == PQ_D_KEY_SHARE)
			v = "X25519MLKEM768:X25519", with = "groups = X25519MLKEM768:X25519\n";
		if (i == PQ_D_SCT_ALG)
			with = "scts = 2\n";
		if (i == PQ_D_BROWSER_STATE)
			with = "client = chromium\n";
		if (i == PQ_D_QUEUE)
			with = "rate = 10Mbit\n";
		built(with, s0, c0, sizeof s0);
		snprintf(spec, sizeof spec, "%s = %s\n%s", k->key, v, with);
		built(spec, s1, c1, sizeof s1);
		int sd = strcmp(s0, s1) != 0, cd = strcmp(c0, c1) != 0;
		int link = (k->flags & PQ_DIM_LINK) != 0; /* its RTT and loss lengthen the timeouts */
		if ((k->flags & PQ_DIM_SERVER) && !sd)
			fail_msg("%s = %s: flagged for the server, but its configuration stays %s", k->key, v, s0);
		if (!(k->flags & PQ_DIM_SERVER) && sd && !link)
			fail_msg("%s = %s: not flagged for the server, but its configuration changes:\n%s\n%s", k->key, v,
				 s0, s1);
		if ((k->flags & PQ_DIM_CLIENT) && !cd)
			fail_msg("%s = %s: flagged for the client, but its configuration stays %s", k->key, v, c0);
		if (!(k->flags & PQ_DIM_CLIENT) && cd && !link)
			fail_msg("%s = %s: not flagged for the client, but its configuration changes:\n%s\n%s", k->key, v,
				 c0, c1);
		server += (k->flags & PQ_DIM_SERVER) != 0;
		client += (k->flags & PQ_DIM_CLIENT) != 0;
	}
	/* the check cannot pass empty */
	assert_true(server >= 8);
	assert_true(client >= 14);
}

/* What bench and serve get without a link: a cell's defaults. */
static void defaults(void **state)
{
	(void)state;
	pq_exp_point p;
	pq_exp_cfg c;
	pq_diag d;
	pq_exp_point_init(&p);
	assert_int_equal(pq_exp_cfg_build(&p, NULL, &c, &d), 0);
	assert_int_equal(c.load.max_inflight, PQ_LOAD_MAX_INFLIGHT);
	assert_int_equal(c.load.poisson, 1);
	assert_int_equal(c.load.timeout_ns, PQ_EXP_CLIENT_TIMEOUT_S * PQ_NS_PER_S);
	assert_int_equal(c.server.handshake_timeout_ns, 2 * PQ_EXP_CLIENT_TIMEOUT_S * PQ_NS_PER_S);
	assert_int_equal(c.server.max_conns, PQ_SERVER_MAX_CONNS);
	assert_int_equal(c.server.tls.tickets, 2);
	assert_int_equal(c.server.tls.max_early_data, 0);
	assert_ptr_equal(c.load.tls.groups, c.offer);
	assert_string_equal(c.load.path, "/");
	assert_int_equal(c.load.requests_per_conn, 1);
	p.early_data = 1;
	p.path[0] = '\0';
	assert_int_equal(pq_exp_cfg_build(&p, NULL, &c, &d), 0);
	assert_int_equal(c.server.tls.max_early_data, PQ_EXP_CFG_EARLY_DATA_BYTES);
	assert_int_equal(c.load.requests_per_conn, 0);
}

static void warmup_rule(void **state)
{
	(void)state;
	pq_exp_point p;
	pq_exp_point_init(&p);
	p.concurrency = 3;
	assert_int_equal(pq_exp_cfg_warmup(&p), 0);
	p.resume = 0.5; /* a ticket for each connection offered one */
	assert_int_equal(pq_exp_cfg_warmup(&p), 3);
	p.warmup = 1; /* the one given */
	assert_int_equal(pq_exp_cfg_warmup(&p), 1);
	p.resume = 0;
	assert_int_equal(pq_exp_cfg_warmup(&p), 1);
}

/* An open loop's arrivals: Poisson unless constant is asked; stored where they apply. */
static void arrivals(void **state)
{
	(void)state;
	pq_exp_grid g;
	pq_exp_cfg c;
	pq_exp_eff e = {0};
	pq_dimval v;
	pq_diag d;
	ts_grid("open-loop-rate = 50\narrivals = poisson,constant\n", &g);
	assert_int_equal(g.n, 2);
	for (size_t i = 0; i < 2; i++) {
		const pq_exp_point *p = &g.cells[i].p;
		assert_int_equal(pq_exp_cfg_build(p, NULL, &c, &d), 0);
		assert_int_equal(c.load.poisson, !p->constant_arrivals);
		pq_dims[PQ_D_ARRIVALS].effective(p, &e, &v);
		assert_int_equal(v.kind, PQ_DV_TEXT);
		assert_string_equal(v.s, p->constant_arrivals ? "constant" : "poisson");
	}
	assert_int_not_equal(g.cells[0].p.constant_arrivals, g.cells[1].p.constant_arrivals);
	pq_exp_grid_dispose(&g);
	ts_grid("", &g); /* a closed loop has none */
	pq_dims[PQ_D_ARRIVALS].effective(&g.cells[0].p, &e, &v);
	assert_int_equal(v.kind, PQ_DV_NULL);
	pq_dimval dims[PQ_DIM_COUNT];
	memset(dims, 0, sizeof dims);
	assert_false(pq_dim_applies(PQ_D_ARRIVALS, dims));
	dims[PQ_D_OPEN_RATE] = (pq_dimval){.kind = PQ_DV_REAL, .f = 50};
	assert_true(pq_dim_applies(PQ_D_ARRIVALS, dims));
	pq_exp_grid_dispose(&g);
}

static void offer_refused(void **state)
{
	(void)state;
	pq_exp_point p;
	pq_exp_cfg c;
	pq_diag d = {0};
	pq_exp_point_init(&p);
	snprintf(p.key_share, sizeof p.key_share, "X25519");
	assert_int_equal(pq_exp_cfg_build(&p, NULL, &c, &d), PQ_EINVAL);
	assert_non_null(strstr(pq_diag_msg(&d), "key-share"));
	pq_exp_point_init(&p);
	snprintf(p.server_groups, sizeof p.server_groups, "secp384r1");
	assert_int_equal(pq_exp_cfg_build(&p, NULL, &c, &d), PQ_EINVAL);
	assert_non_null(strstr(pq_diag_msg(&d), "server-groups"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flags_hold),
		cmocka_unit_test(defaults),
		cmocka_unit_test(warmup_rule),
		cmocka_unit_test(arrivals),
		cmocka_unit_test(offer_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
