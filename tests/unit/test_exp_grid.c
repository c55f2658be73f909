/* exp/grid.c and exp/point.c: expansion counts and order, deterministic keys, shards that
 * partition the grid, run order grouped by link and shuffled per trial from the seed,
 * link configurations and derived timeouts; the cell limit and invalid links refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "exp/jobs.h"
#include "exp/grid.h"
#include "exp/preset.h"
#include "exp/runner.h"

static const char spec2[] = "rtt = 10ms, 20ms\ntrials = 3\nseed = 7\n[arm a]\nsig = ecdsa-p256\n"
			    "[arm b]\nsig = ml-dsa-44\ngroup = X25519, X25519MLKEM768\n";

static void expand(const char *text, pq_exp_grid *g)
{
	pq_exp_spec s;
	pq_diag d;
	pq_exp_spec_init(&s);
	if (pq_exp_spec_parse(&s, "t.spec", text, &d) < 0 || pq_exp_grid_expand(&s, g, &d) < 0)
		fail_msg("%s", pq_diag_msg(&d));
	pq_exp_spec_dispose(&s);
}

static void counts_and_keys(void **state)
{
	(void)state;
	pq_exp_grid g, h;
	expand(spec2, &g);
	/* arm a: 2 RTTs x 3 trials; arm b: 2 groups x 2 RTTs x 3 trials */
	assert_int_equal(g.n, 6 + 12);
	assert_int_equal(g.trials, 3);
	assert_int_equal(g.seed, 7);
	assert_int_equal(g.ngroups, 2 * 3);
	for (size_t i = 0; i < g.n; i++) {
		assert_int_equal(g.cells[i].index, i);
		for (size_t j = i + 1; j < g.n; j++)
			assert_string_not_equal(g.cells[i].key, g.cells[j].key);
	}
	/* trials innermost: the same point, trial 1 and 2, share the point key */
	assert_string_equal(g.cells[0].point_key, g.cells[1].point_key);
	assert_string_not_equal(g.cells[0].key, g.cells[1].key);
	assert_string_equal(g.cells[0].p.arm, "a");
	/* the grid point across arms: what no arm sets (the RTT) and not the trial; arm a's
	 * cell at 10 ms and both of arm b's (its groups are an arm's key) share it */
	assert_string_equal(g.cells[0].across_key, g.cells[1].across_key);
	assert_string_equal(g.cells[0].across_key, g.cells[6].across_key);
	assert_string_equal(g.cells[0].across_key, g.cells[12].across_key);
	assert_string_not_equal(g.cells[0].across_key, g.cells[3].across_key);
	assert_string_equal(g.cells[3].across_key, g.cells[15].across_key);
	assert_string_not_equal(g.cells[0].point_key, g.cells[6].point_key);
	expand(spec2, &h);
	assert_string_equal(g.hash, h.hash);
	for (size_t i = 0; i < g.n; i++)
		assert_string_equal(g.cells[i].key, h.cells[i].key);
	pq_exp_grid_dispose(&h);
	expand("rtt = 10ms, 20ms\ntrials = 3\nseed = 8\n[arm a]\nsig = ecdsa-p256\n"
	       "[arm b]\nsig = ml-dsa-44\ngroup = X25519, X25519MLKEM768\n",
	       &h);
	assert_string_not_equal(g.hash, h.hash); /* the seed is part of what a database holds */
	pq_exp_grid_dispose(&h);
	pq_exp_grid_dispose(&g);
}

static void shards_partition(void **state)
{
	(void)state;
	pq_exp_grid whole, part;
	expand(spec2, &whole);
	size_t seen = 0;
	int *hit = calloc(whole.n, sizeof *hit);
	for (unsigned i = 1; i <= 4; i++) {
		expand(spec2, &part);
		pq_exp_grid_shard(&part, i, 4);
		for (size_t k = 0; k < part.n; k++) {
			hit[part.cells[k].index]++;
			/* whole (link, trial) groups: every cell of a group is in the same shard */
			assert_int_equal(part.cells[k].group % 4, i - 1);
		}
		seen += part.n;
		pq_exp_grid_dispose(&part);
	}
	assert_int_equal(seen, whole.n);
	for (size_t k = 0; k < whole.n; k++)
		assert_int_equal(hit[k], 1);
	free(hit);
	pq_exp_grid_dispose(&whole);
	unsigned si, sn;
	pq_diag d;
	assert_int_equal(pq_exp_shard_parse("2/3", "--shard", &si, &sn, &d), 0);
	assert_int_equal(si * 10 + sn, 23);
	assert_int_equal(pq_exp_shard_parse("0/3", "--shard", &si, &sn, &d), PQ_EINVAL);
	assert_int_equal(pq_exp_shard_parse("3", "--shard", &si, &sn, &d), PQ_EINVAL);
	assert_int_equal(pq_exp_shard_parse("1/2x", "--shard", &si, &sn, &d), PQ_EINVAL);
	assert_non_null(strstr(pq_diag_msg(&d), "--shard: '1/2x' is not a shard"));
}

