/* The studies as specs compiled into pqtls (`pqtls sweep --preset NAME`); each is an
 * ordinary spec text, read by the same strict reader as a file. */
#ifndef PQ_EXP_PRESET_H
#define PQ_EXP_PRESET_H

#include <stddef.h>

typedef struct pq_exp_preset {
	const char *name;
	const char *summary;  /* one line: the question it answers */
	const char *text;     /* the spec */
} pq_exp_preset;

extern const pq_exp_preset pq_exp_presets[]; /* ends with name NULL */

const pq_exp_preset *pq_exp_preset_find(const char *name);
/* "quick, blog-certsize, ..." */
void pq_exp_preset_names(char *buf, size_t n);

#endif
