#include "net/life.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/child.h"
#include "net/life_report.h"
#include "net/listen.h"
#include "net/ns.h"

/* What the holder tells the caller through the pipe, in one write (< PIPE_BUF). */
struct answer {
	int rc;
	char msg[768];
	pq_life_link link;
};

int pq_life_hold(pq_link *l, const sigset_t *set, const char *name)
{
	int sig = 0;
	pq_diag d;
	pq_diag_clear(&d);
	sigwait(set, &sig);
	pq_diag ignore; /* nobody hears the holder: its report is all it can leave */
	if (pq_link_down(l, &d) && name)
		(void)!pq_life_report_put(PQ_LIFE_DIR, name, pq_diag_msg(&d), &ignore);
	return sig;
}

int pq_life_run(pq_link *l, char *const server[], char *const client[], const pq_life_run_opts *ro,
		int *exit_code, pq_diag *d)
{
	pid_t spid = 0, cpid = 0;
	int status = 0, rc;
	int interrupted = 0;
	pq_exec_opts so = {.own_pgrp = 1, .stdin_null = 1, .die_with_owner = 1};
	pq_exec_opts co = {.die_with_owner = 1};
	*exit_code = 0;
	if ((rc = pq_link_exec_in(l, PQ_SIDE_SERVER, server, &so, &spid, d)))
		goto out;
	if (ro->wait_port &&
	    (rc = pq_listen_wait(l, ro->wait_port, ro->wait_udp, ro->wait_timeout_ns, spid, &status, d))) {
		if (rc == PQ_ECHILD) {
			spid = 0; /* reaped */
			*exit_code = pq_child_exit_code(status);
		}
		interrupted = ro->interrupt && *ro->interrupt;
		goto out;
	}
	if ((rc = pq_link_exec_in(l, PQ_SIDE_CLIENT, client, &co, &cpid, d)))
		goto out;
	if (pq_child_wait(cpid, &status, -1, ro->interrupt)) {
		cpid = 0;
		*exit_code = pq_child_exit_code(status);
	} else {
		interrupted = 1;
	}
out:
	pq_child_stop(cpid, ro->grace_ns);
	pq_child_stop_group(spid, ro->grace_ns);
	if (interrupted)
		rc = pq_diag_set(d, PQ_EINTERRUPTED, "interrupted by a signal");
	return rc;
}

/* The holder: never returns. */
static void holder(int fd, const pq_link_config *cfg, const pq_link_opts *o)
{
	struct answer a = {0};
	pq_diag d;
	pq_link *l = NULL;
	sigset_t set;
	setsid();
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	pq_diag_clear(&d);
	a.rc = pq_link_up(cfg, o, &l, &d);
	if (a.rc) {
		snprintf(a.msg, sizeof a.msg, "%s", pq_diag_msg(&d));
	} else {
		const char *c = pq_link_ns_name(l, PQ_SIDE_CLIENT);
		snprintf(a.link.name, sizeof a.link.name, "%.*s", (int)(strlen(c) - 2), c);
		a.link.holder = getpid();
		a.link.backend = pq_link_backend(l);
		pq_link_config_describe(cfg, a.link.desc, sizeof a.link.desc);
	}
	if (write(fd, &a, sizeof a) != (ssize_t)sizeof a || a.rc)
		_exit(1);
	close(fd);
	int devnull = open("/dev/null", O_RDWR);
	if (devnull >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
	}
	pq_life_hold(l, &set, a.link.name);
	_exit(0);
}

int pq_life_up(const pq_link_config *cfg, const pq_link_opts *o, pq_life_link *out, pq_diag *d)
{
	int p[2];
	struct answer a;
	if (pipe2(p, O_CLOEXEC))
		return pq_diag_set(d, -errno, "link holder: pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		return pq_diag_set(d, -e, "link holder: fork: %s", strerror(e));
	}
	if (pid == 0) {
		close(p[0]);
		holder(p[1], cfg, o);
	}
	close(p[1]);
	ssize_t n;
	while ((n = read(p[0], &a, sizeof a)) < 0 && errno == EINTR)
		;
	close(p[0]);
	if (n != (ssize_t)sizeof a || a.rc) {
		waitpid(pid, NULL, 0);
		return n != (ssize_t)sizeof a
			       ? pq_diag_set(d, PQ_ECHILD, "the link holder ended without saying why")
			       : pq_diag_set(d, a.rc, "%s", a.msg);
	}
	*out = a.link;
	return 0;
}

