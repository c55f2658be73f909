#include "net/ns.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static void ns_path(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", PQ_NS_DIR, name);
}

/* As `ip netns add` does: /run/netns is a shared mount, so namespaces mounted there
 * stay visible to tools that run in their own mount namespace. */
static int ensure_dir(pq_diag *d)
{
	if (mkdir(PQ_NS_DIR, 0755) && errno != EEXIST)
		return pq_diag_set(d, -errno, "cannot create %s: %s", PQ_NS_DIR, strerror(errno));
	if (mount("", PQ_NS_DIR, "none", MS_SHARED | MS_REC, NULL) == 0)
		return 0;
	if (errno != EINVAL)
		return pq_diag_set(d, -errno, "cannot make %s a shared mount: %s", PQ_NS_DIR, strerror(errno));
	if (mount(PQ_NS_DIR, PQ_NS_DIR, "none", MS_BIND | MS_REC, NULL) ||
	    mount("", PQ_NS_DIR, "none", MS_SHARED | MS_REC, NULL))
		return pq_diag_set(d, -errno, "cannot bind-mount %s: %s", PQ_NS_DIR, strerror(errno));
	return 0;
}

int pq_ns_enter(int fd, int *saved, pq_diag *d)
{
	*saved = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (*saved < 0)
		return pq_diag_set(d, -errno, "cannot open this thread's network namespace: %s",
				   strerror(errno));
	if (setns(fd, CLONE_NEWNET)) {
		int e = errno;
		close(*saved);
		*saved = -1;
		return pq_diag_set(d, -e, "cannot enter a network namespace (setns): %s", strerror(e));
	}
	return 0;
}

void pq_ns_leave(int saved)
{
	if (saved < 0)
		return;
	/* Failing to return would leave this thread inside the link: nothing sane can
	 * continue from there. */
	if (setns(saved, CLONE_NEWNET)) {
		perror("pqtls: cannot return to the original network namespace");
		abort();
	}
	close(saved);
}

int pq_ns_create(const char *name, pq_diag *d)
{
	char path[256];
	int rc = ensure_dir(d), saved = -1, fd = -1;
	if (rc)
		return rc;
	ns_path(path, sizeof path, name);
	fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (fd < 0)
		return pq_diag_set(d, errno == EEXIST ? PQ_EEXIST : -errno, "cannot create %s: %s", path,
				   strerror(errno));
	close(fd);
	saved = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (saved < 0) {
		rc = pq_diag_set(d, -errno, "cannot open this thread's network namespace: %s", strerror(errno));
		goto out;
	}
	if (unshare(CLONE_NEWNET)) {
		rc = pq_diag_set(d, -errno, "cannot create a network namespace (unshare): %s%s",
				 strerror(errno), errno == EPERM ? "; this needs CAP_SYS_ADMIN (root)" : "");
		goto out;
	}
	if (mount("/proc/thread-self/ns/net", path, "none", MS_BIND, NULL))
		rc = pq_diag_set(d, -errno, "cannot bind-mount the namespace on %s: %s", path, strerror(errno));
	pq_ns_leave(saved);
	saved = -1;
out:
	if (saved >= 0)
		close(saved);
	if (rc)
		unlink(path);
	return rc;
}

int pq_ns_open(const char *name, int *fd, pq_diag *d)
{
	char path[256];
	ns_path(path, sizeof path, name);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return pq_diag_set(d, -errno, "cannot open namespace %s: %s", path, strerror(errno));
	return 0;
}

int pq_ns_open_file(int fd, const char *path, int flags, int *out, pq_diag *d)
{
	int saved, rc = pq_ns_enter(fd, &saved, d);
	if (rc)
		return rc;
	*out = open(path, flags | O_CLOEXEC);
	if (*out < 0)
		rc = pq_diag_set(d, -errno, "cannot open %s inside the link: %s", path, strerror(errno));
	pq_ns_leave(saved);
	return rc;
}

/* Kills every process whose network namespace is the one mounted at `path`. */
static int kill_inside(const char *path)
{
	struct stat ns;
	if (stat(path, &ns))
		return 0;
	DIR *dir = opendir("/proc");
	if (!dir)
		return -errno;
	int killed = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || pid == getpid())
			continue;
		char p[64];
		struct stat st;
		snprintf(p, sizeof p, "/proc/%ld/ns/net", pid);
		if (stat(p, &st) == 0 && st.st_ino == ns.st_ino && st.st_dev == ns.st_dev &&
		    kill((pid_t)pid, SIGKILL) == 0)
			killed++;
	}
	closedir(dir);
	return killed;
}

int pq_ns_remove(const char *name)
{
	char path[256];
	ns_path(path, sizeof path, name);
	int killed = kill_inside(path);
	umount2(path, MNT_DETACH);
	if (unlink(path) && errno != ENOENT)
		return -errno;
	return killed;
}

int pq_ns_parse_name(const char *name, pid_t *pid, unsigned *n, char *side)
{
	int ipid, len = 0;
	unsigned in;
	char s;
	if (sscanf(name, PQ_NS_PREFIX "%d-%u-%c%n", &ipid, &in, &s, &len) != 3 || name[len] != '\0' ||
	    ipid <= 0 || (s != 'c' && s != 's'))
		return PQ_EINVAL;
	*pid = ipid;
	*n = in;
	*side = s;
	return 0;
}

int pq_ns_owner_alive(pid_t pid)
{
	if (kill(pid, 0) != 0 && errno == ESRCH)
		return 0;
	/* An owner that died while orphaned can stay a zombie when nobody reaps it. */
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 1;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *paren = strrchr(buf, ')');
	return !(paren && paren[1] == ' ' && paren[2] == 'Z');
}

int pq_ns_sweep(FILE *log)
{
	DIR *dir = opendir(PQ_NS_DIR);
	if (!dir)
		return 0;
	int removed = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		pid_t pid;
		unsigned n;
		char side;
		if (pq_ns_parse_name(e->d_name, &pid, &n, &side))
			continue;
		if (pq_ns_owner_alive(pid))
			continue;
		int killed = pq_ns_remove(e->d_name);
		removed++;
		if (log)
			fprintf(log, "pqtls link: removed namespace %s left by pid %d, which is no longer running"
				" (%d process%s inside killed)\n", e->d_name, (int)pid, killed > 0 ? killed : 0,
				killed == 1 ? "" : "es");
	}
	closedir(dir);
	return removed;
}

int pq_ns_names(pq_ns_name **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	DIR *dir = opendir(PQ_NS_DIR);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	size_t cap = 0;
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		size_t len = strlen(e->d_name);
		if (strncmp(e->d_name, PQ_NS_PREFIX, strlen(PQ_NS_PREFIX)) != 0 ||
		    len >= sizeof(pq_ns_name))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			pq_ns_name *grown = realloc(*out, cap * sizeof **out);
			if (!grown) {
				rc = -ENOMEM;
				break;
			}
			*out = grown;
		}
		memcpy((*out)[(*n)++], e->d_name, len + 1);
	}
	closedir(dir);
	if (rc) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}
