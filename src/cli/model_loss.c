/* pqtls model --loss (cli/model_loss.h). */
#include "cli/model_loss.h"

#include <stdio.h>

#include "cli/commands.h"
#include "core/units.h"
#include "model/loss.h"
#include "net/stage.h"

static const char *const q_names[3] = {"p25", "median", "p95"};

static cJSON *dist_json(const double *ms, const double *rtt)
{
	cJSON *j = cJSON_CreateObject();
	for (int k = 0; k < 3; k++) {
		char key[32];
		snprintf(key, sizeof key, "%s_ms", q_names[k]);
		cJSON_AddNumberToObject(j, key, ms[k]);
		snprintf(key, sizeof key, "%s_rtts", q_names[k]);
		cJSON_AddNumberToObject(j, key, rtt[k]);
	}
	return j;
}

static void print_dist(const char *name, const double *ms, const double *rtt)
{
	printf("  %-11s", name);
	for (int k = 0; k < 3; k++)
		printf("  %s %.2f RTT (%.0f ms)", q_names[k], rtt[k], ms[k]);
	printf("\n");
}

int pq_model_loss_cli(const char *path, const pq_model_loss_opts *o, const pq_model_in *net, cJSON *root)
{
	pq_diag d = {0};
	if (pq_model_loss_check(o->loss, o->burst, "--loss", "--burst", &d) < 0)
		return pq_cli_usage_error(path, "%s", pq_diag_msg(&d));
	pq_model_loss_in in = {.loss = o->loss, .burst = o->burst, .unit = o->unit,
			       .rtt_ns = o->rtt_ns > 0 ? o->rtt_ns : PQ_MODEL_LOSS_RTT_NS,
			       .trials = (unsigned)o->trials, .seed = (uint64_t)o->seed};
	pq_model_loss_from(net, &in);
	pq_model_loss_out out;
	double rate, rtts, base;
	char why[512], rtt[32];
	double conn_rtt[3];
	if (pq_model_loss_run(&in, &out, &d) < 0 || pq_model_loss_first_extra(&in, 0.005, &rate, &rtts, &base, &d) < 0)
		return pq_cli_fail(path, "%s", pq_diag_msg(&d));
	pq_model_loss_reason(&in, rate, why, sizeof why);
	for (int k = 0; k < 3; k++)
		conn_rtt[k] = out.conn_ms[k] / ((double)in.rtt_ns / 1e6);
	pq_fmt_duration(rtt, sizeof rtt, in.rtt_ns);
	const char *unit = o->unit == PQ_LOSS_UNIT_BURST ? "burst" : "segment";
	if (root) {
		cJSON *j = cJSON_AddObjectToObject(root, "loss");
		cJSON_AddNumberToObject(j, "loss_pct", o->loss * 100);
		cJSON_AddStringToObject(j, "model", o->burst >= 1 ? "gilbert" : "bernoulli");
		cJSON_AddNumberToObject(j, "burst_pkts", o->burst);
		cJSON_AddStringToObject(j, "unit", unit);
		cJSON_AddNumberToObject(j, "rtt_ms", (double)in.rtt_ns / 1e6);
		cJSON_AddNumberToObject(j, "trials", in.trials ? in.trials : PQ_MODEL_LOSS_TRIALS);
		cJSON_AddNumberToObject(j, "decisions", out.decisions);
		cJSON_AddNumberToObject(j, "clean_share", out.clean);
		cJSON_AddItemToObject(j, "connect", dist_json(out.conn_ms, conn_rtt));
		cJSON_AddItemToObject(j, "handshake", dist_json(out.hs_ms, out.hs_rtt));
		cJSON_AddNumberToObject(j, "p95_conns", out.p95_conns);
		cJSON_AddItemToObject(j, "ttfb", dist_json(out.ttfb_ms, out.ttfb_rtt));
		cJSON_AddNumberToObject(j, "first_extra_rtt_loss_pct", rate < 0 ? -1 : rate * 100);
		cJSON_AddStringToObject(j, "first_extra_rtt_why", why);
		return PQ_EXIT_OK;
	}
	char model[64] = "Bernoulli";
	if (o->burst >= 1)
		snprintf(model, sizeof model, "Gilbert-Elliott, mean burst %g", o->burst);
	printf("loss %.4g%% each way (%s), per %s, RTT %s%s; %u trials (seed %lld), %u loss decisions in a "
	       "loss-free handshake, none lost in %.0f%% of trials:\n",
	       o->loss * 100, model, unit, rtt, o->rtt_ns > 0 ? "" : " (no --rtt: the default)",
	       in.trials ? in.trials : PQ_MODEL_LOSS_TRIALS, o->seed, out.decisions, out.clean * 100);
	print_dist("connect", out.conn_ms, conn_rtt);
	print_dist("handshake", out.hs_ms, out.hs_rtt);
	print_dist("first byte", out.ttfb_ms, out.ttfb_rtt);
	if (out.p95_conns)
		printf("a measured handshake p95 has a 95%% interval narrower than a round trip from about %u "
		       "connections\n",
		       out.p95_conns);
	else
		printf("a measured handshake p95 needs more than %d connections for a 95%% interval narrower than a "
		       "round trip\n",
		       PQ_MODEL_LOSS_MAX_CONNS);
	if (rate < 0)
		printf("the median handshake stays within half a round trip of %.2f RTT up to %g%% loss\n", base,
		       PQ_MODEL_LOSS_MAX * 100);
	else
		printf("the median handshake pays its first extra round trip from %.1f%% loss (%.2f RTT against "
		       "%.2f): %s\n",
		       rate * 100, rtts, base, why);
	return PQ_EXIT_OK;
}
