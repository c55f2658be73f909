/* Private to the `pqtls link` command files (src/cli/link*.c): the options struct all
 * link subcommands share, the link options table, and helpers. */
#ifndef PQ_CLI_LINK_CLI_H
#define PQ_CLI_LINK_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "cli/cli.h"
#include "core/wire.h"
#include "net/link.h"
#include "net/linkcfg.h"

struct link_opts {
	const char *profile;
	int64_t rtt, delay, delay_up, delay_down, jitter;
	int jitter_dist, reorder, keep_order;
	double loss, loss_up, loss_down;
	const char *burst_loss;
	uint64_t rate, rate_up, rate_down;
	const char *queue;
	long long mtu, initcwnd, initrwnd, seed;
	int cc, backend;
	const char *qdisc;
	long long pacing_ss, pacing_ca;
	int quickack, tso, gso; /* 0 kernel, 1 off, 2 on */
	const char *pcap;
	long long wait_port;
	int wait_udp;
	int64_t wait_timeout, grace;
	int check, json, all;
	long long samples, port, bytes;
};

#define O(f) offsetof(struct link_opts, f)
/* The link's own options, shared by run, up and check. */
#define LINK_OPTS                                                                                         \
	{"profile", 'p', PQ_OPT_STR, O(profile), "NAME", NULL,                                            \
	 "start from a named profile (see 'pqtls link profiles'); options below override it", NULL, 0, 0},  \
	{"rtt", 0, PQ_OPT_DURATION, O(rtt), NULL, NULL, "round-trip time, split evenly over the two directions", \
	 NULL, 0, 0},                                                                                     \
	{"delay", 0, PQ_OPT_DURATION, O(delay), NULL, NULL, "one-way delay, both directions", NULL, 0, 0},   \
	{"delay-up", 0, PQ_OPT_DURATION, O(delay_up), NULL, NULL, "one-way delay client -> server", NULL, 0, 0}, \
	{"delay-down", 0, PQ_OPT_DURATION, O(delay_down), NULL, NULL, "one-way delay server -> client", NULL, 0, \
	 0},                                                                                              \
	{"jitter", 0, PQ_OPT_DURATION, O(jitter), NULL, NULL,                                             \
	 "delay variation per direction (sd; half-width for uniform)", NULL, 0, 0},                       \
	{"jitter-dist", 0, PQ_OPT_CHOICE, O(jitter_dist), NULL, "normal", "jitter distribution", PQ_DIST_CHOICES, \
	 0, 0},                                                                                           \
	{"reorder", 0, PQ_OPT_FLAG, O(reorder), NULL, NULL,                                               \
	 "let jitter reorder packets (default: keep order, as one path would)", NULL, 0, 0},              \
	{"keep-order", 0, PQ_OPT_FLAG, O(keep_order), NULL, NULL,                                         \
	 "keep packet order under jitter even when the profile reorders (the aws-* ones do)", NULL, 0, 0}, \
	{"loss", 0, PQ_OPT_FRACTION, O(loss), NULL, NULL, "random (Bernoulli) loss, each direction", NULL, 0, 0}, \
	{"loss-up", 0, PQ_OPT_FRACTION, O(loss_up), NULL, NULL, "loss client -> server", NULL, 0, 0},      \
	{"loss-down", 0, PQ_OPT_FRACTION, O(loss_down), NULL, NULL, "loss server -> client", NULL, 0, 0},  \
	{"burst-loss", 0, PQ_OPT_STR, O(burst_loss), "P,R[,BAD[,GOOD]]", NULL,                            \
	 "Gilbert-Elliott loss, each direction: P good->bad, R bad->good, loss in bad (100%) and good (0%)", \
	 NULL, 0, 0},                                                                                     \
	{"rate", 0, PQ_OPT_RATE, O(rate), NULL, NULL, "bottleneck rate, each direction (0 = unlimited)", NULL, 0, \
	 0},                                                                                              \
	{"rate-up", 0, PQ_OPT_RATE, O(rate_up), NULL, NULL, "rate client -> server", NULL, 0, 0},          \
	{"rate-down", 0, PQ_OPT_RATE, O(rate_down), NULL, NULL, "rate server -> client", NULL, 0, 0},      \
	{"queue", 0, PQ_OPT_STR, O(queue), "SIZE|Np", NULL,                                               \
	 "drop-tail queue at the rate limit: bytes (64KiB) or packets (100p)", NULL, 0, 0},               \
	{"mtu", 0, PQ_OPT_INT, O(mtu), "BYTES", PQ_WIRE_MTU_DEFAULT_STR, "MTU of the link devices", NULL, 0, 0}, \
	{"initcwnd", 0, PQ_OPT_INT, O(initcwnd), "SEGMENTS", NULL, "server route's initial congestion window", \
	 NULL, 0, 0},                                                                                     \
	{"initrwnd", 0, PQ_OPT_INT, O(initrwnd), "SEGMENTS", NULL, "server route's initial receive window", NULL, \
	 0, 0},                                                                                           \
	{"cc", 0, PQ_OPT_CHOICE, O(cc), NULL, "default", "congestion control on both routes (ip route congctl)", \
	 PQ_CC_CHOICES, 0, 0},                                                                            \
	{"qdisc", 0, PQ_OPT_STR, O(qdisc), "KIND", NULL, "root qdisc of the server's link device (fq paces " \
	 "every flow; refused when the kernel lacks it)", NULL, 0, 0},                                     \
	{"pacing-ss-ratio", 0, PQ_OPT_INT, O(pacing_ss), "PERCENT", NULL, "net.ipv4.tcp_pacing_ss_ratio in " \
	 "both namespaces: a paced flow's rate in slow start, % of cwnd/srtt (kernel: 200)", NULL, 0, 0},  \
	{"pacing-ca-ratio", 0, PQ_OPT_INT, O(pacing_ca), "PERCENT", NULL, "net.ipv4.tcp_pacing_ca_ratio: " \
	 "the same after slow start (kernel: 120)", NULL, 0, 0},                                          \
	{"quickack", 0, PQ_OPT_CHOICE, O(quickack), NULL, "kernel", "client route quickack: on ACKs every " \
	 "segment at once, off/kernel lets Linux delay ACKs", "kernel|off|on", 0, 0},                      \
	{"tso", 0, PQ_OPT_CHOICE, O(tso), NULL, "kernel", "TCP segmentation offload of both link devices", \
	 "kernel|off|on", 0, 0},                                                                          \
	{"gso", 0, PQ_OPT_CHOICE, O(gso), NULL, "kernel", "generic segmentation offload of both link devices", \
	 "kernel|off|on", 0, 0},                                                                          \
	{"backend", 'b', PQ_OPT_CHOICE, O(backend), NULL, "auto", "emulation backend (auto: netem if the kernel " \
	 "has it)", PQ_BACKEND_CHOICES, 0, 0},                                                            \
	{"seed", 0, PQ_OPT_INT, O(seed), "N", "1", "seed for loss and jitter", NULL, 0, 0}

