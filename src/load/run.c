/* A load against one server (load/run.h): the configuration checked, the load shared
 * among the threads, their start of measurement together, and their records merged in
 * start order; one thread's share is run_thread.c's, its event loop run_loop.c's. */
#include "load/run.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "load/run_int.h"

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

/* Lets every thread measure once all it expects have arrived (sy->mu held). */
static void release_if_all_in(pq_load_sync *sy)
{
	if (!sy->released && sy->arrived >= sy->expected) {
		sy->start_ns = pq_mono_ns();
		sy->released = 1;
		pthread_cond_broadcast(&sy->cv);
	}
}

/* Waits for every thread to end its warm-up; returns the common start of measurement. */
int64_t pq_load_run_start_together(pq_load_sync *sy)
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
static void expect_fewer(pq_load_sync *sy, int by)
{
	pthread_mutex_lock(&sy->mu);
	sy->expected -= by;
	release_if_all_in(sy);
	pthread_mutex_unlock(&sy->mu);
}

typedef struct worker_arg {
	pq_load_config cfg;
	pq_load_sync *sync;
	int index;
	pq_load_result res;
	pq_diag diag;
	int rc;
	pthread_t th;
} worker_arg;

static void *worker_main(void *p)
{
	worker_arg *w = p;
	w->rc = pq_load_run_thread(&w->cfg, w->sync, w->index, &w->res, &w->diag);
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
	pq_load_sync sy = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER,
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
	w[0].rc = pq_load_run_thread(&w[0].cfg, &sy, 0, &w[0].res, &w[0].diag);
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
