/* pqtls model: the flight model (src/model/) for a chain directory or an algorithm and
 * size range: round trips per phase, why, where the cliffs fall, and QUIC's view. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/model_int.h"
#include "core/units.h"
#include "exp/spec.h"
#include "core/wire.h"
#include "model/base.h"
#include "pki/alg.h"
#include "net/ktcp.h"
#include "net/linkcfg.h"
#include "model/cliff.h"
#include "model/hello.h"
#include "model/quic.h"
#include "cli/model_loss.h"
#include "net/stage.h"

#define PATH "pqtls model"
#define MAX_CLIFFS 16
/* What a TCP segment can carry: Linux's floor (TCP_MIN_MSS) to an IPv4 packet's ceiling. */
#define MIN_MSS 88
#define MAX_MSS 65495

struct model_opts {
	const char *certs, *sig, *group, *range, *groups, *key_share, *server_groups;
	int cc, qdisc;
	long long intermediates, iw;
	uint64_t mss, response, step, rwnd, rate, rate_c2s;
	int64_t rtt;
	int one_write, early, json, client_hellos;
	double loss, burst;
	int loss_unit;
	long long trials, seed;
};

#define O(f) offsetof(struct model_opts, f)
#define MODEL_CC "cubic|bbr|reno"

/* The idx-th of a '|'-separated list of choices, into buf. */
static const char *choice_name(const char *list, int idx, char *buf, size_t n)
{
	const char *p = list;
	for (int i = 0; i < idx && p; i++)
		if ((p = strchr(p, '|')))
			p++;
	snprintf(buf, n, "%.*s", p ? (int)strcspn(p, "|") : 0, p ? p : "");
	return buf;
}
static const pq_opt model_opts_table[] = {
    {"certs", 'c', PQ_OPT_STR, O(certs), "DIR", NULL,
     "chain directory (pqtls certs --out DIR): sizes from it, writes from a handshake in memory",
     NULL, 0, 0},
    {"sig", 's', PQ_OPT_STR, O(sig), "ALG", "ml-dsa-65",
     "without --certs: the leaf's signature algorithm (pqtls certs --list)", NULL, 0, 0},
    {"intermediates", 'n', PQ_OPT_INT, O(intermediates), "N", "1",
     "without --certs: intermediates in the chain", NULL, 0, 8},
    {"group", 'g', PQ_OPT_STR, O(group), "GROUP", "X25519MLKEM768", "key-exchange group", NULL, 0,
     0},
    {"groups", 0, PQ_OPT_STR, O(groups), "LIST", NULL,
     "the client's offer, in order (e.g. X25519MLKEM768:X25519): the model then measures its "
     "ClientHello(s) in memory against --server-groups, and the group negotiated replaces --group",
     NULL, 0, 0},
    {"key-share", 0, PQ_OPT_STR, O(key_share), "LIST", NULL,
     "with --groups: the group(s) whose share the first ClientHello carries (default: the first offered)",
     NULL, 0, 0},
    {"server-groups", 0, PQ_OPT_STR, O(server_groups), "LIST", NULL,
     "with --groups: what the server accepts, OpenSSL's syntax (A/B prefers A even at the cost of a "
     "HelloRetryRequest; default: OpenSSL's)",
     NULL, 0, 0},
    {"rtt", 0, PQ_OPT_DURATION, O(rtt), "DURATION", "0",
     "round-trip time, to print times beside round trips (0: round trips only)", NULL, 0, 0},
    {"rate", 0, PQ_OPT_RATE, O(rate), "RATE", "0",
     "the link's rate, server to client (and back unless --rate-c2s): each packet's time on the wire "
     "(model/rate.h); needs --rtt; 0: no limit",
     NULL, 0, 0},
    {"rate-c2s", 0, PQ_OPT_RATE, O(rate_c2s), "RATE", NULL, "the link's rate client to server (default: as --rate; 0: no limit)", NULL, 0, 0},
    {"initcwnd", 0, PQ_OPT_INT, O(iw), "N", PQ_WIRE_IW_DEFAULT_STR, "initial congestion window, segments", NULL, 1,
     1000},
    {"rwnd", 0, PQ_OPT_SIZE, O(rwnd), "BYTES", "0",
     "the client's initial receive window (what a sweep reads back on its link: client_rwnd_bytes; Linux "
     "with tcp_rmem's default 131072: 64512); flat for its first rounds of data (model/tcp.h); 0: no limit",
     NULL, 0, 0},
    {"mss", 0, PQ_OPT_SIZE, O(mss), "BYTES", "1448",
     "TCP payload per segment, 88..65495 (1448 at MTU 1500 with timestamps)", NULL, 0, 0},
    {"response", 0, PQ_OPT_SIZE, O(response), "BYTES", "0",
     "response body, for the last byte (0: no last byte)", NULL, 0, 0},
    {"chain-bytes", 0, PQ_OPT_STR, O(range), "LO..HI", NULL,
     "chain sizes to model, e.g. 4KiB..80KiB: a row per --step and every cliff", NULL, 0, 0},
    {"step", 0, PQ_OPT_SIZE, O(step), "BYTES", "2KiB", "row spacing for --chain-bytes (at most 1000 rows)", NULL, 0,
     0},
    {"one-write", 0, PQ_OPT_FLAG, O(one_write), NULL, NULL,
     "model a server that sends its first flight in one write (pqtls serve --flight-one-write)",
     NULL, 0, 0},
    {"early-data", 0, PQ_OPT_FLAG, O(early), NULL, NULL, "the request rides in 0-RTT data", NULL,
     0, 0},
    {"client-hellos", 0, PQ_OPT_FLAG, O(client_hellos), NULL, NULL,
     "the client's flight instead: the ClientHello of each key-share choice, its segments at --mss, "
     "the MTU below which it splits, and the HelloRetryRequest a wrong guess draws",
     NULL, 0, 0},
    {"cc", 0, PQ_OPT_CHOICE, O(cc), NULL, "cubic",
     "the server's congestion control: bbr paces every segment after the 10th (model/pace.h)", MODEL_CC, 0, 0},
    {"qdisc", 0, PQ_OPT_CHOICE, O(qdisc), NULL, "pfifo_fast",
     "the server's root qdisc: fq paces cubic and reno at 200 % of cwnd/srtt in slow start", PQ_KTCP_QDISCS, 0, 0},
    {"loss", 0, PQ_OPT_FRACTION, O(loss), "FRACTION", NULL,
     "per-direction loss, 0% to 50%: the loss model's p25, median and p95 of the handshake and first byte "
     "(model/loss.h), and the loss from which the median pays an extra round trip",
     NULL, 0, 0},
    {"burst", 0, PQ_OPT_DOUBLE, O(burst), "PACKETS", NULL,
     "with --loss: Gilbert-Elliott loss of this mean burst (1 to 1000 decisions) instead of Bernoulli", NULL, 0, 0},
    {"loss-unit", 0, PQ_OPT_CHOICE, O(loss_unit), NULL, "segment",
     "with --loss: what one loss decision covers (the link's loss-unit)", PQ_LOSS_UNIT_CHOICES, 0, 0},
    {"trials", 0, PQ_OPT_INT, O(trials), "N", "20000", "with --loss: Monte Carlo trials", NULL, 100, 1000000},
    {"seed", 0, PQ_OPT_INT, O(seed), "N", "1", "with --loss: the trials' seed", NULL, 0, 1e15},
    {"json", 0, PQ_OPT_FLAG, O(json), NULL, NULL, "print JSON instead of text", NULL, 0, 0},
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};
#undef O

