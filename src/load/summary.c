#include "load/summary.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void pq_load_norm_name(const char *name, char *out, size_t n)
{
	static const struct {
		const char *alias, *canon;
	} aliases[] = {{"p256", "secp256r1"}, {"p384", "secp384r1"}, {"p521", "secp521r1"}};
	size_t k = 0;
	for (const char *p = name; *p && k + 1 < n; p++)
		if (*p != '-' && *p != '_')
			out[k++] = (char)tolower((unsigned char)*p);
	out[k] = '\0';
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		if (strcmp(out, aliases[i].alias) == 0)
			snprintf(out, n, "%s", aliases[i].canon);
}

void pq_load_first_name(const char *list, char *out, size_t n)
{
	char first[64];
	out[0] = '\0';
	if (!list)
		return;
	while (*list == '?' || *list == '*' || *list == '-')
		list++;
	size_t len = strcspn(list, ":/,");
	if (len >= sizeof first)
		len = sizeof first - 1;
	memcpy(first, list, len);
	first[len] = '\0';
	pq_load_norm_name(first, out, n);
}

static void count_error(pq_load_summary *s, const pq_load_record *r)
{
	s->err[r->err]++;
	for (size_t i = 0; i < s->nerrs; i++)
		if (s->errs[i].kind == r->err && !strcmp(s->errs[i].detail, r->err_detail)) {
			s->errs[i].count++;
			return;
		}
	if (s->nerrs < PQ_SUM_MAX_ROWS) {
		s->errs[s->nerrs].kind = r->err;
		snprintf(s->errs[s->nerrs].detail, sizeof s->errs[0].detail, "%s", r->err_detail);
		s->errs[s->nerrs++].count = 1;
	}
}

static void count_combo(pq_load_summary *s, const pq_load_record *r)
{
	for (size_t i = 0; i < s->ncombos; i++)
		if (s->combos[i].resumed == r->resumed && !strcmp(s->combos[i].version, r->version) &&
		    !strcmp(s->combos[i].group, r->group) && !strcmp(s->combos[i].sigalg, r->sigalg) &&
		    !strcmp(s->combos[i].cipher, r->cipher)) {
			s->combos[i].count++;
			return;
		}
	if (s->ncombos < PQ_SUM_MAX_ROWS) {
		pq_load_combo *c = &s->combos[s->ncombos++];
		memcpy(c->version, r->version, sizeof c->version);
		memcpy(c->group, r->group, sizeof c->group);
		memcpy(c->sigalg, r->sigalg, sizeof c->sigalg);
		memcpy(c->cipher, r->cipher, sizeof c->cipher);
		c->resumed = r->resumed;
		c->count = 1;
	}
}

static uint32_t sum_hs(const pq_load_record *r, int dir)
{
	uint32_t t = 0;
	for (int i = 0; i < PQ_HS_COUNT; i++)
		t += r->hs_bytes[dir][i];
	return t;
}

static int cmp_intended(const void *a, const void *b)
{
	const pq_load_record *x = *(pq_load_record *const *)a, *y = *(pq_load_record *const *)b;
	return (x->intended_ns > y->intended_ns) - (x->intended_ns < y->intended_ns);
}

/* Median latency of the first and the last tenth of successful connections by intended
 * start: an overloaded server shows as a later tenth that waits longer. */
static int latency_trend(const pq_load_result *res, pq_load_summary *s)
{
	const pq_load_record **ok = malloc((res->n ? res->n : 1) * sizeof *ok);
	size_t n = 0;
	int rc = 0;
	if (!ok)
		return PQ_ENOMEM;
	for (size_t i = 0; i < res->n; i++)
		if (res->recs[i].err == PQ_LERR_NONE)
			ok[n++] = &res->recs[i];
	qsort(ok, n, sizeof *ok, cmp_intended);
	size_t tenth = n / 10;
	pq_stats a, b;
	pq_stats_init(&a);
	pq_stats_init(&b);
	for (size_t i = 0; i < tenth && rc == 0; i++) {
		rc = pq_stats_add(&a, (double)pq_load_latency_ns(ok[i]));
		if (rc == 0)
			rc = pq_stats_add(&b, (double)pq_load_latency_ns(ok[n - 1 - i]));
	}
	s->latency_first_p50 = tenth ? pq_stats_percentile(&a, 50) : NAN;
	s->latency_last_p50 = tenth ? pq_stats_percentile(&b, 50) : NAN;
	pq_stats_dispose(&a);
	pq_stats_dispose(&b);
	free(ok);
	return rc;
}

