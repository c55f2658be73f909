/* pqtls link: two network namespaces joined by an emulated WAN path (src/net/link.h).
 * This file holds the command table and what its subcommands share: options to
 * configuration, the announcement and stats lines. The subcommands live in
 * link_run.c (run, up, down, exec) and link_tools.c (check, profiles, probes). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/link_cli.h"
#include "cli/names.h"
#include "core/clock.h"
#include "core/units.h"
#include "net/fwd.h"
#include "net/check.h"
#include "net/profile.h"

static int given(const pq_cmd *cmd, const pq_cli_args *a, const char *name)
{
	return pq_cli_given(cmd, a, name);
}

/* Profile first, then every option that was given. */
static int build_config(const pq_cmd *cmd, const struct link_opts *o, const pq_cli_args *a, pq_link_config *c,
			pq_diag *d)
{
	int rc;
	pq_link_config_init(c);
	if (o->profile && (rc = pq_profile_apply(o->profile, "--profile", c, d)))
		return rc;
	c->names = pq_cli_link_names;
	if (given(cmd, a, "rtt"))
		pq_link_config_set_rtt(c, o->rtt);
	for (int i = 0; i < 2; i++) {
		pq_dir_cfg *dc = &c->dir[i];
		if (given(cmd, a, "delay"))
			dc->delay_ns = o->delay;
		if (given(cmd, a, "jitter"))
			dc->jitter_ns = o->jitter;
		if (given(cmd, a, "jitter-dist"))
			dc->jitter_dist = (enum pq_dist)o->jitter_dist;
		if (given(cmd, a, "reorder"))
			dc->reorder = 1;
		if (given(cmd, a, "keep-order"))
			dc->reorder = 0;
		if (given(cmd, a, "loss")) {
			dc->loss.p = o->loss;
			dc->loss.ge_p = 0;
		}
		if (given(cmd, a, "burst-loss") &&
		    (rc = pq_linkcfg_parse_burst(o->burst_loss, "--burst-loss", &dc->loss, d)))
			return rc;
		if (given(cmd, a, "rate"))
			dc->rate_bps = o->rate;
		if (given(cmd, a, "queue") && (rc = pq_linkcfg_parse_queue(o->queue, "--queue", dc, d)))
			return rc;
	}
	if (given(cmd, a, "delay-up"))
		c->dir[PQ_DIR_C2S].delay_ns = o->delay_up;
	if (given(cmd, a, "delay-down"))
		c->dir[PQ_DIR_S2C].delay_ns = o->delay_down;
	if (given(cmd, a, "loss-up"))
		c->dir[PQ_DIR_C2S].loss.p = o->loss_up;
	if (given(cmd, a, "loss-down"))
		c->dir[PQ_DIR_S2C].loss.p = o->loss_down;
	if (given(cmd, a, "rate-up"))
		c->dir[PQ_DIR_C2S].rate_bps = o->rate_up;
	if (given(cmd, a, "rate-down"))
		c->dir[PQ_DIR_S2C].rate_bps = o->rate_down;
	/* Each range names only its own option (the message once named all three). */
	if (o->mtu < 0 || o->mtu > 65535)
		return pq_diag_set(d, PQ_ERANGE, "--mtu: %lld is out of range (accepted: %u to %u)", o->mtu,
				   PQ_LINK_MIN_MTU, PQ_LINK_MAX_MTU);
	if (o->initcwnd < 0 || o->initcwnd > 1000)
		return pq_diag_set(d, PQ_ERANGE, "--initcwnd: %lld is out of range (accepted: 1 to 1000 segments)",
				   o->initcwnd);
	if (o->initrwnd < 0 || o->initrwnd > 1000)
		return pq_diag_set(d, PQ_ERANGE, "--initrwnd: %lld is out of range (accepted: 1 to 1000 segments)",
				   o->initrwnd);
	c->mtu = (uint32_t)o->mtu;
	if (given(cmd, a, "initcwnd"))
		c->initcwnd = (uint32_t)o->initcwnd;
	if (given(cmd, a, "initrwnd"))
		c->initrwnd = (uint32_t)o->initrwnd;
	if ((given(cmd, a, "initcwnd") && o->initcwnd == 0) || (given(cmd, a, "initrwnd") && o->initrwnd == 0))
		return pq_diag_set(d, PQ_ERANGE, "--initcwnd/--initrwnd: 0 segments is not a window (accepted: 1 to 1000)");
	c->cc = (enum pq_cc)o->cc;
	if (o->qdisc)
		snprintf(c->tcp.qdisc, sizeof c->tcp.qdisc, "%s", o->qdisc);
	if (given(cmd, a, "pacing-ss-ratio"))
		c->tcp.pacing_ss_ratio = (int)(o->pacing_ss < -1000000 ? -1000000 : o->pacing_ss > 1000000 ? 1000000 : o->pacing_ss);
	if (given(cmd, a, "pacing-ca-ratio"))
		c->tcp.pacing_ca_ratio = (int)(o->pacing_ca < -1000000 ? -1000000 : o->pacing_ca > 1000000 ? 1000000 : o->pacing_ca);
	c->tcp.quickack = o->quickack - 1;
	c->tcp.tso = o->tso - 1;
	c->tcp.gso = o->gso - 1;
	c->backend = (enum pq_backend)o->backend;
	c->seed = (uint64_t)o->seed;
	return pq_link_config_validate(c, d);
}