static void run_order(void **state)
{
	(void)state;
	pq_exp_grid a, b;
	expand(spec2, &a);
	expand(spec2, &b);
	pq_exp_grid_order(&a);
	pq_exp_grid_order(&b);
	int changed = 0;
	for (size_t i = 0; i < a.n; i++) {
		assert_string_equal(a.cells[i].key, b.cells[i].key); /* same seed, same order */
		changed |= a.cells[i].index != i;
	}
	assert_true(changed);
	/* by link, then trial: once a link's cells end it never comes back */
	for (size_t i = 1; i < a.n; i++) {
		if (strcmp(a.cells[i].link_key, a.cells[i - 1].link_key) == 0) {
			assert_true(a.cells[i].p.trial >= a.cells[i - 1].p.trial);
			continue;
		}
		for (size_t j = i; j < a.n; j++)
			assert_string_not_equal(a.cells[j].link_key, a.cells[i - 1].link_key);
	}
	pq_exp_grid_dispose(&a);
	pq_exp_grid_dispose(&b);
}

/* The spec `text` (file `file`) reads but its grid is refused with rc and a message
 * holding `want`. */
static void refused(const char *file, const char *text, int rc, const char *want)
{
	pq_exp_spec s;
	pq_exp_grid g;
	pq_diag d;
	pq_exp_spec_init(&s);
	assert_int_equal(pq_exp_spec_parse(&s, file, text, &d), 0);
	int got = pq_exp_grid_expand(&s, &g, &d);
	if (got != rc || !strstr(pq_diag_msg(&d), want))
		fail_msg("'%s': rc %d, '%s'; wanted %d, '%s'", text, got, pq_diag_msg(&d), rc, want);
	pq_exp_spec_dispose(&s);
}

static void limits_and_links(void **state)
{
	(void)state;
	pq_exp_grid g;
	pq_diag d;
	refused("big.spec", "rtt = 1ms..999ms step 1ms\nloss = 0%, 1%, 2%\ntrials = 10\n", PQ_ETOOBIG,
		"big.spec: the grid has more than 20000 cells");
	refused("q.spec", "queue = 10\nrtt = 30s\n", PQ_ERANGE, "q.spec: ");
	/* Gilbert bursts of 3 reach 75 % at most: more is refused with the loss key's line and
	 * the range (it was "burst-loss p: inf%" with no line); 75 % itself is a link. */
	refused("b.spec", "loss-model = gilbert\nloss = 0%, 100%\n", PQ_ERANGE,
		"b.spec:2: loss: 100% with loss-model gilbert and bursts of 3 packets");
	refused("b.spec", "loss-model = gilbert\nloss = 100%\n", PQ_ERANGE, "allowed: 0% to 75%");
	refused("b.spec", "loss = 95%\n[arm a]\nloss-model = gilbert\nburst = 10\n", PQ_ERANGE,
		"b.spec:1: loss: 95% with loss-model gilbert and bursts of 10 packets");
	expand("loss-model = gilbert\nloss = 75%\n", &g);
	pq_link_config lc;
	assert_int_equal(pq_exp_point_link(&g.cells[0].p, 1, "t", &lc, &d), 0);
	assert_true(lc.dir[0].loss.ge_p == 1);
	pq_exp_grid_dispose(&g);
}

/* The key exchange of a cell: the offer as OpenSSL's list, the server's groups, and the
 * refusals before anything is measured (a share not offered, a group not in the offer, a
 * server that takes none of the offer or not the group). */