static int parse_range(const char *s, uint64_t *lo, uint64_t *hi, pq_diag *d)
{
	const char *dots = strstr(s, "..");
	char a[64];
	if (!dots || (size_t)(dots - s) >= sizeof a)
		return pq_diag_set(d, PQ_EINVAL, "--chain-bytes: '%s' is not a range LO..HI (e.g. 4KiB..80KiB)", s);
	memcpy(a, s, (size_t)(dots - s));
	a[dots - s] = '\0';
	int rc = pq_parse_size(a, "--chain-bytes (low end)", lo, d);
	if (!rc)
		rc = pq_parse_size(dots + 2, "--chain-bytes (high end)", hi, d);
	if (!rc && (*lo >= *hi || *hi > (16u << 20)))
		rc = pq_diag_set(d, PQ_ERANGE,
				 "--chain-bytes: '%s' must go up (LO < HI) and stay at most 16 MiB", s);
	return rc;
}

static int range_run(const struct model_opts *o, uint64_t lo, uint64_t hi, const pq_model_base *b,
		     const pq_model_in *net, cJSON *root)
{
	pq_diag d = {0};
	pq_model_cliff c[MAX_CLIFFS];
	size_t n = 0;
	if (lo < pq_model_min_chain(&b->acct_in))
		lo = pq_model_min_chain(&b->acct_in);
	if (pq_model_cliffs(&b->acct_in, lo, hi, net, c, MAX_CLIFFS, &n, &d) < 0)
		return pq_cli_fail(PATH, "%s", pq_diag_msg(&d));
	cJSON *rows = root ? cJSON_AddArrayToObject(root, "sizes") : NULL;
	if (!root)
		printf("%12s %8s %9s %8s %10s %6s\n", "chain bytes", "flight", "segments", "writes",
		       "handshake", "ttfb");
	for (uint64_t s = lo; s <= hi; s += o->step) {
		pq_acct a;
		pq_model_out m;
		if (pq_model_at_size(&b->acct_in, s, net, &a, &m, &d) < 0)
			return pq_cli_fail(PATH, "%s", pq_diag_msg(&d));
		if (rows) {
			cJSON *r = cJSON_CreateObject();
			cJSON_AddNumberToObject(r, "chain_bytes", (double)s);
			cJSON_AddNumberToObject(r, "flight_bytes", (double)a.flight);
			cJSON_AddNumberToObject(r, "segments", (double)m.flight_segments);
			cJSON_AddNumberToObject(r, "handshake_rtts", m.handshake);
			cJSON_AddNumberToObject(r, "ttfb_rtts", m.ttfb);
			cJSON_AddNumberToObject(r, "handshake_paced_rtts", m.handshake_t);
			cJSON_AddNumberToObject(r, "ttfb_paced_rtts", m.ttfb_t);
			cJSON_AddItemToArray(rows, r);
		} else {
			printf("%12llu %8zu %9zu %8zu %10u %6u", (unsigned long long)s, a.flight,
			       m.flight_segments, a.n_writes, m.handshake, m.ttfb);
			if (net->server_pace.kind != PQ_MODEL_PACE_OFF)
				printf("  paced %.2f / %.2f", m.handshake_t, m.ttfb_t);
			printf("\n");
		}
	}
	if (root) {
		cJSON *cl = cJSON_AddArrayToObject(root, "cliffs");
		for (size_t i = 0; i < n; i++) {
			cJSON *r = cJSON_CreateObject();
			cJSON_AddNumberToObject(r, "last_fit_chain_bytes", (double)c[i].last_fit);
			cJSON_AddNumberToObject(r, "first_over_chain_bytes", (double)c[i].first_over);
			cJSON_AddNumberToObject(r, "handshake_rtts_before", c[i].rtts_before);
			cJSON_AddNumberToObject(r, "handshake_rtts_after", c[i].rtts_after);
			cJSON_AddItemToArray(cl, r);
		}
	} else {
		pq_modelcli_print_cliffs(c, n, lo, hi);
	}
	return PQ_EXIT_OK;
}

