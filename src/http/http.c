#include "http/http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char home_page[] =
	"<!doctype html><title>pqtls</title><p>pqtls serve: GET /bytes/N for N bytes.</p>\n";

/* Find "\r\n\r\n"; returns the head length including it, 0 if absent. */
static size_t head_end(const char *buf, size_t len)
{
	for (size_t i = 3; i < len; i++)
		if (buf[i] == '\n' && buf[i - 1] == '\r' && buf[i - 2] == '\n' && buf[i - 3] == '\r')
			return i + 1;
	return 0;
}

static int bare_lf(const char *buf, size_t n)
{
	for (const char *lf = memchr(buf, '\n', n); lf; lf = memchr(lf + 1, '\n', n - (size_t)(lf + 1 - buf)))
		if (lf == buf || lf[-1] != '\r')
			return 1;
	return 0;
}

static int is_tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* Header value: visible ASCII, space and tab only (no bare CR/LF, no NUL). */
static int value_ok(const char *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v[i];
		if (c != '\t' && (c < 0x20 || c == 0x7f))
			return 0;
	}
	return 1;
}

static int token_is(const char *v, size_t n, const char *word)
{
	while (n && (*v == ' ' || *v == '\t'))
		v++, n--;
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	return n == strlen(word) && strncasecmp(v, word, n) == 0;
}

/* Walks the header lines of [p, end): calls back with name and value spans.
 * Returns PQ_EPARSE on a malformed line. */
typedef int (*header_fn)(void *arg, const char *name, size_t nlen, const char *val, size_t vlen);

static int each_header(const char *p, const char *end, header_fn fn, void *arg)
{
	while (p < end) {
		const char *eol = memchr(p, '\r', (size_t)(end - p));
		if (!eol || eol + 1 >= end || eol[1] != '\n')
			return PQ_EPARSE;
		if (eol == p)
			return 0; /* the blank line */
		const char *colon = memchr(p, ':', (size_t)(eol - p));
		if (!colon || colon == p)
			return PQ_EPARSE;
		for (const char *c = p; c < colon; c++)
			if (!is_tchar((unsigned char)*c))
				return PQ_EPARSE;
		if (!value_ok(colon + 1, (size_t)(eol - colon - 1)))
			return PQ_EPARSE;
		int rc = fn(arg, p, (size_t)(colon - p), colon + 1, (size_t)(eol - colon - 1));
		if (rc < 0)
			return rc;
		p = eol + 2;
	}
	return PQ_EPARSE;
}

struct req_hdrs {
	int host, close, keep_alive, body;
};

static int req_header(void *arg, const char *name, size_t nlen, const char *val, size_t vlen)
{
	struct req_hdrs *h = arg;
	if (nlen == 4 && strncasecmp(name, "host", 4) == 0) {
		if (h->host++)
			return PQ_EPARSE; /* RFC 9112 3.2: more than one Host is a 400 */
	} else if (nlen == 10 && strncasecmp(name, "connection", 10) == 0) {
		h->close |= token_is(val, vlen, "close");
		h->keep_alive |= token_is(val, vlen, "keep-alive");
	} else if ((nlen == 14 && strncasecmp(name, "content-length", 14) == 0 &&
		    !token_is(val, vlen, "0")) ||
		   (nlen == 17 && strncasecmp(name, "transfer-encoding", 17) == 0)) {
		h->body = 1;
	}
	return 0;
}

