/* Key-exchange group names and lists as this OpenSSL knows them: the one check every
 * input naming groups goes through (a sweep's group, groups, key-share and server-groups;
 * `pqtls bench --groups` and `pqtls serve --groups` through the context factory), so a
 * misspelt name is refused before anything is measured rather than measured as failures.
 *
 * A list is names separated by the separators `syntax` allows (':' between groups, '/'
 * between OpenSSL's preference tuples); where `syntax` holds them, a name may carry
 * OpenSSL's prefixes ('*' key share, '-' remove, '?' ignore when unknown), and with '*'
 * the element may be OpenSSL's pseudo-list DEFAULT. "" allows one bare name. Each element
 * is asked of OpenSSL itself (SSL_CTX_set1_groups_list on a scratch context), so aliases
 * (P-256, secp256r1) are accepted exactly when OpenSSL accepts them.
 *
 * Contract: pq_tls_groups_check returns 0, or PQ_EINVAL with a message naming `what`, the
 * list and the bad element: an empty list, an empty element (A::B, A//B), a separator or a
 * prefix `syntax` does not allow, or a name this OpenSSL does not know (the groups it
 * knows listed); PQ_ETLS when OpenSSL cannot make a context. */
#ifndef PQ_TLS_GROUPS_H
#define PQ_TLS_GROUPS_H

#include <stddef.h>

#include "core/err.h"

/* Everything OpenSSL's groups lists take: bench's and serve's --groups. */
#define PQ_TLS_GROUPS_OPENSSL ":/*-?"

int pq_tls_groups_check(const char *list, const char *syntax, const char *what,
			pq_diag *d) PQ_MUST_USE;

/* Is `name` (len bytes) one of the elements of list, separated by ':' or '/', OpenSSL's
 * prefixes skipped, compared case-insensitively as OpenSSL compares names? */
int pq_tls_groups_has(const char *list, const char *name, size_t len);

/* Does any group of list a appear in list b (by name, as pq_tls_groups_has)? */
int pq_tls_groups_meet(const char *a, const char *b);

/* The groups this OpenSSL implements, space-separated, into buf (cut to n); buf. */
const char *pq_tls_groups_known(char *buf, size_t n);

#endif