static void key_exchange(void **state)
{
	(void)state;
	pq_exp_grid g;
	char offer[160];
	pq_diag d;
	expand("groups = X25519MLKEM768:X25519\nkey-share = X25519, X25519MLKEM768:X25519\n"
	       "server-groups = X25519MLKEM768/X25519\n", &g);
	assert_int_equal(g.n, 2);
	assert_int_equal(pq_exp_point_offer(&g.cells[0].p, offer, sizeof offer, &d), 0);
	assert_string_equal(offer, "X25519MLKEM768:*X25519");
	assert_int_equal(pq_exp_point_offer(&g.cells[1].p, offer, sizeof offer, &d), 0);
	assert_string_equal(offer, "*X25519MLKEM768:*X25519");
	assert_string_equal(pq_exp_point_server_groups(&g.cells[0].p), "X25519MLKEM768/X25519");
	assert_string_not_equal(g.cells[0].key, g.cells[1].key);
	pq_exp_grid_dispose(&g);
	/* the defaults: the group alone, its share, the server as offered; keys as before */
	expand("group = X25519\n", &g);
	assert_int_equal(pq_exp_point_offer(&g.cells[0].p, offer, sizeof offer, &d), 0);
	assert_string_equal(offer, "*X25519");
	assert_string_equal(pq_exp_point_server_groups(&g.cells[0].p), "X25519");
	char text[2048];
	assert_true(pq_exp_point_text(&g.cells[0].p, 1, text, sizeof text) > 0);
	assert_null(strstr(text, "key_share"));
	pq_exp_grid_dispose(&g);

	refused("k.spec", "groups = X25519MLKEM768:X25519\n[arm a]\nkey-share = MLKEM768\n", PQ_EINVAL,
		"k.spec:2: key-share: the key share 'MLKEM768' is not among the groups offered");
	refused("g.spec", "groups = X25519:secp256r1\n", PQ_EINVAL,
		"group: X25519MLKEM768 is not among the groups offered (X25519:secp256r1)");
	refused("s.spec", "server-groups = X25519\n", PQ_EINVAL,
		"s.spec: server-groups: X25519 has no group in common with the groups offered (X25519MLKEM768): every "
		"handshake would fail");
	refused("s.spec", "groups = X25519MLKEM768:X25519\nserver-groups = X25519/secp256r1\n", PQ_EINVAL,
		"s.spec: server-groups: X25519/secp256r1 does not take X25519MLKEM768, the group the cell expects "
		"negotiated");
	/* an alias of the group is the group (asked of OpenSSL in memory) */
	expand("group = secp256r1\nserver-groups = P-256:X25519\n", &g);
	assert_int_equal(g.n, 1);
	pq_exp_grid_dispose(&g);
}

static void point_link_and_timeouts(void **state)
{
	(void)state;
	pq_exp_point p;
	pq_link_config c;
	pq_diag d;
	pq_exp_point_init(&p);
	p.rtt_ns = 70 * PQ_NS_PER_MS;
	p.loss = 0.05;
	p.gilbert = 1;
	p.burst = 4;
	p.link_given = PQ_EXP_LG_RTT | PQ_EXP_LG_LOSS;
	assert_int_equal(pq_exp_point_link(&p, 3, "x", &c, &d), 0);
	assert_int_equal(c.dir[0].delay_ns, 35 * PQ_NS_PER_MS);
	assert_float_equal(c.dir[0].loss.ge_r, 0.25, 1e-12);
	/* stationary loss p / (p + r) is the mean loss asked */
	assert_float_equal(c.dir[0].loss.ge_p / (c.dir[0].loss.ge_p + c.dir[0].loss.ge_r), 0.05, 1e-12);
	int64_t ct = pq_exp_point_client_timeout(&p, &c), st = pq_exp_point_server_timeout(&p, &c);
	assert_true(ct > 10 * PQ_NS_PER_S);
	assert_true(st > 2 * ct); /* the server never closes a handshake the client still waits for */
	p.timeout_ns = 3 * PQ_NS_PER_S;
	assert_int_equal(pq_exp_point_client_timeout(&p, &c), 3 * PQ_NS_PER_S);
	/* a profile fills the link; only the fields given override it */
	pq_exp_point_init(&p);
	snprintf(p.profile, sizeof p.profile, "aws-lossy");
	assert_int_equal(pq_exp_point_link(&p, 1, "x", &c, &d), 0);
	assert_float_equal(c.dir[1].loss.p, 0.03, 1e-12);
	p.loss = 0.1;
	p.link_given = PQ_EXP_LG_LOSS;
	assert_int_equal(pq_exp_point_link(&p, 1, "x", &c, &d), 0);
	assert_float_equal(c.dir[1].loss.p, 0.1, 1e-12);
	snprintf(p.profile, sizeof p.profile, "nowhere");
	assert_true(pq_exp_point_link(&p, 1, "arm z", &c, &d) < 0);
	assert_non_null(strstr(pq_diag_msg(&d), "arm z: "));
}

