/* Headless Chromium, one browser per measured connection (load/chromium.h). */
#include "load/chromium.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/child.h"
#include "core/clock.h"
#include "load/cdp.h"
#include "load/netlog.h"
#include "pki/dir.h"

/* The largest NetLog read: a cold navigation's log is about 0.5 MB. */
#define NETLOG_MAX (64u << 20)

static int on_path(const char *name, char *path, size_t n)
{
	const char *p = getenv("PATH");
	char dir[1024];
	while (p && *p) {
		size_t k = strcspn(p, ":");
		snprintf(dir, sizeof dir, "%.*s", (int)k, p);
		if ((size_t)snprintf(path, n, "%s/%s", dir[0] ? dir : ".", name) < n && access(path, X_OK) == 0)
			return 1;
		p += k + (p[k] == ':');
	}
	return 0;
}

int pq_chromium_find(char *path, size_t n, pq_diag *d)
{
	const char *env = getenv("PQTLS_CHROMIUM");
	if (env && env[0]) {
		if (access(env, X_OK) == 0 && (size_t)snprintf(path, n, "%s", env) < n)
			return 0;
		return pq_diag_set(d, PQ_EUNSUPPORTED,
				   "client = chromium: PQTLS_CHROMIUM is '%s', which is not an executable file", env);
	}
	if (on_path("chromium", path, n) || on_path("chromium-browser", path, n))
		return 0;
	return pq_diag_set(d, PQ_EUNSUPPORTED,
			   "client = chromium: no Chromium found (looked for chromium and chromium-browser on PATH; set "
			   "PQTLS_CHROMIUM to the browser, or install Debian's chromium: scripts/deps.sh)");
}

/* Runs argv with stdout into buf (n bytes, NUL-ended) and stderr to /dev/null; its exit
 * status, or -1 when it could not be run or did not end within timeout_ns. */
