/* An experiment spec: a small text file a person can read and diff, or the same keys
 * given as command-line dimensions. The reader is strict: every error names the file,
 * the line, the key and what is allowed, and nothing is measured before the whole spec
 * has been read and expanded.
 *
 *   # comments start with '#'
 *   name = quick                       global keys first: apply to every arm
 *   rtt = 1ms, 70ms, 148ms             a list is a dimension of the grid
 *   pad-chain-to = 4KiB..80KiB step 2KiB   a range is a list
 *   [arm ml-dsa-65 resumed]            an arm: its own keys override the global ones
 *   sig = ml-dsa-65
 *   resume = 100%
 *
 * Why our own reader rather than an INI library: the values are lists and ranges with
 * units (which libinih would hand back as one string anyway), a key may appear once per
 * section (libinih merges duplicates silently unless rebuilt), and the messages must
 * name the line of the value, not only of the section. The grammar is the four line
 * kinds above; the keys are exp/dim.h's table (pq_dim_print_keys lists them). */
#ifndef PQ_EXP_SPEC_H
#define PQ_EXP_SPEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/err.h"
#include "exp/dim.h"
#include "exp/point.h"

#define PQ_EXP_MAX_ARMS 64
#define PQ_EXP_MAX_VALUES 1000 /* per dimension: a range of more is a typo */

typedef struct pq_exp_list {
	int given;
	char where[192]; /* "FILE:LINE: KEY" or the option name */
	pq_exp_val *v;
	size_t n;
} pq_exp_list;

typedef struct pq_exp_section {
	char label[64];  /* arm label; "" for the global section */
	char where[192]; /* "FILE:LINE" of the [arm] line */
	pq_exp_list key[PQ_DIM_COUNT];
} pq_exp_section;

typedef struct pq_exp_spec {
	char name[64];
	char source[256];               /* the file (or preset) it was read from */
	char *text;                    /* what was read, then the command-line dimensions */
	size_t text_len;
	pq_exp_section global;
	pq_exp_section *arm[PQ_EXP_MAX_ARMS];
	size_t narms;
	char merged[512]; /* arms a command-line key made alike, measured once: "'B' (as 'A'), ..." */
} pq_exp_spec;

void pq_exp_spec_init(pq_exp_spec *s);
void pq_exp_spec_dispose(pq_exp_spec *s);

/* Reads spec text; `file` names it in messages. PQ_EPARSE/PQ_EINVAL with
 * "FILE:LINE: ..." in *d. Can be called once per spec. */
int pq_exp_spec_parse(pq_exp_spec *s, const char *file, const char *text, pq_diag *d) PQ_MUST_USE;
int pq_exp_spec_load(pq_exp_spec *s, const char *path, pq_diag *d) PQ_MUST_USE;

/* Sets one key for the whole grid (a command-line dimension), replacing what the spec
 * said, in the arms too (so --connections scales every arm down); `what` names the input
 * ("--rtt"). Arms it makes alike are kept once, under the first label (s->merged names
 * the others, and so does the spec's text). */
int pq_exp_spec_set(pq_exp_spec *s, const char *key, const char *value, const char *what,
		    pq_diag *d) PQ_MUST_USE;

#endif
