/* What pqtls model prints (cli/model_int.h): round trips per phase, QUIC's view and the
 * cliffs of a size range, as text, and the phases and QUIC's view as JSON. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli/model_int.h"
#include "core/units.h"

static void fmt_time(char *buf, size_t n, unsigned rtts, int64_t rtt)
{
	if (rtt > 0)
		pq_fmt_duration(buf, n, (int64_t)rtts * rtt);
	else
		buf[0] = '\0';
}

void pq_modelcli_print_phases(const pq_model_out *o, int64_t rtt)
{
	const char *names[] = {"connect", "handshake", "first byte", "last byte"};
	unsigned v[] = {o->connect, o->handshake, o->ttfb, o->ttlb};
	double paced[] = {o->connect, o->handshake_t, o->ttfb_t, o->ttlb_t};
	double wire[] = {0, o->wire_handshake, o->wire_ttfb, o->wire_ttlb};
	for (int i = 0; i < 4; i++) {
		char t[32];
		if (i == 3 && !v[i])
			continue;
		fmt_time(t, sizeof t, v[i], rtt);
		printf("  %-11s %2u RTT  %s", names[i], v[i], t);
		if (paced[i] - v[i] > 0.005) {
			int paced_too = paced[i] - wire[i] - v[i] > 0.005;
			printf("  (%s: %.2f RTT", wire[i] > 0.005 ? paced_too ? "paced, on the link's wire" : "on the link's wire" : "paced",
			       paced[i]);
			if (rtt > 0 && wire[i] > 0.005)
				printf(", %s", pq_fmt_duration(t, sizeof t, (int64_t)(paced[i] * (double)rtt)));
			printf(")");
		}
		printf("\n");
	}
	printf("why:\n");
	for (const char *p = o->why; *p;) {
		size_t len = strcspn(p, "\n");
		printf("  - %.*s\n", (int)len, p);
		p += len + (p[len] == '\n');
	}
}

void pq_modelcli_print_quic(const pq_model_quic *q)
{
	pq_model_quic r = *q;
	pq_model_out o, ro;
	pq_model_quic_rounds(q, &o);
	pq_model_quic_retry(&r);
	pq_model_quic_rounds(&r, &ro);
	char hello[160];
	if (q->hrr_rtts)
		snprintf(hello, sizeof hello,
			 "the ClientHellos fill %zu and, after the server's HelloRetryRequest (one datagram, "
			 "+1 round trip), %zu Initial datagrams",
			 q->client_datagrams, q->client2_datagrams);
	else
		snprintf(hello, sizeof hello, "the ClientHello fills %zu Initial datagram%s (%zu bytes)",
			 q->client_datagrams, q->client_datagrams > 1 ? "s" : "", q->client_bytes);
	char crypto[160] = "";
	if (q->crypto_rtts)
		snprintf(crypto, sizeof crypto,
			 " (%u of them because OpenSSL's server keeps at most %zu bytes of the handshake's CRYPTO "
			 "data unacknowledged)",
			 q->crypto_rtts, q->crypto_buf);
	printf("QUIC (the model's view; pqtls bench --quic measures it): %s, so the server may send %zu "
	       "bytes before the client's address is validated (3x) and its window is %zu bytes; its "
	       "flight is about %zu bytes (%zu datagrams): %s%u round trip%s%s; handshake %u, first byte %u "
	       "round trips (no connect); behind a Retry: %u and %u\n",
	       hello, q->limit, q->cwnd_bytes, q->server_bytes, q->server_datagrams,
	       q->extra_rtts ? "it waits for the client, +" : "it fits, +", q->extra_rtts,
	       q->extra_rtts == 1 ? "" : "s", crypto, o.handshake, o.ttfb, ro.handshake, ro.ttfb);
}

/* Handshake messages without TLS record framing (for QUIC's CRYPTO frames). */
cJSON *pq_modelcli_phases_json(const pq_model_out *o, int64_t rtt)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "connect_rtts", o->connect);
	cJSON_AddNumberToObject(j, "handshake_rtts", o->handshake);
	cJSON_AddNumberToObject(j, "ttfb_rtts", o->ttfb);
	cJSON_AddNumberToObject(j, "handshake_paced_rtts", o->handshake_t);
	cJSON_AddNumberToObject(j, "ttfb_paced_rtts", o->ttfb_t);
	if (o->ttlb)
		cJSON_AddNumberToObject(j, "ttlb_rtts", o->ttlb);
	if (o->ttlb)
		cJSON_AddNumberToObject(j, "ttlb_paced_rtts", o->ttlb_t);
	if (o->wire_handshake > 0 || o->wire_ttfb > 0) { /* of the paced ones, the link's rate's */
		cJSON_AddNumberToObject(j, "handshake_wire_rtts", o->wire_handshake);
		cJSON_AddNumberToObject(j, "ttfb_wire_rtts", o->wire_ttfb);
		if (o->ttlb)
			cJSON_AddNumberToObject(j, "ttlb_wire_rtts", o->wire_ttlb);
	}
	if (rtt > 0) {
		cJSON_AddNumberToObject(j, "handshake_ms", o->handshake * (double)rtt / 1e6);
		cJSON_AddNumberToObject(j, "ttfb_ms", o->ttfb * (double)rtt / 1e6);
	}
	cJSON_AddNumberToObject(j, "flight_bytes", (double)o->flight_bytes);
	cJSON_AddNumberToObject(j, "flight_segments", (double)o->flight_segments);
	cJSON_AddNumberToObject(j, "flight_rounds", o->flight_rounds);
	cJSON_AddNumberToObject(j, "hrr_rtts", o->hrr_rounds);
	cJSON_AddStringToObject(j, "why", o->why);
	return j;
}