/* The DER bytes of a chain of b's certificates, each of the leaf's algorithm (the root
 * signs the last), estimated from its key and its issuer's signature. */
static size_t natural_chain(const pq_model_base *b, const char *sig)
{
	const pq_alg *a = pq_alg_find(sig);
	size_t der[PQ_MODEL_BASE_CERTS], t = 0;
	size_t k = a ? pq_alg_chain_der_estimate(a, a, a, (int)b->n - 1, 0, der, PQ_MODEL_BASE_CERTS) : 0;
	for (size_t i = 0; i < k; i++)
		t += der[i];
	return t;
}

static void describe(const struct model_opts *o, const pq_model_base *b, size_t mss)
{
	char rtt[32] = "";
	if (o->rtt > 0)
		pq_fmt_duration(rtt, sizeof rtt, o->rtt);
	if (o->certs)
		printf("%s: %s chain of %zu DER bytes, %zu certificate%s", o->certs, b->leaf_alg,
		       b->chain_der, b->n, b->n > 1 ? "s" : "");
	else if (o->range)
		printf("%s leaf with %zu intermediate%s (the chain's size from --chain-bytes)",
		       b->leaf_alg, b->n - 1, b->n == 2 ? "" : "s");
	else
		printf("%s leaf with %zu intermediate%s: about %zu DER bytes, each certificate estimated from "
		       "its key and its issuer's signature (--certs DIR for a real chain's)",
		       b->leaf_alg, b->n - 1, b->n == 2 ? "" : "s", b->chain_der);
	printf("; %s, MSS %zu, initial window %lld%s%s%s\n", b->group, mss, o->iw,
	       rtt[0] ? ", RTT " : "", rtt, o->one_write ? "; the flight in one write" : "");
	if (o->groups)
		printf("the client offers %s with %s share%s; the server (%s) %s\n", o->groups,
		       o->key_share ? o->key_share : "the first one's",
		       o->key_share && strchr(o->key_share, ':') ? "s" : "",
		       o->server_groups ? o->server_groups : "OpenSSL's default groups",
		       b->hrr ? "asks again with a HelloRetryRequest" : "takes the share");
	if (b->measured && !o->one_write) {
		int same = b->n_writes == b->rule.n_writes;
		for (size_t i = 0; same && i < b->n_writes; i++)
			same = b->writes[i] == b->rule.writes[i];
		printf("OpenSSL's writes, from a handshake in memory: %s the rule's (pki/acct.h)\n",
		       same ? "the same as" : "they differ from");
	}
}

