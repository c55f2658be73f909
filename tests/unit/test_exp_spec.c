/* exp/spec.c: the strict spec reader (values, lists, ranges, arms) and its refusals, each
 * naming the file, the line and the key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "exp/spec.h"

static int parse(pq_exp_spec *s, const char *text, pq_diag *d)
{
	pq_exp_spec_init(s);
	pq_diag_clear(d);
	return pq_exp_spec_parse(s, "t.spec", text, d);
}

static void reads_lists_ranges_arms(void **state)
{
	(void)state;
	pq_exp_spec s;
	pq_diag d;
	assert_int_equal(parse(&s, "# a comment\nname = demo\nrtt = 1ms, 70ms  # trailing\n"
				   "pad-chain-to = 4KiB..8KiB step 2KiB\nloss = 1%\n[arm a b]\nsig = ecdsa-p256\n"
				   "[arm c]\nresponse = none, /, 1MiB\n",
			     &d),
			 0);
	assert_string_equal(s.name, "demo");
	const pq_exp_list *rtt = &s.global.key[PQ_D_RTT];
	assert_int_equal(rtt->n, 2);
	assert_int_equal(rtt->v[1].i, 70000000);
	assert_string_equal(rtt->where, "t.spec:3: rtt");
	const pq_exp_list *pad = &s.global.key[PQ_D_PAD];
	assert_int_equal(pad->n, 3);
	assert_int_equal(pad->v[2].i, 8192);
	assert_float_equal(s.global.key[PQ_D_LOSS].v[0].f, 0.01, 1e-12);
	assert_int_equal(s.narms, 2);
	assert_string_equal(s.arm[0]->label, "a b");
	assert_non_null(s.arm[0]->key[PQ_D_SIG].v[0].ptr);
	const pq_exp_list *resp = &s.arm[1]->key[PQ_D_RESPONSE];
	assert_int_equal(resp->n, 3);
	assert_string_equal(resp->v[0].s, "");
	assert_string_equal(resp->v[1].s, "/");
	assert_string_equal(resp->v[2].s, "/bytes/1048576");
	pq_exp_spec_dispose(&s);
}

static void expect_refused(const char *text, const char *want)
{
	pq_exp_spec s;
	pq_diag d;
	int rc = parse(&s, text, &d);
	if (rc >= 0 || !strstr(pq_diag_msg(&d), want))
		fail_msg("spec '%s': rc %d, message '%s', wanted '%s'", text, rc, pq_diag_msg(&d), want);
	pq_exp_spec_dispose(&s);
}

static void refusals_name_file_line_key(void **state)
{
	(void)state;
	expect_refused("rtt = 1ms\nfoo = 2\n", "t.spec:2: unknown key 'foo'; allowed: name, trials");
	expect_refused("rtt = 1ms\nrtt = 2ms\n", "t.spec:2: rtt: duplicate key (first given at t.spec:1: rtt)");
	expect_refused("rtt =   \n", "t.spec:1: rtt: empty dimension");
	expect_refused("rtt = 1ms,,2ms\n", "t.spec:1: rtt: empty value in the list");
	expect_refused("rtt = ,1ms\n", "t.spec:1: rtt: empty value in the list");
	expect_refused("rtt = 1ms..5ms\n", "t.spec:1: rtt: range '1ms..5ms' needs a step");
	expect_refused("rtt = 5ms..1ms step 1ms\n", "range '5ms..1ms step 1ms' needs A <= B");
	expect_refused("rtt = 0ms..10s step 1ms\n", "t.spec:1: rtt: the range has 10001 values; at most 1000");
	expect_refused("cc = vegas\n", "t.spec:1: cc: 'vegas' is not allowed; allowed: one or more of default|cubic|bbr|reno");
	expect_refused("response = huge\n", "t.spec:1: response");
	expect_refused("response = 65MiB\n", "sizes up to 64MiB");
	expect_refused("profile = mars\n", "t.spec:1: profile");
	expect_refused("trials = 1, 2\n", "t.spec:1: trials: takes one value, not a list");
	expect_refused("[arm a]\nseed = 3\n", "t.spec:2: seed: is global");
	expect_refused("[arm a]\n[arm a]\n", "t.spec:2: arm 'a' is already defined at t.spec:1");
	expect_refused("[arm]\n", "t.spec:1: '[arm]': a section is '[arm LABEL]'");
	expect_refused("[grid]\n", "a section is '[arm LABEL]'");
	expect_refused("just words\n", "t.spec:1: 'just words': expected 'key = value'");
	/* a misspelt group is refused when read, not measured as failed handshakes */
	expect_refused("group = X25519MLKEM769\n", "t.spec:1: group: 'X25519MLKEM769' is not a group this OpenSSL knows; known: ");
	expect_refused("groups = X25519MLKEM768:bogus\n", "t.spec:1: groups: 'bogus' in 'X25519MLKEM768:bogus' is not a group");
	expect_refused("server-groups = X25519MLKEM768//X25519\n", "t.spec:1: server-groups: 'X25519MLKEM768//X25519' has an empty element");
	expect_refused("groups = X25519MLKEM768::X25519\n", "t.spec:1: groups: 'X25519MLKEM768::X25519' has an empty element");
	expect_refused("key-share = X25519:nope\n", "t.spec:1: key-share: 'nope' in 'X25519:nope' is not a group");
	expect_refused("group = X25519:X25519MLKEM768\n", "t.spec:1: group: 'X25519:X25519MLKEM768': ':' does not separate groups here");
	expect_refused("group = X25519 MLKEM\n", "must be one word");
}

