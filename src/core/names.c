#include "core/names.h"

#include <string.h>

const char *pq_name_of(const pq_name *map, const char *key)
{
	for (const pq_name *n = map; n && n->key; n++)
		if (strcmp(n->key, key) == 0)
			return n->name;
	return key;
}