static void presets_expand(void **state)
{
	(void)state;
	for (const pq_exp_preset *p = pq_exp_presets; p->name; p++) {
		pq_exp_grid g;
		expand(p->text, &g);
		assert_true(g.n > 0);
		pq_exp_grid_order(&g);
		assert_true(pq_exp_estimate_s(&g, 1, 1) > 0);
		/* every chain a preset asks for is one the factory accepts (no keys made here) */
		for (size_t i = 0; i < g.n; i++) {
			pq_chain_spec cs;
			pq_diag d;
			pq_exp_point_chain(&g.cells[i].p, &cs);
			if (pq_chain_spec_check(&cs, &d) < 0)
				fail_msg("preset %s, arm %s: %s", p->name, g.cells[i].p.arm, pq_diag_msg(&d));
		}
		pq_exp_grid_dispose(&g);
	}
	pq_exp_grid g;
	expand(pq_exp_preset_find("quick")->text, &g);
	assert_int_equal(g.n, 9 * 3 * 2); /* nine arms, three RTTs, two rounds */
	pq_exp_grid_dispose(&g);
	expand(pq_exp_preset_find("quic-vs-tcp")->text, &g);
	size_t nquic = 0, nretry = 0;
	for (size_t i = 0; i < g.n; i++) {
		nquic += g.cells[i].p.quic;
		nretry += g.cells[i].p.quic_retry;
	}
	assert_int_equal(nquic * 3, g.n * 2); /* every point on TCP, QUIC and QUIC with Retry */
	assert_int_equal(nretry * 3, g.n);
	pq_exp_grid_dispose(&g);
	assert_null(pq_exp_preset_find("slow"));
}

/* transport = tcp, quic: two cells per point, the TCP one keyed as before the dimension
 * existed (its canonical text has no transport fragment); what QUIC cannot carry refused
 * by name, with where the spec asked for it. */
static void transport(void **state)
{
	(void)state;
	pq_exp_grid g;
	expand("transport = tcp, quic\nsig = ecdsa-p256\n", &g);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.cells[0].p.quic + g.cells[1].p.quic, 1);
	assert_string_not_equal(g.cells[0].key, g.cells[1].key);
	assert_string_equal(g.cells[0].link_key, g.cells[1].link_key); /* one link for both */
	pq_exp_grid only_tcp;
	expand("sig = ecdsa-p256\n", &only_tcp);
	const pq_exp_cell *tcp = g.cells[0].p.quic ? &g.cells[1] : &g.cells[0];
	assert_string_equal(tcp->key, only_tcp.cells[0].key);
	char text[2048];
	assert_true(pq_exp_point_text(&tcp->p, 1, text, sizeof text) > 0);
	assert_null(strstr(text, "transport"));
	const pq_exp_cell *quic = g.cells[0].p.quic ? &g.cells[0] : &g.cells[1];
	assert_true(pq_exp_point_text(&quic->p, 1, text, sizeof text) > 0);
	assert_non_null(strstr(text, "transport=quic;"));
	assert_int_equal(quic->p.quic_retry, 0);
	pq_exp_grid_dispose(&g);
	expand("transport = quic-retry\nsig = ecdsa-p256\n", &g);
	assert_int_equal(g.cells[0].p.quic, 1);
	assert_int_equal(g.cells[0].p.quic_retry, 1);
	assert_true(pq_exp_point_text(&g.cells[0].p, 1, text, sizeof text) > 0);
	assert_non_null(strstr(text, "transport=quic-retry;"));
	pq_exp_grid_dispose(&g);
	pq_exp_grid_dispose(&only_tcp);
	static const char *const bad[][2] = {
		{"transport = quic\nresume = 100%\nearly-data = yes\n", "early-data yes (OpenSSL 3.5's QUIC has no 0-RTT)"},
		{"transport = quic\nflight-one-write = yes\n", "flight-one-write yes (a TCP write rule)"},
	};
	for (size_t i = 0; i < 2; i++) {
		pq_exp_spec s;
		pq_diag d;
		pq_exp_spec_init(&s);
		assert_int_equal(pq_exp_spec_parse(&s, "q.spec", bad[i][0], &d), 0);
		assert_int_equal(pq_exp_grid_expand(&s, &g, &d), PQ_EINVAL);
		assert_non_null(strstr(pq_diag_msg(&d), "q.spec: transport quic with "));
		assert_non_null(strstr(pq_diag_msg(&d), bad[i][1]));
		pq_exp_spec_dispose(&s);
	}
	pq_exp_spec s;
	pq_diag d;
	pq_exp_spec_init(&s);
	assert_true(pq_exp_spec_parse(&s, "q.spec", "transport = udp\n", &d) < 0);
	assert_non_null(strstr(pq_diag_msg(&d), "tcp"));
	pq_exp_spec_dispose(&s);
}

