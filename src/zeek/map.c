#include "zeek/map.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Values start at the key's length rounded up to 8, so any value struct is aligned. */
static size_t val_off(size_t klen)
{
	return (klen + 7) & ~(size_t)7;
}

uint64_t pq_zeek_map_hash(const void *key, size_t klen)
{
	/* Eight bytes per step (rows hash a server name each), then a final mix so that
	 * linear probing sees spread-out low bits. */
	const unsigned char *p = key;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ klen;
	size_t i = 0;
	for (; i + 8 <= klen; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 29;
	}
	uint64_t tail = 0; /* the last 0-7 bytes, little-endian, without a memcpy call */
	for (size_t k = 0; i + k < klen; k++)
		tail |= (uint64_t)p[i + k] << (8 * k);
	h = (h ^ tail) * 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 32;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h | 1; /* 0 marks an empty slot */
}

void pq_zeek_map_init(pq_zeek_map *m, size_t value_size)
{
	memset(m, 0, sizeof *m);
	m->vsize = value_size;
}

void pq_zeek_map_init_fixed(pq_zeek_map *m, size_t klen, size_t value_size)
{
	pq_zeek_map_init(m, value_size);
	m->fixed_klen = klen;
	m->stride = 8 + val_off(klen) + val_off(value_size);
}

void pq_zeek_map_dispose(pq_zeek_map *m)
{
	for (size_t i = 0; m->slots && i < m->cap; i++)
		free(m->slots[i].key);
	free(m->slots);
	free(m->flat);
	m->slots = NULL;
	m->flat = NULL;
	m->cap = m->len = 0;
}

/* ---- fixed-length keys, inline ---- */

/* Large tables in 2 MiB pages where the kernel has them: one random lookup per row is
 * then one cache miss, not also a TLB miss. Zeroed. */
static unsigned char *table_alloc(size_t bytes)
{
	const size_t huge = (size_t)2 << 20;
	if (bytes < huge)
		return calloc(1, bytes);
	size_t len = (bytes + huge - 1) & ~(huge - 1);
	unsigned char *p = aligned_alloc(huge, len);
	if (!p)
		return NULL;
	madvise(p, len, MADV_HUGEPAGE);
	memset(p, 0, len);
	return p;
}

/* Key equality inline, eight bytes at a time: the keys are short (an address is 17
 * bytes, a day 8) and a memcmp call per lookup costs more than the compare. */
static int key_eq(const void *x, const void *y, size_t n)
{
	const unsigned char *a = x, *b = y;
	for (; n >= 8; a += 8, b += 8, n -= 8) {
		uint64_t u, v;
		memcpy(&u, a, 8);
		memcpy(&v, b, 8);
		if (u != v)
			return 0;
	}
	for (; n; n--)
		if (*a++ != *b++)
			return 0;
	return 1;
}

static uint64_t *flat_at(const pq_zeek_map *m, size_t i)
{
	return (uint64_t *)(m->flat + i * m->stride);
}

static uint64_t *flat_probe(const pq_zeek_map *m, uint64_t h, const void *key)
{
	size_t mask = m->cap - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		uint64_t *e = flat_at(m, i);
		if (!*e || (*e == h && key_eq(e + 1, key, m->fixed_klen)))
			return e;
	}
}

static int flat_grow(pq_zeek_map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	unsigned char *old = m->flat;
	size_t ocap = m->cap;
	m->flat = table_alloc(ncap * m->stride);
	if (!m->flat) {
		m->flat = old;
		return -1;
	}
	m->cap = ncap;
	for (size_t i = 0; i < ocap; i++) {
		uint64_t *e = (uint64_t *)(old + i * m->stride);
		if (*e)
			memcpy(flat_probe(m, *e, e + 1), e, m->stride);
	}
	free(old);
	return 0;
}

