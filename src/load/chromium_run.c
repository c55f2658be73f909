/* A load as Chromium navigations, one browser per connection (load/chromium.h: pq_chromium_run). */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/wire.h"
#include "core/sched.h"
#include "load/chromium.h"
#include "load/run.h"

int pq_chromium_check(const pq_load_config *c, pq_diag *d)
{
	const char *why = c->tls.quic ? "QUIC (the browser speaks HTTP/3, not the hq-interop QUIC pqtls serves)"
			  : c->early_data ? "early data"
			  : c->resume > 0 ? "resumption"
			  : c->concurrency > 1 ? "concurrency over 1"
			  : c->rate > 0 ? "an open-loop rate"
			  : c->warmup > 0 ? "warm-up connections"
			  : c->connections < 1 ? "a run by duration (give a number of connections)"
					    : NULL;
	if (!why)
		return 0;
	return pq_diag_set(d, PQ_EUNSUPPORTED,
			   "client = chromium: %s is not measured with the browser (one browser per connection, "
			   "over TCP; use client = pqtls)",
			   why);
}

unsigned pq_chromium_route_mss(const struct sockaddr *sa, unsigned len)
{
	int v6 = sa->sa_family == AF_INET6, mtu = 0;
	socklen_t n = sizeof mtu;
	int fd = sa->sa_family == AF_INET || v6 ? socket(sa->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0) : -1;
	if (fd < 0)
		return 0;
	if (connect(fd, sa, len) < 0 || getsockopt(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_MTU : IP_MTU, &mtu, &n) < 0)
		mtu = 0;
	close(fd);
	/* IPv6's header is 20 bytes longer than the IPv4 one pq_wire_mss takes off */
	return (unsigned)pq_wire_mss(v6 ? mtu - 20 : mtu);
}

int pq_chromium_run(const pq_load_config *cfg, const char *exe, unsigned mss, int state, pq_load_result *res,
		    pq_diag *d)
{
	char addr[300], url[400];
	memset(res, 0, sizeof *res);
	int rc = pq_chromium_check(cfg, d);
	if (rc < 0)
		return rc;
	const char *host = cfg->servername && cfg->servername[0] ? cfg->servername : NULL;
	pq_addr_format((const struct sockaddr *)&cfg->target.sa, addr, sizeof addr);
	snprintf(url, sizeof url, "https://%s:%u%s", host ? host : cfg->target.host, cfg->target.port,
		 cfg->path && cfg->path[0] ? cfg->path : "/");
	/* the phase timeout over each navigation's phases: connect, handshake, request, body,
	 * and the browser's start (seconds on a loaded host); a warm or resumed browser
	 * navigates twice */
	int navs = state == PQ_BROWSER_COLD ? 1 : 2;
	if (!mss)
		mss = pq_chromium_route_mss((const struct sockaddr *)&cfg->target.sa, cfg->target.len);
	pq_chromium_nav nav = {.exe = exe, .url = url, .addr = addr, .host = host, .mss = mss, .state = state,
			       .timeout_ns = navs * 4 * cfg->timeout_ns + 10 * (int64_t)1000000000};
	res->recs = calloc((size_t)cfg->connections, sizeof *res->recs);
	if (!res->recs)
		return pq_diag_set(d, PQ_ENOMEM, "out of memory");
	res->cap = (size_t)cfg->connections;
	int64_t t0 = pq_clock_now(&pq_clock_mono);
	for (long long i = 0; i < cfg->connections && rc == 0; i++) {
		if (cfg->stop && *cfg->stop)
			break;
		pq_load_record *r = &res->recs[res->n];
		int64_t s = pq_clock_now(&pq_clock_mono) - t0;
		if ((rc = pq_chromium_navigate(&nav, r, d)) < 0)
			break;
		r->id = (uint64_t)i + 1;
		r->intended_ns = r->start_ns = s;
		res->n++;
		if (cfg->sink && (rc = cfg->sink(cfg->sink_arg, r, d)) < 0)
			break;
		if (cfg->progress) {
			pq_load_progress p = {.elapsed_ns = pq_clock_now(&pq_clock_mono) - t0, .done = res->n};
			for (size_t k = 0; k < res->n; k++)
				p.errors += res->recs[k].err != PQ_LERR_NONE;
			cfg->progress(cfg->progress_arg, &p);
		}
	}
	res->wall_ns = pq_clock_now(&pq_clock_mono) - t0;
	res->measured = res->n;
	res->nice = PQ_SCHED_NICE_KEEP;
	res->interrupted = cfg->stop && *cfg->stop;
	return rc;
}