/* --client-hellos: one row per key-share choice. */
static int hellos_run(const struct model_opts *o, size_t mss)
{
	pq_model_hello_row rows[PQ_MODEL_HELLOS];
	pq_diag d = {0};
	if (pq_model_hellos(mss, rows, &d) < 0)
		return pq_cli_fail(PATH, "%s", pq_diag_msg(&d));
	if (!o->json) {
		pq_model_hellos_print(stdout, rows, mss);
		return PQ_EXIT_OK;
	}
	cJSON *arr = pq_model_hellos_json(rows);
	char *txt = arr ? cJSON_Print(arr) : NULL;
	cJSON_Delete(arr);
	if (!txt)
		return pq_cli_fail(PATH, "out of memory");
	printf("%s\n", txt);
	free(txt);
	return PQ_EXIT_OK;
}

/* The offer of --groups and --key-share against --server-groups, in memory. */
static int measure_offer(const struct model_opts *o, pq_tls_hello *h, pq_diag *d)
{
	char offer[256];
	int rc = pq_tls_groups_offer(o->groups, o->key_share, o->key_share ? "--key-share" : "--groups",
				     offer, sizeof offer, d);
	if (rc == 0)
		rc = pq_tls_hello_measure(offer, o->server_groups, h, d);
	return rc;
}