int pq_http_parse_request(const char *buf, size_t len, pq_http_req *req)
{
	size_t scan = len < PQ_HTTP_MAX_HEAD ? len : PQ_HTTP_MAX_HEAD;
	size_t hl = head_end(buf, scan);
	/* A line of the head ended by a bare LF is malformed at once (400), rather than a head
	 * that never ends until the header timeout: a head ends at CRLF CRLF only. */
	if (bare_lf(buf, hl ? hl : scan))
		return PQ_EPARSE;
	if (!hl)
		return len >= PQ_HTTP_MAX_HEAD ? PQ_ETOOBIG : 0;
	const char *end = buf + hl;
	const char *eol = memchr(buf, '\r', hl);
	if (!eol || eol[1] != '\n')
		return PQ_EPARSE;

	/* request-line = method SP request-target SP HTTP-version */
	const char *sp1 = memchr(buf, ' ', (size_t)(eol - buf));
	const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1)) : NULL;
	if (!sp1 || !sp2 || sp1 == buf || sp2 == sp1 + 1 || sp1[1] != '/')
		return PQ_EPARSE;
	size_t vlen = (size_t)(eol - sp2 - 1);
	int minor;
	if (vlen == 8 && memcmp(sp2 + 1, "HTTP/1.1", 8) == 0)
		minor = 1;
	else if (vlen == 8 && memcmp(sp2 + 1, "HTTP/1.0", 8) == 0)
		minor = 0;
	else
		return PQ_EPARSE;
	size_t plen = (size_t)(sp2 - sp1 - 1);
	if (plen >= sizeof req->path)
		return PQ_EPARSE;
	for (const char *c = sp1 + 1; c < sp2; c++)
		if ((unsigned char)*c <= 0x20 || (unsigned char)*c >= 0x7f)
			return PQ_EPARSE;

	/* method = token (RFC 9110 9.1): "G\x01T" is malformed, not an unknown method. */
	for (const char *c = buf; c < sp1; c++)
		if (!is_tchar((unsigned char)*c))
			return PQ_EPARSE;

	struct req_hdrs h = {0};
	int rc = each_header(eol + 2, end, req_header, &h);
	if (rc < 0 || (minor == 1 && h.host != 1) || h.body)
		return PQ_EPARSE;

	memset(req, 0, sizeof *req);
	size_t mlen = (size_t)(sp1 - buf);
	if (mlen == 3 && memcmp(buf, "GET", 3) == 0)
		req->head = 0;
	else if (mlen == 4 && memcmp(buf, "HEAD", 4) == 0)
		req->head = 1;
	else
		req->head = -1; /* any other method: routed to 405 */
	memcpy(req->path, sp1 + 1, plen);
	req->path[plen] = '\0';
	req->keep_alive = minor == 1 ? !h.close : h.keep_alive;
	return (int)hl;
}

int pq_http_parse_hq(const char *buf, size_t len, int fin, pq_http_req *req)
{
	size_t room = sizeof req->path + 6; /* "GET " + path + "\r\n" */
	const char *nl = memchr(buf, '\n', len < room ? len : room);
	if (!nl)
		return len >= room ? PQ_ETOOBIG : fin ? PQ_EPARSE : 0;
	size_t line = (size_t)(nl - buf);
	if (line > 0 && buf[line - 1] == '\r')
		line--;
	if (line < 5 || memcmp(buf, "GET /", 5) != 0 || line - 4 >= sizeof req->path)
		return PQ_EPARSE;
	for (const char *c = buf + 4; c < buf + line; c++)
		if ((unsigned char)*c <= 0x20 || (unsigned char)*c >= 0x7f)
			return PQ_EPARSE;
	memset(req, 0, sizeof *req);
	memcpy(req->path, buf + 4, line - 4);
	req->path[line - 4] = '\0';
	return (int)(nl - buf + 1);
}

static void set_page(pq_http_resp *r, int status, const char *page, int keep_alive)
{
	r->status = status;
	r->page = page;
	r->body_len = strlen(page);
	r->keep_alive = keep_alive;
}

void pq_http_bad_request(pq_http_resp *resp)
{
	set_page(resp, 400, "bad request\n", 0);
}

