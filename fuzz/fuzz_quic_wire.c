/* libFuzzer target: what the QUIC datagram tap reads from the network. The long-header
 * walk (pq_tls_quic_types) and the wire accounting must never read past a datagram, on
 * either side; the first byte picks the side and direction, the rest is the datagram. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tls/quic.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	/* A copy of exactly the datagram's bytes, so ASan sees any read past the end. */
	size_t n = size - 1;
	uint8_t *d = malloc(n ? n : 1);
	if (!d)
		return 0;
	memcpy(d, data + 1, n);
	unsigned t = pq_tls_quic_types(d, n);
	if (t & ~(unsigned)(PQ_QPKT_INITIAL | PQ_QPKT_0RTT | PQ_QPKT_HANDSHAKE | PQ_QPKT_RETRY | PQ_QPKT_SHORT))
		abort();
	pq_tls_quic_wire w;
	pq_tls_quic_wire_init(&w, data[0] & 1);
	for (int i = 0; i < 3; i++)
		pq_tls_quic_wire_dgram(&w, (data[0] >> (1 + i)) & 1, d, n);
	if (w.total_bytes[0] + w.total_bytes[1] != 3 * n)
		abort();
	(void)pq_tls_quic_server_held(&w);
	(void)pq_tls_quic_client_saw_held(&w);
	free(d);
	return 0;
}
