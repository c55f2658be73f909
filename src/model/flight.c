#include "model/flight.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"
#include "core/wire.h"
#include "model/rate.h"
#include "model/tcp.h"

#define DEF_MSS PQ_WIRE_MSS_DEFAULT
#define DEF_IW PQ_WIRE_IW_DEFAULT
/* A full TLS 1.3 record on TCP: the most of a response the first byte waits for. */
#define FIRST_RECORD (PQ_WIRE_TLS_RECORD_MAX + PQ_WIRE_TLS_RECORD_OVERHEAD)

typedef struct why {
	char *p;
	size_t n, off;
} why;

static void say(why *w, const char *fmt, ...) PQ_PRINTF(2, 3);
static void say(why *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (w->off < w->n) {
		int k = vsnprintf(w->p + w->off, w->n - w->off, fmt, ap);
		w->off += k > 0 ? (size_t)k : 0;
	}
	va_end(ap);
}

/* "15,705" */
static const char *grp(char *buf, size_t n, size_t v)
{
	char raw[32];
	int len = snprintf(raw, sizeof raw, "%zu", v), o = 0;
	for (int i = 0; i < len && (size_t)o + 2 < n; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = '\0';
	return buf;
}

size_t pq_model_response_bytes(size_t header, size_t body)
{
	return pq_wire_records(header + body);
}

static void explain_flight(why *w, const pq_model_in *in, const pq_model_out *o, size_t mss,
			   size_t iw)
{
	char b[32];
	say(w, "the server's first flight is %s bytes", grp(b, sizeof b, o->flight_bytes));
	if (in->n_server_writes > 1) {
		say(w, ", handed to the socket in %zu writes (", in->n_server_writes);
		for (size_t i = 0; i < in->n_server_writes; i++)
			say(w, "%s%s", i ? " + " : "", grp(b, sizeof b, in->server_writes[i]));
		say(w, " bytes), each ending in its own segment");
	}
	say(w, " = %zu segments of at most %zu bytes; the initial window is %zu", o->flight_segments,
	    mss, iw);
	if (o->flight_rounds <= 1) {
		say(w, ": it fits, no extra round trip\n");
		return;
	}
	say(w, ": %zu segments go in the first round trip and the rest waits for the client's "
	       "ACKs: %u more round trip%s",
	    o->flight_first_round, o->flight_rounds - 1, o->flight_rounds > 2 ? "s" : "");
	if (o->flight_rwnd_rounds)
		say(w, ", %u of them because the client's receive window (%s bytes, flat for its first %d "
		       "rounds of data) holds the server back",
		    o->flight_rwnd_rounds, grp(b, sizeof b, in->rwnd), PQ_MODEL_RWND_FLAT_ROUNDS);
	say(w, "\n");
}

static void explain(why *w, const pq_model_in *in, const pq_model_out *o, size_t mss, size_t iw)
{
	char b[32];
	say(w, "connect: SYN and SYN-ACK take 1 round trip\n");
	say(w, "the ClientHello is %s bytes = %zu segment%s", grp(b, sizeof b, in->client_hello),
	    (in->client_hello + mss - 1) / mss, in->client_hello > mss ? "s" : "");
	say(w, o->ch_rounds > 1 ? ": more than the client's window, %u extra round trips\n" : "\n",
	    o->ch_rounds - 1);
	if (in->hrr)
		say(w, "its key share is not one the server takes: a HelloRetryRequest comes back and "
		       "the second ClientHello (%s bytes) goes out: %u more round trip%s\n",
		    grp(b, sizeof b, in->client_hello2), o->hrr_rounds, o->hrr_rounds > 1 ? "s" : "");
	explain_flight(w, in, o, mss, iw);
	say(w, "handshake: the client has the server's Finished after %u round trips\n", o->handshake);
	if (in->early_data)
		say(w, "first byte: the request went as 0-RTT data with the ClientHello; the "
		       "answer follows the server's flight: %u round trips\n",
		    o->ttfb);
	else if (o->first_record_rounds <= 1)
		say(w, "first byte: the client's Finished and request, then the response: %u "
		       "round trips\n",
		    o->ttfb);
	else
		say(w, "first byte: the client's Finished and request, then the response; but the client "
		       "reads a byte only when the response's first TLS record (%s bytes) is all there, and "
		       "%s it is %zu segments, more than the window of %zu the flight left: "
		       "%u more round trip%s, %u in all\n",
		    grp(b, sizeof b, o->first_record), in->tickets ? "with the tickets" : "so",
		    o->first_record_segments, o->cwnd_after_flight, o->first_record_rounds - 1,
		    o->first_record_rounds > 2 ? "s" : "", o->ttfb);
	if (in->response)
		say(w, "last byte: tickets and a %s-byte response are %zu segments; from a window "
		       "of %zu segments they take %u round trip%s: %u in all\n",
		    grp(b, sizeof b, in->response), o->response_segments, o->cwnd_after_flight,
		    o->response_rounds, o->response_rounds > 1 ? "s" : "", o->ttlb);
}

/* The round trips the link's rate adds to each phase: the same packets timed with the
 * rate and without it (model/rate.h), the difference over the RTT. */
static int wire_rounds(const pq_model_in *in, size_t mss, size_t iw, size_t first_record, pq_model_out *o,
		       pq_diag *d)
{
	pq_model_rate_in r = {.rtt_s = in->rtt_s, .down_bps = in->down_bps, .up_bps = in->up_bps, .mss = mss,
			      .iw = iw, .client_hello = in->client_hello, .hrr = in->hrr, .hrr_bytes = in->hrr_bytes,
			      .client_hello2 = in->client_hello2, .server_writes = in->server_writes,
			      .n_server_writes = in->n_server_writes, .tickets = in->tickets,
			      .response = in->response, .first_record = first_record, .early_data = in->early_data};
	pq_model_rate_times with, without;
	int rc = pq_model_rate_times_of(&r, &with, d);
	r.down_bps = r.up_bps = 0;
	if (rc == 0)
		rc = pq_model_rate_times_of(&r, &without, d);
	if (rc < 0)
		return rc;
	o->wire_handshake = (with.handshake - without.handshake) / in->rtt_s;
	o->wire_ttfb = (with.ttfb - without.ttfb) / in->rtt_s;
	o->wire_ttlb = in->response ? (with.ttlb - without.ttlb) / in->rtt_s : 0;
	return 0;
}

static void explain_wire(why *w, const pq_model_in *in, const pq_model_out *o)
{
	char a[32], b[32];
	say(w, "the link's rate (%s down", in->down_bps ? pq_fmt_rate(a, sizeof a, in->down_bps) : "no limit");
	say(w, ", %s up) adds each packet's time on the wire: %+.2f round trips to the handshake, %+.2f to the "
	       "first byte",
	    in->up_bps ? pq_fmt_rate(b, sizeof b, in->up_bps) : "no limit", o->wire_handshake, o->wire_ttfb);
	if (in->response)
		say(w, ", %+.2f to the last", o->wire_ttlb);
	say(w, "\n");
}

int pq_model_predict(const pq_model_in *in, pq_model_out *out, pq_diag *d)
{
	size_t mss = in->mss ? in->mss : DEF_MSS, iw = in->iw ? in->iw : DEF_IW;
	if (!in->n_server_writes || in->n_server_writes > PQ_MODEL_MAX_WRITES || !in->client_hello)
		return pq_diag_set(d, PQ_EINVAL,
				   "flight model: needs the ClientHello's bytes and 1 to %d server "
				   "writes (got %zu)",
				   PQ_MODEL_MAX_WRITES, in->n_server_writes);
	if (in->hrr && !in->client_hello2)
		return pq_diag_set(d, PQ_EINVAL, "flight model: a HelloRetryRequest needs the second "
						 "ClientHello's bytes");
	if (mss < 64 || mss > 65535)
		return pq_diag_set(d, PQ_EINVAL, "flight model: an MSS of %zu bytes (accepted: 64 to 65535)", mss);
	int rated = in->down_bps || in->up_bps;
	if (rated && !(in->rtt_s > 0))
		return pq_diag_set(d, PQ_EINVAL, "flight model: a link's rate needs the RTT (got %g s)", in->rtt_s);
	pq_model_out o = {0};
	pq_model_burst b;
	pq_model_tcp client = {.mss = mss, .cwnd = iw},
		     server = {.mss = mss, .cwnd = iw, .rwnd = in->rwnd, .pace = in->server_pace};
	pq_model_tcp_send(&client, &in->client_hello, 1, &b);
	o.ch_rounds = b.rounds;
	if (in->hrr) {
		/* The HRR is a short flight of its own; the second ClientHello leaves when it
		 * arrives, from the window the first one left. */
		size_t hrr = in->hrr_bytes ? in->hrr_bytes : 1;
		pq_model_tcp_send(&server, &hrr, 1, &b);
		o.hrr_rounds = b.rounds;
		pq_model_tcp_send(&client, &in->client_hello2, 1, &b);
		o.hrr_rounds += b.rounds - 1;
	}
	pq_model_tcp_send(&server, in->server_writes, in->n_server_writes, &b);
	for (size_t i = 0; i < in->n_server_writes; i++)
		o.flight_bytes += in->server_writes[i];
	o.flight_rounds = b.rounds;
	o.flight_rwnd_rounds = b.rwnd_rounds;
	o.flight_segments = b.segments;
	o.flight_first_round = b.first_round;
	o.flight_last_tx = b.last_tx;
	o.cwnd_after_flight = server.cwnd;
	o.connect = 1;
	o.handshake = o.connect + o.ch_rounds - 1 + o.hrr_rounds + o.flight_rounds;
	o.ttfb = in->early_data ? o.handshake : o.handshake + 1;
	/* The client reads the response's first byte when the response's first TLS record is
	 * all there (OpenSSL checks a record's tag before it hands over any of it): the round
	 * that carries that record's last segment, after the tickets. The same burst cut
	 * short there, from the same window: its rounds are the first byte's. */
	size_t first[2] = {in->tickets, in->response < FIRST_RECORD ? in->response : FIRST_RECORD};
	pq_model_tcp at_first = server;
	pq_model_burst fb = {0};
	if (in->response && !in->early_data) /* 0-RTT: answered with the flight, as before */
		pq_model_tcp_send(&at_first, in->tickets ? first : first + 1, in->tickets ? 2 : 1, &fb);
	o.first_record = in->early_data ? 0 : first[1];
	o.first_record_segments = fb.segments;
	o.first_record_rounds = fb.rounds ? fb.rounds : 1;
	size_t rest[2] = {in->tickets, in->response};
	size_t nrest = in->tickets ? 2 : 1;
	pq_model_tcp_send(&server, in->tickets ? rest : rest + 1, nrest, &b);
	o.response_segments = b.segments;
	o.response_rounds = b.rounds ? b.rounds : 1;
	unsigned base_ttfb = o.ttfb;
	o.ttfb += o.first_record_rounds - 1;
	/* The first response round is the one that brings the first bytes. */
	o.ttlb = in->response ? base_ttfb + o.response_rounds - 1 : 0;
	/* The flight's pacing delays the client's Finished, so every later phase with it. */
	double late = o.flight_last_tx - (o.flight_rounds ? o.flight_rounds - 1.0 : 0);
	o.handshake_t = o.handshake + late;
	o.ttfb_t = (double)base_ttfb + late + (o.first_record_rounds > 1 ? fb.last_tx : 0);
	o.ttlb_t = o.ttlb ? (double)base_ttfb + late + (b.rounds ? b.last_tx : 0) : 0;
	if (rated) {
		int rc = wire_rounds(in, mss, iw, in->response < FIRST_RECORD ? in->response : FIRST_RECORD, &o, d);
		if (rc < 0)
			return rc;
		o.handshake_t += o.wire_handshake;
		o.ttfb_t += o.wire_ttfb;
		o.ttlb_t += o.ttlb ? o.wire_ttlb : 0;
	}
	why w = {out->why, sizeof out->why, 0};
	*out = o;
	out->why[0] = '\0';
	explain(&w, in, out, mss, iw);
	if (late > 0.005)
		say(&w, "pacing: %s the server's segments after its first %d; the flight's last one leaves "
			"%.2f round trips after its round begins, so the handshake ends at %.2f and the "
			"first byte at %.2f round trips\n",
		    in->server_pace.kind == PQ_MODEL_PACE_BBR ? "BBR paces" : "fq paces", PQ_MODEL_PACE_UNPACED_SEGS,
		    late, out->handshake_t - out->wire_handshake, out->ttfb_t - out->wire_ttfb);
	if (rated)
		explain_wire(&w, in, out);
	return 0;
}

int pq_model_agrees(double predicted, double measured)
{
	return pq_model_agrees_wire(predicted, measured, 0);
}

int pq_model_agrees_wire(double predicted, double measured, double wire)
{
	return isfinite(measured) && fabs(measured - predicted) <= PQ_MODEL_AGREE_RTT + PQ_MODEL_AGREE_WIRE_SHARE * fabs(wire);
}

pq_model_pace pq_model_pace_of(const char *cc, const char *qdisc, unsigned ss_ratio, int gso)
{
	pq_model_pace p = {.kind = PQ_MODEL_PACE_OFF, .ss_ratio = ss_ratio, .skb_segs = gso ? 2 : 1};
	if (cc && strcmp(cc, "bbr") == 0)
		p.kind = PQ_MODEL_PACE_BBR;
	else if (qdisc && strcmp(qdisc, "fq") == 0)
		p.kind = PQ_MODEL_PACE_RATIO;
	return p;
}