#define END_OPTS {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0}

/* For the --help of the commands that bring a link up (see docs/link.md, Design). */
#define LINK_ENV_HELP                                                                              \
	"Environment (userspace backend; for experiments on the emulation itself):\n"                \
	"  PQTLS_LINK_COMP_US   fixed cost of the forwarder's path taken off each direction's\n"     \
	"                       delay, in us, 0 to 10000 (default: 40)\n"                                        \
	"  PQTLS_LINK_EARLY_US  the forwarder wakes this long before a release and busy-waits,\n"   \
	"                       in us, 0 to 10000 (default: 150)\n"                                  \
	"  PQTLS_LINK_NICE      the forwarder thread's nice value, -20 to 19 (default: -19)\n"                 \
	"  PQTLS_LINK_RT_PRIO   the forwarder thread's SCHED_FIFO priority, 0 to 99, 0 for the\n"  \
	"                       normal class (default: 10; when refused: the normal class at\n"   \
	"                       PQTLS_LINK_NICE, with a note); real-time, it busy-waits at\n"   \
	"                       most 10% of each 10 ms\n"                                          \
	"  PQTLS_LINK_BATCH_US  real-time, past its spin budget (dense traffic), the forwarder\n" \
	"                       wakes at most once per this long, in us, 0 to 500 (default:\n"   \
	"                       100; 0: once per release)\n"

/* Builds the configuration from a profile and the options given; on error prints the
 * usage message and returns PQ_EXIT_USAGE, else 0. */
int pq_linkcli_config(const pq_cmd *cmd, const char *path, const struct link_opts *o, const pq_cli_args *a,
		      pq_link_config *c);
/* The link's run-time options: pcap, log to stderr, and the forwarder's tuning from the
 * environment (LINK_ENV_HELP). A variable outside its range prints the usage message
 * naming it and what it accepts, and returns PQ_EXIT_USAGE; else 0. */
int pq_linkcli_opts(pq_link_opts *lo, const char *path, const char *pcap) PQ_MUST_USE;
/* The variables of LINK_ENV_HELP that are set, as "NAME=value " each, into buf (cut to n);
 * returns the length written. For a stored command line that says what tuned its links. */
size_t pq_linkcli_env_text(char *buf, size_t n);
/* Both of the above, as a command that brings a link up starts: the configuration, then the
 * run-time options. Returns 0, or PQ_EXIT_USAGE after the usage message. */
int pq_linkcli_setup(const pq_cmd *cmd, const char *path, const struct link_opts *o, const pq_cli_args *a,
		     const char *pcap, pq_link_config *c, pq_link_opts *lo) PQ_MUST_USE;
void pq_linkcli_announce(const pq_link *l);
void pq_linkcli_report_stats(pq_link *l);
/* Measures the link as `link check` does and prints one line to stderr. */
void pq_linkcli_check_line(pq_link *l);
/* Stops the link, prints its stats and takes it down; returns rc, or the exit code of
 * the first failure when rc is 0. */
int pq_linkcli_finish(pq_link *l, const char *path, int rc);

extern const pq_cmd pq_linkcli_run, pq_linkcli_up, pq_linkcli_down, pq_linkcli_exec;
extern const pq_cmd pq_linkcli_check, pq_linkcli_profiles, pq_linkcli_probe_server, pq_linkcli_probe_client;

#endif