/* sct-alg is irrelevant without SCTs: scts = 0, 2 with two algorithms makes three cells,
 * not four, the scts = 0 one keyed as if no algorithm were given (its first value stands
 * for all); tai = yes adds to the key, tai = no nothing. */
static void irrelevant_sct_alg_and_tai(void **state)
{
	(void)state;
	pq_exp_grid g, plain;
	expand("sig = ecdsa-p256\nscts = 0, 2\nsct-alg = ecdsa-p256, ml-dsa-44\n", &g);
	assert_int_equal(g.n, 3);
	expand("sig = ecdsa-p256\n", &plain);
	int zero = 0;
	for (size_t i = 0; i < g.n; i++)
		if (g.cells[i].p.scts == 0) {
			zero++;
			assert_null(g.cells[i].p.sct_alg);
			assert_string_equal(g.cells[i].key, plain.cells[0].key);
		}
	assert_int_equal(zero, 1);
	assert_string_not_equal(g.cells[1].key, g.cells[2].key);
	pq_exp_grid_dispose(&g);
	expand("sig = ecdsa-p256\ntai = no, yes\n", &g);
	assert_int_equal(g.n, 2);
	const pq_exp_cell *no = g.cells[0].p.tai ? &g.cells[1] : &g.cells[0];
	assert_string_equal(no->key, plain.cells[0].key);
	char text[2048];
	assert_true(pq_exp_point_text(&(no == &g.cells[0] ? &g.cells[1] : &g.cells[0])->p, 1, text, sizeof text) > 0);
	assert_non_null(strstr(text, "tai=yes;"));
	pq_exp_grid_dispose(&g);
	pq_exp_grid_dispose(&plain);
}

/* The dispatcher's order on one link whose cells differ in class (aws-jittery: its 1 MiB
 * responses 17 at once, its 10 KiB ones 7): every trial's larger class first, then every
 * trial's smaller one, each trial by trial, so the larger class runs beside its own kind
 * and not held to 7 by a smaller cell of its trial. */
static void order_by_link(void **state)
{
	(void)state;
	pq_exp_grid g;
	expand("profile = aws-jittery\nresponse = 10240, 1048576\nsig = ecdsa-p256, ml-dsa-65\ntrials = 3\n", &g);
	assert_int_equal(g.n, 12);
	pq_exp_grid_order(&g); /* as the sweep does: link by link, trial by trial */
	size_t order[12];
	for (size_t i = 0; i < g.n; i++)
		order[i] = i;
	assert_int_equal(pq_exp_order_cells(&g, order, g.n, 40, 40, NULL, NULL), 0);
	for (size_t k = 0; k < g.n; k++) {
		const pq_exp_cell *c = &g.cells[order[k]];
		assert_int_equal(c->p.response_bytes, k < 6 ? 1048576 : 10240);
		assert_int_equal(c->p.trial, (int)(k % 6) / 2 + 1);
	}
	pq_exp_grid_dispose(&g);
}

