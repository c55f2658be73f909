/* One thread's share of a load (load/run_int.h): its TLS context, connection slots,
 * request and connection parameters, the warm-up, the start of measurement with the other
 * threads, the measured phase timed in wall and CPU time, and what it held given back. */
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
#include "load/run_int.h"

/* One thread's share of the run. Every path passes pq_load_run_start_together exactly once, so no
 * thread waits for one that gave up. */
int pq_load_run_thread(const pq_load_config *cfg, pq_load_sync *sy, int index, pq_load_result *res,
		   pq_diag *d)
{
	pq_load_runner r = {.cfg = cfg, .sync = sy, .index = index, .res = res, .epfd = -1, .diag = d};
	int rc = 0, measure = 1;
	memset(res, 0, sizeof *res);
	pq_tls_config tls = cfg->tls;
	tls.role = PQ_TLS_CLIENT;
	if ((rc = pq_tls_ctx_new(&tls, &r.ctx, d)) < 0) {
		pq_load_run_start_together(sy);
		return rc;
	}
	/* Thread 0 is the caller's: its nice is given back at the end. */
	int old_nice = pq_sched_set_nice(PQ_SCHED_NICE_KEEP);
	res->nice = pq_sched_set_nice(cfg->set_nice ? cfg->nice : PQ_SCHED_NICE_KEEP);
	pq_sched_meter_open(&r.meter);
	SSL_CTX_set_app_data(r.ctx, &r);
	SSL_CTX_sess_set_new_cb(r.ctx, pq_load_run_new_session);
	pq_rng_seed(&r.rng, cfg->seed);

	r.nslots = cfg->rate > 0 ? cfg->max_inflight : cfg->concurrency;
	r.slots = calloc((size_t)r.nslots, sizeof *r.slots);
	r.free_slots = calloc((size_t)r.nslots, sizeof *r.free_slots);
	r.active = calloc((size_t)r.nslots, sizeof *r.active);
	r.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (!r.slots || !r.free_slots || !r.active || r.epfd < 0) {
		rc = pq_diag_set(d, PQ_ENOMEM, "cannot allocate %d connection slots", r.nslots);
		pq_load_run_start_together(sy);
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
		pq_load_phase w = {.count = cfg->warmup,
			   .concurrency = wc < cfg->warmup ? wc : (int)cfg->warmup};
		r.params.run_start_ns = pq_mono_ns();
		rc = pq_load_run_phase(&r, &w);
		measure = rc == 0 && !res->stopped_early && !res->interrupted && !res->server_gone;
	}

	r.recording = 1;
	int64_t start = pq_load_run_start_together(sy);
	if (!measure)
		goto out;
	r.params.run_start_ns = start;
	pq_load_phase m = {.count = cfg->connections,
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
	rc = pq_load_run_phase(&r, &m);
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
