/* pqtls link check / profiles / probe-server / probe-client. */
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "cli/link_cli.h"
#include "core/clock.h"
#include "core/units.h"
#include "net/check.h"
#include "net/probe.h"
#include "net/profile.h"

/* -------- profiles -------- */

static int link_profiles_run(const pq_cmd *cmd, void *optsp, pq_cli_args *a)
{
	(void)cmd;
	(void)a;
	struct link_opts *o = optsp;
	char r[32], j[32], rate[32];
	if (o->json) {
		cJSON *arr = cJSON_CreateArray();
		for (const pq_profile *p = pq_profiles; p->name; p++) {
			cJSON *x = cJSON_CreateObject();
			cJSON_AddStringToObject(x, "name", p->name);
			cJSON_AddNumberToObject(x, "rtt_ms", (double)p->rtt_ns / 1e6);
			cJSON_AddNumberToObject(x, "jitter_ms", (double)p->jitter_ns / 1e6);
			cJSON_AddNumberToObject(x, "loss", p->loss);
			cJSON_AddNumberToObject(x, "rate_bps", (double)p->rate_bps);
			cJSON_AddNumberToObject(x, "queue_packets", p->rate_bps ? p->queue_pkts : 0);
			cJSON_AddBoolToObject(x, "reorder", p->reorder);
			cJSON_AddNumberToObject(x, "serve_handshake_timeout_ms",
						(double)(p->serve_handshake_timeout_ns / PQ_NS_PER_MS));
			cJSON_AddStringToObject(x, "source", p->source);
			cJSON_AddItemToArray(arr, x);
		}
		char *s = cJSON_PrintUnformatted(arr);
		if (s)
			printf("%s\n", s);
		free(s);
		cJSON_Delete(arr);
		return s ? PQ_EXIT_OK : PQ_EXIT_FAIL;
	}
	printf("%-14s %9s %9s %7s %6s %12s %6s  %s\n", "profile", "rtt", "jitter", "order", "loss", "rate",
	       "queue", "source");
	int notes = 0;
	for (const pq_profile *p = pq_profiles; p->name; p++) {
		char loss[16], q[16];
		snprintf(loss, sizeof loss, "%g%%", p->loss * 100);
		snprintf(q, sizeof q, p->rate_bps ? "%up" : "-", p->queue_pkts);
		printf("%-14s %9s %9s %7s %6s %12s %6s  %s\n", p->name, pq_fmt_duration(r, sizeof r, p->rtt_ns),
		       p->jitter_ns ? pq_fmt_duration(j, sizeof j, p->jitter_ns) : "-",
		       p->reorder ? "reorder" : "kept", loss,
		       p->rate_bps ? pq_fmt_rate(rate, sizeof rate, p->rate_bps) : "unlimited", q, p->source);
		notes |= p->reorder;
	}
	if (notes)
		printf("\nreorder: packets may overtake each other under jitter, as netem did in the study\n"
		       "the profile reproduces (each packet's delay drawn on its own); --keep-order keeps packets in order.\n");
	for (const pq_profile *p = pq_profiles; p->name; p++)
		if (p->serve_handshake_timeout_ns)
			printf("%s: its loss can stretch a handshake past serve's default 10 s handshake "
			       "timeout; give serve --handshake-timeout %llds.\n",
			       p->name, (long long)(p->serve_handshake_timeout_ns / PQ_NS_PER_S));
	return PQ_EXIT_OK;
}

static const pq_opt json_opts[] = {
	{"json", 0, PQ_OPT_FLAG, O(json), NULL, NULL, "print JSON", NULL, 0, 0},
	END_OPTS,
};

const pq_cmd pq_linkcli_profiles = {
	.name = "profiles",
	.summary = "list the named link profiles with their values",
	.usage = "[--json]",
	.opts = json_opts,
	.opts_size = sizeof(struct link_opts),
	.run = link_profiles_run,
	.max_args = 0,
};

/* -------- check -------- */

