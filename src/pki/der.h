/* DER length arithmetic shared by padding and the MTC size formula. */
#ifndef PQ_PKI_DER_H
#define PQ_PKI_DER_H

#include <stddef.h>

/* Tag + length + content bytes for `n` content bytes (definite lengths up to 2^32). */
static inline size_t pq_der_tlv(size_t n)
{
	size_t ll = n < 0x80 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : n < 0x1000000 ? 4 : 5;
	return 1 + ll + n;
}

/* Content bytes of a TLV whose total size is n (0 when no TLV has that size). */
static inline size_t pq_der_content(size_t n)
{
	for (size_t ll = 1; ll <= 5 && ll + 1 < n; ll++)
		if (pq_der_tlv(n - 1 - ll) == n)
			return n - 1 - ll;
	return 0;
}

#endif
