#include "load/run.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/proc.h"
#include "core/rng.h"
#include "core/sched.h"
#include "load/arrival.h"
#include "load/conn.h"
#include "tls/quic.h"

#define POOL_MAX 64
#define PROGRESS_NS (500 * PQ_NS_PER_MS)

/* Shared by the threads of one run: the measurement starts for all at once (a barrier
 * after the warm-up), from one time origin, and progress counts are totals. */
typedef struct sync {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int expected, arrived, released;
	int64_t start_ns;
	atomic_ullong done, errors;
	atomic_llong inflight;
	atomic_ullong next_id; /* launch sequence over all threads */
	atomic_int sink_failed;
	pthread_mutex_t sink_mu; /* one sink call at a time */
} sync_t;

typedef struct runner {
	const pq_load_config *cfg;
	sync_t *sync;
	int index; /* thread number; thread 0 reports progress */
	pq_load_result *res;
	SSL_CTX *ctx;
	int epfd;
	pq_conn_params params;
	char request[512];
	pq_load_conn *slots;
	pq_load_conn **free_slots, **active;
	int nfree, nactive, nslots;
	SSL_SESSION *pool[POOL_MAX];
	int npool;
	pq_rng rng;
	pq_diag *diag; /* where a sink's failure is told */
	/* the current phase */
	int recording;
	uint64_t launched, done, ok, errors;
	int refused_in_row, unreached_in_row; /* consecutive: refused / not reached */
	int64_t hold_until_ns;                /* back-off: no start before this */
	pq_sched_meter meter;                 /* this thread's wait for a CPU */
} runner;