/* A cell's time scale: its link's, but 0 (alone) for a response whose bytes keep the CPUs
 * busy for a large share of the connection (1 MiB on a 1 Gbit/s link) and for a browser;
 * the same response behind a 1 Mbit/s link waits for the wire and keeps its scale. */
static void cell_scale(void **state)
{
	(void)state;
	pq_exp_grid g;
	expand("profile = aws-fast, aws-lowbw\nresponse = none, 102400, 1048576\nsig = ecdsa-p256\n", &g);
	assert_int_equal(g.n, 6);
	for (size_t i = 0; i < g.n; i++) {
		const pq_exp_cell *c = &g.cells[i];
		int64_t scale = pq_exp_cell_scale_ns(&g, c);
		int fast = strcmp(c->p.profile, "aws-fast") == 0;
		int own = fast && c->p.response_bytes == 1048576;
		if (own)
			assert_int_equal(scale, 0);
		else
			assert_true(scale >= 35 * 1000000LL);
		/* alone for its own response's CPU: the one whose waits are its own */
		assert_int_equal(pq_exp_cell_cpu_bound(&g, c), own);
	}
	pq_exp_grid_dispose(&g);
	/* a browser's cell runs alone too, but not for its response */
	expand("client = chromium\nrtt = 50ms\nsig = ecdsa-p256\n", &g);
	assert_int_equal(pq_exp_cell_scale_ns(&g, &g.cells[0]), 0);
	assert_int_equal(pq_exp_cell_cpu_bound(&g, &g.cells[0]), 0);
	pq_exp_grid_dispose(&g);
	/* 1 MiB at 200 ms is under 2 % of a connection's time, one at a time; four at once
	 * (closed loop) or five a second (open loop, about 9 in flight) keep a CPU busy. A
	 * lossy link's scale grows by its connections' expected stalls over four round trips
	 * (aws-lossy: 35 ms + 3 % x (2.5 s + 0.21 s) x 1.09 / 4 = 57 ms, 14 at once); a 1 ms
	 * link stays alone whatever its loss. Milliseconds, within the estimate's rounding. */
	static const char *const scales[][2] = {
		{"rtt = 200ms\nresponse = 1048576\n", "200"},
		{"rtt = 200ms\nresponse = 1048576\nconcurrency = 4\n", "0"},
		{"rtt = 200ms\nresponse = 1048576\nopen-loop-rate = 5\n", "0"},
		{"profile = aws-lossy\n", "57"},
		/* aws-jittery's reordering holds a 1 MiB response to about 2.4 Mbit/s, 3.5 s: an
		 * initial window's 50 ms more; 200 KiB waits on it for under 30 round trips */
		{"profile = aws-jittery\nresponse = 1048576\n", "85"},
		{"profile = aws-jittery\nresponse = 204800\n", "35"},
		{"rtt = 1ms\nloss = 20%\n", "1"},
		{"rtt = 50ms\n", "50"},
		{"rtt = 50ms\nloss = 20%\n", "274"},
	};
	for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
		char spec[160];
		snprintf(spec, sizeof spec, "%ssig = ecdsa-p256\n", scales[i][0]);
		expand(spec, &g);
		long long ms = pq_exp_cell_scale_ns(&g, &g.cells[0]) / 1000000, want = atoi(scales[i][1]);
		assert_true(ms >= want - 1 && ms <= want);
		if (want == 57)
			assert_int_equal(pq_exp_jobs_limit(pq_exp_cell_scale_ns(&g, &g.cells[0]), 24), 14);
		pq_exp_grid_dispose(&g);
	}
	/* A cell whose connections stall takes more at once than auto's per-CPU count (base) by
	 * as many times as its stalls lengthen its scale, twice at most (195.6 ms at 20 %: 490
	 * ms, 2.5 times; at 5 %: 248 ms, 1.27 times, 30); never more than jobs; a count asked
	 * for (base = jobs) holds every cell, and a lossless 200 ms cell stays at base. */
	static const struct {
		const char *spec;
		unsigned jobs, base;
		size_t want;
	} lims[] = {
		{"rtt = 195.6ms\nloss = 20%\n", 64, 24, 48}, {"rtt = 195.6ms\nloss = 20%\n", 40, 24, 40},
		{"rtt = 195.6ms\nloss = 20%\n", 24, 24, 24}, {"rtt = 195.6ms\nloss = 5%\n", 64, 24, 30},
		{"rtt = 200ms\n", 64, 24, 24},		     {"profile = aws-lossy\n", 64, 24, 14},
		{"rtt = 1ms\nloss = 20%\n", 64, 24, 1},
	};
	for (size_t i = 0; i < sizeof lims / sizeof lims[0]; i++) {
		char spec[160];
		snprintf(spec, sizeof spec, "%ssig = ecdsa-p256\n", lims[i].spec);
		expand(spec, &g);
		assert_int_equal(pq_exp_cell_limit(&g, &g.cells[0], lims[i].jobs, lims[i].base, NULL), lims[i].want);
		pq_exp_grid_dispose(&g);
	}
	/* auto on two CPUs: two CPUs' count for a cell that does not stall, as many as the
	 * stalling ones take (twice that, at most PQ_EXP_JOBS_MAX) */
	char why[200], up[80];
	unsigned base = 0, two = 2 * PQ_EXP_JOBS_PER_CPU,
		 stall = 2 * two < PQ_EXP_JOBS_MAX ? 2 * two : PQ_EXP_JOBS_MAX;
	expand("rtt = 195.6ms\nloss = 0%, 20%\nsig = ecdsa-p256\n", &g);
	assert_int_equal(pq_exp_jobs_choose(&g, PQ_EXP_JOBS_AUTO, "--jobs", 2, 100, &base, why, sizeof why), stall);
	assert_int_equal(base, two);
	snprintf(up, sizeof up, "up to %u for cells that wait out lost packets", stall);
	assert_non_null(strstr(why, up));
	assert_int_equal(pq_exp_jobs_choose(&g, 30, "--jobs", 2, 100, &base, why, sizeof why), 30);
	assert_int_equal(base, 30);
	pq_exp_grid_dispose(&g);
}