static int run_capture(char *const argv[], char *buf, size_t n, int64_t timeout_ns)
{
	int fd[2], status = -1;
	buf[0] = '\0';
	if (pipe(fd) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		dup2(fd[1], 1);
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, 2);
		close(fd[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	size_t len = 0;
	ssize_t k;
	while (pid > 0 && len + 1 < n && (k = read(fd[0], buf + len, n - 1 - len)) > 0)
		len += (size_t)k;
	buf[len] = '\0';
	close(fd[0]);
	if (pid > 0 && !pq_child_wait(pid, &status, timeout_ns, NULL))
		status = -1;
	if (pid > 0)
		pq_child_stop_group(pid, 0);
	return status;
}

int pq_chromium_version(const char *exe, char *buf, size_t n, pq_diag *d)
{
	char out[256];
	char *argv[] = {(char *)exe, "--version", NULL};
	int st = run_capture(argv, out, sizeof out, 20 * (int64_t)1000000000);
	/* "Chromium 156.0.8078.114 built on Debian GNU/Linux 12 (bookworm)" */
	const char *v = strpbrk(out, "0123456789");
	if (st != 0 || !v)
		return pq_diag_set(d, PQ_ECHILD, "client = chromium: '%s --version' did not say its version (%s)", exe,
				   st < 0 ? "it did not run or end" : out[0] ? out : "nothing printed");
	snprintf(buf, n, "%.*s", (int)strcspn(v, " \n"), v);
	return 0;
}

static int read_file(const char *path, char **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	size_t n = 0, cap = 0;
	int rc = f ? 0 : -errno;
	while (rc == 0) {
		if (n + 65536 + 1 > cap) {
			char *nb = cap + 65536 > NETLOG_MAX ? NULL : realloc(b, cap + 65536 * 4 + 1);
			if (!nb) {
				rc = PQ_ETOOBIG;
				break;
			}
			b = nb, cap += 65536 * 4;
		}
		size_t k = fread(b + n, 1, 65536, f);
		n += k;
		if (k == 0)
			break;
	}
	if (f)
		fclose(f);
	if (rc < 0) {
		free(b);
		return rc;
	}
	*out = b, *len = n;
	return 0;
}

/* The browser's argument list; every string outlives the child. */
static void args(const pq_chromium_nav *nav, const char *prof, const char *log, char *argv[], size_t n)
{
	static char pflag[600], lflag[600], rule[400];
	int ip = (int)strcspn(nav->addr, ":");
	snprintf(rule, sizeof rule, "--host-resolver-rules=MAP %s %.*s, MAP " PQ_CHROMIUM_WARM_HOST " %.*s",
		 nav->host ? nav->host : "pqtls.invalid", ip, nav->addr, ip, nav->addr);
	snprintf(pflag, sizeof pflag, "--user-data-dir=%s", prof);
	snprintf(lflag, sizeof lflag, "--log-net-log=%s", log);
	const char *a[] = {nav->exe, "--headless", "--no-sandbox", pflag, lflag, "--net-log-capture-mode=Everything",
			   "--ignore-certificate-errors", "--disable-background-networking", "--disable-component-update",
			   "--disable-sync", "--disable-default-apps", "--disable-extensions", "--no-first-run",
			   "--no-default-browser-check", "--disable-gpu", "--disable-breakpad", "--disable-crash-reporter", "--disable-quic", "--disk-cache-size=1",
			   "--disable-features=NetworkPrediction,NetworkServiceInProcess2,OptimizationHints,"
			   "MediaRouter,Translate",
			   rule, "--dump-dom", nav->url, NULL};
	if (nav->state != PQ_BROWSER_COLD) { /* driven through its pipe, from about:blank */
		a[sizeof a / sizeof a[0] - 3] = "--remote-debugging-pipe";
		a[sizeof a / sizeof a[0] - 2] = NULL;
	}
	size_t k = 0;
	for (; a[k] && k + 1 < n; k++)
		argv[k] = (char *)a[k];
	argv[k] = NULL;
}

extern char **environ;

/* The environment with HOME and the XDG directories in dir: the browser's crash handler
 * (a daemon in a session of its own) and its caches name dir, so reap() finds them, and
 * nothing is written into the user's home. NULL when out of memory. */
static char **browser_env(const char *dir)
{
	static char home[128], config[140], cache[140];
	size_t n = 0, k = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 4, sizeof *env);
	if (!env)
		return NULL;
	snprintf(home, sizeof home, "HOME=%s", dir);
	snprintf(config, sizeof config, "XDG_CONFIG_HOME=%s/config", dir);
	snprintf(cache, sizeof cache, "XDG_CACHE_HOME=%s/cache", dir);
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "HOME=", 5) != 0 && strncmp(environ[i], "XDG_CONFIG_HOME=", 16) != 0 &&
		    strncmp(environ[i], "XDG_CACHE_HOME=", 15) != 0)
			env[k++] = environ[i];
	env[k++] = home, env[k++] = config, env[k++] = cache;
	return env;
}

/* Every process whose command line names dir (this navigation's own directory, so only
 * processes this browser started): killed, whatever group or session it moved to. */
static void reap(const char *dir)
{
	DIR *p = opendir("/proc");
	struct dirent *e;
	char path[64], cmd[4096];
	while (p && (e = readdir(p))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof path, "/proc/%.20s/cmdline", e->d_name);
		int fd = open(path, O_RDONLY);
		ssize_t k = fd >= 0 ? read(fd, cmd, sizeof cmd - 1) : -1;
		if (fd >= 0)
			close(fd);
		for (ssize_t i = 0; i < k; i++)
			cmd[i] = cmd[i] ? cmd[i] : ' ';
		if (k > 0 && (cmd[k] = '\0', strstr(cmd, dir)))
			kill((pid_t)atoi(e->d_name), SIGKILL);
	}
	if (p)
		closedir(p);
}

/* How a driven browser's navigations went. */
typedef struct pq_chromium_pipe {
	int rc;        /* pq_cdp_navigate's */
	size_t n, loaded;
	char why[160]; /* its message when rc < 0 */
} pq_chromium_pipe;

