/* http/http: strict request parsing, routing, response heads, client-side parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "http/http.h"

static int parse(const char *s, pq_http_req *r)
{
	return pq_http_parse_request(s, strlen(s), r);
}

static void request_ok(void **state)
{
	(void)state;
	pq_http_req r;
	const char *s = "GET /bytes/100 HTTP/1.1\r\nHost: x\r\nUser-Agent: t\r\n\r\nGET /";
	assert_int_equal(parse(s, &r), (int)(strstr(s, "\r\n\r\n") - s) + 4);
	assert_string_equal(r.path, "/bytes/100");
	assert_int_equal(r.keep_alive, 1);
	assert_int_equal(r.head, 0);
	assert_true(parse("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &r) > 0);
	assert_int_equal(r.keep_alive, 0);
	assert_true(parse("GET / HTTP/1.0\r\n\r\n", &r) > 0);
	assert_int_equal(r.keep_alive, 0);
	assert_true(parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", &r) > 0);
	assert_int_equal(r.keep_alive, 1);
	assert_true(parse("HEAD / HTTP/1.1\r\nHost: x\r\n\r\n", &r) > 0);
	assert_int_equal(r.head, 1);
	assert_true(parse("POST / HTTP/1.1\r\nHost: x\r\n\r\n", &r) > 0);
	assert_int_equal(r.head, -1);
}

static void request_incomplete_and_bad(void **state)
{
	(void)state;
	pq_http_req r;
	assert_int_equal(parse("GET / HTTP/1.1\r\nHost: x\r\n", &r), 0);
	assert_int_equal(parse("", &r), 0);
	static const char *const bad[] = {
		"GARBAGE\r\n\r\n",
		"GET / HTTP/1.1\r\n\r\n",                        /* 1.1 without Host */
		"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",  /* two Hosts */
		"GET / HTTP/2.0\r\nHost: x\r\n\r\n",
		"GET  / HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET x HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET / HTTP/1.1\r\nHost x\r\n\r\n",              /* no colon */
		"GET / HTTP/1.1\r\nBad Name: x\r\nHost: x\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
		"GET / HTTP/1.1\nHost: x\r\n\r\n",
		"GET /\x01 HTTP/1.1\r\nHost: x\r\n\r\n",
		"G\x01T / HTTP/1.1\r\nHost: x\r\n\r\n",       /* control byte in the method */
		"GET / HTTP/1.1\nHost: x\n\n",                 /* bare LF line ends: 400 at once */
		"GET / HTTP/1.1\n",                              /* ... not "more to come" */
		"GET / HTTP/1.1\r\nHost: x\n",
		"\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(parse(bad[i], &r), PQ_EPARSE);
	char big[PQ_HTTP_MAX_HEAD + 10];
	memset(big, 'a', sizeof big);
	memcpy(big, "GET / HTTP/1.1\r\nX: ", 19);
	assert_int_equal(pq_http_parse_request(big, sizeof big, &r), PQ_ETOOBIG);
}

static void route(void **state)
{
	(void)state;
	pq_http_req r = {.keep_alive = 1};
	pq_http_resp resp;
	strcpy(r.path, "/bytes/16777216");
	pq_http_route(&r, &resp);
	assert_int_equal(resp.status, 200);
	assert_true(resp.body_len == 16777216);
	assert_null(resp.page);
	strcpy(r.path, "/bytes/0");
	pq_http_route(&r, &resp);
	assert_int_equal(resp.status, 200);
	assert_true(resp.body_len == 0);
	static const struct {
		const char *path;
		int status;
	} cases[] = {
		{"/bytes/999999999999", 400}, {"/bytes/67108865", 413}, {"/bytes/12x", 400},
		{"/nope", 404},		      {"/", 200},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		strcpy(r.path, cases[i].path);
		pq_http_route(&r, &resp);
		assert_int_equal(resp.status, cases[i].status);
	}
	assert_non_null(resp.page); /* "/" is the short page */
	r.head = -1;
	pq_http_route(&r, &resp);
	assert_int_equal(resp.status, 405);
	pq_http_bad_request(&resp);
	assert_int_equal(resp.status, 400);
	assert_int_equal(resp.keep_alive, 0);
}