int pq_linkcli_config(const pq_cmd *cmd, const char *path, const struct link_opts *o, const pq_cli_args *a,
			   pq_link_config *c)
{
	pq_diag d;
	pq_diag_clear(&d);
	if (build_config(cmd, o, a, c, &d))
		return pq_cli_usage_error(path, "%s", pq_diag_msg(&d));
	return 0;
}

/* The forwarder's tuning from the environment (LINK_ENV_HELP), one row each: the accepted
 * range in the variable's own unit and how it lands in pq_link_opts. */
enum env_field { ENV_COMP, ENV_EARLY, ENV_NICE, ENV_RT_PRIO, ENV_BATCH };
static const struct link_env {
	const char *name;
	enum env_field field;
	long long min, max;
	const char *unit; /* "us": microseconds, stored as ns; "": as is */
} link_env[] = {
    {"PQTLS_LINK_COMP_US", ENV_COMP, 0, 10000, "us"},
    {"PQTLS_LINK_EARLY_US", ENV_EARLY, 0, 10000, "us"},
    {"PQTLS_LINK_NICE", ENV_NICE, -20, 19, ""},
    {"PQTLS_LINK_RT_PRIO", ENV_RT_PRIO, 0, PQ_FWD_RT_PRIO_MAX, ""},
    {"PQTLS_LINK_BATCH_US", ENV_BATCH, 0, PQ_FWD_BATCH_MAX_NS / PQ_NS_PER_US, "us"},
};

static void env_set(pq_link_opts *lo, enum env_field f, long long v)
{
	switch (f) {
	case ENV_COMP: lo->comp_ns = v * PQ_NS_PER_US; break;
	case ENV_EARLY: lo->early_ns = v * PQ_NS_PER_US; break;
	case ENV_NICE: lo->nice = (int)v; break;
	case ENV_RT_PRIO: lo->rt_prio = (int)v; break;
	case ENV_BATCH: lo->batch_ns = v * PQ_NS_PER_US; break;
	}
}

int pq_linkcli_opts(pq_link_opts *lo, const char *path, const char *pcap)
{
	pq_link_opts_init(lo);
	lo->pcap_path = pcap;
	lo->log = stderr;
	for (size_t i = 0; i < sizeof link_env / sizeof link_env[0]; i++) {
		const struct link_env *e = &link_env[i];
		const char *s = getenv(e->name);
		if (!s || !*s)
			continue;
		char *end;
		errno = 0;
		long long v = strtoll(s, &end, 10);
		if (errno || *end || v < e->min || v > e->max)
			return pq_cli_usage_error(path, "%s: '%s' is not accepted (accepted: a whole number from %lld to %lld%s%s; "
						  "unset it for the default)", e->name, s, e->min, e->max, *e->unit ? " " : "",
						  e->unit);
		env_set(lo, e->field, v);
	}
	return 0;
}

