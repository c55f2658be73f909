#include "model/quic.h"

static size_t datagrams(size_t bytes)
{
	size_t room = PQ_MODEL_QUIC_DATAGRAM - PQ_MODEL_QUIC_OVERHEAD;
	return bytes ? (bytes + room - 1) / room : 0;
}

void pq_model_quic_flight(size_t client_hello, size_t server_msgs, pq_model_quic *out)
{
	pq_model_quic q = {0};
	q.client_datagrams = datagrams(client_hello);
	q.client_bytes = q.client_datagrams * PQ_MODEL_QUIC_DATAGRAM;
	q.limit = 3 * q.client_bytes;
	q.cwnd_bytes = 10 * PQ_MODEL_QUIC_DATAGRAM;
	q.server_datagrams = datagrams(server_msgs);
	q.server_bytes = q.server_datagrams * PQ_MODEL_QUIC_DATAGRAM;
	/* First round: the lesser of the amplification limit and the window; the client's
	 * reply validates its address, and slow start doubles the window from then on. */
	size_t first = q.limit < q.cwnd_bytes ? q.limit : q.cwnd_bytes;
	size_t sent = first, cwnd = q.cwnd_bytes;
	while (sent < q.server_bytes) {
		cwnd *= 2;
		sent += cwnd;
		q.extra_rtts++;
	}
	*out = q;
}
