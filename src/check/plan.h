/* The probes of `pqtls check` and how each cuts a ClientHello into TCP segments.
 *
 * A probe is a group under test and a shape. The shapes (pq_chk_shapes[], in table
 * order) are: the ClientHello whole in one write; split in two halves; split inside the
 * key share; split inside the SNI host name; one byte per segment; split in two with the
 * second half delayed; and the HelloRetryRequest path (the first ClientHello carries only
 * a share the server is not expected to take, so the server must ask again).
 *
 * Contract: pq_chk_plan_make computes where each segment after the first starts (as
 * offsets into the ClientHello record, strictly increasing, inside 1..record_len-1), from
 * the parsed ClientHello, and returns 0, or PQ_EINVAL when the ClientHello lacks what the
 * shape cuts (no share for the group, no SNI) with a message naming it, or PQ_ENOMEM.
 * Free the plan with pq_chk_plan_dispose. Pure: no I/O, no clock. */
#ifndef PQ_CHK_PLAN_H
#define PQ_CHK_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "check/hello.h"
#include "core/err.h"

typedef enum pq_chk_shape {
	PQ_CHK_WHOLE,
	PQ_CHK_SPLIT,
	PQ_CHK_KEY_SHARE,
	PQ_CHK_SNI,
	PQ_CHK_BYTES,
	PQ_CHK_DELAYED,
	PQ_CHK_HRR,
	PQ_CHK_SHAPES
} pq_chk_shape;

typedef struct pq_chk_shape_info {
	const char *name; /* "key-share": what --shapes and the table say */
	const char *help; /* one line for --help */
} pq_chk_shape_info;

extern const pq_chk_shape_info pq_chk_shapes[PQ_CHK_SHAPES];

typedef struct pq_chk_plan {
	size_t *cuts;     /* start offset of segments 2..ncuts+1 */
	size_t ncuts;
	int64_t delay_ns; /* pause before each cut's segment (the delayed shape only) */
} pq_chk_plan;

/* group: the code point whose share the key-share shape cuts inside. */
int pq_chk_plan_make(pq_chk_shape shape, const pq_chk_hello *h, uint16_t group,
		       int64_t delay_ns, pq_chk_plan *out, pq_diag *d) PQ_MUST_USE;
void pq_chk_plan_dispose(pq_chk_plan *p);

/* Parse "whole,split,..." (or "all") into a mask of 1 << shape; `what` names the option. */
int pq_chk_shapes_parse(const char *s, const char *what, unsigned *mask, pq_diag *d) PQ_MUST_USE;

#endif
