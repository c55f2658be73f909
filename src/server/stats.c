/* Server statistics: per-worker counters, merged after join, printed on stop. */
#include <stdio.h>
#include <string.h>

#include "core/sched.h"
#include "server/internal.h"

static const char *const err_names[PQ_SRV_ERR_COUNT] = {
#define PQ_SRV_NAME(name, text) text,
	PQ_SERVER_ERR_TABLE(PQ_SRV_NAME)
#undef PQ_SRV_NAME
};

const char *pq_server_err_name(enum pq_server_err e)
{
	return e < PQ_SRV_ERR_COUNT ? err_names[e] : "?";
}

static void add_combo(pq_server_stats *into, const pq_server_combo *c)
{
	for (size_t i = 0; i < into->ncombos; i++) {
		pq_server_combo *m = &into->combos[i];
		if (m->resumed == c->resumed && !strcmp(m->version, c->version) &&
		    !strcmp(m->group, c->group) && !strcmp(m->sigalg, c->sigalg)) {
			m->count += c->count;
			return;
		}
	}
	if (into->ncombos < PQ_SERVER_MAX_COMBOS)
		into->combos[into->ncombos++] = *c;
}

static void add_reason(pq_server_stats *into, const char *reason, uint64_t count)
{
	for (size_t i = 0; i < into->nreasons; i++)
		if (into->reasons[i].reason == reason || !strcmp(into->reasons[i].reason, reason)) {
			into->reasons[i].count += count;
			return;
		}
	if (into->nreasons < PQ_SERVER_MAX_REASONS) {
		into->reasons[into->nreasons].reason = reason;
		into->reasons[into->nreasons++].count = count;
	}
}

void pq_server_stats_merge(pq_server_stats *into, const pq_server_stats *from)
{
	into->accepted += from->accepted;
	into->handshakes += from->handshakes;
	into->resumed += from->resumed;
	into->early_data += from->early_data;
	into->requests += from->requests;
	into->body_bytes += from->body_bytes;
	into->quic_amp_held += from->quic_amp_held;
	into->quic_prevalid_tx += from->quic_prevalid_tx;
	into->quic_prevalid_rx += from->quic_prevalid_rx;
	for (int i = 0; i < PQ_SRV_ERR_COUNT; i++)
		into->err[i] += from->err[i];
	for (size_t i = 0; i < from->ncombos; i++)
		add_combo(into, &from->combos[i]);
	for (size_t i = 0; i < from->nreasons; i++)
		add_reason(into, from->reasons[i].reason, from->reasons[i].count);
	for (size_t i = 0; i < from->nwaits && into->nwaits < PQ_SERVER_MAX_WAITS; i++)
		into->waits_us[into->nwaits++] = from->waits_us[i];
	into->waits_total += from->waits_total;
	into->wait_max_us = from->wait_max_us > into->wait_max_us ? from->wait_max_us : into->wait_max_us;
	if (into->nice == PQ_SCHED_NICE_KEEP || (from->nice != PQ_SCHED_NICE_KEEP && from->nice > into->nice))
		into->nice = from->nice;
}

void pq_server_stats_wait(pq_server_stats *st, int64_t wait_ns)
{
	if (wait_ns < 0)
		return;
	uint64_t us = (uint64_t)wait_ns / 1000;
	if (st->nwaits < PQ_SERVER_MAX_WAITS)
		st->waits_us[st->nwaits++] = us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
	st->waits_total++;
	st->wait_max_us = us > st->wait_max_us ? us : st->wait_max_us;
}

void pq_server_stats_print(const pq_server_stats *st, FILE *f)
{
	uint64_t errs = 0;
	for (int i = 0; i < PQ_SRV_ERR_COUNT; i++)
		errs += st->err[i];
	fprintf(f,
		"served %llu connections: %llu handshakes (%llu resumed, %llu with early data), "
		"%llu requests, %llu body bytes, %llu errors\n",
		(unsigned long long)st->accepted, (unsigned long long)st->handshakes,
		(unsigned long long)st->resumed, (unsigned long long)st->early_data,
		(unsigned long long)st->requests, (unsigned long long)st->body_bytes,
		(unsigned long long)errs);
	if (st->quic_prevalid_rx)
		fprintf(f,
			"  QUIC: the amplification limit held the flight of %llu of %llu handshakes "
			"(before address validation: %llu bytes sent against %llu received, limit 3x)\n",
			(unsigned long long)st->quic_amp_held, (unsigned long long)st->handshakes,
			(unsigned long long)st->quic_prevalid_tx,
			(unsigned long long)st->quic_prevalid_rx);
	for (size_t i = 0; i < st->ncombos; i++) {
		const pq_server_combo *c = &st->combos[i];
		fprintf(f, "  handshakes %-8s group %-18s signature %-24s %s: %llu\n", c->version,
			c->group, c->sigalg, c->resumed ? "resumed" : "full   ",
			(unsigned long long)c->count);
	}
	for (int i = 0; i < PQ_SRV_ERR_COUNT; i++)
		if (st->err[i])
			fprintf(f, "  errors: %s: %llu\n", err_names[i], (unsigned long long)st->err[i]);
	for (size_t i = 0; i < st->nreasons; i++)
		fprintf(f, "    handshake failure reason: %s: %llu\n", st->reasons[i].reason,
			(unsigned long long)st->reasons[i].count);
}

void pq_server_stats_handshake(pq_server_stats *st, const char *version, const char *group,
			       const char *sigalg, int resumed)
{
	pq_server_combo c = {.resumed = resumed, .count = 1};
	snprintf(c.version, sizeof c.version, "%s", version ? version : "?");
	snprintf(c.group, sizeof c.group, "%s", group ? group : "none");
	snprintf(c.sigalg, sizeof c.sigalg, "%s", sigalg ? sigalg : "none");
	st->handshakes++;
	st->resumed += resumed != 0;
	add_combo(st, &c);
}

void pq_server_stats_reason(pq_server_stats *st, const char *reason)
{
	add_reason(st, reason ? reason : "unknown", 1);
}
