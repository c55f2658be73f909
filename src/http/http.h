/* A small, strict HTTP/1.1: the server's request parser and router, and the client's
 * response-head parser. Only what the measurements need: GET (and HEAD) without a body,
 * keep-alive, `GET /bytes/N` for an N-byte body and `GET /` for a short page.
 *
 * Parsers return the length of a complete head (> 0), 0 when more bytes are needed, or
 * PQ_EPARSE (malformed) / PQ_ETOOBIG (head longer than PQ_HTTP_MAX_HEAD). They never
 * read past len and need no NUL terminator. */
#ifndef PQ_HTTP_HTTP_H
#define PQ_HTTP_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define PQ_HTTP_MAX_HEAD 8192
#define PQ_HTTP_MAX_BODY ((uint64_t)64 << 20) /* /bytes/N up to 64 MiB */

typedef struct pq_http_req {
	int head;        /* HEAD rather than GET */
	int keep_alive;  /* after this response */
	char path[256];
} pq_http_req;

typedef struct pq_http_resp {
	int status;           /* 200, 400, 404, 405, 413 */
	uint64_t body_len;
	const char *page;     /* body text for short pages; NULL for /bytes/N (pattern bytes) */
	int keep_alive;
} pq_http_resp;

int pq_http_parse_request(const char *buf, size_t len, pq_http_req *req) PQ_MUST_USE;

/* The hq-interop request of the QUIC interop runner (HTTP/0.9 on a QUIC stream):
 * "GET /path\r\n" (a bare "\n" also ends it). `fin`: the stream has ended, so len is all
 * there is. Returns the request's length (> 0), 0 when more bytes are needed, or
 * PQ_EPARSE (not a GET of an absolute path, or a stream that ended without the line
 * end) / PQ_ETOOBIG (no line end within the path's room). keep_alive is always 0. */
int pq_http_parse_hq(const char *buf, size_t len, int fin, pq_http_req *req) PQ_MUST_USE;

/* Decide the response for a parsed request. */
void pq_http_route(const pq_http_req *req, pq_http_resp *resp);
/* The response for a request that did not parse (400, connection closed after it). */
void pq_http_bad_request(pq_http_resp *resp);

/* Write the status line and headers into buf; returns their length, or PQ_ETOOBIG. */
int pq_http_format_head(const pq_http_resp *resp, char *buf, size_t n) PQ_MUST_USE;

/* Fill n body bytes starting at body offset off (a fixed repeating pattern, so the
 * client can check what it got). */
void pq_http_body_fill(char *dst, uint64_t off, size_t n);

/* Client side: parse "HTTP/1.x NNN ...\r\nheaders\r\n\r\n". content_length is -1 when
 * absent (the body then runs to the end of the connection). */
int pq_http_parse_response(const char *buf, size_t len, int *status, int64_t *content_length,
			   int *keep_alive) PQ_MUST_USE;

#endif
