/* pqtls serve: the TLS server of src/server/ behind a command line. Ready when it prints
 * "listening on ADDR" on stderr (and writes ADDR to --ready-file); stops on SIGINT or
 * SIGTERM (read through signalfd, so no handler runs inside the loops) or after
 * --duration, and prints what it served. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/names.h"
#include "core/clock.h"
#include "core/proc.h"
#include "core/wfile.h"
#include "exp/cellcfg.h"
#include "server/server.h"

struct serve_opts {
	const char *certs, *listen, *groups, *sigalgs, *ciphersuites, *cert_comp, *keylog, *ready_file;
	long long threads, tickets, max_conns;
	int tls, one_write, quic, quic_retry, emulated_sig, close_each;
	uint64_t max_early_data;
	int64_t hs_timeout, idle_timeout, header_timeout, duration;
};

#define O(f) offsetof(struct serve_opts, f)
static const pq_opt serve_table[] = {
	{"certs", 'c', PQ_OPT_STR, O(certs), "DIR", NULL,
	 "chain directory: DIR/chain.pem (leaf first) and DIR/leaf.key (as pqtls certs writes)", NULL, 0, 0},
	{"listen", 'l', PQ_OPT_STR, O(listen), "HOST:PORT", "127.0.0.1:8443",
	 "address to listen on; port 0 picks a free one", NULL, 0, 0},
	{"threads", 't', PQ_OPT_INT, O(threads), "N", "1",
	 "worker threads, one event loop and SO_REUSEPORT socket each", NULL, 1, 256},
	{"tls", 0, PQ_OPT_CHOICE, O(tls), NULL, "1.3", "TLS version (1.2 for comparison)", "1.3|1.2", 0, 0},
	{"groups", 'g', PQ_OPT_STR, O(groups), "LIST", NULL,
	 "key exchange groups, e.g. X25519MLKEM768:X25519 (default: OpenSSL's)", NULL, 0, 0},
	{"sigalgs", 's', PQ_OPT_STR, O(sigalgs), "LIST", NULL,
	 "signature algorithms, e.g. mldsa65:ecdsa_secp256r1_sha256 (default: OpenSSL's)", NULL, 0, 0},
	{"ciphersuites", 0, PQ_OPT_STR, O(ciphersuites), "LIST", NULL,
	 "TLS 1.3 cipher suites, in the server's order of preference (default: OpenSSL's, in the client's order)",
	 NULL, 0, 0},
	{"tickets", 0, PQ_OPT_INT, O(tickets), "N", "2",
	 "session tickets sent per full handshake; 0 turns resumption off", NULL, 0, 16},
	{"cert-compression", 0, PQ_OPT_STR, O(cert_comp), "LIST", "off",
	 "RFC 8879 certificate compression: off, or zlib,brotli,zstd in preference order", NULL, 0, 0},
	{"max-early-data", 0, PQ_OPT_SIZE, O(max_early_data), "BYTES", "0",
	 "0-RTT data accepted on resumption (0 = none; tickets become single-use)", NULL, 0, 0},
	{"quic", 0, PQ_OPT_FLAG, O(quic), NULL, NULL,
	 "serve over QUIC (UDP, OpenSSL's QUIC server) instead of TCP: TLS 1.3, one thread, the "
	 "hq-interop request line (GET /bytes/N), no 0-RTT (OpenSSL 3.5's QUIC has none)",
	 NULL, 0, 0},
	{"quic-retry", 0, PQ_OPT_FLAG, O(quic_retry), NULL, NULL,
	 "with --quic: validate each client's address with a Retry first (one round trip more, "
	 "then no 3x amplification limit)",
	 NULL, 0, 0},
	{"flight-one-write", 0, PQ_OPT_FLAG, O(one_write), NULL, NULL,
	 "hand the first flight to TCP in one write, not in OpenSSL's 4 KiB pieces (each ends in a short segment)",
	 NULL, 0, 0},
	{"close-each", 0, PQ_OPT_FLAG, O(close_each), NULL, NULL,
	 "close every connection after its response (Connection: close), so a browser's next navigation "
	 "connects anew and may resume (bench --client chromium --browser-state resumed)",
	 NULL, 0, 0},
	{"emulated-sig", 0, PQ_OPT_FLAG, O(emulated_sig), NULL, NULL,
	 "serve a chain whose leaf is a size emulation (pqtls certs --leaf emu-...): an Ed25519 key padded "
	 "to the scheme's sizes, not a real signature; only clients offering the pad (bench --sig-pad) connect",
	 NULL, 0, 0},
	{"keylog", 0, PQ_OPT_STR, O(keylog), "FILE", NULL,
	 "append TLS secrets to FILE (NSS key log format, for Wireshark)", NULL, 0, 0},
	{"max-conns", 0, PQ_OPT_INT, O(max_conns), "N", PQ_STR(PQ_SERVER_MAX_CONNS),
	 "open connections at most; more are closed at once", NULL, 1, 1000000},
	{"handshake-timeout", 0, PQ_OPT_DURATION, O(hs_timeout), NULL, "10s",
	 "close a connection whose handshake takes longer", NULL, 0, 0},
	{"idle-timeout", 0, PQ_OPT_DURATION, O(idle_timeout), NULL, "60s",
	 "close a kept-alive connection idle this long", NULL, 0, 0},
	{"header-timeout", 0, PQ_OPT_DURATION, O(header_timeout), NULL, "10s",
	 "close a connection whose request head has not arrived whole this long after its first byte", NULL, 0, 0},
	{"duration", 'd', PQ_OPT_DURATION, O(duration), NULL, "0",
	 "stop by itself after this long (0 = until SIGINT/SIGTERM)", NULL, 0, 0},
	{"ready-file", 0, PQ_OPT_STR, O(ready_file), "PATH", NULL,
	 "write the bound address to PATH once listening (for scripts)", NULL, 0, 0},
	{NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};
#undef O

/* Whole or not at all: a script polling PATH never sees a half-written address. */
static int write_ready_file(const char *path, const char *addr, pq_diag *d)
{
	pq_wfile w;
	int rc = pq_wfile_open(&w, path, "--ready-file", d);
	if (rc < 0)
		return rc;
	fprintf(w.f, "%s\n", addr);
	return pq_wfile_close(&w, d);
}

