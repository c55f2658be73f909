/* zeek/classify, ranges, asn: categories and the deciding method, ranges files in both
 * shapes, ASN lists, files that are no MaxMind DB. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testdir.h"

#include "zeek/classify.h"



static pq_zeek_class cls(const pq_zeek_classifier *c, const char *ip)
{
	pq_zeek_addr a;
	assert_int_equal(pq_zeek_addr_parse(ip, strlen(ip), &a), 0);
	return pq_zeek_classify(c, &a);
}

static void ranges_json_and_lines(void **state)
{
	(void)state;
	pq_zeek_classifier c;
	pq_diag d = {0};
	assert_int_equal(pq_zeek_classifier_init(&c), 0);
	/* Nothing loaded: every address Unknown, decided by no method. */
	assert_int_equal(cls(&c, "8.8.8.8").cat, PQ_ZCAT_UNKNOWN);
	assert_int_equal(cls(&c, "8.8.8.8").method, PQ_ZM_NONE);
	const char *j = testdir_write("r.json", "{\"cdn\":{\"edge\":[\"198.51.100.0/24\"]},\"waf\":{\"shield\":[\"2001:db8:1::/48\"]},"
					     "\"cloud\":{\"big\":[\"198.51.0.0/16\",\"198.51.100.0/24\"]},\"common\":{\"x\":[\"a.com\"]}}");
	assert_int_equal(pq_zeek_ranges_load(&c, j, PQ_ZCAT_N, &d), 0);
	const char *l = testdir_write("r.txt", "# comment\n203.0.113.0/25 cloud small # trailing\n\n203.0.113.128/25\n");
	assert_int_equal(pq_zeek_ranges_load(&c, l, PQ_ZCAT_CDN, &d), 0);
	pq_zeek_class k = cls(&c, "198.51.100.7");
	assert_int_equal(k.cat, PQ_ZCAT_CDN); /* cdn listed first: the equal cloud prefix loses */
	assert_int_equal(k.method, PQ_ZM_RANGES);
	assert_string_equal(c.prov_name[k.provider], "edge");
	assert_int_equal(cls(&c, "198.51.7.7").cat, PQ_ZCAT_CLOUD);
	assert_int_equal(cls(&c, "2001:db8:1::9").cat, PQ_ZCAT_CDN); /* a listed range beats special space */
	assert_int_equal(cls(&c, "2001:db8:2::9").cat, PQ_ZCAT_UNKNOWN); /* documentation space */
	assert_int_equal(cls(&c, "203.0.113.5").cat, PQ_ZCAT_CLOUD);
	assert_int_equal(cls(&c, "203.0.113.200").cat, PQ_ZCAT_CDN);
	k = cls(&c, "8.8.8.8");
	assert_int_equal(k.cat, PQ_ZCAT_OTHER); /* public, on no list: Other, by ranges */
	assert_int_equal(k.method, PQ_ZM_RANGES);
	assert_int_equal(cls(&c, "10.1.1.1").cat, PQ_ZCAT_UNKNOWN);
	assert_int_equal(cls(&c, "fe80::1").cat, PQ_ZCAT_UNKNOWN);
	assert_int_equal(cls(&c, "::ffff:8.8.8.8").cat, PQ_ZCAT_UNKNOWN);
	assert_int_equal(cls(&c, "2606:4700::1").cat, PQ_ZCAT_OTHER);
	pq_zeek_classifier_dispose(&c);
}

