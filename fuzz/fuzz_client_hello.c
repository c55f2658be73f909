/* libFuzzer target: the ClientHello parser of pqtls check (check/hello.h) on any bytes,
 * and the cut plans of every shape on what it accepts: every offset it reports lies
 * inside the record, and every plan's cuts rise strictly inside it. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "check/hello.h"
#include "check/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pq_chk_hello h;
	pq_diag d;
	if (pq_chk_hello_parse(data, size, &h, &d) < 0)
		return 0;
	if (h.record_len > size || h.hs_len + 5 > h.record_len || h.sni_off + h.sni_len > h.record_len)
		abort();
	for (size_t i = 0; i < h.nshares; i++)
		if (h.shares[i].off + h.shares[i].len > h.record_len)
			abort();
	for (int s = 0; s < PQ_CHK_SHAPES; s++) {
		pq_chk_plan p;
		if (pq_chk_plan_make((pq_chk_shape)s, &h, h.nshares ? h.shares[0].group : 0, 0, &p, &d) < 0)
			continue;
		for (size_t i = 0; i < p.ncuts; i++)
			if (p.cuts[i] == 0 || p.cuts[i] >= h.record_len || (i && p.cuts[i] <= p.cuts[i - 1]))
				abort();
		pq_chk_plan_dispose(&p);
	}
	return 0;
}