/* The DevTools pipe's two ends in the child: requests on fd 3, replies on fd 4. */
static void child_pipe(const int req[2], const int rep[2])
{
	int r = fcntl(req[0], F_DUPFD, 10), w = fcntl(rep[1], F_DUPFD, 10);
	if (r < 0 || w < 0 || dup2(r, 3) < 0 || dup2(w, 4) < 0)
		_exit(125);
	close(r), close(w);
}

/* The URLs a driven browser navigates: the warm-up or first one, then the measured. */
static size_t nav_urls(const pq_chromium_nav *nav, char *warm, size_t n, const char *urls[2])
{
	const char *port = strrchr(nav->addr, ':');
	snprintf(warm, n, "https://" PQ_CHROMIUM_WARM_HOST ":%s/", port ? port + 1 : "443");
	urls[0] = nav->state == PQ_BROWSER_WARM ? warm : nav->url;
	urls[1] = nav->url;
	return 2;
}

/* The browser driven through its pipe until every URL loaded (then asked to close, and
 * waited for until the deadline) or the pipe failed (then killed at once). */
static int drive(const pq_chromium_nav *nav, pid_t pid, int wfd, int rfd, int64_t t0, int *status,
		 pq_chromium_pipe *p)
{
	char warm[300];
	const char *urls[2];
	pq_cdp_cfg c = {.wfd = wfd, .rfd = rfd, .clock = &pq_clock_mono, .deadline_ns = t0 + nav->timeout_ns};
	c.urls = urls;
	c.n = p->n = nav_urls(nav, warm, sizeof warm, urls);
	pq_diag cd = {0};
	p->rc = pq_cdp_navigate(&c, &p->loaded, &cd);
	if (p->rc < 0) {
		snprintf(p->why, sizeof p->why, "%s", pq_diag_msg(&cd));
		return p->rc == PQ_ETIMEOUT;
	}
	int64_t left = c.deadline_ns - pq_clock_now(&pq_clock_mono);
	return pq_child_wait(pid, status, left > 0 ? left : 0, NULL) ? 0 : 1;
}

/* The browser run once: 0 ended, 1 killed at the deadline; status its wait status. p:
 * NULL for a cold browser given its URL, else the pipe's outcome. */