static int link_check_run(const pq_cmd *cmd, void *optsp, pq_cli_args *a)
{
	const char *path = "pqtls link check";
	struct link_opts *o = optsp;
	pq_link_config cfg;
	pq_link_opts lo;
	int rc = pq_linkcli_setup(cmd, path, o, a, NULL, &cfg, &lo);
	if (rc)
		return rc;
	pq_diag d;
	pq_link *l = NULL;
	pq_cli_catch_signals();
	if (pq_link_up(&cfg, &lo, &l, &d))
		return pq_cli_fail(path, "%s", pq_diag_msg(&d));
	if (!o->json)
		pq_linkcli_announce(l);
	pq_check_opts co;
	pq_check_opts_init(&co);
	co.rtt_samples = (int)o->samples;
	pq_check_result r;
	rc = pq_check_run(l, &co, &r, &d);
	if (rc) {
		rc = pq_cli_fail(path, "%s", pq_diag_msg(&d));
	} else if (o->json) {
		char *s = pq_check_json(&r);
		printf("%s\n", s ? s : "{}");
		free(s);
		rc = r.ok ? PQ_EXIT_OK : PQ_EXIT_FAIL;
	} else {
		char line[1024];
		pq_check_format(&r, line, sizeof line);
		printf("%s\n", line);
		rc = r.ok ? PQ_EXIT_OK : PQ_EXIT_FAIL;
	}
	if (!o->json)
		pq_linkcli_report_stats(l);
	(void)pq_link_down(l, &d);
	return rc;
}

static const pq_opt check_opts[] = {
	LINK_OPTS,
	{"samples", 'n', PQ_OPT_INT, O(samples), "N", "200", "round trips to time", NULL, 10, 100000},
	{"json", 0, PQ_OPT_FLAG, O(json), NULL, NULL, "print JSON", NULL, 0, 0},
	END_OPTS,
};

const pq_cmd pq_linkcli_check = {
	.name = "check",
	.summary = "build a link, judge what it controls against the configuration, and report the host's noise",
	.usage = "[link options] [--samples N] [--json]",
	.description = "Judged: the forwarder's own release lateness (p99 <= 1 ms) and drops (none unplanned,\n"
		       "configured loss inside its 99 % interval), each limited direction's rate (3 %) and the\n"
		       "UDP echo's median RTT (250 us). Reported, not judged: the echo's tail, the host's steal\n"
		       "and run queue (how long the probe waited for a CPU). Exit status 0 when everything\n"
		       "judged is within budget, 1 when not.\n\n"
		LINK_ENV_HELP,
	.opts = check_opts,
	.opts_size = sizeof(struct link_opts),
	.run = link_check_run,
	.max_args = 0,
};

/* -------- probes (for tests and benches) -------- */

static int link_probe_server_run(const pq_cmd *cmd, void *optsp, pq_cli_args *a)
{
	(void)cmd;
	(void)a;
	struct link_opts *o = optsp;
	pq_diag d;
	if (pq_probe_serve((unsigned)o->port, (uint64_t)o->bytes, &d))
		return pq_cli_fail("pqtls link probe-server", "%s", pq_diag_msg(&d));
	return PQ_EXIT_OK;
}

static const pq_opt probe_server_opts[] = {
	{"port", 0, PQ_OPT_INT, O(port), "PORT", "5201", "TCP port to listen on", NULL, 1, 65535},
	{"bytes", 0, PQ_OPT_INT, O(bytes), "N", "0", "bytes to write on each accepted connection (0: read the "
	 "count as 20 ASCII digits from the client first)", NULL, 0, 1e12},
	END_OPTS,
};

const pq_cmd pq_linkcli_probe_server = {
	.name = "probe-server",
	.summary = "(testing) plain TCP sender: writes N bytes to each connection, TCP_NODELAY",
	.usage = "[--port PORT] [--bytes N]",
	.opts = probe_server_opts,
	.opts_size = sizeof(struct link_opts),
	.run = link_probe_server_run,
	.max_args = 0,
};

static int link_probe_client_run(const pq_cmd *cmd, void *optsp, pq_cli_args *a)
{
	(void)cmd;
	struct link_opts *o = optsp;
	pq_diag d;
	if (pq_probe_fetch_report(a->argv[0], (unsigned)o->port, (uint64_t)o->bytes, (int)o->samples,
				  &pq_clock_mono, stdout, &d))
		return pq_cli_fail("pqtls link probe-client", "%s", pq_diag_msg(&d));
	return PQ_EXIT_OK;
}

static const pq_opt probe_client_opts[] = {
	{"port", 0, PQ_OPT_INT, O(port), "PORT", "5201", "server TCP port", NULL, 1, 65535},
	{"bytes", 0, PQ_OPT_INT, O(bytes), "N", "14480", "bytes to fetch per connection", NULL, 1, 1e12},
	{"samples", 'n', PQ_OPT_INT, O(samples), "N", "1", "connections, one after another", NULL, 1, 100000},
	END_OPTS,
};

const pq_cmd pq_linkcli_probe_client = {
	.name = "probe-client",
	.summary = "(testing) plain TCP receiver: connect, ask for N bytes, print ms from connect to last byte",
	.usage = "[--port PORT] [--bytes N] [-n N] ADDRESS",
	.opts = probe_client_opts,
	.opts_size = sizeof(struct link_opts),
	.run = link_probe_client_run,
	.min_args = 1,
	.max_args = 1,
};