/* Tickets arrive here (TLS 1.3: after the handshake, inside SSL_read). */
static int new_session_cb(SSL *ssl, SSL_SESSION *sess)
{
	runner *r = SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));
	pq_load_conn *c = SSL_get_app_data(ssl);
	if (c)
		pq_load_conn_ticket(c);
	r->res->tickets++;
	if (!SSL_SESSION_is_resumable(sess))
		return 0;
	if (r->npool == POOL_MAX) {
		SSL_SESSION_free(r->pool[0]);
		memmove(r->pool, r->pool + 1, (POOL_MAX - 1) * sizeof r->pool[0]);
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
static SSL_SESSION *take_session(runner *r)
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

static void launch(runner *r, int64_t intended_ns)
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
static void back_off(runner *r, const pq_load_record *rec, int64_t now)
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
static int retire(runner *r, int idx)
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
static void advance(runner *r, pq_load_conn *c, int tick)
{
	uint32_t before = c->events;
	uint32_t ev = tick ? pq_load_conn_tick(c) : pq_load_conn_step(c);
	if (ev && ev != before) {
		struct epoll_event e = {.events = ev, .data.ptr = c};
		epoll_ctl(r->epfd, EPOLL_CTL_MOD, c->fd, &e);
	}
}

typedef struct phase {
	long long count;   /* 0 = no limit */
	int64_t end_ns;    /* absolute; 0 = no limit */
	int open;
	pq_arrival arr;
	int64_t origin_ns; /* absolute time of arrival 0 */
	int concurrency;
} phase;

static int budget_left(runner *r, const phase *ph, int64_t now)
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

static int run_phase(runner *r, phase *ph)
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
		int64_t wait = 10 * PQ_NS_PER_MS;
		if (held && r->hold_until_ns - now < wait)
			wait = r->hold_until_ns - now;
		else if (ph->open && more && r->nfree > 0) {
			int64_t until = ph->origin_ns + pq_arrival_peek(&ph->arr) - pq_clock_now(clk);
			wait = until < 0 ? 0 : until < wait ? until : wait;
		}
		for (int i = 0; i < r->nactive; i++) /* QUIC timers */
			if (r->active[i]->tick_ns != INT64_MAX) {
				int64_t until = r->active[i]->tick_ns - pq_clock_now(clk);
				wait = until < 0 ? 0 : until < wait ? until : wait;
			}
		struct timespec ts = {.tv_sec = 0, .tv_nsec = wait};
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

static int check_config(const pq_load_config *cfg, pq_diag *d)
{
#define N(key) pq_name_of(cfg->names, key)
	if (cfg->concurrency < 1 || cfg->concurrency > 100000)
		return pq_diag_set(d, PQ_ERANGE, "%s: %d is not in 1..100000", N("concurrency"),
				   cfg->concurrency);
	if (cfg->rate < 0)
		return pq_diag_set(d, PQ_ERANGE, "%s: must be positive", N("rate"));
	if (cfg->rate > 0 && (cfg->max_inflight < 1 || cfg->max_inflight > 100000))
		return pq_diag_set(d, PQ_ERANGE, "%s: %d is not in 1..100000", N("max_inflight"),
				   cfg->max_inflight);
	if (cfg->requests_per_conn < 0)
		return pq_diag_set(d, PQ_ERANGE, "%s: must be 0 or more", N("requests_per_conn"));
	if (cfg->timeout_ns <= 0)
		return pq_diag_set(d, PQ_ERANGE, "%s: must be more than 0", N("timeout_ns"));
	int t = cfg->threads > 1 ? cfg->threads : 1;
	if (t > 256)
		return pq_diag_set(d, PQ_ERANGE, "%s: %d is not in 1..256", N("threads"), cfg->threads);
	if (t > 1 && ((cfg->rate <= 0 && cfg->concurrency < t) || (cfg->rate > 0 && cfg->max_inflight < t)))
		return pq_diag_set(d, PQ_ERANGE,
				   "%s %d needs at least as many connections in flight (%s, or %s "
				   "with %s)",
				   N("threads"), t, N("concurrency"), N("max_inflight"), N("rate"));
	if (t > 1 && cfg->connections && cfg->connections < t)
		return pq_diag_set(d, PQ_ERANGE, "%s %d needs %s of %d or more", N("threads"), t,
				   N("connections"), t);
	if (!cfg->connections && !cfg->duration_ns)
		return pq_diag_set(d, PQ_EINVAL, "give %s N or %s T", N("connections"),
				   N("duration_ns"));
	if (cfg->tls.quic && cfg->requests_per_conn > 1)
		return pq_diag_set(d, PQ_EINVAL,
				   "%s %d: over QUIC a connection carries one hq-interop request "
				   "(give 0 or 1)",
				   N("requests_per_conn"), cfg->requests_per_conn);
	if (cfg->tls.quic && cfg->early_data)
		return pq_diag_set(d, PQ_EINVAL,
				   "%s: OpenSSL 3.5's QUIC has no 0-RTT (early data); use it over TCP",
				   N("early_data"));
	if (cfg->path && (strlen(cfg->path) > 256 || cfg->path[0] != '/' || strpbrk(cfg->path, " \r\n")))
		return pq_diag_set(d, PQ_EINVAL, "%s: '%s' is not a request target like /bytes/1024",
				   N("path"), cfg->path);
	return 0;
#undef N
}

/* Waits for every thread to end its warm-up; returns the common start of measurement. */
static void release_if_all_in(sync_t *sy)
{
	if (!sy->released && sy->arrived >= sy->expected) {
		sy->start_ns = pq_mono_ns();
		sy->released = 1;
		pthread_cond_broadcast(&sy->cv);
	}
}

static int64_t start_together(sync_t *sy)
{
	pthread_mutex_lock(&sy->mu);
	sy->arrived++;
	release_if_all_in(sy);
	while (!sy->released)
		pthread_cond_wait(&sy->cv, &sy->mu);
	int64_t t = sy->start_ns;
	pthread_mutex_unlock(&sy->mu);
	return t;
}

/* `by` threads will never arrive (they could not be started). */
static void expect_fewer(sync_t *sy, int by)
{
	pthread_mutex_lock(&sy->mu);
	sy->expected -= by;
	release_if_all_in(sy);
	pthread_mutex_unlock(&sy->mu);
}

/* One thread's share of the run. Every path passes start_together exactly once, so no
 * thread waits for one that gave up. */
static int run_one(const pq_load_config *cfg, sync_t *sy, int index, pq_load_result *res,
		   pq_diag *d)
{
	runner r = {.cfg = cfg, .sync = sy, .index = index, .res = res, .epfd = -1, .diag = d};
	int rc = 0, measure = 1;
	memset(res, 0, sizeof *res);
	pq_tls_config tls = cfg->tls;
	tls.role = PQ_TLS_CLIENT;
	if ((rc = pq_tls_ctx_new(&tls, &r.ctx, d)) < 0) {
		start_together(sy);
		return rc;
	}
	/* Thread 0 is the caller's: its nice is given back at the end. */
	int old_nice = pq_sched_set_nice(PQ_SCHED_NICE_KEEP);
	res->nice = pq_sched_set_nice(cfg->set_nice ? cfg->nice : PQ_SCHED_NICE_KEEP);
	pq_sched_meter_open(&r.meter);
	SSL_CTX_set_app_data(r.ctx, &r);
	SSL_CTX_sess_set_new_cb(r.ctx, new_session_cb);
	pq_rng_seed(&r.rng, cfg->seed);

	r.nslots = cfg->rate > 0 ? cfg->max_inflight : cfg->concurrency;
	r.slots = calloc((size_t)r.nslots, sizeof *r.slots);
	r.free_slots = calloc((size_t)r.nslots, sizeof *r.free_slots);
	r.active = calloc((size_t)r.nslots, sizeof *r.active);
	r.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (!r.slots || !r.free_slots || !r.active || r.epfd < 0) {
		rc = pq_diag_set(d, PQ_ENOMEM, "cannot allocate %d connection slots", r.nslots);
		start_together(sy);
		goto out;
	}
	for (int i = 0; i < r.nslots; i++)
		r.free_slots[r.nfree++] = &r.slots[i];

	const char *host = cfg->servername ? cfg->servername : cfg->target.host;
	int v6 = strchr(host, ':') != NULL; /* an IPv6 literal goes in brackets */
	const char *path = cfg->path ? cfg->path : "/";
	int n = cfg->tls.quic_h3 ? 0
		: cfg->tls.quic ? snprintf(r.request, sizeof r.request, "GET %s\r\n", path)
			      : snprintf(r.request, sizeof r.request,
					 "GET %s HTTP/1.1\r\nHost: %s%s%s\r\nUser-Agent: pqtls-bench\r\n\r\n",
					 path, v6 ? "[" : "", host, v6 ? "]" : "");
	unsigned long long want = 0;
	int used = 0;
	uint64_t expect = sscanf(path, "/bytes/%llu%n", &want, &used) == 1 && path[used] == '\0'
				  ? (uint64_t)want
				  : UINT64_MAX;
	r.params = (pq_conn_params){
		.target = &cfg->target,
		.servername = cfg->servername,
		.ctx = r.ctx,
		.clock = &pq_clock_mono,
		.request = r.request,
		.request_len = (size_t)n,
		.requests = cfg->requests_per_conn,
		.want_ticket = cfg->resume > 0,
		.early_data = cfg->early_data,
		.timeout_ns = cfg->timeout_ns,
		.total_timeout_ns = cfg->total_timeout_ns,
		.cap_name = pq_name_of(cfg->tls.names, "max_cert_list"),
		.quic = cfg->tls.quic,
		.expect_body = expect,
		.h3 = cfg->tls.quic_h3,
		.path = path,
	};

	if (cfg->warmup > 0) {
		int wc = cfg->concurrency < r.nslots ? cfg->concurrency : r.nslots;
		phase w = {.count = cfg->warmup,
			   .concurrency = wc < cfg->warmup ? wc : (int)cfg->warmup};
		r.params.run_start_ns = pq_mono_ns();
		rc = run_phase(&r, &w);
		measure = rc == 0 && !res->stopped_early && !res->interrupted && !res->server_gone;
	}

	r.recording = 1;
	int64_t start = start_together(sy);
	if (!measure)
		goto out;
	r.params.run_start_ns = start;
	phase m = {.count = cfg->connections,
		   .end_ns = cfg->duration_ns ? start + cfg->duration_ns : 0,
		   .open = cfg->rate > 0,
		   .origin_ns = start,
		   .concurrency = cfg->concurrency};
	if (m.open && pq_arrival_init(&m.arr, cfg->rate, cfg->poisson, cfg->seed + 1) < 0) {
		rc = pq_diag_set(d, PQ_ERANGE, "%s: %g is not a positive rate",
				 pq_name_of(cfg->names, "rate"), cfg->rate);
		goto out;
	}
	/* Threads of a constant-rate run interleave instead of starting in step. */
	m.origin_ns += cfg->rate > 0 && !cfg->poisson ? (int64_t)(index * 1e9 / cfg->rate / cfg->threads)
						      : 0;
	int64_t cpu0 = pq_proc_cpu_ns(RUSAGE_THREAD);
	rc = run_phase(&r, &m);
	res->cpu_ns = pq_proc_cpu_ns(RUSAGE_THREAD) - cpu0;
	res->wall_ns = pq_mono_ns() - start;
	if (rc == PQ_ENOMEM && !atomic_load(&sy->sink_failed))
		pq_diag_set(d, rc, "out of memory for connection records");
out:
	for (int i = 0; i < r.nactive; i++)
		pq_load_conn_timeout(r.active[i]);
	for (int i = 0; i < r.npool; i++)
		SSL_SESSION_free(r.pool[i]);
	if (r.epfd >= 0)
		close(r.epfd);
	free(r.slots);
	free(r.free_slots);
	free(r.active);
	pq_tls_ctx_free(r.ctx);
	pq_sched_meter_close(&r.meter);
	if (cfg->set_nice && index == 0)
		(void)pq_sched_set_nice(old_nice);
	return rc;
}

typedef struct worker_arg {
	pq_load_config cfg;
	sync_t *sync;
	int index;
	pq_load_result res;
	pq_diag diag;
	int rc;
	pthread_t th;
} worker_arg;

static void *worker_main(void *p)
{
	worker_arg *w = p;
	w->rc = run_one(&w->cfg, w->sync, w->index, &w->res, &w->diag);
	return NULL;
}

/* Thread i's share of n: n/t, plus one for the first n%t threads. */
static long long share(long long n, int t, int i)
{
	return n / t + (i < n % t);
}

static int cmp_start(const void *a, const void *b)
{
	const pq_load_record *x = a, *y = b;
	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

/* Concatenate the threads' records in start order, renumbered; sum what adds up. */
static int merge(worker_arg *w, int n, pq_load_result *res)
{
	size_t total = 0;
	for (int i = 0; i < n; i++)
		total += w[i].res.n;
	res->recs = malloc((total ? total : 1) * sizeof *res->recs);
	if (!res->recs)
		return PQ_ENOMEM;
	res->cap = total;
	for (int i = 0; i < n; i++) {
		const pq_load_result *r = &w[i].res;
		if (r->n)
			memcpy(res->recs + res->n, r->recs, r->n * sizeof *r->recs);
		res->n += r->n;
		res->cpu_ns += r->cpu_ns;
		res->wall_ns = r->wall_ns > res->wall_ns ? r->wall_ns : res->wall_ns;
		res->tickets += r->tickets;
		res->warmup_done += r->warmup_done;
		res->warmup_errors += r->warmup_errors;
		if (res->warmup_error.err == PQ_LERR_NONE)
			res->warmup_error = r->warmup_error;
		res->stopped_early |= r->stopped_early;
		res->server_gone |= r->server_gone;
		res->interrupted |= r->interrupted;
		res->measured += r->measured;
		/* the least favoured thread's */
		res->nice = i == 0 || r->nice > res->nice ? r->nice : res->nice;
	}
	qsort(res->recs, res->n, sizeof *res->recs, cmp_start);
	for (size_t i = 0; i < res->n; i++)
		res->recs[i].id = i + 1;
	return 0;
}

int pq_load_run(const pq_load_config *cfg, pq_load_result *res, pq_diag *d)
{
	memset(res, 0, sizeof *res);
	int rc = check_config(cfg, d), n = cfg->threads > 1 ? cfg->threads : 1;
	if (rc < 0)
		return rc;
	sync_t sy = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER,
		     .sink_mu = PTHREAD_MUTEX_INITIALIZER, .expected = n};
	worker_arg *w = calloc((size_t)n, sizeof *w);
	if (!w)
		return pq_diag_set(d, PQ_ENOMEM, "out of memory");
	int started = 1; /* thread 0 is this one */
	for (int i = 0; i < n; i++) {
		w[i].cfg = *cfg;
		w[i].cfg.threads = n;
		w[i].cfg.connections = share(cfg->connections, n, i);
		w[i].cfg.concurrency = (int)share(cfg->concurrency, n, i);
		w[i].cfg.max_inflight = (int)share(cfg->max_inflight, n, i);
		w[i].cfg.warmup = share(cfg->warmup, n, i);
		w[i].cfg.rate = cfg->rate / n;
		w[i].cfg.seed = cfg->seed + 7919u * (uint64_t)i;
		w[i].sync = &sy;
		w[i].index = i;
	}
	for (; started < n; started++)
		if (pthread_create(&w[started].th, NULL, worker_main, &w[started]) != 0)
			break;
	if (started < n) {
		expect_fewer(&sy, n - started);
		w[started].rc = pq_diag_set(&w[started].diag, PQ_ENOMEM,
					    "%s: cannot start thread %d of %d",
					    pq_name_of(cfg->names, "threads"), started + 1, n);
	}
	w[0].rc = run_one(&w[0].cfg, &sy, 0, &w[0].res, &w[0].diag);
	for (int i = 1; i < started; i++)
		pthread_join(w[i].th, NULL);
	for (int i = 0; i < n && rc == 0; i++)
		if (w[i].rc < 0)
			rc = pq_diag_set(d, w[i].rc, "%s", pq_diag_msg(&w[i].diag));
	if (rc == 0 && n == 1) {
		*res = w[0].res;
		w[0].res.recs = NULL;
	} else if (rc == 0 && (rc = merge(w, n, res)) < 0) {
		pq_diag_set(d, rc, "out of memory merging connection records");
	}
	for (int i = 0; i < n; i++)
		pq_load_result_dispose(&w[i].res);
	pthread_mutex_destroy(&sy.mu);
	pthread_cond_destroy(&sy.cv);
	pthread_mutex_destroy(&sy.sink_mu);
	free(w);
	return rc;
}

void pq_load_result_dispose(pq_load_result *res)
{
	free(res->recs);
	memset(res, 0, sizeof *res);
}