cJSON *pq_modelcli_quic_json(const pq_model_quic *q)
{
	cJSON *j = cJSON_CreateObject();
	pq_model_quic r = *q;
	pq_model_out o, ro;
	pq_model_quic_rounds(q, &o);
	pq_model_quic_retry(&r);
	pq_model_quic_rounds(&r, &ro);
	cJSON_AddStringToObject(j, "note", "the model's prediction; pqtls bench --quic measures it");
	cJSON_AddNumberToObject(j, "client_initial_bytes", (double)q->client_bytes);
	cJSON_AddNumberToObject(j, "amplification_limit_bytes", (double)q->limit);
	cJSON_AddNumberToObject(j, "server_flight_bytes", (double)q->server_bytes);
	cJSON_AddNumberToObject(j, "extra_rtts", q->extra_rtts);
	cJSON_AddNumberToObject(j, "crypto_buffer_bytes", (double)q->crypto_buf);
	cJSON_AddNumberToObject(j, "crypto_buffer_rtts", q->crypto_rtts);
	cJSON_AddNumberToObject(j, "hrr_rtts", q->hrr_rtts);
	cJSON_AddNumberToObject(j, "handshake_rtts", o.handshake);
	cJSON_AddNumberToObject(j, "ttfb_rtts", o.ttfb);
	cJSON_AddNumberToObject(j, "retry_handshake_rtts", ro.handshake);
	cJSON_AddNumberToObject(j, "retry_ttfb_rtts", ro.ttfb);
	return j;
}

void pq_modelcli_print_cliffs(const pq_model_cliff *c, size_t n, uint64_t lo, uint64_t hi)
{
	if (!n) {
		printf("cliffs: none between %llu and %llu chain bytes\n", (unsigned long long)lo,
		       (unsigned long long)hi);
		return;
	}
	for (size_t i = 0; i < n; i++)
		printf("cliff: the handshake goes from %u to %u round trips between %zu and %zu "
		       "chain bytes\n",
		       c[i].rtts_before, c[i].rtts_after, c[i].last_fit, c[i].first_over);
}
