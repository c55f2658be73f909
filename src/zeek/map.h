/* A hash map from byte-string keys to fixed-size zeroed values, for the aggregates of
 * `pqtls zeek` (servers by address, server names, groups, days). Open addressing with
 * linear probing; keys are copied into the map. Memory grows with the number of
 * distinct keys only, never with the number of rows.
 *
 * Two layouts behind one interface: keys of any length, copied to the heap (server
 * names), or keys of one fixed length stored with their value inside the table
 * (addresses, days), so that a lookup touches one cache line: a month of a busy site
 * looks up a random server per row.
 *
 * Contract: pq_zeek_map_get returns the value slot for key (inserting a zeroed one when
 * absent, *fresh set to 1), or NULL when memory runs out. Slots stay valid until the
 * next insert. Iterate with pq_zeek_map_next. */
#ifndef PQ_ZEEK_MAP_H
#define PQ_ZEEK_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct pq_zeek_map_slot {
	uint64_t hash;
	unsigned char *key; /* key bytes followed by the value (aligned) */
	uint32_t klen;
} pq_zeek_map_slot;

typedef struct pq_zeek_map {
	pq_zeek_map_slot *slots; /* keys of any length */
	unsigned char *flat;     /* fixed keys: cap entries of `stride` bytes: hash, key, value */
	size_t cap, len, vsize;
	size_t fixed_klen, stride;
} pq_zeek_map;

void pq_zeek_map_init(pq_zeek_map *m, size_t value_size);
/* Every key is klen bytes, stored inline (pq_zeek_map_get with another length: NULL). */
void pq_zeek_map_init_fixed(pq_zeek_map *m, size_t klen, size_t value_size);
void pq_zeek_map_dispose(pq_zeek_map *m);
void *pq_zeek_map_get(pq_zeek_map *m, const void *key, size_t klen, int *fresh);
/* For batches of random lookups: the key's hash, its table line prefetched; pass the
 * hash to pq_zeek_map_get_hashed before the next insert. */
uint64_t pq_zeek_map_prefetch(const pq_zeek_map *m, const void *key, size_t klen);
void *pq_zeek_map_get_hashed(pq_zeek_map *m, const void *key, size_t klen, uint64_t hash, int *fresh);
/* Lookup without insert; NULL when absent. */
void *pq_zeek_map_find(const pq_zeek_map *m, const void *key, size_t klen);
/* *it starts at 0; returns the next value (key in *key, *klen) or NULL at the end. */
void *pq_zeek_map_next(const pq_zeek_map *m, size_t *it, const void **key, size_t *klen);
uint64_t pq_zeek_map_hash(const void *key, size_t klen);

#endif