static int run_browser(const pq_chromium_nav *nav, char *const argv[], const char *dir, const char *errlog,
		       int *status, pq_chromium_pipe *p, pq_diag *d)
{
	int req[2] = {-1, -1}, rep[2] = {-1, -1}, ended = 0;
	char **env = browser_env(dir);
	if (!env)
		return pq_diag_set(d, PQ_ENOMEM, "out of memory");
	if (p && (pipe2(req, O_CLOEXEC) < 0 || pipe2(rep, O_CLOEXEC) < 0)) {
		ended = pq_diag_set(d, -errno, "client = chromium: a pipe: %s", strerror(errno));
		goto out;
	}
	pid_t parent = getpid();
	int64_t t0 = pq_clock_now(&pq_clock_mono);
	pid_t pid = fork();
	if (pid < 0) {
		ended = pq_diag_set(d, -errno, "client = chromium: fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		/* A session of its own, so a scheduling group of its own at nice 0 (with
		 * autogroups, a new session is a new group), not the endpoints' group at -19:
		 * in that group, the browser reaping its children spun in this kernel's /proc
		 * cache for up to a minute (see docs/tls.md). Its group is its pid, as before. */
		if (setsid() < 0)
			_exit(126);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(126);
		int null = open("/dev/null", O_RDWR), err = open(errlog, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (null >= 0)
			dup2(null, 0), dup2(null, 1);
		if (err >= 0)
			dup2(err, 2);
		if (p)
			child_pipe(req, rep);
		execve(argv[0], argv, env);
		_exit(127);
	}
	if (p) {
		close(req[0]), close(rep[1]);
		req[0] = rep[1] = -1;
		ended = !drive(nav, pid, req[1], rep[0], t0, status, p);
	} else {
		ended = pq_child_wait(pid, status, nav->timeout_ns, NULL);
	}
	pq_child_stop_group(pid, 0); /* the renderer and the rest, killed with it or after it */
	reap(dir);
	ended = ended ? 0 : 1;
out:
	for (int i = 0; i < 2; i++) {
		if (req[i] >= 0)
			close(req[i]);
		if (rep[i] >= 0)
			close(rep[i]);
	}
	free(env);
	return ended;
}

/* A browser that did not end well: the record's failure, unless the log says more. A
 * browser killed at the deadline after its log had the whole response (a loaded host
 * slows its exit, not the connection) keeps the measured connection. */
static void died(pq_load_record *r, int killed, int status, const pq_chromium_nav *nav)
{
	char how[96];
	if (killed && r->err == PQ_LERR_NONE && r->t[PQ_PH_TTLB] >= 0)
		return;
	if (killed) {
		r->err = r->t[PQ_PH_HANDSHAKE] < 0 ? PQ_LERR_TIMEOUT_HANDSHAKE : PQ_LERR_TIMEOUT_TOTAL;
		snprintf(r->err_detail, sizeof r->err_detail, "the browser was killed at the %.1f s deadline",
			 (double)nav->timeout_ns / 1e9);
	} else if (r->err == PQ_LERR_NONE) {
		pq_child_describe_status(status, how, sizeof how);
		r->err = PQ_LERR_PROTOCOL;
		snprintf(r->err_detail, sizeof r->err_detail, "the browser %.80s", how);
	}
}

/* The fresh profile's preferences: no network prediction (Chromium's own switch for its
 * preconnects and prefetches; without it a navigation opens spare sockets to the origin
 * before and beside its own, and a resuming browser's second navigation may take a spare
 * the first one left idle). 0, or a negative errno. */
static int profile_prefs(const char *prof)
{
	char path[128];
	snprintf(path, sizeof path, "%s/Default", prof);
	if ((mkdir(prof, 0700) < 0 && errno != EEXIST) || (mkdir(path, 0700) < 0 && errno != EEXIST))
		return -errno;
	snprintf(path, sizeof path, "%s/Default/Preferences", prof);
	FILE *f = fopen(path, "w");
	if (!f)
		return -errno;
	int bad = fputs("{\"net\":{\"network_prediction_options\":2}}\n", f) < 0;
	return fclose(f) != 0 || bad ? -EIO : 0;
}

/* A driven browser whose pipe failed: the record's failure, unless the measured
 * navigation was the one under way and its log has the whole response. */
static void pipe_failed(pq_load_record *r, const pq_chromium_pipe *p)
{
	int before = p->loaded + 1 < p->n; /* a warm-up or first navigation did not load */
	if (p->rc >= 0 || (!before && r->err == PQ_LERR_NONE && r->t[PQ_PH_TTLB] >= 0))
		return;
	if (!before && r->err != PQ_LERR_NONE && p->rc != PQ_ETIMEOUT)
		return; /* the log's reason is the measured connection's own */
	r->err = p->rc != PQ_ETIMEOUT		? PQ_LERR_PROTOCOL
		 : r->t[PQ_PH_HANDSHAKE] < 0 ? PQ_LERR_TIMEOUT_HANDSHAKE
					      : PQ_LERR_TIMEOUT_TOTAL;
	snprintf(r->err_detail, sizeof r->err_detail, "%.95s", p->why); /* it names the URL */
}

/* Where a navigation's directory goes, in order: a tmpfs, where the fresh profile's two
 * hundred files are written and removed without a journal (on this VM's ext4 /tmp their
 * removal took 0.2-0.5 s a navigation, against 2-3 ms on /dev/shm; the browser's start
 * no slower), when it has room for a profile and its NetLog (a few MB) beside the
 * browser's own shared memory (a container's /dev/shm may be 64 MB); else /tmp. */
#define SHM_MIN_FREE (256ull << 20)

static size_t nav_parents(const char **p)
{
	struct statvfs v;
	size_t n = 0;
	if (statvfs("/dev/shm", &v) == 0 && (uint64_t)v.f_bavail * v.f_frsize >= SHM_MIN_FREE)
		p[n++] = "/dev/shm";
	p[n++] = "/tmp";
	return n;
}

int pq_chromium_nav_dir(char *dir, size_t n, const char *const *parents, size_t np, pq_diag *d)
{
	int rc = pq_diag_set(d, PQ_EINVAL, "client = chromium: no directory to make a profile in");
	char tried[200] = "";
	if (!n)
		return rc;
	for (size_t i = 0; i < np; i++) {
		if ((size_t)snprintf(dir, n, "%s/pqtls-chromium-XXXXXX", parents[i]) >= n) {
			rc = pq_diag_set(d, PQ_ERANGE, "client = chromium: a profile directory in %s: the path is longer than %zu bytes",
					 parents[i], n - 1);
		} else if (mkdtemp(dir)) {
			return 0;
		} else {
			size_t k = strlen(tried);
			snprintf(tried + k, sizeof tried - k, "%s%s", k ? " or " : "", parents[i]);
			rc = pq_diag_set(d, -errno, "client = chromium: a profile directory in %s: %s", tried, strerror(errno));
		}
	}
	dir[0] = '\0';
	return rc;
}

int pq_chromium_navigate(const pq_chromium_nav *nav, pq_load_record *r, pq_diag *d)
{
	char dir[40], prof[64], log[64], errlog[64], ver[64];
	char *argv[32], *buf = NULL;
	size_t len = 0;
	int status = 0, rc;
	pq_chromium_pipe pipe = {0};
	const char *parents[2];
	if ((rc = pq_chromium_nav_dir(dir, sizeof dir, parents, nav_parents(parents), d)) < 0)
		return rc;
	snprintf(prof, sizeof prof, "%s/profile", dir);
	snprintf(log, sizeof log, "%s/netlog.json", dir);
	snprintf(errlog, sizeof errlog, "%s/stderr", dir);
	args(nav, prof, log, argv, sizeof argv / sizeof argv[0]);
	if ((rc = profile_prefs(prof)) < 0) {
		rc = pq_diag_set(d, rc, "client = chromium: the profile's preferences in %s: %s", prof, pq_strerror(rc));
		goto out;
	}
	int killed = run_browser(nav, argv, dir, errlog, &status, nav->state != PQ_BROWSER_COLD ? &pipe : NULL, d);
	if ((rc = killed) < 0)
		goto out;
	if ((rc = read_file(log, &buf, &len)) < 0) {
		memset(r, 0, sizeof *r);
		for (int p = 0; p < PQ_PH_COUNT; p++)
			r->t[p] = -1;
		r->browser = 1, r->wait_ns = -1;
		r->br_flight_ns = r->br_verify_ns = r->br_req_net_ns = r->br_ttfb_net_ns = -1;
		r->err = PQ_LERR_CONNECT;
		snprintf(r->err_detail, sizeof r->err_detail, "the browser left no NetLog (%s)", pq_strerror(rc));
		rc = 0;
		died(r, killed, status, nav);
		pipe_failed(r, &pipe);
		goto out;
	}
	pq_netlog_target t = {.url = nav->url, .addr = nav->addr, .mss = nav->mss};
	pq_diag pd;
	if (pq_netlog_read(buf, len, &t, r, ver, sizeof ver, &pd) < 0) {
		r->err = PQ_LERR_PROTOCOL;
		snprintf(r->err_detail, sizeof r->err_detail, "%.95s", pq_diag_msg(&pd));
	}
	if (killed || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		died(r, killed, status, nav);
	pipe_failed(r, &pipe); /* the pipe says where it stopped */
out:
	free(buf);
	pq_pki_dir_remove(dir);
	return rc;
}