static int model_run(const pq_cmd *cmd, void *optsp, pq_cli_args *args)
{
	struct model_opts *o = optsp;
	pq_diag d = {0};
	pq_model_base *b = calloc(1, sizeof *b);
	size_t wbuf = o->one_write ? SIZE_MAX : 0, mss = o->mss ? (size_t)o->mss : PQ_WIRE_MSS_DEFAULT;
	int ex = PQ_EXIT_OK, rc;
	uint64_t lo = 0, hi = 0;
	if (!b)
		return pq_cli_fail(PATH, "out of memory");
	if (o->client_hellos) {
		ex = hellos_run(o, mss);
		goto out;
	}
	if (o->range && parse_range(o->range, &lo, &hi, &d) < 0) {
		ex = pq_cli_usage_error(PATH, "%s", pq_diag_msg(&d));
		goto out;
	}
	if (o->mss < MIN_MSS || o->mss > MAX_MSS) {
		ex = pq_cli_usage_error(PATH, "--mss: %llu is not a TCP payload per segment; give %d..%d bytes (1448 at "
					      "MTU 1500 with timestamps)",
					(unsigned long long)o->mss, MIN_MSS, MAX_MSS);
		goto out;
	}
	if (o->rwnd && (o->rwnd < o->mss || o->rwnd > (1ull << 30))) {
		ex = pq_cli_usage_error(PATH, "--rwnd: %llu bytes is not a receive window for an MSS of %llu; give 0 (no "
					      "limit) or %llu..1GiB bytes (Linux's client: 64512)",
					(unsigned long long)o->rwnd, (unsigned long long)o->mss, (unsigned long long)o->mss);
		goto out;
	}
	int c2s_given = pq_cli_given(cmd, args, "rate-c2s");
	if ((o->rate || (c2s_given && o->rate_c2s)) && o->rtt <= 0) {
		ex = pq_cli_usage_error(PATH, "--rate: a packet's time on the wire is a share of a round trip only "
					      "with the RTT; give --rtt too (e.g. --rtt 35ms --rate 1Mbit)");
		goto out;
	}
	if (pq_link_rate_check(o->rate, "--rate", &d) < 0 || pq_link_rate_check(o->rate_c2s, "--rate-c2s", &d) < 0) {
		ex = pq_cli_usage_error(PATH, "%s", pq_diag_msg(&d));
		goto out;
	}
	if (o->step == 0) {
		ex = pq_cli_usage_error(PATH, "--step: 0 bytes would never reach the range's end; give at least 1 byte "
					      "(e.g. 2KiB)");
		goto out;
	}
	/* As a sweep's range: more rows than this is a typo, and would run for minutes. */
	if (o->range && (hi - lo) / o->step >= PQ_EXP_MAX_VALUES) {
		ex = pq_cli_usage_error(PATH, "--chain-bytes %s with --step %llu is %llu rows; at most %d: give a larger "
					      "--step or a narrower range",
					o->range, (unsigned long long)o->step,
					(unsigned long long)((hi - lo) / o->step + 1), PQ_EXP_MAX_VALUES);
		goto out;
	}
	if (o->certs && (pq_cli_given(cmd, args, "sig") || pq_cli_given(cmd, args, "intermediates"))) {
		ex = pq_cli_usage_error(PATH, "--certs gives the chain; --sig and --intermediates describe one without it");
		goto out;
	}
	pq_tls_hello hello;
	const char *group = o->group;
	if ((o->key_share || o->server_groups) && !o->groups) {
		ex = pq_cli_usage_error(PATH, "--key-share and --server-groups describe an offer: give --groups too");
		goto out;
	}
	if (o->groups && (rc = measure_offer(o, &hello, &d)) < 0) {
		ex = rc == PQ_EINVAL ? pq_cli_usage_error(PATH, "%s", pq_diag_msg(&d))
				     : pq_cli_fail(PATH, "%s", pq_diag_msg(&d));
		goto out;
	}
	if (o->groups)
		group = hello.group;
	rc = o->certs ? pq_model_base_certs(o->certs, "--certs", group, wbuf, b, &d)
		      : pq_model_base_alg(o->sig, "--sig", (int)o->intermediates, group, wbuf, b, &d);
	if (rc == 0 && o->groups)
		pq_model_base_hello(b, &hello);
	if (rc < 0) {
		ex = rc == PQ_EINVAL ? pq_cli_usage_error(PATH, "%s", pq_diag_msg(&d))
				     : pq_cli_fail(PATH, "%s", pq_diag_msg(&d));
		goto out;
	}
	pq_model_in net;
	pq_model_out m;
	pq_model_quic q;
	pq_model_base_net(b, mss, (size_t)o->iw, o->response ? pq_model_response_bytes(PQ_MODEL_HTTP_HEAD, o->response) : 0, &net);
	/* Without a chain or a range of sizes: the chain an algorithm's certificates make, each
	 * estimated from its key and its issuer's signature (pki/alg.h), not the rule's base of
	 * a byte a certificate. */
	pq_acct at = b->rule;
	size_t est = o->certs || o->range ? 0 : natural_chain(b, o->sig);
	if (est && (rc = pq_model_at_size(&b->acct_in, est, &net, &at, &m, &d)) < 0) {
		ex = pq_cli_fail(PATH, "%s", pq_diag_msg(&d));
		goto out;
	}
	if (est) {
		b->chain_der = est;
		net.server_writes = at.writes;
		net.n_server_writes = at.n_writes;
	}
	net.early_data = o->early;
	net.rwnd = (size_t)o->rwnd;
	net.down_bps = o->rate;
	net.up_bps = c2s_given ? o->rate_c2s : o->rate;
	net.rtt_s = (double)o->rtt / 1e9;
	char cc[16], qdisc[32];
	net.server_pace = pq_model_pace_of(choice_name(MODEL_CC, o->cc, cc, sizeof cc),
					   choice_name(PQ_KTCP_QDISCS, o->qdisc, qdisc, sizeof qdisc), 200, 1);
	cJSON *root = o->json ? cJSON_CreateObject() : NULL;
	if (root) {
		cJSON_AddStringToObject(root, "leaf", b->leaf_alg);
		cJSON_AddStringToObject(root, "group", b->group);
		cJSON_AddNumberToObject(root, "chain_der_bytes", (double)b->chain_der);
		cJSON_AddNumberToObject(root, "mss", (double)mss);
		cJSON_AddNumberToObject(root, "initcwnd", (double)o->iw);
		cJSON_AddNumberToObject(root, "rwnd", (double)o->rwnd);
		cJSON_AddBoolToObject(root, "writes_measured", b->measured);
		cJSON_AddNumberToObject(root, "client_hello_bytes", (double)b->client_hello);
		cJSON_AddBoolToObject(root, "hrr", b->hrr);
		if (b->hrr)
			cJSON_AddNumberToObject(root, "client_hello2_bytes", (double)b->client_hello2);
	} else {
		describe(o, b, mss);
	}
	if (!o->range || o->certs) {
		if (pq_model_predict(&net, &m, &d) < 0) {
			ex = pq_cli_fail(PATH, "%s", pq_diag_msg(&d));
			goto done;
		}
		pq_model_base_quic(b, pq_model_quic_server_msgs(&at), at.server_hello, 0, &q);
		if (root) {
			cJSON_AddItemToObject(root, "prediction",
					      pq_modelcli_phases_json(&m, o->rtt));
			cJSON_AddItemToObject(root, "quic", pq_modelcli_quic_json(&q));
		} else {
			pq_modelcli_print_phases(&m, o->rtt);
			pq_modelcli_print_quic(&q);
		}
		if (pq_cli_given(cmd, args, "loss") || pq_cli_given(cmd, args, "burst")) {
			pq_model_loss_opts lo_ = {o->loss, o->burst, o->loss_unit, o->rtt, o->trials, o->seed};
			ex = pq_model_loss_cli(PATH, &lo_, &net, root);
			if (ex != PQ_EXIT_OK)
				goto done;
		}
	}
	if (o->range)
		ex = range_run(o, lo, hi, b, &net, root);
done:
	if (root) {
		char *s = cJSON_Print(root);
		if (s && ex == PQ_EXIT_OK)
			printf("%s\n", s);
		free(s);
		cJSON_Delete(root);
	}
out:
	free(b);
	return ex;
}

