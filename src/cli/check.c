/* pqtls check: does a server complete post-quantum ClientHellos however TCP cuts them?
 * Runs the probes of src/check/ (each shape for the post-quantum group and for the
 * classical control), prints a table or JSON, exits 0 only when every probe passed. */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/out.h"
#include "check/probe.h"
#include "cli/commands.h"
#include "tls/ctx.h"

struct check_opts {
	const char *group, *control, *shapes, *servername, *ca, *hrr_share;
	int64_t timeout, delay;
	int json, no_sni;
};

#define O(f) offsetof(struct check_opts, f)
static const pq_opt check_table[] = {
	{"group", 'g', PQ_OPT_STR, O(group), "GROUP", "X25519MLKEM768",
	 "the post-quantum group under test (any TLS 1.3 group `pqtls version` lists)", NULL, 0, 0},
	{"control", 0, PQ_OPT_STR, O(control), "GROUP", "X25519",
	 "the classical control group, probed the same ways; 'none' skips it", NULL, 0, 0},
	{"shapes", 0, PQ_OPT_STR, O(shapes), "LIST", "all",
	 "probe shapes to run: all, or a comma list of whole, split, key-share, sni, bytes, delayed, hrr",
	 NULL, 0, 0},
	{"servername", 0, PQ_OPT_STR, O(servername), "NAME", NULL,
	 "SNI to send (default: HOST when it is a name, localhost when it is an address)", NULL, 0, 0},
	{"no-sni", 0, PQ_OPT_FLAG, O(no_sni), NULL, NULL,
	 "send no SNI (the sni shape is then skipped)", NULL, 0, 0},
	{"ca", 0, PQ_OPT_STR, O(ca), "FILE", NULL,
	 "also verify the server's certificate against these roots (PEM); default: not verified, "
	 "the ClientHello is what is checked",
	 NULL, 0, 0},
	{"hrr-share", 0, PQ_OPT_STR, O(hrr_share), "GROUP", "X448",
	 "the only share in the hrr probe's first ClientHello: a group the server will not take", NULL, 0, 0},
	{"delay", 0, PQ_OPT_DURATION, O(delay), NULL, "200ms",
	 "the delayed shape's pause between its two segments", NULL, 0, 0},
	{"timeout", 0, PQ_OPT_DURATION, O(timeout), NULL, "5s",
	 "give up on a probe (connect and handshake) after this long", NULL, 0, 0},
	{"json", 0, PQ_OPT_FLAG, O(json), NULL, NULL, "print one JSON object instead of the table", NULL, 0, 0},
	{NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};
#undef O

static const char *path_name = "pqtls check";

static const pq_name check_names[] = {
	{"groups", "--group"},
	{"ca_file", "--ca"},
	{NULL, NULL},
};

static int is_address(const char *host)
{
	unsigned char buf[sizeof(struct in6_addr)];
	return inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1;
}

/* Every probe: each shape for the group, then for the control. */
static size_t plan_probes(const struct check_opts *o, unsigned mask, pq_chk_probe *out)
{
	const char *groups[2] = {o->group, strcmp(o->control, "none") ? o->control : NULL};
	size_t n = 0;
	for (int g = 0; g < 2; g++)
		for (int s = 0; groups[g] && s < PQ_CHK_SHAPES; s++)
			if (mask & (1u << s))
				out[n++] = (pq_chk_probe){.shape = (pq_chk_shape)s, .group = groups[g]};
	return n;
}

static int check_args(const struct check_opts *o, pq_cli_args *args, pq_chk_config *cfg,
		      unsigned *mask)
{
	pq_diag d;
	if (pq_addr_parse(args->argv[0], "HOST:PORT", 0, &cfg->target, &d) < 0)
		return pq_cli_usage_error(path_name, "%s", pq_diag_msg(&d));
	if (pq_chk_shapes_parse(o->shapes, "--shapes", mask, &d) < 0)
		return pq_cli_usage_error(path_name, "%s", pq_diag_msg(&d));
	if (!o->group[0] || strchr(o->group, ':') || !o->control[0] || strchr(o->control, ':'))
		return pq_cli_usage_error(path_name, "--group and --control take one group each "
						     "(e.g. --group X25519MLKEM768 --control X25519)");
	if (!strcmp(o->hrr_share, o->group) || !strcmp(o->hrr_share, o->control))
		return pq_cli_usage_error(path_name, "--hrr-share %s is a group under test; give one the "
						     "server will not take (default X448)", o->hrr_share);
	if (o->servername && (o->no_sni || !o->servername[0]))
		return pq_cli_usage_error(path_name, "--servername needs a name, and excludes --no-sni");
	if (o->timeout <= 0)
		return pq_cli_usage_error(path_name, "--timeout: give a positive duration (e.g. 5s)");
	if (o->no_sni)
		*mask &= ~(1u << PQ_CHK_SNI);
	if (!*mask)
		return pq_cli_usage_error(path_name, "--shapes: nothing left to probe");
	cfg->servername = o->no_sni ? NULL
			  : o->servername ? o->servername
			  : is_address(cfg->target.host) ? "localhost" : cfg->target.host;
	cfg->timeout_ns = o->timeout;
	cfg->delay_ns = o->delay;
	cfg->hrr_share = o->hrr_share;
	cfg->clock = &pq_clock_mono;
	return 0;
}

/* The probe run first: the control's whole ClientHello when there is one (a general
 * problem is then not mistaken for a post-quantum one), else the group's. */
static size_t gate_index(const pq_chk_probe *p, size_t n)
{
	size_t gate = n;
	for (size_t i = 0; i < n; i++)
		if (p[i].shape == PQ_CHK_WHOLE)
			gate = i; /* the last whole one: the control's when there is a control */
	return gate < n ? gate : 0;
}

/* Runs the gate, then, when a server answered it, every other probe in table order. */
static int run_probes(const pq_chk_config *cfg, const pq_chk_probe *p, size_t n,
		      pq_chk_result *res, pq_chk_summary *sum, pq_diag *d)
{
	size_t gate = gate_index(p, n);
	int rc = pq_chk_probe_run(cfg, &p[gate], &res[gate], d);
	if (rc < 0)
		return rc;
	if (pq_chk_no_server(&res[gate])) {
		if (gate)
			res[0] = res[gate];
		sum->n = 1;
		sum->stopped = n > 1;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (i != gate && (rc = pq_chk_probe_run(cfg, &p[i], &res[i], d)) < 0)
			return rc;
	sum->n = n;
	return 0;
}

static int check_run(const pq_cmd *cmd, void *optsp, pq_cli_args *args)
{
	(void)cmd;
	struct check_opts *o = optsp;
	pq_chk_config cfg = {0};
	pq_chk_probe probes[2 * PQ_CHK_SHAPES];
	pq_chk_result *res = NULL;
	unsigned mask = 0;
	pq_diag d;
	int rc = check_args(o, args, &cfg, &mask);
	if (rc)
		return rc;
	pq_tls_config tls = {.role = PQ_TLS_CLIENT, .version = 13, .groups = o->group, .ca_file = o->ca,
			     .insecure = !o->ca, .names = check_names};
	if (pq_tls_ctx_new(&tls, &cfg.ctx, &d) < 0)
		return pq_cli_usage_error(path_name, "%s", pq_diag_msg(&d));
	size_t n = plan_probes(o, mask, probes);
	pq_chk_summary sum = {.target = args->argv[0], .servername = cfg.servername, .planned = n};
	res = calloc(n, sizeof *res);
	rc = PQ_EXIT_FAIL;
	if (!res) {
		pq_cli_fail(path_name, "out of memory");
		goto out;
	}
	sum.results = res;
	if (run_probes(&cfg, probes, n, res, &sum, &d) < 0) {
		rc = pq_cli_usage_error(path_name, "%s", pq_diag_msg(&d));
		goto out;
	}
	if (o->json ? pq_chk_json(stdout, &sum) < 0 : pq_chk_table(stdout, &sum) < 0) {
		pq_cli_fail(path_name, "out of memory for the JSON");
		goto out;
	}
	fflush(stdout);
	if (sum.n == 1 && pq_chk_no_server(&res[0]))
		pq_cli_fail(path_name, "%s: %s%s", args->argv[0], res[0].detail,
			    pq_chk_fail_unreachable(res[0].fail) ? "" : "; is it a TLS server?");
	else if (pq_chk_passed(&sum) == n)
		rc = PQ_EXIT_OK;
out:
	free(res);
	pq_tls_ctx_free(cfg.ctx);
	return rc;
}

const pq_cmd pq_cmd_check = {
	.name = "check",
	.summary = "does a server complete post-quantum ClientHellos however TCP cuts them?",
	.usage = "HOST:PORT [options]",
	.description =
		"A conformance check for operators rolling out ML-KEM. A post-quantum ClientHello\n"
		"(X25519MLKEM768: about 1.4 KB with its share alone, 1.5 KB beside an X25519 share as\n"
		"OpenSSL and browsers send it) fills or overflows a TCP segment at MTU 1500 and takes\n"
		"several below it, and servers, load balancers and middleboxes that expect the whole\n"
		"ClientHello in the first segment fail on it (`pqtls model --client-hellos`). Each\n"
		"probe is a real TLS 1.3 handshake whose first ClientHello is cut into segments on\n"
		"purpose (TCP_NODELAY, one write per segment, each write sent before the next), then\n"
		"completed normally:\n"
		"  whole      the ClientHello in one write\n"
		"  split      two segments, cut at the middle\n"
		"  key-share  two segments, cut inside the key share\n"
		"  sni        two segments, cut inside the SNI host name\n"
		"  bytes      one byte per segment\n"
		"  delayed    two segments, the second after --delay (200 ms)\n"
		"  hrr        the first ClientHello offers the group but shares only --hrr-share\n"
		"             (X448), so the server must send a HelloRetryRequest\n"
		"Every shape runs for --group and for the classical --control, whose results tell a\n"
		"post-quantum problem from a general one. A probe passes when the handshake completes\n"
		"with the group under test (and, for hrr, after a HelloRetryRequest). The table gives\n"
		"the group negotiated, HRR, the ClientHello's bytes (the second's after an HRR), the\n"
		"writes made and the TCP segments the kernel sent for it, and the handshake time\n"
		"(first ClientHello byte to done; the delayed shape includes its pause).\n"
		"The control's whole ClientHello goes first: when it cannot connect, or gets no answer\n"
		"within --timeout, nothing else is tried. Exit 0 when every probe passed, 1 when one\n"
		"failed or the server was not reached, 2 on a usage error (a host that does not\n"
		"resolve included).\n\n"
		"Examples:\n"
		"  pqtls check example.com:443\n"
		"  pqtls check 127.0.0.1:8443 --servername localhost --ca out/mldsa65/root.pem\n"
		"  pqtls check lb.internal:443 --shapes whole,split,bytes --json\n"
		"  pqtls check 10.0.0.5:443 --group SecP256r1MLKEM768 --control none",
	.opts = check_table,
	.opts_size = sizeof(struct check_opts),
	.run = check_run,
	.min_args = 1,
	.max_args = 1,
};
