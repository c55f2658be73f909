/* One thread's event loop of a load (load/run_int.h): connections started into free
 * slots (offered a ticket from the pool the server's tickets fill), stepped on their
 * events and QUIC timers, retired into records (the sink, the back-off after failures to
 * reach the server), until the phase's budget is spent. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "core/clock.h"
#include "core/rng.h"
#include "core/sched.h"
#include "load/arrival.h"
#include "load/conn.h"
#include "load/run_int.h"

#define PROGRESS_NS (500 * PQ_NS_PER_MS)

/* Tickets arrive here (TLS 1.3: after the handshake, inside SSL_read). */
int pq_load_run_new_session(SSL *ssl, SSL_SESSION *sess)
{
	pq_load_runner *r = SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));
	pq_load_conn *c = SSL_get_app_data(ssl);
	if (c)
		pq_load_conn_ticket(c);
	r->res->tickets++;
	if (!SSL_SESSION_is_resumable(sess))
		return 0;
	if (r->npool == PQ_LOAD_RUN_POOL_MAX) {
		SSL_SESSION_free(r->pool[0]);
		memmove(r->pool, r->pool + 1, (PQ_LOAD_RUN_POOL_MAX - 1) * sizeof r->pool[0]);
		r->npool--;
	}
	r->pool[r->npool++] = sess;
	return 1; /* we keep the reference */
}

/* The newest ticket, taken out of the pool. Without 0-RTT the last one stays and may be
 * offered again, so a server that sends few tickets still sees resumptions. With 0-RTT
 * a ticket is used once, as RFC 8446 (section 8) asks of clients: servers make such
 * tickets single-use, and an SSL_SESSION that has carried 0-RTT, set again on a new
 * connection, makes OpenSSL 3.5's client abort the full handshake that follows with an
 * internal_error alert (the same ticket re-read from a file, as s_client -sess_in does,
 * falls back to a full handshake cleanly). Caller frees the returned reference. */
static SSL_SESSION *take_session(pq_load_runner *r)
{
	if (r->npool == 0)
		return NULL;
	SSL_SESSION *s = r->pool[r->npool - 1];
	if (r->npool > 1 || r->cfg->early_data)
		r->npool--;
	else
		SSL_SESSION_up_ref(s);
	return s;
}

static int add_record(pq_load_result *res, const pq_load_record *rec)
{
	if (res->n == res->cap) {
		size_t cap = res->cap ? res->cap * 2 : 1024;
		pq_load_record *p = realloc(res->recs, cap * sizeof *p);
		if (!p)
			return PQ_ENOMEM;
		res->recs = p;
		res->cap = cap;
	}
	res->recs[res->n++] = *rec;
	return 0;
}

static void launch(pq_load_runner *r, int64_t intended_ns)
{
	pq_load_conn *c = r->free_slots[--r->nfree];
	SSL_SESSION *s = NULL;
	if (r->recording && r->cfg->resume > 0 && pq_rng_uniform(&r->rng) < r->cfg->resume)
		s = take_session(r);
	int64_t wait0 = pq_sched_meter_read(&r->meter);
	pq_load_conn_start(c, &r->params, atomic_fetch_add(&r->sync->next_id, 1), intended_ns, s);
	c->wait0_ns = wait0; /* after the start, which clears the connection */
	SSL_SESSION_free(s);
	r->launched++;
	r->active[r->nactive++] = c;
	atomic_fetch_add(&r->sync->inflight, 1);
	if (c->st != PQ_CS_DONE) {
		struct epoll_event e = {.events = c->events, .data.ptr = c};
		epoll_ctl(r->epfd, EPOLL_CTL_ADD, c->fd, &e);
	}
}

/* A failure to reach the server at all: nothing listening, or a close or reset before
 * its ServerHello (over its connection limit, or dying). */
static int unreached(const pq_load_record *rec)
{
	return rec->err == PQ_LERR_REFUSED ||
	       ((rec->err == PQ_LERR_CLOSED || rec->err == PQ_LERR_RESET) && rec->t[PQ_PH_SERVER_HELLO] < 0);
}

/* Back-off after failures to reach the server: 1 ms doubling to 500 ms between starts. */
static void back_off(pq_load_runner *r, const pq_load_record *rec, int64_t now)
{
	if (!unreached(rec)) {
		r->refused_in_row = r->unreached_in_row = 0;
		return;
	}
	r->refused_in_row = rec->err == PQ_LERR_REFUSED ? r->refused_in_row + 1 : 0;
	int k = r->unreached_in_row++;
	int64_t wait = (int64_t)PQ_NS_PER_MS << (k < 9 ? k : 9);
	r->hold_until_ns = now + (wait < 500 * PQ_NS_PER_MS ? wait : 500 * PQ_NS_PER_MS);
}