const pq_cmd pq_cmd_model = {
    .name = "model",
    .summary = "predict round trips and cliffs from a chain's bytes, the MSS and the initial window",
    .usage = "[options]",
    .description =
	"Predicts the round trips of each phase of a connection (connect, handshake, first\n"
	"byte, last byte) from what the handshake puts on the wire: the ClientHello, the\n"
	"server's first flight as OpenSSL hands it to the socket (in pieces through its 4 KiB\n"
	"handshake buffer, each piece ending in a short segment), the tickets and the\n"
	"response, against TCP's initial window and slow start. It explains each step, and\n"
	"with --chain-bytes gives the chain sizes where another round trip begins. The QUIC\n"
	"line is the same flight over QUIC (anti-amplification: 3x the client's bytes; pqtls\n"
	"bench --quic and transport = quic measure it, the report holds it against them).\n"
	"With --cc bbr (or --qdisc fq) it also times Linux's pacing of the segments after the\n"
	"connection's 10th, so a flight of several windows ends a fraction of a round trip\n"
	"later ('paced: 3.53 RTT'). No loss, delayed-ACK timers or CPU time are modelled: see\n"
	"docs/model.md.\n\n"
	"Examples:\n"
	"  pqtls model --certs DIR --group X25519MLKEM768 --rtt 50ms --initcwnd 10\n"
	"  pqtls model --sig ecdsa-p256 --chain-bytes 4KiB..80KiB\n"
	"  pqtls model --certs DIR --one-write --json\n"
	"  pqtls model --client-hellos --mss 1232\n"
	"  pqtls model --groups X25519MLKEM768:X25519 --key-share X25519 --server-groups X25519MLKEM768/X25519\n"
	"  pqtls model --sig ecdsa-p256 --group X25519 --chain-bytes 16KiB..40KiB --step 4KiB --cc bbr\n"
	"  pqtls model --sig ml-dsa-44 --intermediates 0 --group SecP256r1MLKEM768 --loss 6% --rtt 195.6ms\n",
    .opts = model_opts_table,
    .opts_size = sizeof(struct model_opts),
    .run = model_run,
    .max_args = 0,
};