static void head_roundtrip(void **state)
{
	(void)state;
	pq_http_resp resp = {.status = 200, .body_len = 1234, .keep_alive = 1};
	char buf[256];
	int n = pq_http_format_head(&resp, buf, sizeof buf);
	assert_true(n > 0);
	int status, ka;
	int64_t cl;
	assert_int_equal(pq_http_parse_response(buf, (size_t)n, &status, &cl, &ka), n);
	assert_int_equal(status, 200);
	assert_int_equal(cl, 1234);
	assert_int_equal(ka, 1);
	assert_int_equal(pq_http_format_head(&resp, buf, 10), PQ_ETOOBIG);
	/* s_server -www answers HTTP/1.0 without a length: body to the end. */
	const char *old = "HTTP/1.0 200 ok\r\nContent-type: text/html\r\n\r\n<html>";
	assert_true(pq_http_parse_response(old, strlen(old), &status, &cl, &ka) > 0);
	assert_int_equal(cl, -1);
	assert_int_equal(ka, 0);
	assert_int_equal(pq_http_parse_response("HTTP/1.1 200", 12, &status, &cl, &ka), 0);
	const char *bad = "SSH-2.0-x\r\n\r\n";
	assert_int_equal(pq_http_parse_response(bad, strlen(bad), &status, &cl, &ka), PQ_EPARSE);
	const char *badlen = "HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n\r\n";
	assert_int_equal(pq_http_parse_response(badlen, strlen(badlen), &status, &cl, &ka), PQ_EPARSE);
	/* Two different lengths are malformed (RFC 9112 6.3); the same one twice is not. */
	const char *two = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n";
	assert_int_equal(pq_http_parse_response(two, strlen(two), &status, &cl, &ka), PQ_EPARSE);
	const char *same = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n";
	assert_true(pq_http_parse_response(same, strlen(same), &status, &cl, &ka) > 0);
	assert_int_equal(cl, 5);
}

static void body_pattern(void **state)
{
	(void)state;
	char a[200], b[100];
	pq_http_body_fill(a, 0, sizeof a);
	pq_http_body_fill(b, 100, sizeof b);
	assert_memory_equal(a + 100, b, sizeof b);
	assert_memory_equal(a, a + 64, 64);
}

/* hq-interop request lines: complete, partial, bad, oversize, and a stream that ends
 * without the line end. */
static void hq_request(void **state)
{
	(void)state;
	pq_http_req r;
	const char *ok = "GET /bytes/100\r\n";
	assert_int_equal(pq_http_parse_hq(ok, strlen(ok), 0, &r), (int)strlen(ok));
	assert_string_equal(r.path, "/bytes/100");
	assert_int_equal(r.keep_alive, 0);
	assert_int_equal(pq_http_parse_hq("GET /\n", 6, 1, &r), 6);
	assert_string_equal(r.path, "/");
	assert_int_equal(pq_http_parse_hq("GET /by", 7, 0, &r), 0);
	assert_int_equal(pq_http_parse_hq("GET /by", 7, 1, &r), PQ_EPARSE);
	assert_int_equal(pq_http_parse_hq("POST /x\r\n", 9, 0, &r), PQ_EPARSE);
	assert_int_equal(pq_http_parse_hq("GET x\r\n", 7, 0, &r), PQ_EPARSE);
	assert_int_equal(pq_http_parse_hq("GET /a b\r\n", 10, 0, &r), PQ_EPARSE);
	assert_int_equal(pq_http_parse_hq("GET \r\n", 6, 0, &r), PQ_EPARSE);
	char big[400];
	memset(big, 'a', sizeof big);
	memcpy(big, "GET /", 5);
	assert_int_equal(pq_http_parse_hq(big, sizeof big, 0, &r), PQ_ETOOBIG);
	/* A path that just fits the request's room is parsed; one byte more is refused. */
	char fit[300] = "GET /";
	memset(fit + 5, 'p', sizeof r.path - 2);
	strcpy(fit + 5 + sizeof r.path - 2, "\r\n");
	assert_true(pq_http_parse_hq(fit, strlen(fit), 0, &r) > 0);
	assert_int_equal(strlen(r.path), sizeof r.path - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(request_ok),	  cmocka_unit_test(request_incomplete_and_bad),
		cmocka_unit_test(route),	  cmocka_unit_test(head_roundtrip),
		cmocka_unit_test(body_pattern),	  cmocka_unit_test(hq_request),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
