/* A link's life beyond one call: brought up and kept by a holder process, taken down by
 * name, or all at once. `pqtls link up/down` and the sweep engine use it in-process.
 *
 * A held link is named pqtls-PID-N after its holder (its namespaces are NAME-c and
 * NAME-s, see net/ns.h). The holder leaves the caller's session, keeps the link until
 * SIGTERM, SIGINT or SIGHUP, then takes it down (finishing its pcap) and exits. When
 * taking it down fails (a capture that could not be finished: a full disk), the holder
 * leaves the message in PQ_LIFE_DIR/NAME.down for whoever took the link down
 * (net/life_report.h: nothing planted there is followed, read or waited on). */
#ifndef PQ_NET_LIFE_H
#define PQ_NET_LIFE_H

#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/err.h"
#include "net/link.h"

#define PQ_LIFE_DIR "/run/pqtls" /* the holders' reports */

typedef struct pq_life_link {
	char name[64];		 /* pqtls-PID-N */
	pid_t holder;		 /* the process that keeps it (a child of the caller) */
	enum pq_backend backend; /* the one chosen (auto resolved) */
	char desc[512];		 /* pq_link_config_describe */
} pq_life_link;

/* Forks a holder that brings the link up and keeps it. Returns once the link is up (0,
 * *out filled) or failed (the holder's message in *d; the holder has exited and been
 * reaped). Once up, the holder's stdin, stdout and stderr are /dev/null. */
int pq_life_up(const pq_link_config *cfg, const pq_link_opts *o, pq_life_link *out,
	       pq_diag *d) PQ_MUST_USE;

/* Runs a server command and a client command across l: the server in its own process
 * group in the server namespace (stdin /dev/null), then, once something listens on
 * TCP (wait_udp: UDP) port wait_port there (0: at once; see net/listen.h), the client in the client
 * namespace. Waits for the client, then stops both (SIGTERM, SIGKILL after grace_ns; the
 * server's whole group). Both die with the caller. Returns 0 with the client's exit code
 * in *exit_code; PQ_EINTERRUPTED when *interrupt (may be NULL) was set by a signal
 * meanwhile; PQ_ECHILD when the server ended before it listened (its exit code in
 * *exit_code); another error when a command could not start. */
typedef struct pq_life_run_opts {
	unsigned wait_port;
	int wait_udp; /* wait_port is a UDP port (a QUIC server's) */
	int64_t wait_timeout_ns;
	int64_t grace_ns;
	const volatile sig_atomic_t *interrupt;
} pq_life_run_opts;
int pq_life_run(pq_link *l, char *const server[], char *const client[], const pq_life_run_opts *ro,
		int *exit_code, pq_diag *d) PQ_MUST_USE;

/* Keeps l until a signal of `set` (blocked by the caller) arrives, then takes it down;
 * a failure is reported as link `name`'s (NULL: not reported). Returns the signal. What
 * the holder of pq_life_up runs. */
int pq_life_hold(pq_link *l, const sigset_t *set, const char *name);

/* Is `name` a held link's name (pqtls-PID-N)? 0, or PQ_EINVAL with a message naming
 * `what` (the caller's name for the input). */
int pq_life_parse_name(const char *name, const char *what, pid_t *holder, pq_diag *d) PQ_MUST_USE;

/* Takes link `name` down: asks its holder to finish (SIGTERM; up to 5 s to write its
 * pcap and remove its namespaces), then removes what is left and kills what still runs
 * inside (*killed counts those; may be NULL). -ENOENT when there is no such link;
 * PQ_EIO, with the holder's message, when the link went but its capture failed (or with
 * a message naming what is at NAME.down when that is not a report pqtls wrote). */
int pq_life_down(const char *name, int *killed, pq_diag *d) PQ_MUST_USE;

/* Every pqtls link on this machine (holder 0), or only those held by `holder`: first the
 * namespaces whose holder is gone (told to `log`, may be NULL), then each link as
 * pq_life_down, then server sides left without a client side. each() (may be NULL) hears
 * each link taken down, with the holder's failure (NULL: none). Returns how many links
 * and stale namespaces went, or -errno. */
int pq_life_down_all(pid_t holder, FILE *log,
		     void (*each)(void *arg, const char *name, int killed, const char *failure), void *arg);

#endif
