#include "model/cliff.h"

#include <string.h>

#define MAX_CERTS 8

size_t pq_model_min_chain(const pq_acct_in *base)
{
	size_t others = 0;
	for (size_t i = 1; i < base->n; i++)
		others += base->der[i];
	return others + 1;
}

int pq_model_at_size(const pq_acct_in *base, size_t chain_bytes, const pq_model_in *net,
		     pq_acct *acct, pq_model_out *out, pq_diag *d)
{
	size_t der[MAX_CERTS];
	if (base->n == 0 || base->n > MAX_CERTS)
		return pq_diag_set(d, PQ_ERANGE, "flight model: a chain of %zu certificates (accepted: 1 to %d)",
				   base->n, MAX_CERTS);
	size_t min = pq_model_min_chain(base);
	if (chain_bytes < min)
		return pq_diag_set(d, PQ_ERANGE,
				   "flight model: a %zu-byte chain is smaller than its certificates "
				   "other than the leaf (at least %zu bytes)",
				   chain_bytes, min);
	memcpy(der, base->der, base->n * sizeof der[0]);
	der[0] = chain_bytes - (min - 1);
	pq_acct_in in = *base;
	in.der = der;
	int rc = pq_acct_flight(&in, acct, d);
	if (rc)
		return rc;
	pq_model_in m = *net;
	m.server_writes = acct->writes;
	m.n_server_writes = acct->n_writes;
	return pq_model_predict(&m, out, d);
}

int pq_model_cliffs(const pq_acct_in *base, size_t lo, size_t hi, const pq_model_in *net,
		    pq_model_cliff *out, size_t max, size_t *n, pq_diag *d)
{
	pq_acct a;
	pq_model_out o;
	*n = 0;
	if (lo > hi)
		return pq_diag_set(d, PQ_ERANGE, "flight model: the size range %zu..%zu is empty", lo, hi);
	int rc = pq_model_at_size(base, lo, net, &a, &o, d);
	unsigned prev = o.handshake;
	for (size_t s = lo + 1; rc == 0 && s <= hi; s++) {
		if ((rc = pq_model_at_size(base, s, net, &a, &o, d)) < 0)
			break;
		if (o.handshake != prev && *n < max)
			out[(*n)++] = (pq_model_cliff){s - 1, s, prev, o.handshake};
		prev = o.handshake;
	}
	return rc;
}