void pq_http_route(const pq_http_req *req, pq_http_resp *resp)
{
	const char *p = req->path;
	if (req->head < 0) {
		set_page(resp, 405, "only GET and HEAD\n", req->keep_alive);
	} else if (strcmp(p, "/") == 0) {
		set_page(resp, 200, home_page, req->keep_alive);
	} else if (strncmp(p, "/bytes/", 7) == 0) {
		const char *num = p + 7;
		char *end = NULL;
		size_t digits = strspn(num, "0123456789");
		unsigned long long n = digits && digits < 12 ? strtoull(num, &end, 10) : 0;
		if (!digits || digits >= 12 || *end) {
			set_page(resp, 400, "bad request: /bytes/N needs a decimal N\n",
				 req->keep_alive);
		} else if (n > PQ_HTTP_MAX_BODY) {
			set_page(resp, 413, "too large: /bytes/N allows N up to 64 MiB\n",
				 req->keep_alive);
		} else {
			resp->status = 200;
			resp->page = NULL;
			resp->body_len = n;
			resp->keep_alive = req->keep_alive;
		}
	} else {
		set_page(resp, 404, "not found: try / or /bytes/N\n", req->keep_alive);
	}
}

static const char *reason(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 413:
		return "Content Too Large";
	default:
		return "Error";
	}
}

int pq_http_format_head(const pq_http_resp *resp, char *buf, size_t n)
{
	int len = snprintf(buf, n,
			   "HTTP/1.1 %d %s\r\nContent-Length: %llu\r\nContent-Type: %s\r\n"
			   "Connection: %s\r\n\r\n",
			   resp->status, reason(resp->status), (unsigned long long)resp->body_len,
			   resp->page ? "text/html" : "application/octet-stream",
			   resp->keep_alive ? "keep-alive" : "close");
	return len < 0 || (size_t)len >= n ? PQ_ETOOBIG : len;
}

void pq_http_body_fill(char *dst, uint64_t off, size_t n)
{
	static const char pattern[64] = "pqtls-body-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP\n";
	for (size_t i = 0; i < n; i++)
		dst[i] = pattern[(off + i) % sizeof pattern];
}

struct resp_hdrs {
	int64_t content_length;
	int close, keep_alive, bad;
};

static int resp_header(void *arg, const char *name, size_t nlen, const char *val, size_t vlen)
{
	struct resp_hdrs *h = arg;
	if (nlen == 14 && strncasecmp(name, "content-length", 14) == 0) {
		while (vlen && (*val == ' ' || *val == '\t'))
			val++, vlen--;
		int64_t v = 0;
		size_t i = 0;
		for (; i < vlen && val[i] >= '0' && val[i] <= '9' && v < ((int64_t)1 << 50); i++)
			v = v * 10 + (val[i] - '0');
		for (; i < vlen && (val[i] == ' ' || val[i] == '\t'); i++)
			;
		if (i != vlen || vlen == 0)
			return PQ_EPARSE;
		/* Two different lengths: which one frames the body is ambiguous, the
		 * response malformed (RFC 9112 6.3). The same one twice is harmless. */
		if (h->content_length >= 0 && h->content_length != v)
			return PQ_EPARSE;
		h->content_length = v;
	} else if (nlen == 10 && strncasecmp(name, "connection", 10) == 0) {
		h->close |= token_is(val, vlen, "close");
		h->keep_alive |= token_is(val, vlen, "keep-alive");
	}
	return 0;
}

int pq_http_parse_response(const char *buf, size_t len, int *status, int64_t *content_length,
			   int *keep_alive)
{
	size_t scan = len < PQ_HTTP_MAX_HEAD ? len : PQ_HTTP_MAX_HEAD;
	size_t hl = head_end(buf, scan);
	if (!hl)
		return len >= PQ_HTTP_MAX_HEAD ? PQ_ETOOBIG : 0;
	if (hl < 16 || memcmp(buf, "HTTP/1.", 7) != 0 || (buf[7] != '0' && buf[7] != '1') ||
	    buf[8] != ' ' || buf[9] < '1' || buf[9] > '5' || buf[10] < '0' || buf[10] > '9' ||
	    buf[11] < '0' || buf[11] > '9')
		return PQ_EPARSE;
	const char *eol = memchr(buf, '\r', hl);
	if (!eol || eol[1] != '\n')
		return PQ_EPARSE;
	struct resp_hdrs h = {.content_length = -1};
	int rc = each_header(eol + 2, buf + hl, resp_header, &h);
	if (rc < 0)
		return rc;
	*status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
	*content_length = h.content_length;
	*keep_alive = buf[7] == '1' ? !h.close : h.keep_alive;
	return (int)hl;
}
