/* pqtls bench: measure TLS connections to any server (pqtls serve, openssl s_server,
 * ...) with the load runner of src/load/, then print a table per phase and write the
 * raw records. Exit 0 only when every measured connection succeeded and negotiated what
 * was asked. */
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/names.h"
#include "core/proc.h"
#include "core/sched.h"
#include "core/units.h"
#include "exp/cellcfg.h"
#include "load/chromium.h"
#include "load/run.h"
#include "load/summary.h"
#include "load/writers.h"
#include "tls/quic.h"

struct bench_opts {
	long long concurrency, connections, requests, warmup, max_inflight, seed, threads, nice;
	const char *rate, *groups, *sigalgs, *ciphersuites, *cert_comp, *ca, *path, *csv, *jsonl, *keylog;
	const char *servername;
	int arrivals, insecure, sig_pad, ocsp, early_data, tls, json, allow_fallback, quic, http3, client, browser_state;
	int64_t duration, timeout, conn_timeout;
	uint64_t response_size, max_cert_list;
	double resume;
};

#define O(f) offsetof(struct bench_opts, f)
static const pq_opt bench_table[] = {
	{"concurrency", 'c', PQ_OPT_INT, O(concurrency), "C", "1",
	 "closed loop: connections in flight, each followed at once by the next", NULL, 1, 100000},
	{"threads", 't', PQ_OPT_INT, O(threads), "N", "1",
	 "event loops (one core each), sharing the connections, concurrency and rate", NULL, 1, 256},
	{"rate", 'r', PQ_OPT_STR, O(rate), "R/s", NULL,
	 "open loop: start R connections per second on schedule (latency from the intended start)", NULL, 0, 0},
	{"arrivals", 0, PQ_OPT_CHOICE, O(arrivals), NULL, "poisson",
	 "open-loop arrival process (Poisson, as a sweep's open-loop cells)", "constant|poisson", 0, 0},
	{"max-inflight", 0, PQ_OPT_INT, O(max_inflight), "N", PQ_STR(PQ_LOAD_MAX_INFLIGHT),
	 "open loop: connections in flight at most (later ones wait, and the wait counts)", NULL, 1, 100000},
	{"connections", 'n', PQ_OPT_INT, O(connections), "N", NULL,
	 "measured connections (default 100 unless --duration)", NULL, 1, 100000000},
	{"duration", 'd', PQ_OPT_DURATION, O(duration), NULL, NULL,
	 "measure for this long; connections still in flight get one --timeout more, then are cut", NULL, 0, 0},
	{"warmup", 'w', PQ_OPT_INT, O(warmup), "N", NULL,
	 "connections before measuring, not recorded (none given, with --resume: C, so that each connection "
	 "offered a ticket has one; as a sweep's warmup)", NULL, 0, 100000000},
	{"requests-per-conn", 0, PQ_OPT_INT, O(requests), "K", "1",
	 "HTTP requests per connection (keep-alive); 0 = handshake only", NULL, 0, 1000000},
	{"response-size", 0, PQ_OPT_SIZE, O(response_size), "BYTES", NULL,
	 "ask pqtls serve for this many body bytes (GET /bytes/N)", NULL, 0, 0},
	{"path", 0, PQ_OPT_STR, O(path), "PATH", NULL,
	 "request target instead (default /)", NULL, 0, 0},
	{"resume", 0, PQ_OPT_FRACTION, O(resume), NULL, "0",
	 "fraction of measured connections that resume with a real ticket (0.8 = 80 %)", NULL, 0, 0},
	{"nice", 0, PQ_OPT_INT, O(nice), "N", NULL,
	 "run the client's threads at nice N, -20..19 (raising needs root), so that other work on this machine "
	 "delays the measured connections less; each connection's own wait for a CPU is in client_wait_us",
	 NULL, PQ_SCHED_NICE_MIN, PQ_SCHED_NICE_MAX},
	{"early-data", 0, PQ_OPT_FLAG, O(early_data), NULL, NULL,
	 "send the first request as 0-RTT data when resuming with a ticket that allows it", NULL, 0, 0},
	{"tls", 0, PQ_OPT_CHOICE, O(tls), NULL, "1.3", "TLS version", "1.3|1.2", 0, 0},
	{"client", 0, PQ_OPT_CHOICE, O(client), NULL, "pqtls",
	 "the measuring client: pqtls's own, or headless Chromium (one cold navigation per connection, "
	 "from its NetLog; PQTLS_CHROMIUM names the browser)", "pqtls|chromium", 0, 0},
	{"browser-state", 0, PQ_OPT_CHOICE, O(browser_state), NULL, "cold",
	 "with --client chromium: the browser when the measured navigation starts: cold (its first), warm (after "
	 "a navigation to another origin, " PQ_CHROMIUM_WARM_HOST " on the same address) or resumed (after one to "
	 "the same URL; the server must close each connection after its response, as pqtls serve --close-each "
	 "does)", PQ_BROWSER_STATES, 0, 0},
	{"quic", 0, PQ_OPT_FLAG, O(quic), NULL, NULL,
	 "over QUIC (UDP, OpenSSL's QUIC client): one hq-interop request per connection, TLS 1.3, "
	 "no 0-RTT, no connect phase; datagrams and the amplification limit per connection",
	 NULL, 0, 0},
	{"http3", 0, PQ_OPT_FLAG, O(http3), NULL, NULL,
	 "with --quic: speak HTTP/3 (ALPN h3, nghttp3) instead of hq-interop, to HTTP/3 servers "
	 "(pqtls serve --quic speaks hq-interop only)",
	 NULL, 0, 0},
	{"groups", 'g', PQ_OPT_STR, O(groups), "LIST", NULL,
	 "key exchange groups to offer; the first must be the one negotiated. OpenSSL's syntax: '*' "
	 "marks the groups whose key share the ClientHello carries (X25519MLKEM768:*X25519 shares X25519 "
	 "only; a server insisting on the hybrid answers with a HelloRetryRequest)", NULL, 0, 0},
	{"sigalgs", 's', PQ_OPT_STR, O(sigalgs), "LIST", NULL,
	 "signature algorithms to accept; the first must be the one negotiated", NULL, 0, 0},
	{"ciphersuites", 0, PQ_OPT_STR, O(ciphersuites), "LIST", NULL,
	 "TLS 1.3 cipher suites to offer, e.g. TLS_AES_128_GCM_SHA256 (default: OpenSSL's)", NULL, 0, 0},
	{"cert-compression", 0, PQ_OPT_STR, O(cert_comp), "LIST", "off",
	 "accept compressed certificates: off, or zlib,brotli,zstd", NULL, 0, 0},
	{"ca", 0, PQ_OPT_STR, O(ca), "FILE", NULL, "verify the server against these roots (PEM)", NULL, 0, 0},
	{"insecure", 0, PQ_OPT_FLAG, O(insecure), NULL, NULL, "do not verify the server", NULL, 0, 0},
	{"ocsp", 0, PQ_OPT_FLAG, O(ocsp), NULL, NULL,
	 "ask for an OCSP staple (status_request) and fail a handshake without one (a chain made with "
	 "pqtls certs --ocsp)", NULL, 0, 0},
	{"sig-pad", 0, PQ_OPT_FLAG, O(sig_pad), NULL, NULL,
	 "offer the signature pad extension a server with a size-emulated chain (serve --emulated-sig) needs; "
	 "the chain then verifies as the Ed25519 it really is",
	 NULL, 0, 0},
	{"servername", 0, PQ_OPT_STR, O(servername), "NAME", NULL,
	 "name to send (SNI), verify and put in Host, when the address is not in the certificate (e.g. localhost across 'pqtls link')",
	 NULL, 0, 0},
	{"max-cert-list", 0, PQ_OPT_SIZE, O(max_cert_list), "BYTES", "16MiB",
	 "largest Certificate message accepted (OpenSSL's own default is 100KiB)", NULL, 0, 0},
	{"timeout", 0, PQ_OPT_DURATION, O(timeout), NULL, PQ_STR(PQ_EXP_CLIENT_TIMEOUT_S) "s",
	 "give up on a connection with no progress for this long (per phase; a sweep cell's without a link)",
	 NULL, 0, 0},
	{"conn-timeout", 0, PQ_OPT_DURATION, O(conn_timeout), NULL, "60s",
	 "give up on a connection not finished this long after it started (every phase, the body included; 0 = never)",
	 NULL, 0, 0},
	{"csv", 0, PQ_OPT_STR, O(csv), "FILE", NULL, "write one CSV row per connection", NULL, 0, 0},
	{"jsonl", 0, PQ_OPT_STR, O(jsonl), "FILE", NULL, "write one JSON object per connection", NULL, 0, 0},
	{"json", 0, PQ_OPT_FLAG, O(json), NULL, NULL, "print the summary as JSON instead of a table", NULL, 0, 0},
	{"keylog", 0, PQ_OPT_STR, O(keylog), "FILE", NULL, "append TLS secrets (NSS key log format)", NULL, 0, 0},
	{"allow-fallback", 0, PQ_OPT_FLAG, O(allow_fallback), NULL, NULL,
	 "exit 0 even when the server negotiated other than the first group/sigalg asked", NULL, 0, 0},
	{"seed", 0, PQ_OPT_INT, O(seed), "N", "1", "seed for arrivals and the resume draw", NULL, 0, 0},
	{NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};
#undef O

static const char *path_name = "pqtls bench";

/* SIGINT/SIGTERM end the run; the records measured so far are still written. The
 * handler resets itself, so a second signal ends the process at once. */
static volatile sig_atomic_t stop_flag;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void catch_stop_signals(void)
{
	struct sigaction sa = {.sa_handler = on_stop_signal, .sa_flags = SA_RESETHAND};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static void progress(void *arg, const pq_load_progress *p)
{
	(void)arg;
	if (p->elapsed_ns < PQ_NS_PER_S)
		return;
	fprintf(stderr, "\r  %s %.1f s: %llu done, %llu errors, %llu in flight   ",
		p->warmup ? "warm-up" : "measuring", (double)p->elapsed_ns / 1e9,
		(unsigned long long)p->done, (unsigned long long)p->errors,
		(unsigned long long)p->inflight);
}

static int parse_rate(const char *s, double *out, pq_diag *d)
{
	char buf[64];
	size_t len = strlen(s);
	if (len >= sizeof buf)
		return pq_diag_set(d, PQ_EINVAL, "--rate: '%s' is too long", s);
	memcpy(buf, s, len + 1);
	if (len > 2 && strcmp(buf + len - 2, "/s") == 0)
		buf[len - 2] = '\0';
	if (pq_parse_double(buf, "--rate", 0.001, 1e7, out, d) < 0)
		return pq_diag_set(d, PQ_EINVAL,
				   "--rate: '%s' is not a rate in connections per second (e.g. 500 or 500/s)", s);
	return 0;
}

/* The first failure, in words, for the one-line error message. */
static const char *first_error(const pq_load_summary *s, char *buf, size_t n)
{
	size_t best = 0;
	for (size_t i = 1; i < s->nerrs; i++)
		if (s->errs[i].count > s->errs[best].count)
			best = i;
	if (!s->nerrs)
		return "";
	snprintf(buf, n, "%s%s%s", pq_load_err_text(s->errs[best].kind),
		 s->errs[best].detail[0] ? ": " : "", s->errs[best].detail);
	return buf;
}

/* Each finished connection goes to the summary and the outputs at once, so a run of
 * any length holds no records. */
struct bench_sink {
	pq_load_acc *acc;
	pq_load_out *csv, *jsonl;
};

static int sink_record(void *arg, const pq_load_record *rec, pq_diag *d)
{
	struct bench_sink *k = arg;
	int rc = pq_load_acc_add(k->acc, rec);
	if (rc < 0)
		return pq_diag_set(d, rc, "out of memory summarising connection %llu",
				   (unsigned long long)rec->id);
	if (k->csv->f) {
		pq_load_csv_row(k->csv->f, rec);
		if ((rc = pq_load_out_check(k->csv, d)) < 0)
			return rc;
	}
	if (k->jsonl->f) {
		pq_load_jsonl_row(k->jsonl->f, rec);
		rc = pq_load_out_check(k->jsonl, d);
	}
	return rc;
}

static int bench_run(const pq_cmd *cmd, void *optsp, pq_cli_args *args)
{
	struct bench_opts *o = optsp;
	pq_diag d;
	pq_exp_point pt;
	pq_exp_cfg ec;
	pq_load_result res = {0};
	pq_load_summary sum;
	pq_load_out csv = {0}, jsonl = {0};
	struct bench_sink sink = {.csv = &csv, .jsonl = &jsonl};
	char path[64];
	int rc = PQ_EXIT_FAIL;
	double rate = 0;

	if (o->rate && parse_rate(o->rate, &rate, &d) < 0)
		return pq_cli_usage_error(path_name, "%s", pq_diag_msg(&d));
	if (o->servername && !o->servername[0])
		return pq_cli_usage_error(path_name, "--servername: the name is empty; give the name the "
						     "certificate is for (e.g. localhost), or leave the option out");
	if (pq_cli_given(cmd, args, "max-cert-list") && o->max_cert_list == 0)
		return pq_cli_usage_error(path_name, "--max-cert-list: 0 bytes would accept no certificate; "
						     "give a size such as 100KiB (default 16MiB)");
	if (!o->ca && !o->insecure)
		return pq_cli_usage_error(path_name, "give --ca FILE to verify the server (e.g. "
						     "DIR/root.pem) or --insecure");
	if (o->path && pq_cli_given(cmd, args, "response-size"))
		return pq_cli_usage_error(path_name, "--path and --response-size exclude each other");
	if (o->http3 && !o->quic)
		return pq_cli_usage_error(path_name, "--http3 is HTTP/3 over QUIC: give --quic too");
	/* The options that are dimensions, on a grid point: built as a sweep's cell is
	 * (exp/cellcfg.h), then what only bench has. */
	int prc = pq_cli_point(path_name, o->cert_comp, o->quic, &pt);
	if (prc != 0)
		return prc;
	pt.ocsp = o->ocsp;
	pt.browser = o->client;
	pt.browser_state = o->browser_state;
	pt.connections = pq_cli_given(cmd, args, "connections") ? o->connections : o->duration ? 0 : 100;
	pt.concurrency = (int)o->concurrency;
	pt.open_rate = rate;
	pt.resume = o->resume;
	pt.warmup = o->warmup;
	pt.early_data = o->early_data;
	pt.timeout_ns = o->timeout;
	if (pq_exp_cfg_build(&pt, NULL, &ec, &d) < 0)
		return pq_cli_usage_error(path_name, "%s", pq_diag_msg(&d));
	pq_load_config *cfg = &ec.load;
	if (pq_addr_parse(args->argv[0], "HOST:PORT", 0, &cfg->target, &d) < 0)
		return pq_cli_usage_error(path_name, "%s", pq_diag_msg(&d));
	if (pq_cli_given(cmd, args, "response-size")) {
		snprintf(path, sizeof path, "/bytes/%llu", (unsigned long long)o->response_size);
		cfg->path = path;
	} else {
		cfg->path = o->path ? o->path : "/";
	}
	cfg->requests_per_conn = (int)o->requests;
	/* OpenSSL's own syntax and defaults, not a dimension's vocabulary */
	cfg->tls.quic_h3 = o->http3;
	cfg->tls.version = o->tls == 1 ? 12 : 13;
	cfg->tls.groups = o->groups;
	cfg->tls.sigalgs = o->sigalgs;
	cfg->tls.ciphersuites = o->ciphersuites;
	cfg->tls.keylog_path = o->keylog;
	cfg->tls.ca_file = o->ca;
	cfg->tls.insecure = o->insecure;
	cfg->tls.sig_pad = o->sig_pad;
	cfg->tls.max_cert_list = o->max_cert_list;
	cfg->tls.names = pq_cli_tls_names;
	if (o->quic && pq_tls_quic_check(&cfg->tls, &d) < 0)
		return pq_cli_usage_error(path_name, "%s", pq_diag_msg(&d));
	cfg->names = pq_cli_load_names;
	cfg->servername = o->servername;
	cfg->duration_ns = o->duration;
	cfg->threads = (int)o->threads;
	cfg->poisson = o->arrivals == 1;
	cfg->max_inflight = (int)o->max_inflight;
	cfg->total_timeout_ns = o->conn_timeout;
	cfg->stop = &stop_flag;
	cfg->set_nice = pq_cli_given(cmd, args, "nice");
	cfg->nice = (int)o->nice;
	cfg->seed = (uint64_t)o->seed;
	if (pq_cli_progress_enabled())
		cfg->progress = progress;

	char browser[512], bver[64];
	if (!o->client && o->browser_state)
		return pq_cli_usage_error(path_name, "--browser-state %s needs --client chromium (it is the browser's)",
					  o->browser_state == PQ_BROWSER_WARM ? "warm" : "resumed");
	if (o->client && pq_chromium_check(cfg, &d) < 0)
		return pq_cli_usage_error(path_name, "%s", pq_diag_msg(&d));
	if (o->client && (pq_chromium_find(browser, sizeof browser, &d) < 0 ||
			  pq_chromium_version(browser, bver, sizeof bver, &d) < 0))
		return pq_cli_fail(path_name, "--client chromium: %s", pq_diag_msg(&d));
	if (!o->json) {
		char cap[32];
		if (o->client)
			printf("pqtls bench: client Chromium %s (%s), one %s browser per connection\n", bver, browser,
			       o->browser_state == PQ_BROWSER_WARM	  ? "warm"
			       : o->browser_state == PQ_BROWSER_RESUMED ? "resuming"
									: "cold");
		printf("pqtls bench %s%s: %s, %s%s", args->argv[0], o->quic ? " over QUIC" : "",
		       cfg->rate > 0 ? "open loop" : "closed loop",
		       cfg->requests_per_conn ? "GET " : "handshake only",
		       cfg->requests_per_conn ? cfg->path : "");
		if (cfg->warmup)
			printf(", %lld warm-up connections", cfg->warmup);
		printf("\n");
		if (o->max_cert_list > 102400)
			printf("  accepting Certificate messages up to %s (OpenSSL's default is 100 KiB; "
			       "--max-cert-list 100KiB keeps it)\n",
			       pq_fmt_size(cap, sizeof cap, o->max_cert_list));
		fflush(stdout);
	}
	/* Outputs first: a path that cannot be written fails now, not after the run. */
	if ((o->csv && pq_load_out_open(&csv, o->csv, "--csv", &d) < 0) ||
	    (o->jsonl && pq_load_out_open(&jsonl, o->jsonl, "--jsonl", &d) < 0)) {
		pq_load_out_abort(&csv);
		return pq_cli_fail(path_name, "%s", pq_diag_msg(&d));
	}
	if (csv.f)
		pq_load_csv_header(csv.f);
	if (pq_load_acc_new(&sink.acc, cfg) < 0) {
		pq_load_out_abort(&csv);
		pq_load_out_abort(&jsonl);
		return pq_cli_fail(path_name, "out of memory for the summary");
	}
	cfg->sink = sink_record;
	cfg->sink_arg = &sink;
	cfg->no_keep = 1;
	uint64_t need = (uint64_t)(cfg->rate > 0 ? cfg->max_inflight : cfg->concurrency) + 64;
	uint64_t have = pq_proc_raise_fdlimit(need);
	if (have < need)
		fprintf(stderr, "pqtls bench: note: the open-file limit is %llu, below the %llu this "
				"run may need; connections beyond it fail\n",
			(unsigned long long)have, (unsigned long long)need);
	catch_stop_signals();
	int lrc = o->client ? pq_chromium_run(cfg, browser, 0, o->browser_state, &res, &d) : pq_load_run(cfg, &res, &d);
	if (cfg->progress)
		fprintf(stderr, "\r%70s\r", "");
	if (lrc < 0) {
		int usage = lrc == PQ_EINVAL || lrc == PQ_ERANGE;
		pq_load_result_dispose(&res);
		pq_load_acc_free(sink.acc);
		pq_load_out_abort(&csv);
		pq_load_out_abort(&jsonl);
		return usage ? pq_cli_usage_error(path_name, "%s", pq_diag_msg(&d))
			     : pq_cli_fail(path_name, "%s", pq_diag_msg(&d));
	}
	if (pq_load_acc_finish(sink.acc, &res, &sum) < 0) {
		pq_cli_fail(path_name, "out of memory summarising %llu records",
			    (unsigned long long)res.measured);
		goto out;
	}
	if (o->json)
		pq_load_summary_json(&sum, stdout);
	else
		pq_load_summary_print(&sum, stdout);
	fflush(stdout);
	if (pq_load_out_commit(&csv, NULL, NULL, 0, &d) < 0 ||
	    pq_load_out_commit(&jsonl, NULL, NULL, 0, &d) < 0) {
		pq_cli_fail(path_name, "%s", pq_diag_msg(&d));
		goto out;
	}
	char why[200];
	if (res.interrupted) {
		pq_cli_fail(path_name, "interrupted by a signal after %zu connections; their records "
				       "are written", sum.n);
	} else if (res.server_gone) {
		pq_cli_fail(path_name, "stopped: %d connections in a row were refused (has the "
				       "server exited?); %zu connections recorded",
			    PQ_LOAD_REFUSED_IN_ROW, sum.n);
	} else if (res.warmup_errors && sum.n == 0) {
		const pq_load_record *w = &res.warmup_error;
		pq_cli_fail(path_name, "%llu warm-up connections failed (%s%s%s); nothing measured",
			    (unsigned long long)res.warmup_errors, pq_load_err_text(w->err),
			    w->err_detail[0] ? ": " : "", w->err_detail);
	} else if (sum.ok < sum.n) {
		pq_cli_fail(path_name, "%zu of %zu connections failed (%s)%s", sum.n - sum.ok, sum.n,
			    first_error(&sum, why, sizeof why),
			    sum.stopped_early ? "; stopped after the first failures" : "");
	} else if (sum.n == 0) {
		pq_cli_fail(path_name, "no connection was made");
	} else if ((sum.group_mismatch || sum.sigalg_mismatch) && !o->allow_fallback) {
		pq_cli_fail(path_name,
			    "the server negotiated something other than asked (%zu group, %zu "
			    "signature mismatches); --allow-fallback accepts that",
			    sum.group_mismatch, sum.sigalg_mismatch);
	} else {
		rc = PQ_EXIT_OK;
	}
out:
	pq_load_acc_free(sink.acc);
	pq_load_out_abort(&csv);
	pq_load_out_abort(&jsonl);
	pq_load_result_dispose(&res);
	return rc;
}

const pq_cmd pq_cmd_bench = {
	.name = "bench",
	.summary = "measure TLS connections (connect, handshake, TTFB, bytes) against any TLS server",
	.usage = "HOST:PORT [options]",
	.description =
		"Every connection is a record: phase times (us, one monotonic clock), negotiated\n"
		"group and signature, resumption, HelloRetryRequest, bytes of each handshake\n"
		"message each way, TLS bytes, TCP segments, and tcp_info (srtt, retransmits, cwnd).\n"
		"SIGINT or SIGTERM ends the run and still writes the summary and the records so far;\n"
		"a server that stops answering (16 connections refused in a row) ends it too.\n"
		"Memory stays bounded however long the run: each connection's row is written to\n"
		"--csv/--jsonl (as FILE.tmp, renamed at the end) as it finishes, in completion\n"
		"order (sort by start_us for start order; with --threads > 1 the id is the launch\n"
		"sequence over all threads). Counts, means, sd, min and max are exact; the\n"
		"percentiles are exact up to 10000 values per phase, beyond that within 0.1 % of\n"
		"the closest-rank values (log-spaced buckets); the open-loop first/last tenth\n"
		"medians beyond 10000 come from an evenly spaced sample of 5000-10000.\n\n"
		"Examples:\n"
		"  pqtls bench 127.0.0.1:8443 --ca out/mldsa65/root.pem -n 1000 -c 4\n"
		"  pqtls bench 127.0.0.1:8443 --insecure --rate 500/s --arrivals poisson -d 10s\n"
		"  pqtls bench 127.0.0.1:8443 --insecure --resume 0.8 -n 2000 --csv runs.csv\n"
		"  pqtls bench 127.0.0.1:8443 --insecure --groups MLKEM768 --requests-per-conn 0\n"
		"  pqtls bench 127.0.0.1:8443 --quic --ca out/mldsa65/root.pem --servername localhost \\\n"
		"      --groups X25519MLKEM768 --response-size 10KiB -n 20\n\n"
		"Over QUIC (--quic; the server must speak ALPN hq-interop, as pqtls serve --quic does):\n"
		"there is no connect phase (connect stays empty); handshake, TTFB and TTLB are as\n"
		"over TCP. Instead of TCP segments and tcp_info each connection records the\n"
		"datagrams and bytes each way before its handshake was done, the client's first\n"
		"flight (Initial datagrams and bytes), whether a Retry came, and whether the\n"
		"server's handshake bytes passed 3x that first flight (RFC 9000 8.1: so the\n"
		"server had to wait for its address to be validated). OpenSSL 3.5 exposes no PTO\n"
		"or loss counters, so none are recorded.",
	.opts = bench_table,
	.opts_size = sizeof(struct bench_opts),
	.run = bench_run,
	.min_args = 1,
	.max_args = 1,
};
