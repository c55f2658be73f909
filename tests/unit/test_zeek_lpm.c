/* zeek/lpm and zeek/map: longest-prefix match, CIDR parsing, the hash map. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "zeek/lpm.h"
#include "zeek/map.h"

static void ins(pq_zeek_lpm *t, const char *cidr, int32_t v)
{
	pq_zeek_addr a;
	unsigned p;
	assert_int_equal(pq_zeek_cidr_parse(cidr, strlen(cidr), &a, &p), 0);
	assert_int_equal(pq_zeek_lpm_insert(t, &a, p, v), 0);
}

static int32_t look(const pq_zeek_lpm *t, const char *ip, unsigned *plen)
{
	pq_zeek_addr a;
	assert_int_equal(pq_zeek_addr_parse(ip, strlen(ip), &a), 0);
	return pq_zeek_lpm_lookup(t, &a, plen);
}

static void longest_prefix(void **state)
{
	(void)state;
	pq_zeek_lpm t;
	unsigned p;
	assert_int_equal(pq_zeek_lpm_init(&t), 0);
	assert_int_equal(look(&t, "1.2.3.4", &p), -1);
	ins(&t, "10.0.0.0/8", 1);
	ins(&t, "10.1.0.0/16", 2);
	ins(&t, "10.1.2.3/32", 3);
	ins(&t, "10.1.0.0/16", 9); /* equal prefix: the first stays */
	ins(&t, "2001:db8::/32", 4);
	ins(&t, "::/0", 5);
	assert_int_equal(look(&t, "10.9.9.9", &p), 1);
	assert_int_equal(p, 8);
	assert_int_equal(look(&t, "10.1.9.9", &p), 2);
	assert_int_equal(look(&t, "10.1.2.3", &p), 3);
	assert_int_equal(p, 32);
	assert_int_equal(look(&t, "11.0.0.1", &p), -1);
	assert_int_equal(look(&t, "2001:db8:1::1", &p), 4);
	assert_int_equal(look(&t, "2001:db9::1", &p), 5); /* the IPv6 default route */
	assert_int_equal(p, 0);
	assert_int_equal(t.prefixes, 5);
	pq_zeek_lpm_dispose(&t);
}

static void cidrs(void **state)
{
	(void)state;
	pq_zeek_addr a;
	unsigned p;
	assert_int_equal(pq_zeek_cidr_parse("10.1.2.3/8", 10, &a, &p), 0); /* host bits cleared */
	assert_int_equal(a.b[1], 0);
	assert_int_equal(p, 8);
	assert_int_equal(pq_zeek_cidr_parse("192.0.2.1", 9, &a, &p), 0);
	assert_int_equal(p, 32);
	const char *bad[] = {"10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/8x", "/8", "x/8", "10.0.0.0/0008"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		assert_int_equal(pq_zeek_cidr_parse(bad[i], strlen(bad[i]), &a, &p), PQ_EINVAL);
	pq_zeek_lpm t;
	assert_int_equal(pq_zeek_lpm_init(&t), 0);
	a.fam = 4;
	assert_int_equal(pq_zeek_lpm_insert(&t, &a, 33, 1), PQ_EINVAL);
	pq_zeek_lpm_dispose(&t);
}

static void hash_map(void **state)
{
	(void)state;
	pq_zeek_map m;
	pq_zeek_map_init(&m, sizeof(uint64_t));
	assert_null(pq_zeek_map_find(&m, "x", 1));
	for (int i = 0; i < 5000; i++) {
		char k[16];
		int n = snprintf(k, sizeof k, "k%d", i % 1000);
		int fresh;
		uint64_t *v = pq_zeek_map_get(&m, k, (size_t)n, &fresh);
		assert_non_null(v);
		assert_int_equal(fresh, i < 1000);
		*v += 1;
	}
	assert_int_equal(m.len, 1000);
	uint64_t *v = pq_zeek_map_find(&m, "k999", 4);
	assert_non_null(v);
	assert_int_equal(*v, 5);
	size_t it = 0, kl, n = 0;
	const void *k;
	uint64_t sum = 0;
	while ((v = pq_zeek_map_next(&m, &it, &k, &kl))) {
		sum += *v;
		n++;
	}
	assert_int_equal(n, 1000);
	assert_int_equal(sum, 5000);
	/* Keys are bytes, NULs included. */
	assert_non_null(pq_zeek_map_get(&m, "a\0b", 3, NULL));
	assert_null(pq_zeek_map_find(&m, "a", 1));
	pq_zeek_map_dispose(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(longest_prefix),
		cmocka_unit_test(cidrs),
		cmocka_unit_test(hash_map),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