size_t pq_linkcli_env_text(char *buf, size_t n)
{
	size_t len = 0;
	if (n)
		buf[0] = '\0';
	for (size_t i = 0; i < sizeof link_env / sizeof link_env[0] && len < n; i++) {
		const char *s = getenv(link_env[i].name);
		if (s && *s)
			len += (size_t)snprintf(buf + len, n - len, "%s=%s ", link_env[i].name, s);
	}
	return len < n ? len : n;
}

int pq_linkcli_setup(const pq_cmd *cmd, const char *path, const struct link_opts *o, const pq_cli_args *a,
		     const char *pcap, pq_link_config *c, pq_link_opts *lo)
{
	int rc = pq_linkcli_config(cmd, path, o, a, c);
	return rc ? rc : pq_linkcli_opts(lo, path, pcap);
}

void pq_linkcli_announce(const pq_link *l)
{
	char desc[512];
	pq_link_config_describe(pq_link_cfg(l), desc, sizeof desc);
	fprintf(stderr, "pqtls link: %s <-> %s, backend %s: %s (client %s, server %s)\n",
		pq_link_ns_name(l, PQ_SIDE_CLIENT), pq_link_ns_name(l, PQ_SIDE_SERVER),
		pq_backend_name(pq_link_backend(l)), desc, PQ_LINK_CLIENT_ADDR, PQ_LINK_SERVER_ADDR);
	pq_ktcp_state_format(pq_link_ktcp(l), desc, sizeof desc);
	fprintf(stderr, "pqtls link: kernel TCP as read back: %s\n", desc);
}

int pq_linkcli_finish(pq_link *l, const char *path, int rc)
{
	pq_diag d;
	/* Said even after a failed command: a capture lost on a full disk is news of its own. */
	if (pq_link_stop(l, &d)) {
		int f = pq_cli_fail(path, "%s", pq_diag_msg(&d));
		rc = rc ? rc : f;
	}
	pq_linkcli_report_stats(l);
	if (pq_link_down(l, &d)) {
		int f = pq_cli_fail(path, "%s", pq_diag_msg(&d));
		rc = rc ? rc : f;
	}
	return rc;
}

void pq_linkcli_check_line(pq_link *l)
{
	pq_check_result cr;
	pq_diag d;
	char line[512];
	if (pq_check_run(l, NULL, &cr, &d) == 0)
		pq_check_format(&cr, line, sizeof line);
	else
		snprintf(line, sizeof line, "%s", pq_diag_msg(&d));
	fprintf(stderr, "pqtls link check: %s\n", line);
}

void pq_linkcli_report_stats(pq_link *l)
{
	pq_link_stats st;
	char line[512];
	if (pq_link_stats_get(l, &st))
		return;
	pq_link_stats_format(&st, line, sizeof line);
	fprintf(stderr, "pqtls %s\n", line);
	if (pq_link_stats_late_over(&st)) {
		char p99[32], budget[32];
		fprintf(stderr, "pqtls link: self-check: release lateness p99 %s is over the %s budget; times "
			"measured beside this traffic include up to that much of the forwarder's own delay "
			"(a loaded machine?)\n",
			pq_fmt_duration(p99, sizeof p99, (int64_t)st.late.p99),
			pq_fmt_duration(budget, sizeof budget, PQ_LINK_LATE_BUDGET_NS));
	}
	if (pq_link_stats_unplanned(&st))
		fprintf(stderr, "pqtls link: warning: %llu packets were dropped that the link configuration did "
			"not ask for; this run is not a valid measurement\n",
			(unsigned long long)pq_link_stats_unplanned(&st));
}

static const pq_cmd *const link_subs[] = {
	&pq_linkcli_run,	    &pq_linkcli_up,	   &pq_linkcli_down,	   &pq_linkcli_exec, &pq_linkcli_check,
	&pq_linkcli_profiles, &pq_linkcli_probe_server, &pq_linkcli_probe_client, NULL,
};

const pq_cmd pq_cmd_link = {
	.name = "link",
	.summary = "emulated WAN links between two network namespaces (run, up, down, exec, check, profiles)",
	.usage = "SUBCOMMAND [options]",
	.subs = link_subs,
};
