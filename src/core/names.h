/* What the caller calls a library's inputs, for messages. A module names each input by
 * a key, its config field ("max_conns"); the caller maps keys to what its user typed
 * (the command line's option, or "server.max_conns" for a sweep file), as core/units.c's
 * parsers take `what`. Modules never spell a command-line option themselves (the CLI's
 * tables are in cli/names.c).
 *
 *   static const pq_name names[] = {{"max_conns", "server.max_conns"}, {NULL, NULL}};
 *   cfg.names = names;
 *   ... pq_diag_set(d, PQ_ERANGE, "%s: ...", pq_name_of(cfg->names, "max_conns"));
 */
#ifndef PQ_CORE_NAMES_H
#define PQ_CORE_NAMES_H

typedef struct pq_name {
	const char *key;  /* the module's name for the input */
	const char *name; /* the caller's */
} pq_name;

/* The caller's name for `key` from a {NULL, NULL}-terminated map; the key itself when
 * the map is NULL or lacks it. Never NULL. */
const char *pq_name_of(const pq_name *map, const char *key);

#endif
