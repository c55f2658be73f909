#include "check/hello.h"

#include <string.h>

#define EXT_SERVER_NAME 0
#define EXT_KEY_SHARE 51

/* A bounded reader: every take checks what is left, so a short or lying length stops the
 * parse with the name of the field it was reading. */
typedef struct cursor {
	const uint8_t *buf;
	size_t pos, end;
	const char **failed; /* shared by nested cursors: the field that did not fit */
} cursor;

static int take(cursor *c, size_t n, const char *field)
{
	if (c->end - c->pos < n) {
		*c->failed = field;
		return -1;
	}
	c->pos += n;
	return 0;
}

static int num(cursor *c, size_t n, const char *field, size_t *v)
{
	size_t at = c->pos;
	if (take(c, n, field) < 0)
		return -1;
	*v = 0;
	for (size_t i = 0; i < n; i++)
		*v = *v << 8 | c->buf[at + i];
	return 0;
}

/* A vector with an n-byte length: *sub covers its body and c moves past it. */
static int vec(cursor *c, size_t n, const char *field, cursor *sub)
{
	size_t len;
	if (num(c, n, field, &len) < 0)
		return -1;
	*sub = (cursor){.buf = c->buf, .pos = c->pos, .end = c->pos + len, .failed = c->failed};
	if (take(c, len, field) < 0)
		return -1;
	return 0;
}

static int key_share(cursor *ext, pq_chk_hello *h)
{
	cursor list;
	if (vec(ext, 2, "key_share client_shares", &list) < 0)
		return -1;
	while (list.pos < list.end) {
		size_t group;
		cursor kx;
		if (num(&list, 2, "key_share group", &group) < 0 ||
		    vec(&list, 2, "key_share key_exchange", &kx) < 0)
			return -1;
		if (h->nshares < PQ_CHK_MAX_SHARES)
			h->shares[h->nshares++] = (pq_chk_share){
				.group = (uint16_t)group, .off = kx.pos, .len = kx.end - kx.pos};
	}
	return 0;
}

static int server_name(cursor *ext, pq_chk_hello *h)
{
	cursor list, name;
	size_t type;
	if (vec(ext, 2, "server_name list", &list) < 0 ||
	    num(&list, 1, "server_name name_type", &type) < 0 ||
	    vec(&list, 2, "server_name host_name", &name) < 0)
		return -1;
	if (type == 0) {
		h->sni_off = name.pos;
		h->sni_len = name.end - name.pos;
	}
	return 0;
}

static int extensions(cursor *c, pq_chk_hello *h)
{
	cursor all;
	h->ext_off = c->pos;
	if (vec(c, 2, "extensions", &all) < 0)
		return -1;
	while (all.pos < all.end) {
		size_t type;
		cursor ext;
		if (num(&all, 2, "extension type", &type) < 0 ||
		    vec(&all, 2, "extension body", &ext) < 0)
			return -1;
		if ((type == EXT_KEY_SHARE && key_share(&ext, h) < 0) ||
		    (type == EXT_SERVER_NAME && server_name(&ext, h) < 0))
			return -1;
	}
	return 0;
}

static int body(cursor *c, pq_chk_hello *h)
{
	cursor skip;
	if (take(c, 2 + 32, "legacy_version and random") < 0 ||
	    vec(c, 1, "legacy_session_id", &skip) < 0 || vec(c, 2, "cipher_suites", &skip) < 0 ||
	    vec(c, 1, "legacy_compression_methods", &skip) < 0)
		return -1;
	return extensions(c, h);
}

int pq_chk_hello_parse(const uint8_t *buf, size_t len, pq_chk_hello *out, pq_diag *d)
{
	pq_chk_hello h = {0};
	const char *failed = "";
	cursor c = {.buf = buf, .pos = 0, .end = len, .failed = &failed};
	cursor frag, hs;
	size_t type = 0, hs_type = 0;
	if (num(&c, 1, "record type", &type) < 0 || take(&c, 2, "record version") < 0 ||
	    vec(&c, 2, "record fragment", &frag) < 0)
		goto bad;
	if (type != 22)
		return pq_diag_set(d, PQ_EPARSE, "ClientHello: record type %zu is not handshake (22)", type);
	if (num(&frag, 1, "handshake type", &hs_type) < 0 || vec(&frag, 3, "ClientHello body", &hs) < 0)
		goto bad;
	if (hs_type != 1)
		return pq_diag_set(d, PQ_EPARSE, "ClientHello: handshake type %zu is not ClientHello (1)",
				   hs_type);
	if (body(&hs, &h) < 0)
		goto bad;
	h.record_len = c.pos;
	h.hs_len = hs.end - 5;
	*out = h;
	return 0;
bad:
	return pq_diag_set(d, PQ_EPARSE, "ClientHello: %s runs past the %zu bytes given", failed, len);
}

const pq_chk_share *pq_chk_hello_share(const pq_chk_hello *h, uint16_t group)
{
	for (size_t i = 0; i < h->nshares; i++)
		if (h->shares[i].group == group)
			return &h->shares[i];
	return NULL;
}
