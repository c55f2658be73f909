/* zeek/json: JSON-lines rows, epoch and ISO ts, omitted (unset) fields, bad lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "zeek/json.h"

static int row(char *buf, const char *line, pq_zeek_rec *r)
{
	strcpy(buf, line);
	return pq_zeek_json_row(buf, strlen(buf), r);
}

static void good(void **state)
{
	(void)state;
	char b[512];
	pq_zeek_rec r;
	assert_int_equal(row(b, "{\"ts\":1575413156.17,\"id.resp_h\":\"69.147.64.34\",\"version\":\"TLSv12\","
			       "\"curve\":\"x25519\",\"server_name\":\"a\\u002cb\",\"resumed\":false,\"established\":true}", &r), 0);
	assert_int_equal(r.ts, 1575413156);
	assert_int_equal(r.version, PQ_ZV_TLSv12);
	assert_int_equal(r.resumed, 0);
	assert_int_equal(r.established, 1);
	assert_int_equal(r.server_name_len, 3);
	assert_memory_equal(r.server_name, "a,b", 3);
	assert_memory_equal(r.curve, "x25519", 6);
	assert_int_equal(row(b, "{\"ts\":\"2008-07-09T16:13:30.005432Z\",\"id.resp_h\":\"::1\"}", &r), 0);
	assert_int_equal(r.ts, 1215620010);
	assert_int_equal(r.version, PQ_ZV_UNSET);
	assert_int_equal(r.resumed, PQ_ZEEK_UNKNOWN); /* omitted: unknown */
	assert_null(r.server_name);
	assert_int_equal(row(b, "{\"id.resp_h\":\"1.2.3.4\",\"ts\":null,\"version\":\"\"}", &r), 0);
	assert_false(r.has_ts);
	assert_int_equal(r.version, PQ_ZV_UNSET);
}

static void bad(void **state)
{
	(void)state;
	char b[512];
	pq_zeek_rec r;
	struct {
		const char *line;
		int why;
	} cases[] = {
		{"{\"id.resp_h\":\"1.2.3.4\"", PQ_ZB_JSON},
		{"[1,2]", PQ_ZB_JSON},
		{"\"just a string\"", PQ_ZB_JSON},
		{"{\"ts\":1}", PQ_ZB_ADDR},
		{"{\"id.resp_h\":5}", PQ_ZB_ADDR},
		{"{\"id.resp_h\":\"1.2.3.4\",\"resumed\":\"T\"}", PQ_ZB_VALUE},
		{"{\"id.resp_h\":\"1.2.3.4\",\"version\":13}", PQ_ZB_VALUE},
		{"\x01\x02garbage", PQ_ZB_JSON},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		assert_int_equal(row(b, cases[i].line, &r), PQ_EPARSE);
		assert_int_equal(r.bad, cases[i].why);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(good),
		cmocka_unit_test(bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
