#include "core/wire.h"

size_t pq_wire_mss(long long mtu)
{
	return mtu > PQ_WIRE_TCPIP_OVERHEAD ? (size_t)(mtu - PQ_WIRE_TCPIP_OVERHEAD) : 0;
}

size_t pq_wire_records(size_t len)
{
	size_t records = len ? (len + PQ_WIRE_TLS_RECORD_MAX - 1) / PQ_WIRE_TLS_RECORD_MAX : 1;
	return len + PQ_WIRE_TLS_RECORD_OVERHEAD * records;
}
