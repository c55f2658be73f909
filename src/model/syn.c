/* TCP's handshake under loss (model/syn.h). */
#include "model/syn.h"

#include <math.h>
#include <string.h>

#include "model/rtt.h"

#define INF 1e18
#define SYN_RTO_MS 1000.0 /* TCP_TIMEOUT_INIT */
#define SYN_LINEAR 4	  /* tcp_syn_linear_timeouts */
#define SYN_RETRIES 6	  /* tcp_syn_retries (the linear ones come on top) */
#define SYNACK_RETRIES 5  /* tcp_synack_retries */
#define OOW_MS 500.0	  /* tcp_invalid_ratelimit */

static void send_synack(pq_syn *s, double t)
{
	if (s->n_sa >= PQ_SYN_MAX)
		return;
	int i = s->n_sa++;
	s->sa_tx[i] = t;
	if (!pq_loss_chain_drop(s->down) && s->accepted < 0) {
		s->accepted = i; /* arrivals keep the order of sending: the first through is taken */
		s->sa_arrival = t + s->R / 2;
	}
}

static void on_syn(pq_syn *s, double t, int i)
{
	if (s->req < 0) {
		s->req = i;
		send_synack(s, t);
		s->timer = pq_rtt_fire(t, SYN_RTO_MS, s->phase);
		return;
	}
	if (s->last_oow >= 0 && t - s->last_oow < OOW_MS)
		return;
	s->last_oow = t;
	s->num_retrans++;
	send_synack(s, t);
	if (s->timer < INF) /* mod_timer_pending: re-armed only while it runs */
		s->timer = pq_rtt_fire(t, SYN_RTO_MS * (double)(1 << s->num_timeout), s->phase);
}

static void on_synack_timer(pq_syn *s, double t)
{
	if (s->num_timeout >= SYNACK_RETRIES) {
		s->timer = INF;
		return;
	}
	s->num_timeout++;
	s->num_retrans++;
	send_synack(s, t);
	s->timer = pq_rtt_fire(t, SYN_RTO_MS * (double)(1 << s->num_timeout), s->phase);
}

static void send_syn(pq_syn *s, double t)
{
	int i = s->n_syn++;
	s->syn_tx[i] = t;
	s->syn_arr[i] = pq_loss_chain_drop(s->up) ? 0 : t + s->R / 2;
}

/* The next SYN's time after the k-th: linear, then doubling (tcp_retransmit_timer). */
static double next_syn(const pq_syn *s)
{
	int k = s->n_syn; /* the retransmission this would be */
	if (k > SYN_RETRIES + SYN_LINEAR)
		return INF;
	int shift = k > SYN_LINEAR + 1 ? k - (SYN_LINEAR + 1) : 0;
	return pq_rtt_fire(s->syn_tx[k - 1], SYN_RTO_MS * (double)(1 << shift), s->phase);
}

/* The server's next event before `until`: a SYN arriving (1) or its timer (2); 0 none. */
static int server_step(pq_syn *s, double until)
{
	while (s->syn_seen < s->n_syn && s->syn_arr[s->syn_seen] == 0)
		s->syn_seen++;
	double ta = s->syn_seen < s->n_syn ? s->syn_arr[s->syn_seen] : INF;
	double t = fmin(ta, s->timer);
	if (t >= until)
		return 0;
	if (ta <= s->timer) {
		on_syn(s, ta, s->syn_seen++);
		return 1;
	}
	on_synack_timer(s, s->timer);
	return 2;
}

void pq_syn_connect(pq_syn *s, double R, double phase, pq_loss_chain *up, pq_loss_chain *down, double give_up)
{
	memset(s, 0, sizeof *s);
	s->R = R;
	s->phase = phase;
	s->up = up;
	s->down = down;
	s->req = s->accepted = -1;
	s->sa_arrival = s->timer = INF;
	s->last_oow = -1;
	send_syn(s, 0);
	for (;;) {
		double syn = next_syn(s);
		double until = fmin(fmin(syn, s->sa_arrival), give_up);
		if (server_step(s, until))
			continue;
		if (until >= give_up) {
			s->connected = give_up;
			return;
		}
		if (s->sa_arrival <= syn) {
			s->connected = s->sa_arrival;
			return;
		}
		send_syn(s, syn);
	}
}

double pq_syn_client_sample(const pq_syn *s, int *iw1)
{
	*iw1 = s->n_syn - 1 >= 2 && s->req != 0;
	return s->connected - s->syn_tx[s->req < 0 ? 0 : s->req];
}

double pq_syn_server_sample(pq_syn *s, double est, int *iw1)
{
	while (server_step(s, est))
		;
	*iw1 = s->num_retrans >= 2 && s->num_timeout >= 1 && s->accepted != 0;
	return est - s->sa_tx[s->accepted < 0 ? 0 : s->accepted];
}