int pq_life_parse_name(const char *name, const char *what, pid_t *holder_pid, pq_diag *d)
{
	char c[80];
	unsigned n;
	char side;
	snprintf(c, sizeof c, "%s-c", name);
	if (strlen(name) >= 60 || pq_ns_parse_name(c, holder_pid, &n, &side))
		return pq_diag_set(d, PQ_EINVAL,
				   "%s: '%s' is not a link name (expected pqtls-PID-N, as 'link up' "
				   "printed)",
				   what, name);
	return 0;
}

/* Asks the holder to finish and waits a bounded time for it to end (after its capture is
 * written and its namespaces removed), removes whatever is left. Returns how many
 * processes inside were killed; *failed (may be NULL) is set, with d's message, when the
 * holder reported that taking the link down failed. */
static int down_one(const char *base, int *failed, pq_diag *d)
{
	char c[80], s[80];
	pid_t pid;
	unsigned n;
	char side;
	snprintf(c, sizeof c, "%s-c", base);
	snprintf(s, sizeof s, "%s-s", base);
	if (!pq_ns_parse_name(c, &pid, &n, &side) && pid != getpid() && pq_ns_owner_alive(pid) &&
	    kill(pid, SIGTERM) == 0) {
		for (int i = 0; i < 500 && pq_ns_owner_alive(pid); i++) {
			struct timespec t = {0, 10 * 1000000};
			nanosleep(&t, NULL);
		}
	}
	int k = pq_ns_remove(c), l = pq_ns_remove(s);
	int rc = pq_life_report_take(PQ_LIFE_DIR, base, d);
	if (failed)
		*failed = rc != 0;
	return (k > 0 ? k : 0) + (l > 0 ? l : 0);
}

int pq_life_down(const char *name, int *killed, pq_diag *d)
{
	pid_t pid;
	char nsfile[128];
	int rc = pq_life_parse_name(name, "link", &pid, d);
	if (rc)
		return rc;
	snprintf(nsfile, sizeof nsfile, PQ_NS_DIR "/%s-c", name);
	if (access(nsfile, F_OK))
		return pq_diag_set(d, -ENOENT, "no link named %s", name);
	int failed = 0;
	int k = down_one(name, &failed, d);
	if (killed)
		*killed = k;
	return failed ? PQ_EIO : 0;
}

/* Is ns (a pqtls namespace name) held by `holder` (0: any)? */
static int held_by(const char *ns, pid_t holder_pid)
{
	pid_t pid;
	unsigned n;
	char side;
	return !pq_ns_parse_name(ns, &pid, &n, &side) && (!holder_pid || pid == holder_pid);
}

int pq_life_down_all(pid_t holder_pid, FILE *log,
		     void (*each)(void *arg, const char *name, int killed, const char *failure), void *arg)
{
	pq_ns_name *names;
	size_t n;
	int count = pq_ns_sweep(log);
	int rc = pq_ns_names(&names, &n);
	if (rc)
		return rc;
	/* one call per link, from its client-side name */
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		if (len < 3 || strcmp(names[i] + len - 2, "-c") || !held_by(names[i], holder_pid))
			continue;
		names[i][len - 2] = '\0';
		int failed = 0;
		pq_diag d;
		pq_diag_clear(&d);
		int killed = down_one(names[i], &failed, &d);
		if (each)
			each(arg, names[i], killed, failed ? pq_diag_msg(&d) : NULL);
		count++;
	}
	free(names);
	/* a server side whose client side is already gone */
	if ((rc = pq_ns_names(&names, &n)))
		return rc;
	for (size_t i = 0; i < n; i++)
		if (held_by(names[i], holder_pid) && pq_ns_remove(names[i]) >= 0)
			count++;
	free(names);
	return count;
}
