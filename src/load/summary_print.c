/* A bench summary (load/summary.h) shown: the table with a row per phase, the errors,
 * what was negotiated and the bytes on the wire, and the same figures as one JSON object. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>

#include "core/wire.h"
#include "load/summary.h"

/* Phases worth a row (client_hello is ~0 after connect; end repeats ttlb when K = 1). */
static const enum pq_phase shown[] = {PQ_PH_CONNECT, PQ_PH_SERVER_HELLO, PQ_PH_HANDSHAKE,
				      PQ_PH_REQUEST, PQ_PH_TTFB, PQ_PH_TTLB, PQ_PH_END};

static void row(FILE *f, const char *name, const pq_summary *m, double div)
{
	if (m->n == 0)
		return;
	fprintf(f, "  %-20s %8zu %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f\n", name, m->n,
		m->mean / div, m->sd / div, m->p50 / div, m->p90 / div, m->p99 / div,
		m->p999 / div, m->max / div);
}

void pq_load_summary_print(const pq_load_summary *s, FILE *f)
{
	/* Microseconds when everything is fast (loopback), else milliseconds. */
	double mx = 0;
	for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++)
		if (s->phase[shown[i]].n && s->phase[shown[i]].p50 > mx)
			mx = s->phase[shown[i]].p50;
	int us = mx < 1e6;
	double div = us ? 1e3 : 1e6;
	fprintf(f, "%zu connections, %zu ok, %zu failed; %.1f conn/s over %.2f s; ", s->n, s->ok, s->n - s->ok,
		s->conns_per_s, s->wall_s);
	/* per successful connection: with none there is nothing to divide by, no 'nan' */
	if (isfinite(s->cpu_us_per_conn))
		fprintf(f, "client CPU %.1f us per connection\n", s->cpu_us_per_conn);
	else
		fprintf(f, "client CPU %.1f ms in all (no connection succeeded)\n", s->cpu_s * 1e3);
	if (s->ok)
		fprintf(f, "  %-20s %8s %9s %9s %9s %9s %9s %9s %9s   (%s from connection start)\n",
			"phase", "count", "mean", "sd", "p50", "p90", "p99", "p99.9", "max",
			us ? "us" : "ms");
	for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++)
		row(f, pq_phase_name(shown[i]), &s->phase[shown[i]], div);
	row(f, s->open_loop ? "latency (intended)" : "latency", &s->latency, div);
	if (s->open_loop && !isnan(s->latency_first_p50))
		fprintf(f, "  open loop: latency p50 of the first tenth %.3f %s, of the last tenth %.3f %s%s\n",
			s->latency_first_p50 / div, us ? "us" : "ms", s->latency_last_p50 / div,
			us ? "us" : "ms",
			s->latency_last_p50 > 2 * s->latency_first_p50 ? "  <- growing: the server (or client) cannot keep up" : "");
	for (size_t i = 0; i < s->ncombos; i++)
		fprintf(f, "  negotiated %s %s %s %s %s: %zu\n", s->combos[i].version,
			s->combos[i].group[0] ? s->combos[i].group : "(no group)",
			s->combos[i].sigalg[0] ? s->combos[i].sigalg : "(no signature)",
			s->combos[i].cipher[0] ? s->combos[i].cipher : "(no cipher)",
			s->combos[i].resumed ? "resumed" : "full", s->combos[i].count);
	if (s->ok && !s->quic)
		fprintf(f,
			"  bytes per connection: handshake rx %.0f (certificate %.0f) tx %.0f; TLS records rx %.0f tx %.0f; TCP segments rx %.1f tx %.1f\n",
			s->rx_handshake_bytes, s->rx_cert_bytes, s->tx_handshake_bytes, s->tls_rx,
			s->tls_tx, s->segs_rx, s->segs_tx);
	if (s->quic)
		fprintf(f,
			"  QUIC per connection (%zu): handshake messages rx %.0f (certificate %.0f) tx %.0f; "
			"before the handshake was done: datagrams rx %.1f tx %.1f, bytes rx %.0f tx %.0f; "
			"client first flight %.1f datagrams, %.0f bytes (%dx = %.0f)\n"
			"  QUIC amplification limit: the server's handshake bytes passed %dx the client's first "
			"flight on %zu of %zu connections (the server waited for address validation); "
			"Retry on %zu; PTOs and retransmissions: not exposed by OpenSSL 3.5\n",
			s->quic, s->rx_handshake_bytes, s->rx_cert_bytes, s->tx_handshake_bytes,
			s->quic_dgrams_rx, s->quic_dgrams_tx, s->quic_bytes_rx, s->quic_bytes_tx,
			s->quic_first_dgrams, s->quic_first_bytes, PQ_WIRE_QUIC_AMP_FACTOR,
			PQ_WIRE_QUIC_AMP_FACTOR * s->quic_first_bytes, PQ_WIRE_QUIC_AMP_FACTOR, s->quic_amp_held,
			s->quic, s->quic_retry);
	if (s->resume_offered || s->resumed) {
		fprintf(f, "  resumption: %zu offered a ticket, %zu resumed", s->resume_offered, s->resumed);
		if (!isnan(s->rx_handshake_full))
			fprintf(f, "; server handshake bytes full %.0f", s->rx_handshake_full);
		if (!isnan(s->rx_handshake_resumed))
			fprintf(f, "; resumed %.0f", s->rx_handshake_resumed);
		fputc('\n', f);
	}
	if (s->hrr)
		fprintf(f, "  HelloRetryRequest: %zu connections (+1 round trip)\n", s->hrr);
	if (s->cert_compressed)
		fprintf(f, "  certificate compressed on %zu connections\n", s->cert_compressed);
	if (s->early_accepted)
		fprintf(f, "  0-RTT data accepted on %zu connections\n", s->early_accepted);
	if (s->group_mismatch)
		fprintf(f, "  WARNING: %zu connections negotiated a group other than the asked %s (server fallback)\n",
			s->group_mismatch, s->want_group);
	if (s->sigalg_mismatch)
		fprintf(f, "  WARNING: %zu connections negotiated a signature other than the asked %s\n",
			s->sigalg_mismatch, s->want_sigalg);
	for (size_t i = 0; i < s->nerrs; i++)
		fprintf(f, "  error: %s%s%s: %zu\n", pq_load_err_text(s->errs[i].kind),
			s->errs[i].detail[0] ? ": " : "", s->errs[i].detail, s->errs[i].count);
	if (s->stopped_early)
		fprintf(f, "  stopped early: the first connections all failed\n");
}