/* client = pqtls, chromium: two cells per point on one link, pqtls's keyed as before the
 * dimension existed; what the browser cannot measure refused by name, with where. */
static void client(void **state)
{
	(void)state;
	pq_exp_grid g, only;
	expand("client = pqtls, chromium\nsig = ecdsa-p256\n", &g);
	expand("sig = ecdsa-p256\n", &only);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.cells[0].p.browser + g.cells[1].p.browser, 1);
	assert_string_equal(g.cells[0].link_key, g.cells[1].link_key);
	const pq_exp_cell *pq = g.cells[0].p.browser ? &g.cells[1] : &g.cells[0];
	assert_string_equal(pq->key, only.cells[0].key);
	char text[2048];
	assert_true(pq_exp_point_text(&(g.cells[0].p.browser ? &g.cells[0] : &g.cells[1])->p, 1, text, sizeof text) > 0);
	assert_non_null(strstr(text, "client=chromium;"));
	pq_exp_grid_dispose(&g);
	pq_exp_grid_dispose(&only);
	static const char *const bad[][2] = {
		{"client = chromium\ntransport = quic\n", "transport quic"},
		{"client = chromium\nresume = 50%\nwarmup = 1\n", "resumption"},
		{"client = chromium\nconcurrency = 2\n", "concurrency over 1"},
		{"client = chromium\nwarmup = 1\n", "warm-up connections"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		pq_exp_spec s;
		pq_diag d;
		pq_exp_spec_init(&s);
		assert_int_equal(pq_exp_spec_parse(&s, "b.spec", bad[i][0], &d), 0);
		assert_int_equal(pq_exp_grid_expand(&s, &g, &d), PQ_EINVAL);
		assert_non_null(strstr(pq_diag_msg(&d), "b.spec: client chromium with "));
		assert_non_null(strstr(pq_diag_msg(&d), bad[i][1]));
		pq_exp_spec_dispose(&s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(transport), cmocka_unit_test(irrelevant_sct_alg_and_tai),
		cmocka_unit_test(counts_and_keys),
		cmocka_unit_test(shards_partition),
		cmocka_unit_test(run_order),
		cmocka_unit_test(limits_and_links),
		cmocka_unit_test(point_link_and_timeouts),
		cmocka_unit_test(key_exchange),
		cmocka_unit_test(presets_expand),
		cmocka_unit_test(cell_scale),
		cmocka_unit_test(order_by_link),
		cmocka_unit_test(client),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