static void ranges_bad(void **state)
{
	(void)state;
	pq_zeek_classifier c;
	pq_diag d = {0};
	assert_int_equal(pq_zeek_classifier_init(&c), 0);
	struct {
		const char *text, *want;
	} cases[] = {
		{"{\"cdn\":[1]}", "is not an array"},
		{"{\"cloudy\":{}}", "no \"cdn\""},
		{"{\"cdn\":{\"x\":\"1.2.3.0/24\"}}", "is not an array"},
		{"{\"cdn\":{\"x\":[\"1.2.3.0/99\"]}}", "is not a CIDR prefix"},
		{"{\"cdn\":", "not a JSON object"},
		{"1.2.3.0/24 cdn\nbanana cdn\n", ":2: 'banana' is not a CIDR"},
		{"1.2.3.0/24\n", ":1: no category"},
		{"# only a comment\n", "no CIDR prefixes"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *p = testdir_write("bad.txt", cases[i].text);
		assert_int_not_equal(pq_zeek_ranges_load(&c, p, PQ_ZCAT_N, &d), 0);
		assert_non_null(strstr(d.msg, "bad.txt"));
		if (!strstr(d.msg, cases[i].want))
			fail_msg("case %zu: '%s' lacks '%s'", i, d.msg, cases[i].want);
	}
	assert_int_equal(pq_zeek_ranges_load(&c, "/nonexistent/r.json", PQ_ZCAT_N, &d), -2);
	assert_non_null(strstr(d.msg, "/nonexistent/r.json"));
	pq_zeek_classifier_dispose(&c);
}

static void asn_lists(void **state)
{
	(void)state;
	pq_zeek_classifier c;
	pq_diag d = {0};
	assert_int_equal(pq_zeek_classifier_init(&c), 0);
	assert_int_equal(pq_zeek_asns_default(&c), 0);
	assert_true(c.cdn.n > 40 && c.cloud.n > 10);
	assert_int_equal(pq_zeek_asns_set(&c, PQ_ZCAT_CDN, "AS3, 1,as2 # c\n", "--cdn-asns", &d), 0);
	assert_int_equal(c.cdn.n, 3);
	assert_int_equal(c.cdn.v[0], 1);
	assert_int_equal(c.cdn.v[2], 3);
	const char *bad[] = {"AS", "12x", "0", "4294967296", "", "AS-1"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		assert_int_equal(pq_zeek_asns_set(&c, PQ_ZCAT_CDN, bad[i], "--cdn-asns", &d), PQ_EINVAL);
		assert_non_null(strstr(d.msg, "--cdn-asns"));
	}
	assert_int_equal(c.cdn.n, 3); /* a bad list leaves the old one */
	const char *f = testdir_write("asns.txt", "# cloud\n16509\nAS8075\n");
	char spec[300];
	snprintf(spec, sizeof spec, "@%s", f);
	assert_int_equal(pq_zeek_asns_set(&c, PQ_ZCAT_CLOUD, spec, "--cloud-asns", &d), 0);
	assert_int_equal(c.cloud.n, 2);
	assert_int_not_equal(pq_zeek_asns_set(&c, PQ_ZCAT_CLOUD, "@/nonexistent", "--cloud-asns", &d), 0);
	assert_non_null(strstr(d.msg, "/nonexistent"));
	pq_zeek_classifier_dispose(&c);
}

/* The MaxMind test DBs of ../shared are tried by tests/integration/zeek_asn.sh and
 * zeek_badinput.sh; here, what needs no data set: files that are no DB at all. */
static void not_a_db(void **state)
{
	(void)state;
	pq_zeek_classifier c;
	pq_diag d = {0};
	assert_int_equal(pq_zeek_classifier_init(&c), 0);
	const char *p = testdir_write("fake.mmdb", "\xab\xcd\xefMaxMind.com but nothing after it");
	assert_int_equal(pq_zeek_asn_open(&c, p, &d), PQ_EPARSE);
	assert_non_null(strstr(d.msg, "fake.mmdb: not a readable MaxMind DB"));
	assert_int_not_equal(pq_zeek_asn_open(&c, dir, &d), 0); /* a directory */
	assert_non_null(strstr(d.msg, dir));
	assert_int_equal(pq_zeek_asn_open(&c, "/nonexistent.mmdb", &d), PQ_EIO);
	assert_non_null(strstr(d.msg, "/nonexistent.mmdb"));
	assert_false(c.have_mmdb);
	pq_zeek_classifier_dispose(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ranges_json_and_lines),
		cmocka_unit_test(ranges_bad),
		cmocka_unit_test(asn_lists),
		cmocka_unit_test(not_a_db),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
