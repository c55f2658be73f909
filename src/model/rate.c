#include "model/rate.h"

#include <stdlib.h>

#include "model/tcp.h"

/* One direction of the link: a FIFO server of bps, then the propagation delay. */
typedef struct lane {
	double free;  /* when the wire is free again, seconds */
	double delay; /* one way */
	uint64_t bps; /* 0: no limit */
} lane;

/* A packet of `bytes` of payload handed to the lane at t: when it arrives. */
static double cross(lane *l, double t, size_t bytes)
{
	double start = t > l->free ? t : l->free;
	l->free = start + (l->bps ? (double)(bytes + PQ_MODEL_TCPIP_HEADERS) * 8.0 / (double)l->bps : 0);
	return l->free + l->delay;
}

/* What a burst tells: when the segment that completes byte mark[k] arrives (0 when
 * mark[k] is 0), and when the last one does. */
typedef struct shot {
	size_t mark[2];
	double at[2], last;
} shot;

static size_t count_segs(const size_t *w, size_t n, size_t mss)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += (w[i] + mss - 1) / mss;
	return k;
}

/* Writes w[0..n-1], all issued at t0, by a sender of window *cwnd over fw, its ACKs
 * coming back over bw: each write cut into segments of at most mss; a segment leaves
 * when fewer than cwnd are unacknowledged. Slow start as model/tcp.h counts it, round by
 * round: the segments sent when the burst starts are its first round, those an ACK of
 * round r lets go are round r + 1, and each ACK of round r grows the window by one while
 * the window the round's ACKs found was under twice the round's segments (the flow was
 * window-limited). */
static int burst(size_t *cwnd, size_t mss, lane *fw, lane *bw, double t0, const size_t *w, size_t n, shot *s)
{
	size_t total = count_segs(w, n, mss), sent = 0, acked = 0, wi = 0, off = 0, bytes = 0;
	if (!total)
		return PQ_EINVAL;
	double *ack = malloc(total * sizeof *ack), t = t0;
	size_t *round = malloc(total * sizeof *round), *in_round = calloc(total + 2, sizeof *in_round);
	int rc = ack && round && in_round ? 0 : PQ_ENOMEM;
	size_t now = 1, cur = 0, found = 0; /* the round new segments join; the round being ACKed */
	s->at[0] = s->at[1] = 0;
	while (rc == 0) {
		while (sent < total && sent - acked < *cwnd) {
			while (w[wi] == off) /* an empty write, or one all sent */
				wi++, off = 0;
			size_t b = w[wi] - off < mss ? w[wi] - off : mss;
			double a = cross(fw, t, b);
			off += b, bytes += b;
			for (int k = 0; k < 2; k++)
				if (s->mark[k] && !s->at[k] && bytes >= s->mark[k])
					s->at[k] = a;
			s->last = a;
			round[sent] = now;
			in_round[now]++;
			ack[sent++] = cross(bw, a, 0);
		}
		if (acked == sent)
			break;
		t = ack[acked]; /* in order: both lanes are FIFO */
		size_t r = round[acked++];
		if (r != cur)
			cur = r, found = *cwnd;
		if (found < 2 * in_round[r])
			(*cwnd)++;
		now = r + 1;
	}
	free(ack);
	free(round);
	free(in_round);
	return rc;
}

int pq_model_rate_times_of(const pq_model_rate_in *in, pq_model_rate_times *out, pq_diag *d)
{
	if (!(in->rtt_s > 0) || !in->mss || !in->iw || !in->client_hello || !in->n_server_writes)
		return pq_diag_set(d, PQ_EINVAL, "rate model: needs an RTT over 0, the MSS, the initial window, "
						 "the ClientHello and the server's flight");
	size_t *w = malloc((in->n_server_writes + 1) * sizeof *w);
	if (!w)
		return pq_diag_set(d, PQ_ENOMEM, "rate model: out of memory");
	lane up = {0, in->rtt_s / 2, in->up_bps}, down = {0, in->rtt_s / 2, in->down_bps};
	size_t ccw = in->iw, scw = in->iw, flight = 0;
	shot s = {0};
	*out = (pq_model_rate_times){0};
	out->connect = cross(&down, cross(&up, 0, 0), 0); /* SYN, SYN-ACK */
	int rc = burst(&ccw, in->mss, &up, &down, out->connect, &in->client_hello, 1, &s);
	if (rc == 0 && in->hrr) {
		size_t h = in->hrr_bytes ? in->hrr_bytes : 1;
		rc = burst(&scw, in->mss, &down, &up, s.last, &h, 1, &s);
		if (rc == 0)
			rc = burst(&ccw, in->mss, &up, &down, s.last, in->client_hello2 ? &in->client_hello2 : &h, 1, &s);
	}
	for (size_t i = 0; i < in->n_server_writes; i++)
		flight += (w[i] = in->server_writes[i]);
	size_t resp = in->response ? in->response : 1, first = in->response ? in->first_record : 1;
	first = first && first < resp ? first : resp;
	if (rc == 0 && in->early_data) { /* the answer follows the flight in the same burst */
		w[in->n_server_writes] = resp;
		s.mark[0] = flight, s.mark[1] = flight + first;
		rc = burst(&scw, in->mss, &down, &up, s.last, w, in->n_server_writes + 1, &s);
		out->handshake = s.at[0], out->ttfb = s.at[1], out->ttlb = s.last;
	} else if (rc == 0) {
		s.mark[0] = s.mark[1] = 0;
		rc = burst(&scw, in->mss, &down, &up, s.last, w, in->n_server_writes, &s);
		out->handshake = s.last;
		size_t rest[2] = {in->tickets, resp};
		s.mark[0] = in->tickets + first, s.mark[1] = 0;
		if (rc == 0)
			rc = burst(&scw, in->mss, &down, &up, cross(&up, out->handshake, PQ_MODEL_RATE_FIN_REQ), rest, 2, &s);
		out->ttfb = s.at[0], out->ttlb = s.last;
	}
	if (!in->response)
		out->ttlb = 0;
	free(w);
	return rc == 0 ? 0 : pq_diag_set(d, rc, "rate model: %s", rc == PQ_ENOMEM ? "out of memory" : "an empty burst");
}
