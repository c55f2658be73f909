/* The spec keys as data (internal to exp/spec.c and exp/spec_keys.c): each key's value
 * type, bounds, choices, default and help, the sentence saying what it allows, and how a
 * value is applied to a grid point (pq_exp_key_apply, declared in exp/spec.h). */
#ifndef PQ_EXP_SPEC_KEYS_H
#define PQ_EXP_SPEC_KEYS_H

#include <stddef.h>

#include "exp/spec.h"

enum pq_exp_kt { T_STR, T_INT, T_SIZE, T_DUR, T_FRAC, T_RATE, T_DOUBLE, T_CHOICE, T_ALG, T_RESP, T_PROFILE };

typedef struct pq_exp_keydef {
	const char *name;
	enum pq_exp_kt type;
	int global_only;
	long long min, max;   /* T_INT */
	const char *choices;  /* T_CHOICE, '|'-separated; the index is the value */
	const char *def;      /* shown in help */
	const char *help;
} pq_exp_keydef;

extern const pq_exp_keydef pq_exp_keydefs[PQ_K_COUNT];

/* "durations (70ms), a list or a range ..." for messages; buf may hold the text. */
const char *pq_exp_key_allowed(const pq_exp_keydef *k, char *buf, size_t n);

#endif
