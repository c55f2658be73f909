/* Stage helpers shared by the stage kinds: freeing and the FIFO-backed ones. */
#include "net/stage.h"

#include <stdlib.h>

void pq_stage_free(pq_stage *s)
{
	if (s)
		s->ops->free(s);
}

int64_t pq_stage_tx_ns(uint32_t len, uint64_t rate_bps)
{
	if (!rate_bps)
		return 0;
	uint64_t bits = (uint64_t)len * 8u;
	/* bits * 1e9 fits in 64 bits for any packet below 2 GB. */
	return (int64_t)((bits * 1000000000ull + rate_bps - 1) / rate_bps);
}