/* Retire a finished connection: record it, free its slot. */
static int retire(pq_load_runner *r, int idx)
{
	pq_load_conn *c = r->active[idx];
	c->rec.wait_ns = pq_sched_delta(c->wait0_ns, pq_sched_meter_read(&r->meter));
	back_off(r, &c->rec, pq_clock_now(r->params.clock));
	r->active[idx] = r->active[--r->nactive];
	r->free_slots[r->nfree++] = c;
	r->done++;
	if (c->rec.err == PQ_LERR_NONE)
		r->ok++;
	else
		r->errors++;
	atomic_fetch_add(&r->sync->done, 1);
	atomic_fetch_add(&r->sync->errors, c->rec.err != PQ_LERR_NONE);
	atomic_fetch_sub(&r->sync->inflight, 1);
	if (!r->recording) {
		r->res->warmup_done++;
		r->res->warmup_errors += c->rec.err != PQ_LERR_NONE;
		if (c->rec.err != PQ_LERR_NONE && r->res->warmup_error.err == PQ_LERR_NONE)
			r->res->warmup_error = c->rec;
		return 0;
	}
	r->res->measured++;
	if (r->cfg->sink && !atomic_load(&r->sync->sink_failed)) {
		pthread_mutex_lock(&r->sync->sink_mu);
		int rc = atomic_load(&r->sync->sink_failed)
				 ? 0
				 : r->cfg->sink(r->cfg->sink_arg, &c->rec, r->diag);
		if (rc < 0)
			atomic_store(&r->sync->sink_failed, 1);
		pthread_mutex_unlock(&r->sync->sink_mu);
		if (rc < 0)
			return rc;
	}
	return r->cfg->no_keep ? 0 : add_record(r->res, &c->rec);
}

/* Step a connection after an event (or, tick: its QUIC timer) and wait for what it asks
 * for next. */
static void advance(pq_load_runner *r, pq_load_conn *c, int tick)
{
	uint32_t before = c->events;
	uint32_t ev = tick ? pq_load_conn_tick(c) : pq_load_conn_step(c);
	if (ev && ev != before) {
		struct epoll_event e = {.events = ev, .data.ptr = c};
		epoll_ctl(r->epfd, EPOLL_CTL_MOD, c->fd, &e);
	}
}


static int budget_left(pq_load_runner *r, const pq_load_phase *ph, int64_t now)
{
	if (r->cfg->stop && *r->cfg->stop) {
		r->res->interrupted = 1;
		return 0;
	}
	if (atomic_load(&r->sync->sink_failed))
		return 0;
	/* The server answered before and now nothing listens: it has gone away. (Before
	 * any success the start-up guard below says it.) */
	if (r->ok > 0 && r->refused_in_row >= PQ_LOAD_REFUSED_IN_ROW) {
		r->res->server_gone = 1;
		return 0;
	}
	if (ph->count && r->launched >= (uint64_t)ph->count)
		return 0;
	/* Open loop: every arrival scheduled before the end starts, however late; dropping
	 * the late ones would hide exactly the stall the open loop is there to show. */
	if (ph->open ? ph->end_ns && ph->origin_ns + pq_arrival_peek(&ph->arr) >= ph->end_ns
		     : ph->end_ns && now >= ph->end_ns)
		return 0;
	/* Nothing has worked yet and the first attempts all failed: more would only repeat
	 * the same error (or wait out the same timeout) many times. */
	if (r->ok == 0 && r->errors >= (uint64_t)(ph->open ? 10 : ph->concurrency)) {
		r->res->stopped_early = 1;
		return 0;
	}
	return 1;
}

int64_t pq_load_due_min(int64_t due, int64_t at)
{
	return at > 0 && at < due ? at : due;
}