int pq_load_summarize(const pq_load_result *res, const pq_load_config *cfg, pq_load_summary *s)
{
	pq_stats ph[PQ_PH_COUNT], lat, full, resumed;
	int rc = 0;
	memset(s, 0, sizeof *s);
	for (int p = 0; p < PQ_PH_COUNT; p++)
		pq_stats_init(&ph[p]);
	pq_stats_init(&lat);
	pq_stats_init(&full);
	pq_stats_init(&resumed);
	pq_load_first_name(cfg->tls.groups, s->want_group, sizeof s->want_group);
	pq_load_first_name(cfg->tls.sigalgs, s->want_sigalg, sizeof s->want_sigalg);
	s->n = res->n;
	for (size_t i = 0; i < res->n && rc == 0; i++) {
		const pq_load_record *r = &res->recs[i];
		s->resume_offered += r->resume_offered;
		if (r->err != PQ_LERR_NONE) {
			count_error(s, r);
			continue;
		}
		s->ok++;
		s->resumed += r->resumed;
		s->hrr += r->hrr;
		s->early_accepted += r->early_accepted;
		s->cert_compressed += r->cert_compressed;
		count_combo(s, r);
		char got[32];
		pq_load_norm_name(r->group, got, sizeof got);
		if (s->want_group[0] && strcmp(got, s->want_group) != 0)
			s->group_mismatch++;
		pq_load_norm_name(r->sigalg, got, sizeof got);
		if (s->want_sigalg[0] && !r->resumed && strcmp(got, s->want_sigalg) != 0)
			s->sigalg_mismatch++;
		for (int p = 0; p < PQ_PH_COUNT && rc == 0; p++)
			if (r->t[p] >= 0)
				rc = pq_stats_add(&ph[p], (double)r->t[p]);
		if (rc == 0)
			rc = pq_stats_add(&lat, (double)pq_load_latency_ns(r));
		if (rc == 0)
			rc = pq_stats_add(r->resumed ? &resumed : &full, sum_hs(r, PQ_RX));
		s->rx_handshake_bytes += sum_hs(r, PQ_RX);
		s->tx_handshake_bytes += sum_hs(r, PQ_TX);
		s->rx_cert_bytes += r->hs_bytes[PQ_RX][PQ_HS_CERTIFICATE] +
				    r->hs_bytes[PQ_RX][PQ_HS_COMPRESSED_CERTIFICATE];
		s->tls_rx += (double)r->tls_bytes[PQ_RX];
		s->tls_tx += (double)r->tls_bytes[PQ_TX];
		s->segs_rx += r->tcp_segs[PQ_RX];
		s->segs_tx += r->tcp_segs[PQ_TX];
	}
	if (s->ok) {
		double k = (double)s->ok;
		s->rx_handshake_bytes /= k, s->tx_handshake_bytes /= k, s->rx_cert_bytes /= k;
		s->tls_rx /= k, s->tls_tx /= k, s->segs_rx /= k, s->segs_tx /= k;
	}
	for (int p = 0; p < PQ_PH_COUNT; p++)
		pq_stats_summary(&ph[p], &s->phase[p]);
	pq_stats_summary(&lat, &s->latency);
	pq_summary fs, rs;
	pq_stats_summary(&full, &fs);
	pq_stats_summary(&resumed, &rs);
	s->rx_handshake_full = fs.mean;
	s->rx_handshake_resumed = rs.mean;
	if (rc == 0)
		rc = latency_trend(res, s);
	s->wall_s = (double)res->wall_ns / 1e9;
	s->cpu_s = (double)res->cpu_ns / 1e9;
	s->conns_per_s = s->wall_s > 0 ? (double)s->ok / s->wall_s : 0;
	s->cpu_us_per_conn = s->ok ? (double)res->cpu_ns / 1e3 / (double)s->ok : NAN;
	s->open_loop = cfg->rate > 0;
	s->stopped_early = res->stopped_early;
	for (int p = 0; p < PQ_PH_COUNT; p++)
		pq_stats_dispose(&ph[p]);
	pq_stats_dispose(&lat);
	pq_stats_dispose(&full);
	pq_stats_dispose(&resumed);
	return rc;
}

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
	fprintf(f, "%zu connections, %zu ok, %zu failed; %.1f conn/s over %.2f s; client CPU %.1f us per connection\n",
		s->n, s->ok, s->n - s->ok, s->conns_per_s, s->wall_s, s->cpu_us_per_conn);
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
	if (s->ok)
		fprintf(f,
			"  bytes per connection: handshake rx %.0f (certificate %.0f) tx %.0f; TLS records rx %.0f tx %.0f; TCP segments rx %.1f tx %.1f\n",
			s->rx_handshake_bytes, s->rx_cert_bytes, s->tx_handshake_bytes, s->tls_rx,
			s->tls_tx, s->segs_rx, s->segs_tx);
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
	cJSON_AddNumberToObject(o, "cpu_us_per_conn", finite_or_zero(s->cpu_us_per_conn));
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
