/* Where the cliffs fall: the flight model (model/flight.h) over chain sizes. A chain of
 * `chain_bytes` DER bytes is the base chain with its leaf padded (or trimmed) so the
 * chain has that size, as `pqtls certs --pad-chain-to` makes one; the Certificate
 * message, the records and OpenSSL's writes follow from pki/acct.h.
 *
 * Contract: functions return 0 or a negative error with a message naming the input.
 * Pure arithmetic. */
#ifndef PQ_MODEL_CLIFF_H
#define PQ_MODEL_CLIFF_H

#include <stddef.h>

#include "core/err.h"
#include "model/flight.h"
#include "pki/acct.h"

typedef struct pq_model_cliff {
	size_t last_fit;	     /* largest chain size with rtts_before round trips */
	size_t first_over;	     /* smallest with more */
	unsigned rtts_before, rtts_after; /* handshake round trips either side */
} pq_model_cliff;

/* The prediction for the base chain resized to chain_bytes: *acct gets the flight's
 * bytes and writes, *out the round trips. `net` gives MSS, window, ClientHello, tickets
 * and response (its server writes are ignored). PQ_ERANGE when chain_bytes is below
 * what the base's other certificates take. */
int pq_model_at_size(const pq_acct_in *base, size_t chain_bytes, const pq_model_in *net,
		     pq_acct *acct, pq_model_out *out, pq_diag *d) PQ_MUST_USE;

/* The cliffs in [lo, hi] (every byte is tried): fills out[0..max-1] in order and sets
 * *n. PQ_ERANGE when lo > hi or lo is below the base's minimum. */
int pq_model_cliffs(const pq_acct_in *base, size_t lo, size_t hi, const pq_model_in *net,
		    pq_model_cliff *out, size_t max, size_t *n, pq_diag *d) PQ_MUST_USE;

/* The smallest chain size pq_model_at_size accepts for this base. */
size_t pq_model_min_chain(const pq_acct_in *base);

#endif