int pq_load_run_phase(pq_load_runner *r, pq_load_phase *ph)
{
	pq_clock *clk = r->params.clock;
	struct epoll_event evs[256];
	int64_t next_progress = pq_clock_now(clk) + PROGRESS_NS, t0 = pq_clock_now(clk);
	r->launched = r->done = r->ok = r->errors = 0;
	atomic_store(&r->sync->done, 0);
	atomic_store(&r->sync->errors, 0);
	for (;;) {
		int64_t now = pq_clock_now(clk);
		/* Retire finished and timed-out connections first, so their slots refill now. */
		for (int i = r->nactive - 1; i >= 0; i--) {
			pq_load_conn *c = r->active[i];
			if (c->st != PQ_CS_DONE && now >= c->tick_ns)
				advance(r, c, 1); /* QUIC: a PTO, an ACK to send */
			if (c->st != PQ_CS_DONE && now >= c->deadline_ns)
				pq_load_conn_timeout(c);
			int rc = c->st == PQ_CS_DONE ? retire(r, i) : 0;
			if (rc < 0)
				return rc;
		}
		int more = budget_left(r, ph, now);
		/* The run's end (a signal, or its duration plus one per-phase timeout of
		 * grace): whatever is still in flight is cut, so the run ends on time. */
		int interrupted = r->cfg->stop && *r->cfg->stop;
		int failed = atomic_load(&r->sync->sink_failed);
		if (interrupted || failed || (ph->end_ns && now >= ph->end_ns + r->cfg->timeout_ns)) {
			const char *why = interrupted ? "interrupted by a signal"
					  : failed    ? "the run failed"
						      : "past the run's duration";
			for (int i = r->nactive - 1; i >= 0; i--) {
				pq_load_conn_cut(r->active[i], why);
				int rc = retire(r, i);
				if (rc < 0)
					return rc;
			}
			break;
		}
		int held = now < r->hold_until_ns; /* backing off: nothing starts yet */
		if (!held && ph->open) {
			while (more && r->nfree > 0 &&
			       ph->origin_ns + pq_arrival_peek(&ph->arr) <= now) {
				int64_t t = ph->origin_ns + pq_arrival_next(&ph->arr);
				launch(r, t - r->params.run_start_ns);
				more = budget_left(r, ph, now);
			}
		} else if (!held) {
			while (more && r->nactive < ph->concurrency) {
				launch(r, -1);
				more = budget_left(r, ph, now);
			}
		}
		if (!more && r->nactive == 0)
			break;
		/* Asleep until something is due: an event, the next arrival, the back-off's end, a
		 * QUIC timer, a connection's deadline, the phase's end or the next progress line,
		 * at most PQ_LOAD_IDLE_MAX_NS (a stop flag or another thread's failure is seen
		 * then). A fixed 10 ms tick here woke the client some 90 times per connection at
		 * 200 ms RTT for nothing, and every wake-up is a wait for a CPU that the cell's
		 * host budget counts and a neighbour pays for. */
		int64_t due = now + PQ_LOAD_IDLE_MAX_NS;
		if (held)
			due = pq_load_due_min(due, r->hold_until_ns);
		else if (ph->open && more && r->nfree > 0)
			due = pq_load_due_min(due, ph->origin_ns + pq_arrival_peek(&ph->arr));
		for (int i = 0; i < r->nactive; i++)
			due = pq_load_due_min(pq_load_due_min(due, r->active[i]->tick_ns), r->active[i]->deadline_ns);
		if (ph->end_ns)
			due = pq_load_due_min(due, now < ph->end_ns ? ph->end_ns : ph->end_ns + r->cfg->timeout_ns);
		if (r->cfg->progress && r->index == 0)
			due = pq_load_due_min(due, next_progress);
		int64_t wait = due - pq_clock_now(clk);
		wait = wait < 0 ? 0 : wait;
		struct timespec ts = {.tv_sec = wait / PQ_NS_PER_S, .tv_nsec = wait % PQ_NS_PER_S};
		int n = epoll_pwait2(r->epfd, evs, 256, &ts, NULL);
		if (n < 0 && errno == ENOSYS)
			n = epoll_wait(r->epfd, evs, 256, (int)((wait + PQ_NS_PER_MS - 1) / PQ_NS_PER_MS));
		for (int i = 0; i < n; i++) {
			pq_load_conn *c = evs[i].data.ptr;
			advance(r, c, 0);
		}
		if (r->cfg->progress && r->index == 0 && pq_clock_now(clk) >= next_progress) {
			long long inflight = atomic_load(&r->sync->inflight);
			pq_load_progress p = {.elapsed_ns = pq_clock_now(clk) - t0,
					      .done = atomic_load(&r->sync->done),
					      .errors = atomic_load(&r->sync->errors),
					      .inflight = inflight > 0 ? (uint64_t)inflight : 0,
					      .warmup = !r->recording};
			r->cfg->progress(r->cfg->progress_arg, &p);
			next_progress += PROGRESS_NS;
		}
	}
	return 0;
}