/* A range's step is judged as a step (above 0, at most the span), its ends as values
 * (issue 29 item 6: 'mtu = 600..1500 step 100' was "mtu: 100 is out of range"). */
static void range_steps(void **state)
{
	(void)state;
	pq_exp_spec s;
	pq_diag d;
	assert_int_equal(parse(&s, "mtu = 600..1500 step 100\nrtt = 0ms..10ms step 10ms\n", &d), 0);
	assert_int_equal(s.global.key[PQ_D_MTU].n, 10);
	assert_int_equal(s.global.key[PQ_D_MTU].v[9].i, 1500);
	assert_int_equal(s.global.key[PQ_D_RTT].n, 2);
	pq_exp_spec_dispose(&s);
	/* A..A is its one value (a generated spec writes 1..n), with any step above 0 */
	assert_int_equal(parse(&s, "mtu = 600..600 step 100\n", &d), 0);
	assert_int_equal(s.global.key[PQ_D_MTU].n, 1);
	pq_exp_spec_dispose(&s);
	expect_refused("mtu = 600..600 step 0\n", "t.spec:1: mtu: step: 0 is out of range; use 1 to");
	expect_refused("mtu = 600..1500 step 1000\n", "t.spec:1: mtu: step: 1000 is out of range; use 1 to 900");
	expect_refused("mtu = 600..1500 step 0\n", "t.spec:1: mtu: step: 0 is out of range; use 1 to 900");
	expect_refused("mtu = 500..1500 step 100\n", "t.spec:1: mtu: 500 is out of range; use 576 to 9000");
	expect_refused("mtu = 600..9500 step 100\n", "t.spec:1: mtu: 9500 is out of range; use 576 to 9000");
	expect_refused("rtt = 0ms..10ms step 20ms\n",
		       "t.spec:1: rtt: step '20ms' does not fit the range '0ms..10ms step 20ms': a step is above 0 and at "
		       "most B - A (10.0 ms)");
	expect_refused("pad-chain-to = 4KiB..8KiB step 0\n", "step '0' does not fit the range");
	expect_refused("rtt = 0ms..10ms step 5xs\n", "t.spec:1: rtt: step: '5xs' is not a duration");
}

/* A value listed twice is refused by name and line (it was two cells of one point,
 * refused later as two arms with one label); a BOM before the first key is skipped. */
static void repeats_and_bom(void **state)
{
	(void)state;
	expect_refused("rtt = 1ms\ncc = cubic, cubic\n", "t.spec:2: cc: 'cubic' is listed twice");
	expect_refused("loss = 1%, 0.01\n", "t.spec:1: loss: '0.01' is listed twice");
	expect_refused("rtt = 10ms, 0ms..20ms step 10ms\n", "t.spec:1: rtt: '0ms..20ms step 10ms' repeats a value listed before it");
	expect_refused("sig = ml-dsa-65, ml-dsa-65\n", "t.spec:1: sig: 'ml-dsa-65' is listed twice");
	pq_exp_spec s;
	pq_diag d;
	assert_int_equal(parse(&s, "\xef\xbb\xbf" "connections = 5\nname = bom\n", &d), 0);
	assert_int_equal(s.global.key[PQ_D_CONNECTIONS].v[0].i, 5);
	assert_null(strstr(s.text, "\xef\xbb\xbf"));
	pq_exp_spec_dispose(&s);
	/* only at the very start: anywhere else it is still no key */
	expect_refused("name = x\n\xef\xbb\xbf" "connections = 5\n", "t.spec:2: unknown key");
}

static void command_line_replaces_everywhere(void **state)
{
	(void)state;
	pq_exp_spec s;
	pq_diag d;
	assert_int_equal(parse(&s, "connections = 50\n[arm a]\nconnections = 100\n", &d), 0);
	assert_int_equal(pq_exp_spec_set(&s, "connections", "5", "--connections", &d), 0);
	assert_int_equal(s.global.key[PQ_D_CONNECTIONS].v[0].i, 5);
	assert_false(s.arm[0]->key[PQ_D_CONNECTIONS].given);
	assert_non_null(strstr(s.text, "connections = 5   # --connections"));
	assert_int_equal(pq_exp_spec_set(&s, "rtt", "1ms,bad", "--rtt", &d), PQ_EINVAL);
	assert_non_null(strstr(pq_diag_msg(&d), "--rtt: 'bad' is not a duration"));
	assert_int_equal(pq_exp_spec_set(&s, "nope", "1", "--nope", &d), PQ_EINVAL);
	pq_exp_spec_dispose(&s);
}

