/* The one builder of the endpoints' configurations (exp/cellcfg.h). */
#include "exp/cellcfg.h"

#include <string.h>

#include "load/chromium.h"
#include "tls/ctx.h"

long long pq_exp_cfg_warmup(const pq_exp_point *p)
{
	if (p->warmup > 0 || p->resume <= 0)
		return p->warmup;
	return p->concurrency;
}

static void server_part(const pq_exp_point *p, int64_t timeout_ns, pq_server_config *s)
{
	*s = (pq_server_config){
		.threads = 1,
		.max_conns = PQ_SERVER_MAX_CONNS,
		.handshake_timeout_ns = timeout_ns,
		.idle_timeout_ns = timeout_ns,
		.flight_one_write = p->flight_one_write,
		/* a resuming browser's second navigation must connect anew */
		.close_each = p->browser && p->browser_state == PQ_BROWSER_RESUMED,
		.quic_retry = p->quic_retry,
		.tls = {.role = PQ_TLS_SERVER,
			.quic = p->quic,
			.groups = pq_exp_point_server_groups(p),
			.cert_comp = p->cert_comp,
			.tickets = p->tickets,
			.max_early_data = p->early_data ? PQ_EXP_CFG_EARLY_DATA_BYTES : 0},
	};
}

static void client_part(const pq_exp_point *p, int64_t timeout_ns, const char *offer, pq_load_config *l)
{
	*l = (pq_load_config){
		.tls = {.role = PQ_TLS_CLIENT,
			.quic = p->quic,
			.groups = offer,
			.cert_comp = p->cert_comp,
			.ocsp = p->ocsp,
			.max_cert_list = PQ_TLS_MAX_CERT_LIST},
		.connections = p->connections,
		.threads = 1,
		.concurrency = p->concurrency,
		.rate = p->open_rate,
		.poisson = !p->constant_arrivals, /* an open loop's arrivals (they matter only with a rate) */
		.max_inflight = PQ_LOAD_MAX_INFLIGHT,
		.requests_per_conn = p->path[0] ? 1 : 0,
		.path = p->path[0] ? p->path : "/",
		.resume = p->resume,
		.warmup = pq_exp_cfg_warmup(p),
		.timeout_ns = timeout_ns,
		.early_data = p->early_data,
	};
}

int pq_exp_cfg_build(const pq_exp_point *p, const pq_link_config *lc, pq_exp_cfg *c, pq_diag *d)
{
	static const pq_link_config no_link; /* RTT 0, no loss */
	if (!lc)
		lc = &no_link;
	memset(c, 0, sizeof *c);
	int rc = pq_exp_point_offer(p, c->offer, sizeof c->offer, d);
	if (rc < 0)
		return rc;
	server_part(p, pq_exp_point_server_timeout(p, lc), &c->server);
	client_part(p, pq_exp_point_client_timeout(p, lc), c->offer, &c->load);
	c->browser = p->browser;
	c->browser_state = p->browser_state;
	return 0;
}
