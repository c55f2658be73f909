#include "zeek/lpm.h"

#include <stdlib.h>
#include <string.h>

/* Roots: node 0 for IPv4, node 1 for IPv6. */
int pq_zeek_lpm_init(pq_zeek_lpm *t)
{
	memset(t, 0, sizeof *t);
	t->cap = 1024;
	t->n = calloc(t->cap, sizeof *t->n);
	if (!t->n)
		return PQ_ENOMEM;
	t->len = 2;
	t->n[0].val = t->n[1].val = -1;
	return 0;
}

void pq_zeek_lpm_dispose(pq_zeek_lpm *t)
{
	free(t->n);
	memset(t, 0, sizeof *t);
}

static int bit(const pq_zeek_addr *a, unsigned i)
{
	return (a->b[i / 8] >> (7 - i % 8)) & 1;
}

static int new_node(pq_zeek_lpm *t, uint32_t *idx)
{
	if (t->len == t->cap) {
		size_t ncap = t->cap * 2;
		pq_zeek_lpm_node *nn = realloc(t->n, ncap * sizeof *nn);
		if (!nn)
			return PQ_ENOMEM;
		t->n = nn;
		t->cap = ncap;
	}
	t->n[t->len] = (pq_zeek_lpm_node){{0, 0}, -1};
	*idx = (uint32_t)t->len++;
	return 0;
}

int pq_zeek_lpm_insert(pq_zeek_lpm *t, const pq_zeek_addr *a, unsigned plen, int32_t val)
{
	if (plen > (a->fam == 4 ? 32u : 128u))
		return PQ_EINVAL;
	uint32_t cur = a->fam == 4 ? 0 : 1;
	for (unsigned i = 0; i < plen; i++) {
		int b = bit(a, i);
		if (!t->n[cur].child[b]) {
			uint32_t k;
			int rc = new_node(t, &k);
			if (rc)
				return rc;
			t->n[cur].child[b] = k;
		}
		cur = t->n[cur].child[b];
	}
	if (t->n[cur].val < 0) {
		t->n[cur].val = val;
		t->prefixes++;
	}
	return 0;
}

int32_t pq_zeek_lpm_lookup(const pq_zeek_lpm *t, const pq_zeek_addr *a, unsigned *plen)
{
	unsigned width = a->fam == 4 ? 32 : 128;
	uint32_t cur = a->fam == 4 ? 0 : 1;
	int32_t best = t->n[cur].val;
	unsigned bestlen = 0;
	for (unsigned i = 0; i < width; i++) {
		cur = t->n[cur].child[bit(a, i)];
		if (!cur)
			break;
		if (t->n[cur].val >= 0) {
			best = t->n[cur].val;
			bestlen = i + 1;
		}
	}
	if (plen)
		*plen = bestlen;
	return best;
}

int pq_zeek_cidr_parse(const char *s, size_t len, pq_zeek_addr *a, unsigned *plen)
{
	const char *slash = memchr(s, '/', len);
	size_t alen = slash ? (size_t)(slash - s) : len;
	if (!alen || pq_zeek_addr_parse(s, alen, a))
		return PQ_EINVAL;
	unsigned width = a->fam == 4 ? 32 : 128;
	unsigned p = width;
	if (slash) {
		size_t i = alen + 1;
		if (i == len || len - i > 3)
			return PQ_EINVAL;
		p = 0;
		for (; i < len; i++) {
			if (s[i] < '0' || s[i] > '9')
				return PQ_EINVAL;
			p = p * 10 + (unsigned)(s[i] - '0');
		}
		if (p > width)
			return PQ_EINVAL;
	}
	/* Lists in the wild write host bits ("10.1.2.3/8"); the prefix is what counts. */
	for (unsigned i = p; i < width; i++)
		a->b[i / 8] &= (uint8_t)~(1u << (7 - i % 8));
	*plen = p;
	return 0;
}
