/* load/chromium: the route's MSS a browser's ClientHello segments are counted in (bench
 * does not know the link): loopback's from its device MTU, IPv6's below IPv4's; an
 * address family with no route gives 0 (unknown), not a guess. A navigation's directory:
 * the first parent that takes one, a refusal naming every parent tried, a path too long
 * for its buffer refused, not cut. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <cmocka.h>

#include <unistd.h>

#include "core/wire.h"
#include "pki/dir.h"
#include "load/chromium.h"

static long lo_mtu(void)
{
	FILE *f = fopen("/sys/class/net/lo/mtu", "r");
	long mtu = -1;
	if (f && fscanf(f, "%ld", &mtu) != 1)
		mtu = -1;
	if (f)
		fclose(f);
	return mtu;
}

static void loopback(void **state)
{
	(void)state;
	long mtu = lo_mtu();
	if (mtu <= 0)
		skip();
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(9)};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	/* an IPv4 packet is at most 65,535 bytes, whatever the device's MTU */
	assert_int_equal(pq_chromium_route_mss((const struct sockaddr *)&a, sizeof a), pq_wire_mss(mtu < 65535 ? mtu : 65535));
	struct sockaddr_in6 b = {.sin6_family = AF_INET6, .sin6_port = htons(9), .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	unsigned m6 = pq_chromium_route_mss((const struct sockaddr *)&b, sizeof b);
	if (m6) /* 0 where IPv6 is off; its header is longer, its MTU the route's own */
		assert_true(m6 <= pq_wire_mss(mtu) && m6 > 1200);
}

static void no_route(void **state)
{
	(void)state;
	struct sockaddr_un u = {.sun_family = AF_UNIX};
	assert_int_equal(pq_chromium_route_mss((const struct sockaddr *)&u, sizeof u), 0);
}

static void nav_dir(void **state)
{
	(void)state;
	char base[] = "/tmp/pqtls-test-navdir-XXXXXX", dir[80];
	assert_non_null(mkdtemp(base));
	pq_diag d = {0};
	/* the first parent that takes one */
	const char *const two[] = {"/nonexistent-pqtls/a", base};
	assert_int_equal(pq_chromium_nav_dir(dir, sizeof dir, two, 2, &d), 0);
	assert_int_equal(strncmp(dir, base, strlen(base)), 0);
	assert_non_null(strstr(dir, "/pqtls-chromium-"));
	assert_int_equal(access(dir, W_OK), 0);
	pq_pki_dir_remove(dir);
	/* none: every parent named, with why */
	const char *const none[] = {"/nonexistent-pqtls/a", "/nonexistent-pqtls/b"};
	assert_true(pq_chromium_nav_dir(dir, sizeof dir, none, 2, &d) < 0);
	assert_string_equal(dir, "");
	assert_non_null(strstr(pq_diag_msg(&d), "/nonexistent-pqtls/a or /nonexistent-pqtls/b"));
	assert_non_null(strstr(pq_diag_msg(&d), "No such file"));
	/* a parent too long for the buffer: refused, not cut */
	char small[24];
	const char *const one[] = {base};
	assert_int_equal(pq_chromium_nav_dir(small, sizeof small, one, 1, &d), PQ_ERANGE);
	assert_non_null(strstr(pq_diag_msg(&d), "longer than 23 bytes"));
	assert_int_equal(pq_chromium_nav_dir(dir, sizeof dir, NULL, 0, &d), PQ_EINVAL);
	assert_int_equal(pq_chromium_nav_dir(dir, 0, one, 1, &d), PQ_EINVAL); /* no room at all: nothing written */
	pq_pki_dir_remove(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(loopback), cmocka_unit_test(no_route), cmocka_unit_test(nav_dir)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