/* Waits for SIGINT/SIGTERM (on the signalfd) or the end of `duration`. */
static void wait_for_stop(int sfd, int64_t duration)
{
	int64_t end = duration ? pq_mono_ns() + duration : 0;
	for (;;) {
		int timeout = -1;
		if (end) {
			int64_t left = end - pq_mono_ns();
			if (left <= 0)
				return;
			timeout = (int)((left + PQ_NS_PER_MS - 1) / PQ_NS_PER_MS);
		}
		struct pollfd p = {.fd = sfd, .events = POLLIN};
		int n = poll(&p, 1, timeout);
		if (n > 0) {
			struct signalfd_siginfo si;
			if (read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
				fprintf(stderr, "pqtls serve: %s, stopping\n", strsignal((int)si.ssi_signo));
			return;
		}
		if (n < 0 && errno != EINTR)
			return;
	}
}

static int serve_run(const pq_cmd *cmd, void *optsp, pq_cli_args *args)
{
	(void)cmd, (void)args;
	const char *path = "pqtls serve";
	struct serve_opts *o = optsp;
	pq_diag d;
	pq_server *srv = NULL;
	int rc = PQ_EXIT_FAIL, sfd = -1;
	if (!o->certs)
		return pq_cli_usage_error(path, "--certs DIR is required (a directory with chain.pem "
						"and leaf.key, e.g. from pqtls certs)");
	if (o->one_write && o->max_early_data)
		return pq_cli_usage_error(path, "--flight-one-write holds writes until the end of the "
						"flight, which would delay 0-RTT answers; use it without "
						"--max-early-data");
	/* The options that are dimensions, on a grid point: built as a sweep cell's server is
	 * (exp/cellcfg.h), then what only serve has. */
	pq_exp_point pt;
	pq_exp_cfg ec;
	int prc = pq_cli_point(path, o->cert_comp, o->quic, &pt);
	if (prc != 0)
		return prc;
	pt.quic_retry = o->quic_retry;
	pt.flight_one_write = o->one_write;
	pt.tickets = (int)o->tickets;
	pt.early_data = o->max_early_data > 0;
	if (pq_exp_cfg_build(&pt, NULL, &ec, &d) < 0)
		return pq_cli_usage_error(path, "%s", pq_diag_msg(&d));
	pq_server_config cfg = ec.server;
	cfg.listen = o->listen;
	cfg.threads = (int)o->threads;
	cfg.max_conns = (int)o->max_conns;
	/* serve knows no link to derive them from: its own, stated in its options */
	cfg.handshake_timeout_ns = o->hs_timeout ? o->hs_timeout : 10 * PQ_NS_PER_S;
	cfg.idle_timeout_ns = o->idle_timeout ? o->idle_timeout : 60 * PQ_NS_PER_S;
	cfg.header_timeout_ns = o->header_timeout;
	cfg.close_each = o->close_each;
	cfg.tls.version = o->tls == 1 ? 12 : 13;
	cfg.tls.groups = o->groups; /* OpenSSL's syntax and default, not the dimension's */
	cfg.tls.sigalgs = o->sigalgs;
	cfg.tls.ciphersuites = o->ciphersuites;
	cfg.tls.keylog_path = o->keylog;
	cfg.tls.certs_dir = o->certs;
	cfg.tls.emulated_sig = o->emulated_sig;
	cfg.tls.max_early_data = o->max_early_data > UINT32_MAX ? UINT32_MAX : (uint32_t)o->max_early_data;
	cfg.tls.names = pq_cli_tls_names;
	cfg.names = pq_cli_server_names;
	if (pq_server_config_check(&cfg, &d) < 0)
		return pq_cli_usage_error(path, "%s", pq_diag_msg(&d));
	/* Block the stop signals before any thread exists, so every thread inherits the
	 * mask and only the signalfd below sees them. */
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0) {
		pq_cli_fail(path, "signalfd: %s", strerror(errno));
		goto out;
	}
	uint64_t need = (uint64_t)o->max_conns + 64, have = pq_proc_raise_fdlimit(need);
	if (have < need)
		fprintf(stderr, "pqtls serve: note: the open-file limit is %llu, below --max-conns %lld "
				"(+64); connections beyond it are refused\n",
			(unsigned long long)have, o->max_conns);
	if (pq_server_new(&cfg, &srv, &d) < 0) {
		pq_cli_fail(path, "%s", pq_diag_msg(&d));
		goto out;
	}
	int64_t cpu0 = pq_proc_cpu_ns(RUSAGE_SELF), t0 = pq_mono_ns();
	if (pq_server_start(srv, &d) < 0 ||
	    (o->ready_file && write_ready_file(o->ready_file, pq_server_address(srv), &d) < 0)) {
		pq_cli_fail(path, "%s", pq_diag_msg(&d));
		goto out;
	}
	fprintf(stderr, "pqtls serve: listening on %s (%s%lld thread%s, TLS %s, certs %s)\n",
		pq_server_address(srv), o->quic ? "QUIC over UDP, " : "", o->threads,
		o->threads == 1 ? "" : "s", o->tls == 1 ? "1.2" : "1.3", o->certs);
	wait_for_stop(sfd, o->duration);
	pq_server_stop(srv);
	pq_server_wait(srv);
	int64_t cpu = pq_proc_cpu_ns(RUSAGE_SELF) - cpu0, wall = pq_mono_ns() - t0;
	const pq_server_stats *st = pq_server_get_stats(srv);
	pq_server_stats_print(st, stdout);
	printf("cpu: %.3f s over %.3f s", (double)cpu / 1e9, (double)wall / 1e9);
	if (st->handshakes)
		printf(", %.1f us per handshake", (double)cpu / 1e3 / (double)st->handshakes);
	printf("\n");
	fflush(stdout);
	rc = PQ_EXIT_OK;
out:
	pq_server_free(srv);
	if (o->ready_file && rc != PQ_EXIT_OK)
		unlink(o->ready_file);
	if (sfd >= 0)
		close(sfd);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

const pq_cmd pq_cmd_serve = {
	.name = "serve",
	.summary = "serve TLS 1.3 (or 1.2) with a chain directory and a small HTTP/1.1 responder",
	.usage = "--certs DIR [options]",
	.description =
		"HTTP: GET / answers a short page, GET /bytes/N answers N bytes (N up to 64 MiB),\n"
		"keep-alive; malformed or oversize requests get 400.\n"
		"With --quic: UDP on the same address, ALPN hq-interop, one request per connection\n"
		"(\"GET /bytes/N\\r\\n\" on the client's first bidirectional stream, answered with the\n"
		"body alone); the same chains, groups, tickets and certificate compression.\n\n"
		"Examples:\n"
		"  pqtls serve --certs out/mldsa65 --listen 127.0.0.1:8443\n"
		"  pqtls serve --certs out/ecdsa --groups X25519MLKEM768:X25519 --tickets 0\n"
		"  pqtls serve --certs out/mldsa65 --listen 127.0.0.1:0 --ready-file /tmp/addr\n"
		"  pqtls serve --certs out/mldsa65 --quic --groups X25519MLKEM768 --listen 127.0.0.1:8443",
	.opts = serve_table,
	.opts_size = sizeof(struct serve_opts),
	.run = serve_run,
	.max_args = 0,
};
