/* Inside the spec reader (exp/spec.h): what its lines and command-line keys (spec.c) and
 * its values (spec_val.c) share. Not for other modules.
 *
 * Contract: pq_exp_spec_trim cuts p's leading and trailing white space in place and
 * returns where it now starts. pq_exp_spec_set_list parses `value` ("v1, v2, ...") for
 * key ki into l, replacing what it held; it returns 0, or a negative error with a message
 * in *d that starts with `where`. */
#ifndef PQ_EXP_SPEC_INT_H
#define PQ_EXP_SPEC_INT_H

#include "core/err.h"
#include "exp/dim.h"
#include "exp/spec.h"

char *pq_exp_spec_trim(char *p);
int pq_exp_spec_set_list(enum pq_dim_id ki, pq_exp_list *l, const char *value, const char *where, pq_diag *d);

#endif
