/* Chromium as a measuring client: one headless browser per measured connection, from a
 * fresh profile, navigating to the server's URL with its NetLog on; the connection that
 * carried the measured navigation is read from the log (load/netlog.h). The browser's
 * state when that navigation starts (enum pq_browser_state):
 * - cold: the browser's first navigation (no cache, no tickets, its first certificate
 *   verification); the browser is given the URL on its command line;
 * - warm: a navigation to another origin first (warm.pqtls.invalid, mapped to the same
 *   server address: a new host name, so a new connection, no ticket and no cached
 *   verification for the measured one, but a browser that has run a handshake);
 * - resumed: the same URL twice in one profile; the server closes each connection after
 *   its response (the cell asks it to), so the second navigation connects again and may
 *   resume with the first one's ticket (the record's `resumed` says whether it did).
 * Warm and resumed drive the browser through its DevTools pipe (load/cdp.h).
 *
 * The browser runs as a child in a process group of its own, dies with the thread that
 * started it (PR_SET_PDEATHSIG) and is killed, group and all, when its navigation ends
 * or at the deadline; its profile and log are removed. It runs in the caller's network
 * namespace (the link's client side when called through pq_link_run_in). Background
 * networking, component updates, the first-run and default-browser checks are off; the
 * server's chain is accepted whatever its root (--ignore-certificate-errors: the chain
 * is verified all the same, its time is measured, only the untrusted root is forgiven).
 *
 * Contract: pq_chromium_find fills path with the browser to run ($PQTLS_CHROMIUM, else
 * chromium or chromium-browser on PATH) or returns PQ_EUNSUPPORTED naming where it looked
 * and how to install it (scripts/deps.sh). pq_chromium_navigate returns 0 with *r filled
 * (a failed, crashed or hung browser is a failed record with its reason), or a negative
 * error when the browser could not be started at all. */
#ifndef PQ_LOAD_CHROMIUM_H
#define PQ_LOAD_CHROMIUM_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "load/record.h"

typedef struct pq_chromium_nav {
	const char *exe;    /* pq_chromium_find's path */
	const char *url;    /* "https://10.0.0.2:8443/" */
	const char *addr;   /* "10.0.0.2:8443" */
	const char *host;   /* non-NULL: the URL's host name, resolved to addr's IP by the browser */
	unsigned mss;       /* for the ClientHello's segments; 0 unknown */
	int64_t timeout_ns; /* the browser is killed after this long */
	int state;          /* enum pq_browser_state */
} pq_chromium_nav;

enum pq_browser_state { PQ_BROWSER_COLD, PQ_BROWSER_WARM, PQ_BROWSER_RESUMED };
#define PQ_BROWSER_STATES "cold|warm|resumed" /* their names, in order */

/* The host name of a warm browser's first origin. */
#define PQ_CHROMIUM_WARM_HOST "warm.pqtls.invalid"


int pq_chromium_find(char *path, size_t n, pq_diag *d) PQ_MUST_USE;
/* "156.0.8078.114" from `EXE --version`; PQ_ECHILD when it does not say. */
int pq_chromium_version(const char *exe, char *buf, size_t n, pq_diag *d) PQ_MUST_USE;
int pq_chromium_navigate(const pq_chromium_nav *nav, pq_load_record *r, pq_diag *d) PQ_MUST_USE;
/* A navigation's own directory (profile, NetLog, stderr), PARENT/pqtls-chromium-XXXXXX in
 * the first of the np parents that takes one (pq_chromium_navigate's: /dev/shm when it
 * has 256 MiB free, then /tmp). 0 with dir made; else a negative error naming every parent tried and why, dir
 * empty (PQ_ERANGE: a parent's path does not fit n). */
int pq_chromium_nav_dir(char *dir, size_t n, const char *const *parents, size_t np, pq_diag *d) PQ_MUST_USE;

/* A whole load (load/run.h's configuration: target, servername, path, connections,
 * timeout_ns per phase, progress, stop) as one browser (in `state`) per measured
 * connection, one at a time, into res. Refused (PQ_EUNSUPPORTED, naming the input): QUIC, early data,
 * resumption, concurrency or an open-loop rate, warm-up connections: pq_chromium_check
 * says so before anything runs. */
struct pq_load_config;
struct pq_load_result;
struct sockaddr;
int pq_chromium_check(const struct pq_load_config *cfg, pq_diag *d) PQ_MUST_USE;
/* The MSS of the route to sa (a connected UDP socket's path MTU: the route's or its
 * device's; no packet sent); 0 unknown. pq_chromium_run takes it when mss is 0. */
unsigned pq_chromium_route_mss(const struct sockaddr *sa, unsigned len);
int pq_chromium_run(const struct pq_load_config *cfg, const char *exe, unsigned mss, int state,
		    struct pq_load_result *res, pq_diag *d) PQ_MUST_USE;

#endif
