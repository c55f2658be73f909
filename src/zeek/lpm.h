/* Longest-prefix match over IPv4 and IPv6 prefixes: a binary trie per family, nodes in
 * one growable array. Each prefix carries a small integer value (the caller's index
 * into its provider table). Inserting a prefix that is already present keeps the first
 * value, so the caller decides precedence by insertion order.
 *
 * Contract: pq_zeek_lpm_insert returns 0, PQ_EINVAL for a prefix length beyond the
 * family's width, or PQ_ENOMEM; pq_zeek_lpm_lookup returns the value of the longest
 * prefix holding the address and its length in *plen, or -1 when none does. */
#ifndef PQ_ZEEK_LPM_H
#define PQ_ZEEK_LPM_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "zeek/rec.h"

typedef struct pq_zeek_lpm_node {
	uint32_t child[2]; /* 0 = none (node 0 is never a child) */
	int32_t val;       /* -1 = no prefix ends here */
} pq_zeek_lpm_node;

typedef struct pq_zeek_lpm {
	pq_zeek_lpm_node *n;
	size_t len, cap;
	size_t prefixes;
} pq_zeek_lpm;

int pq_zeek_lpm_init(pq_zeek_lpm *t) PQ_MUST_USE;
void pq_zeek_lpm_dispose(pq_zeek_lpm *t);
int pq_zeek_lpm_insert(pq_zeek_lpm *t, const pq_zeek_addr *a, unsigned plen, int32_t val) PQ_MUST_USE;
int32_t pq_zeek_lpm_lookup(const pq_zeek_lpm *t, const pq_zeek_addr *a, unsigned *plen);

/* "192.0.2.0/24" or "2001:db8::/32" (a bare address is a full-length prefix). Bits
 * beyond the prefix are cleared. 0 or PQ_EINVAL. */
int pq_zeek_cidr_parse(const char *s, size_t len, pq_zeek_addr *a, unsigned *plen) PQ_MUST_USE;

#endif