static double finite_or_zero(double v)
{
	return isfinite(v) ? v : 0;
}

void pq_load_summary_json(const pq_load_summary *s, FILE *f)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "connections", (double)s->n);
	cJSON_AddNumberToObject(o, "ok", (double)s->ok);
	cJSON_AddNumberToObject(o, "failed", (double)(s->n - s->ok));
	cJSON_AddNumberToObject(o, "conns_per_s", s->conns_per_s);
	cJSON_AddNumberToObject(o, "wall_s", s->wall_s);
	cJSON_AddNumberToObject(o, "cpu_s", s->cpu_s);
	if (isfinite(s->cpu_us_per_conn))
		cJSON_AddNumberToObject(o, "cpu_us_per_conn", s->cpu_us_per_conn);
	else /* no connection succeeded: not 0 us */
		cJSON_AddNullToObject(o, "cpu_us_per_conn");
	cJSON *ph = cJSON_AddObjectToObject(o, "phases_us");
	for (int p = 0; p <= PQ_PH_COUNT; p++) {
		const pq_summary *m = p < PQ_PH_COUNT ? &s->phase[p] : &s->latency;
		if (!m->n)
			continue;
		cJSON *x = cJSON_AddObjectToObject(ph, p < PQ_PH_COUNT ? pq_phase_name((enum pq_phase)p) : "latency");
		cJSON_AddNumberToObject(x, "count", (double)m->n);
		cJSON_AddNumberToObject(x, "mean", m->mean / 1e3);
		cJSON_AddNumberToObject(x, "sd", finite_or_zero(m->sd) / 1e3);
		cJSON_AddNumberToObject(x, "p50", m->p50 / 1e3);
		cJSON_AddNumberToObject(x, "p90", m->p90 / 1e3);
		cJSON_AddNumberToObject(x, "p99", m->p99 / 1e3);
		cJSON_AddNumberToObject(x, "p999", m->p999 / 1e3);
		cJSON_AddNumberToObject(x, "max", m->max / 1e3);
	}
	cJSON_AddNumberToObject(o, "latency_first_tenth_p50_us", finite_or_zero(s->latency_first_p50) / 1e3);
	cJSON_AddNumberToObject(o, "latency_last_tenth_p50_us", finite_or_zero(s->latency_last_p50) / 1e3);
	cJSON *neg = cJSON_AddArrayToObject(o, "negotiated");
	for (size_t i = 0; i < s->ncombos; i++) {
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "version", s->combos[i].version);
		cJSON_AddStringToObject(x, "group", s->combos[i].group);
		cJSON_AddStringToObject(x, "sigalg", s->combos[i].sigalg);
		cJSON_AddStringToObject(x, "cipher", s->combos[i].cipher);
		cJSON_AddStringToObject(x, "handshake", s->combos[i].resumed ? "resumed" : "full");
		cJSON_AddNumberToObject(x, "count", (double)s->combos[i].count);
		cJSON_AddItemToArray(neg, x);
	}
	cJSON_AddNumberToObject(o, "resume_offered", (double)s->resume_offered);
	cJSON_AddNumberToObject(o, "resumed", (double)s->resumed);
	cJSON_AddNumberToObject(o, "hrr", (double)s->hrr);
	cJSON_AddNumberToObject(o, "cert_compressed", (double)s->cert_compressed);
	cJSON_AddNumberToObject(o, "early_accepted", (double)s->early_accepted);
	cJSON_AddNumberToObject(o, "rx_handshake_bytes", s->rx_handshake_bytes);
	cJSON_AddNumberToObject(o, "rx_handshake_bytes_full", finite_or_zero(s->rx_handshake_full));
	cJSON_AddNumberToObject(o, "rx_handshake_bytes_resumed", finite_or_zero(s->rx_handshake_resumed));
	cJSON_AddNumberToObject(o, "rx_certificate_bytes", s->rx_cert_bytes);
	cJSON_AddNumberToObject(o, "tx_handshake_bytes", s->tx_handshake_bytes);
	cJSON_AddNumberToObject(o, "tls_bytes_rx", s->tls_rx);
	cJSON_AddNumberToObject(o, "tls_bytes_tx", s->tls_tx);
	cJSON_AddNumberToObject(o, "group_mismatch", (double)s->group_mismatch);
	cJSON_AddNumberToObject(o, "sigalg_mismatch", (double)s->sigalg_mismatch);
	cJSON *errs = cJSON_AddObjectToObject(o, "errors");
	for (size_t i = 0; i < s->nerrs; i++) {
		char key[160];
		snprintf(key, sizeof key, "%s%s%s", pq_load_err_short(s->errs[i].kind),
			 s->errs[i].detail[0] ? ": " : "", s->errs[i].detail);
		cJSON_AddNumberToObject(errs, key, (double)s->errs[i].count);
	}
	cJSON_AddBoolToObject(o, "stopped_early", s->stopped_early);
	char *txt = cJSON_PrintUnformatted(o);
	if (txt)
		fprintf(f, "%s\n", txt);
	free(txt);
	cJSON_Delete(o);
}