static void *flat_get(pq_zeek_map *m, const void *key, uint64_t h, int *fresh)
{
	if ((m->len + 1) * 4 > m->cap * 3 && flat_grow(m))
		return NULL;
	uint64_t *e = flat_probe(m, h, key);
	if (!*e) {
		*e = h;
		memcpy(e + 1, key, m->fixed_klen);
		m->len++;
		if (fresh)
			*fresh = 1;
	}
	return (unsigned char *)(e + 1) + val_off(m->fixed_klen);
}

static pq_zeek_map_slot *probe(const pq_zeek_map *m, uint64_t h, const void *key, size_t klen)
{
	size_t mask = m->cap - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		pq_zeek_map_slot *s = &m->slots[i];
		if (!s->hash || (s->hash == h && s->klen == klen && key_eq(s->key, key, klen)))
			return s;
	}
}

static int grow(pq_zeek_map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	pq_zeek_map_slot *old = m->slots;
	size_t ocap = m->cap;
	m->slots = calloc(ncap, sizeof *m->slots);
	if (!m->slots) {
		m->slots = old;
		return -1;
	}
	m->cap = ncap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].hash)
			*probe(m, old[i].hash, old[i].key, old[i].klen) = old[i];
	free(old);
	return 0;
}

void *pq_zeek_map_find(const pq_zeek_map *m, const void *key, size_t klen)
{
	if (!m->cap)
		return NULL;
	if (m->fixed_klen) {
		if (klen != m->fixed_klen)
			return NULL;
		uint64_t *e = flat_probe(m, pq_zeek_map_hash(key, klen), key);
		return *e ? (unsigned char *)(e + 1) + val_off(klen) : NULL;
	}
	pq_zeek_map_slot *s = probe(m, pq_zeek_map_hash(key, klen), key, klen);
	return s->hash ? s->key + val_off(s->klen) : NULL;
}

uint64_t pq_zeek_map_prefetch(const pq_zeek_map *m, const void *key, size_t klen)
{
	uint64_t h = pq_zeek_map_hash(key, klen);
	if (m->cap && m->fixed_klen) {
		/* The next slot too: with linear probing a key is often one further on. */
		__builtin_prefetch(flat_at(m, h & (m->cap - 1)));
		__builtin_prefetch(flat_at(m, (h + 1) & (m->cap - 1)));
	}
	else if (m->cap)
		__builtin_prefetch(&m->slots[h & (m->cap - 1)]);
	return h;
}

void *pq_zeek_map_get(pq_zeek_map *m, const void *key, size_t klen, int *fresh)
{
	return pq_zeek_map_get_hashed(m, key, klen, pq_zeek_map_hash(key, klen), fresh);
}

void *pq_zeek_map_get_hashed(pq_zeek_map *m, const void *key, size_t klen, uint64_t h, int *fresh)
{
	if (fresh)
		*fresh = 0;
	if (m->fixed_klen)
		return klen == m->fixed_klen ? flat_get(m, key, h, fresh) : NULL;
	if ((m->len + 1) * 4 > m->cap * 3 && grow(m))
		return NULL;
	pq_zeek_map_slot *s = probe(m, h, key, klen);
	if (s->hash)
		return s->key + val_off(s->klen);
	unsigned char *k = calloc(1, val_off(klen) + m->vsize);
	if (!k)
		return NULL;
	memcpy(k, key, klen);
	s->hash = h;
	s->key = k;
	s->klen = (uint32_t)klen;
	m->len++;
	if (fresh)
		*fresh = 1;
	return k + val_off(klen);
}

void *pq_zeek_map_next(const pq_zeek_map *m, size_t *it, const void **key, size_t *klen)
{
	while (m->fixed_klen && *it < m->cap) {
		uint64_t *e = flat_at(m, (*it)++);
		if (*e) {
			*key = e + 1;
			*klen = m->fixed_klen;
			return (unsigned char *)(e + 1) + val_off(m->fixed_klen);
		}
	}
	while (!m->fixed_klen && *it < m->cap) {
		pq_zeek_map_slot *s = &m->slots[(*it)++];
		if (s->hash) {
			*key = s->key;
			*klen = s->klen;
			return s->key + val_off(s->klen);
		}
	}
	return NULL;
}
