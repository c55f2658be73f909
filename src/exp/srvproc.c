#include "exp/srvproc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/child.h"
#include "core/clock.h"
#include "core/proc.h"

extern char **environ;

/* How long a server may take to start or to stop and report: far beyond either (a few
 * milliseconds), short enough that a wedged child does not hold the sweep. */
#define START_NS (30 * PQ_NS_PER_S)
#define STOP_NS (30 * PQ_NS_PER_S)
#define GRACE_NS (2 * PQ_NS_PER_S)

typedef struct stop_msg {
	pq_server_stats st;
	int64_t cpu_ns; /* the server process's own CPU time */
} stop_msg;

typedef struct start_msg {
	int rc;
	uint16_t port;
	char msg[sizeof(((pq_diag *)0)->msg)];
} start_msg;

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reads n bytes within timeout_ns: 0, or -1 (end of file: the child is gone; or time). */
static int read_all(int fd, void *p, size_t n, int64_t timeout_ns)
{
	char *c = p;
	int64_t end = pq_mono_ns() + timeout_ns;
	while (n) {
		int64_t left = end - pq_mono_ns();
		struct pollfd pf = {fd, POLLIN, 0};
		if (left <= 0)
			return -1;
		int pr = poll(&pf, 1, (int)(left / 1000000 + 1));
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			return -1;
		ssize_t r = read(fd, c, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

/* The configuration as it crosses the exec: the struct with its strings inline. */
enum { W_LISTEN, W_GROUPS, W_SIGALGS, W_SUITES, W_COMP, W_KEYLOG, W_CERTS, W_NSTR };
typedef struct wire_cfg {
	size_t size;          /* sizeof(wire_cfg) of the sender: a binary replaced mid-sweep is refused */
	pq_server_config cfg; /* its pointers mean nothing on the other side: rebuilt there */
	unsigned has;         /* bit i: string i present (NULL otherwise) */
	char str[W_NSTR][1024];
} wire_cfg;

static const char **wire_field(pq_server_config *c, int i)
{
	const char **f[W_NSTR] = {&c->listen,	       &c->tls.groups,	    &c->tls.sigalgs, &c->tls.ciphersuites,
				  &c->tls.cert_comp, &c->tls.keylog_path, &c->tls.certs_dir};
	return f[i];
}

static int wire_pack(const pq_server_config *cfg, wire_cfg *w, pq_diag *d)
{
	memset(w, 0, sizeof *w);
	w->size = sizeof *w;
	w->cfg = *cfg;
	w->cfg.names = NULL;
	w->cfg.tls.names = NULL;
	for (int i = 0; i < W_NSTR; i++) {
		const char **f = wire_field(&w->cfg, i);
		if (!*f)
			continue;
		if (strlen(*f) >= sizeof w->str[i])
			return pq_diag_set(d, PQ_ETOOBIG, "server process: a setting of %zu bytes is too long to pass on",
					   strlen(*f));
		snprintf(w->str[i], sizeof w->str[i], "%s", *f);
		w->has |= 1u << i;
		*f = NULL;
	}
	return 0;
}

static void wire_unpack(wire_cfg *w)
{
	for (int i = 0; i < W_NSTR; i++) {
		w->str[i][sizeof w->str[i] - 1] = '\0';
		*wire_field(&w->cfg, i) = (w->has >> i) & 1 ? w->str[i] : NULL;
	}
}

static void crash(char how)
{
	if (how == 'a')
		abort();
	volatile int *volatile nowhere = NULL;
	*nowhere = 1; /* a real SIGSEGV, as a bug in the server would raise */
}

/* Every descriptor the child inherited but its pipes and stdio: the sweep's database and
 * its lock (a killed sweep's lock must end with it, not with its server a moment later),
 * the link's TUN devices, the namespaces. */
static void close_inherited(int ctl, int res)
{
	unsigned keep[2] = {(unsigned)(ctl < res ? ctl : res), (unsigned)(ctl < res ? res : ctl)}, from = 3;
	for (int i = 0; i < 2; i++) {
		if (keep[i] > from)
			close_range(from, keep[i] - 1, 0);
		if (keep[i] + 1 > from)
			from = keep[i] + 1;
	}
	close_range(from, ~0u, 0);
}

/* The child: serve until told to stop (or until the parent is gone), report, _exit. */
__attribute__((noreturn)) static void child(const pq_server_config *cfg, int ctl, int res)
{
	pq_server *srv = NULL;
	pq_diag d;
	start_msg m;
	memset(&m, 0, sizeof m);
	signal(SIGINT, SIG_IGN); /* Ctrl-C is the sweep's to handle: it stops us in turn */
	/* A crash ends this process, whatever handler the sweep's process had for it (a test
	 * framework's that would jump back into the test): the parent reads the signal from
	 * the wait status. (ASan keeps its own SEGV handler: there a wild access is its
	 * report and exit status 1, also a dead server to the parent.) */
	static const int fatal[] = {SIGTERM, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
		signal(fatal[i], SIG_DFL);
	pq_diag_clear(&d);
	m.rc = pq_server_new(cfg, &srv, &d);
	if (m.rc == 0 && (m.rc = pq_server_start(srv, &d)) == 0)
		m.port = pq_server_port(srv);
	snprintf(m.msg, sizeof m.msg, "%s", pq_diag_msg(&d));
	if (write_all(res, &m, sizeof m) < 0 || m.rc < 0)
		_exit(1);
	char c = 0;
	while (read(ctl, &c, 1) < 0 && errno == EINTR)
		;
	if (c == 'a' || c == 's')
		crash(c);
	pq_server_stop(srv);
	pq_server_wait(srv);
	stop_msg out;
	memset(&out, 0, sizeof out);
	out.st = *pq_server_get_stats(srv);
	out.cpu_ns = pq_proc_cpu_ns(RUSAGE_SELF);
	_exit(write_all(res, &out, sizeof out) < 0);
}

void pq_exp_srv_exec_main(int ctl, int res)
{
	static wire_cfg w; /* large: not on the stack */
	prctl(PR_SET_NAME, "pqtls", 0, 0, 0); /* exec'd as /proc/self/exe, it would be `exe` */
	if (read_all(ctl, &w, sizeof w, START_NS) < 0)
		_exit(1);
	if (w.size != sizeof w) {
		start_msg m = {.rc = PQ_EMISMATCH};
		snprintf(m.msg, sizeof m.msg, "the server program is not the sweep's (replaced while it ran?)");
		_exit(write_all(res, &m, sizeof m) < 0 ? 1 : 1);
	}
	wire_unpack(&w);
	child(&w.cfg, ctl, res);
}

/* The exec'd server's pipes, at fixed numbers: nothing else of ours above stderr. */
#define CHILD_CTL_FD 3
#define CHILD_RES_FD 4
#define CHILD_STR(n) #n
#define CHILD_ARG(n) CHILD_STR(n)

/* Starts exe as a cell's server with ctl and res on CHILD_CTL_FD and CHILD_RES_FD: 0 or
 * the errno value. Spawned, not forked: posix_spawn's child shares this process's memory
 * until it execs, so nothing of it is copied. The process a server is started from is a
 * sweep's worker, whose link forwarder and client run as its threads; a fork write-
 * protected every page they use, and each then took a fault on its next write to each
 * page (docs/sweep.md, "What a cell costs besides its connections"). The child is the
 * calling thread's: its namespace and CPUs, as a fork's was. */
static int spawn_server(const char *exe, char *const argv[], int ctl, int res, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	int e = posix_spawn_file_actions_init(&fa);
	if (e)
		return e;
	/* copies above both targets first, so that neither dup2 overwrites the other's source */
	int c = fcntl(ctl, F_DUPFD_CLOEXEC, CHILD_RES_FD + 1), r = c < 0 ? -1 : fcntl(res, F_DUPFD_CLOEXEC, CHILD_RES_FD + 1);
	if (c < 0 || r < 0)
		e = errno;
	if (!e && !(e = posix_spawn_file_actions_adddup2(&fa, c, CHILD_CTL_FD)) &&
	    !(e = posix_spawn_file_actions_adddup2(&fa, r, CHILD_RES_FD)) &&
	    !(e = posix_spawn_file_actions_addclosefrom_np(&fa, CHILD_RES_FD + 1)))
		e = posix_spawn(pid, exe, &fa, NULL, argv, environ);
	if (c >= 0)
		close(c);
	if (r >= 0)
		close(r);
	posix_spawn_file_actions_destroy(&fa);
	return e;
}

int pq_exp_srv_start(pq_exp_srv *s, const pq_server_config *cfg, const char *exe, pq_diag *d)
{
	int ctl[2], res[2];
	static wire_cfg w; /* one cell's server at a time per process */
	memset(s, 0, sizeof *s);
	if (exe && wire_pack(cfg, &w, d) < 0)
		return PQ_ETOOBIG;
	s->ctl = s->res = -1;
	if (pipe2(ctl, O_CLOEXEC) < 0)
		return pq_diag_set(d, -errno, "server process: pipe: %s", strerror(errno));
	if (pipe2(res, O_CLOEXEC) < 0) {
		int e = errno;
		close(ctl[0]);
		close(ctl[1]);
		return pq_diag_set(d, -e, "server process: pipe: %s", strerror(e));
	}
	pid_t pid = -1;
	int e = 0;
	if (exe) {
		char *argv[] = {"pqtls", (char *)PQ_EXP_SRV_EXEC_ARG, CHILD_ARG(CHILD_CTL_FD), CHILD_ARG(CHILD_RES_FD), NULL};
		e = spawn_server(exe, argv, ctl[0], res[1], &pid);
	} else if ((pid = fork()) == 0) {
		/* the unit tests' in-process server: the child serves from this image */
		close(ctl[1]);
		close(res[0]);
		close_inherited(ctl[0], res[1]);
		child(cfg, ctl[0], res[1]);
	} else if (pid < 0) {
		e = errno;
	}
	close(ctl[0]);
	close(res[1]);
	s->ctl = ctl[1];
	s->res = res[0];
	if (e) {
		close(s->ctl);
		close(s->res);
		s->ctl = s->res = -1;
		return pq_diag_set(d, -e, "server process: cannot start %s: %s", exe ? exe : "(fork)", strerror(e));
	}
	s->pid = pid;
	if (exe && write_all(s->ctl, &w, sizeof w) < 0) {
		pq_server_stats none;
		int64_t cpu;
		int rc = pq_exp_srv_finish(s, &none, &cpu, d);
		return rc < 0 ? rc : pq_diag_set(d, PQ_EIO, "the server process (%s) ended before it read its settings", exe);
	}
	start_msg m;
	if (read_all(s->res, &m, sizeof m, START_NS) == 0) {
		s->port = m.port;
		if (m.rc == 0)
			return 0;
		pq_server_stats none;
		int64_t cpu;
		int ended = pq_exp_srv_finish(s, &none, &cpu, NULL); /* it exits by itself: the message says why */
		(void)ended;
		m.msg[sizeof m.msg - 1] = '\0';
		return pq_diag_set(d, m.rc, "%s", m.msg);
	}
	pq_server_stats none;
	int64_t cpu;
	int rc = pq_exp_srv_finish(s, &none, &cpu, d);
	return rc < 0 ? rc : pq_diag_set(d, PQ_EIO, "the server process ended before it listened");
}

void pq_exp_srv_fault(pq_exp_srv *s, enum pq_exp_srv_fault f)
{
	char c = f == PQ_EXP_SRV_FAULT_ABORT ? 'a' : 's';
	if (s->pid > 0 && f != PQ_EXP_SRV_FAULT_NONE && write_all(s->ctl, &c, 1) < 0)
		kill(s->pid, SIGKILL); /* no pipe: dead all the same */
}

int pq_exp_srv_finish(pq_exp_srv *s, pq_server_stats *st, int64_t *cpu_ns, pq_diag *d)
{
	int rc = 0, status = 0;
	stop_msg m;
	memset(&m, 0, sizeof m);
	memset(st, 0, sizeof *st);
	*cpu_ns = 0;
	if (s->pid <= 0)
		return 0;
	char q = 'q';
	int got = write_all(s->ctl, &q, 1) == 0 && read_all(s->res, &m, sizeof m, STOP_NS) == 0;
	if (!pq_child_wait(s->pid, &status, got ? STOP_NS : GRACE_NS, NULL)) {
		pq_child_stop(s->pid, GRACE_NS);
		got = 0;
		status = 0;
	}
	if (got && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		*st = m.st;
		*cpu_ns = m.cpu_ns;
	} else {
		char how[160];
		if (status)
			pq_child_describe_status(status, how, sizeof how);
		else
			snprintf(how, sizeof how, "it did not answer within %d s and was killed",
				 (int)(STOP_NS / PQ_NS_PER_S));
		rc = pq_diag_set(d, PQ_EIO, "the server died: %s", how);
	}
	close(s->ctl);
	close(s->res);
	s->ctl = s->res = -1;
	s->pid = 0;
	return rc;
}