/* ttfb-size's shape: arms that differ only in cc. --cc cubic makes them alike: each
 * measured once, under the first label, said in the text and in s.merged; arms still
 * different stay, and a key that makes nothing alike merges nothing. */
static void command_line_merges_alike_arms(void **state)
{
	(void)state;
	pq_exp_spec s;
	pq_diag d;
	assert_int_equal(parse(&s,
			       "cc = cubic\n[arm e]\nsig = ecdsa-p256\n[arm m]\nsig = ml-dsa-44\n"
			       "[arm e bbr]\nsig = ecdsa-p256\ncc = bbr\n[arm m bbr]\nsig = ml-dsa-44\ncc = bbr\n",
			       &d),
			 0);
	assert_int_equal(pq_exp_spec_set(&s, "rtt", "50ms", "--rtt", &d), 0);
	assert_int_equal(s.narms, 4);
	assert_string_equal(s.merged, "");
	assert_int_equal(pq_exp_spec_set(&s, "cc", "bbr", "--cc", &d), 0);
	assert_int_equal(s.narms, 2);
	assert_string_equal(s.arm[0]->label, "e");
	assert_string_equal(s.arm[1]->label, "m");
	assert_string_equal(s.merged, "'e bbr' (as 'e'), 'm bbr' (as 'm')");
	assert_non_null(strstr(s.text, "# --cc made arm 'm bbr' the same as arm 'm': measured once, as 'm'\n"));
	/* --sig then makes the two left alike too */
	assert_int_equal(pq_exp_spec_set(&s, "sig", "ml-dsa-65", "--sig", &d), 0);
	assert_int_equal(s.narms, 1);
	assert_string_equal(s.arm[0]->label, "e");
	pq_exp_spec_dispose(&s);
}

/* Arms that differ only in sct-alg are alike once every scts value is 0 (the algorithm
 * of no SCT changes no chain): --scts 0 merges them like --cc above; while one arm has
 * SCTs they stay apart. */
static void irrelevant_sct_alg_merges_arms(void **state)
{
	(void)state;
	pq_exp_spec s;
	pq_diag d;
	assert_int_equal(parse(&s, "scts = 2\n[arm e]\nsct-alg = ecdsa-p256\n[arm m]\nsct-alg = ml-dsa-44\n", &d), 0);
	assert_int_equal(pq_exp_spec_set(&s, "scts", "0, 2", "--scts", &d), 0);
	assert_int_equal(s.narms, 2);
	assert_int_equal(pq_exp_spec_set(&s, "scts", "0", "--scts", &d), 0);
	assert_int_equal(s.narms, 1);
	assert_string_equal(s.merged, "'m' (as 'e')");
	assert_non_null(strstr(s.text, "# --scts made arm 'm' the same as arm 'e': measured once, as 'e'\n"));
	pq_exp_spec_dispose(&s);
}

static void load_missing_file(void **state)
{
	(void)state;
	pq_exp_spec s;
	pq_diag d;
	pq_exp_spec_init(&s);
	assert_true(pq_exp_spec_load(&s, "/nonexistent/x.spec", &d) < 0);
	assert_non_null(strstr(pq_diag_msg(&d), "/nonexistent/x.spec: cannot read the spec"));
	/* a directory opens, but is no spec (it was read as an empty one) */
	assert_int_equal(pq_exp_spec_load(&s, "/", &d), -EISDIR);
	assert_non_null(strstr(pq_diag_msg(&d), "/: cannot read the spec: Is a directory (give a spec file)"));
	pq_exp_spec_dispose(&s);
	assert_int_equal(pq_dim_find("rtt"), PQ_D_RTT);
	assert_int_equal(pq_dim_find("RTT"), -1);
	assert_true((pq_dims[PQ_D_TRIALS].flags & PQ_DIM_GLOBAL));
	assert_false((pq_dims[PQ_D_RTT].flags & PQ_DIM_GLOBAL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_lists_ranges_arms),
		cmocka_unit_test(refusals_name_file_line_key),
		cmocka_unit_test(range_steps),
		cmocka_unit_test(repeats_and_bom),
		cmocka_unit_test(command_line_replaces_everywhere),
		cmocka_unit_test(command_line_merges_alike_arms), cmocka_unit_test(irrelevant_sct_alg_merges_arms),
		cmocka_unit_test(load_missing_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
