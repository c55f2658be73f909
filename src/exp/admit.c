#include "exp/admit.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exp/jobs.h"

#define MAGIC "pqtls-cells v2\n"
#define CLAIM (-1) /* a slot's tag: a claim, not a cell in flight */

/* One slot, written alone (pwrite of its 40 bytes) so that a writer killed mid-way can
 * spoil no other process's slot. pid 0: free. */
typedef struct slot {
	int32_t pid;
	int32_t tag;
	uint32_t limit;
	uint32_t pad;
	double share;
	int64_t since_ns;
	int64_t end_ns; /* a cell's expected end (its start plus its time alone); a claim's 0 */
} slot;

#define HDR 16
#define FILE_SIZE ((off_t)HDR + (off_t)PQ_EXP_ADMIT_SLOTS * (off_t)sizeof(slot))

struct pq_exp_admit {
	int fd;
	char path[300];
	int32_t pid;
	int64_t blocked_ns; /* since when the next cell is kept out by other sweeps' (0: it is not) */
	slot s[PQ_EXP_ADMIT_SLOTS];
};

static int lock(pq_exp_admit *a)
{
	while (flock(a->fd, LOCK_EX) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

static void unlock(pq_exp_admit *a)
{
	(void)flock(a->fd, LOCK_UN);
}

static int put(pq_exp_admit *a, size_t i)
{
	off_t at = HDR + (off_t)(i * sizeof(slot));
	ssize_t w = pwrite(a->fd, &a->s[i], sizeof(slot), at);
	return w == (ssize_t)sizeof(slot) ? 0 : w < 0 ? -errno : PQ_EIO;
}

/* A process that exists and has not ended: one killed but not yet reaped (a zombie,
 * state Z in /proc) is gone for the table. */
static int alive(int32_t pid)
{
	if (pid <= 0 || (kill(pid, 0) < 0 && errno != EPERM))
		return 0;
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	const char *p = strrchr(buf, ')');
	return !(p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'));
}

/* Reads every slot (locked), dropping those of processes that are gone. */
static int load(pq_exp_admit *a)
{
	ssize_t r = pread(a->fd, a->s, sizeof a->s, HDR);
	if (r != (ssize_t)sizeof a->s)
		return r < 0 ? -errno : PQ_EIO;
	int32_t seen = 0; /* a sweep's slots come in runs: its pid asked once a run */
	int live = 1;
	for (size_t i = 0; i < PQ_EXP_ADMIT_SLOTS; i++) {
		int32_t pid = a->s[i].pid;
		if (!pid || pid == a->pid)
			continue;
		if (pid != seen) {
			seen = pid;
			live = alive(pid);
		}
		if (!live) {
			memset(&a->s[i], 0, sizeof(slot));
			int rc = put(a, i);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

/* This process's slot with `tag`, else -1. */
static long find(const pq_exp_admit *a, int tag)
{
	for (size_t i = 0; i < PQ_EXP_ADMIT_SLOTS; i++)
		if (a->s[i].pid == a->pid && a->s[i].tag == tag)
			return (long)i;
	return -1;
}

static long free_slot(const pq_exp_admit *a)
{
	for (size_t i = 0; i < PQ_EXP_ADMIT_SLOTS; i++)
		if (!a->s[i].pid)
			return (long)i;
	return -1;
}

/* A claim x is earlier than y: by its time, then by pid. */
static int earlier(const slot *x, const slot *y)
{
	return x->since_ns != y->since_ns ? x->since_ns < y->since_ns : x->pid < y->pid;
}

static int quiet(double share)
{
	return share >= 0 && share <= PQ_EXP_ADMIT_QUIET_SHARE;
}

static void others(const pq_exp_admit *a, pq_exp_admit_load *o)
{
	long mine = find(a, CLAIM);
	*o = (pq_exp_admit_load){.min_limit = SIZE_MAX};
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < PQ_EXP_ADMIT_SLOTS; i++) {
			const slot *s = &a->s[i];
			if (!s->pid || s->pid == a->pid)
				continue;
			if (s->tag == CLAIM && mine >= 0 && !earlier(s, &a->s[mine]))
				continue;
			/* quiet cells count for the CPU alone while they are few; claims are
			 * never quiet, they hold room */
			if (s->tag != CLAIM && quiet(s->share) && pass == 0) {
				o->quiet += s->share;
				o->used += s->share;
				continue;
			}
			if (pass == 1 && !(s->tag != CLAIM && quiet(s->share)))
				continue;
			if (pass == 0)
				o->used += s->share;
			if (s->end_ns > o->ends_ns)
				o->ends_ns = s->end_ns;
			o->n++;
			if (s->limit < o->min_limit)
				o->min_limit = s->limit;
		}
		if (o->quiet <= PQ_EXP_ADMIT_QUIET_TOTAL)
			break;
		o->quiet = 0; /* too many to be quiet: the second pass counts them as any */
	}
}

int pq_exp_admit_fits(const pq_exp_admit_load *mine, const pq_exp_admit_load *o, const pq_exp_admit_cell *c,
		      double budget)
{
	/* a quiet cell needs room in its own sweep's limits only */
	int q = c->tag != CLAIM && quiet(c->share) && o->quiet + c->share <= PQ_EXP_ADMIT_QUIET_TOTAL;
	size_t n = mine->n + (q ? 0 : o->n), m = c->limit;
	if (mine->min_limit < m)
		m = mine->min_limit;
	if (!q && o->min_limit < m)
		m = o->min_limit;
	return n + 1 <= m && pq_exp_jobs_cpu_fits(mine->used + o->used, mine->n + o->n, c->share, budget);
}

/* The CPUs this process may run on as ranges ("0-1", "0,2-3"); a list too long for buf
 * as a hash of it ("h" and 16 hex digits); "all" when the mask cannot be read. */
static void cpu_list(char *buf, size_t n)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) < 0) {
		snprintf(buf, n, "all");
		return;
	}
	size_t len = 0;
	uint64_t h = 1469598103934665603ULL; /* FNV-1a over the CPUs' numbers */
	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		int e = c;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set))
			e++;
		h = (h ^ (uint64_t)c) * 1099511628211ULL;
		h = (h ^ (uint64_t)e) * 1099511628211ULL;
		int w = e > c ? snprintf(buf + len, len < n ? n - len : 0, "%s%d-%d", len ? "," : "", c, e)
			      : snprintf(buf + len, len < n ? n - len : 0, "%s%d", len ? "," : "", c);
		len += w > 0 ? (size_t)w : 0;
		c = e;
	}
	if (len >= n)
		snprintf(buf, n, "h%016llx", (unsigned long long)h);
}

int pq_exp_admit_open(pq_exp_admit **out, const char *dir, char *path, size_t n, pq_diag *d)
{
	*out = NULL;
	if (!dir || !dir[0]) {
		const char *env = getenv("PQTLS_RUN_DIR");
		dir = env && env[0] ? env : PQ_EXP_ADMIT_DIR;
	}
	char cpus[64];
	cpu_list(cpus, sizeof cpus);
	snprintf(path, n, "%s/%s-%s", dir, PQ_EXP_ADMIT_FILE, cpus);
	pq_exp_admit *a = calloc(1, sizeof *a);
	if (!a)
		return pq_diag_set(d, PQ_ENOMEM, "out of memory");
	a->fd = -1;
	a->pid = (int32_t)getpid();
	int rc = 0;
	char hdr[HDR];
	struct stat st;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		rc = pq_diag_set(d, -errno, "%s: cannot create the directory: %s", dir, strerror(errno));
		goto out;
	}
	if ((a->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
		rc = pq_diag_set(d, -errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	if ((rc = lock(a)) < 0) {
		rc = pq_diag_set(d, rc, "%s: lock: %s", path, pq_strerror(rc));
		goto out;
	}
	/* A new table, or one of another layout: started afresh (its sweeps, if any, are of
	 * another pqtls and cannot be read). */
	if (fstat(a->fd, &st) < 0 || st.st_size != FILE_SIZE || pread(a->fd, hdr, HDR, 0) != HDR ||
	    memcmp(hdr, MAGIC, sizeof MAGIC - 1) != 0) {
		memset(hdr, 0, sizeof hdr);
		memcpy(hdr, MAGIC, sizeof MAGIC - 1);
		errno = 0;
		if (ftruncate(a->fd, 0) < 0 || ftruncate(a->fd, FILE_SIZE) < 0 || pwrite(a->fd, hdr, HDR, 0) != HDR)
			rc = errno ? -errno : PQ_EIO;
	}
	/* Slots under this pid are a dead process's that had it before */
	if (rc == 0)
		rc = load(a);
	for (size_t k = 0; rc == 0 && k < PQ_EXP_ADMIT_SLOTS; k++)
		if (a->s[k].pid == a->pid) {
			memset(&a->s[k], 0, sizeof(slot));
			rc = put(a, k);
		}
	unlock(a);
	if (rc < 0)
		rc = pq_diag_set(d, rc, "%s: %s", path, pq_strerror(rc));
out:
	if (rc < 0) {
		if (a->fd >= 0)
			close(a->fd);
		free(a);
		return rc;
	}
	snprintf(a->path, sizeof a->path, "%s", path);
	*out = a;
	return 0;
}

pq_exp_admit *pq_exp_admit_join(FILE *log)
{
	pq_exp_admit *a = NULL;
	char path[300];
	pq_diag d;
	if (pq_exp_admit_open(&a, NULL, path, sizeof path, &d) < 0 && log)
		fprintf(log, "jobs: other sweeps' cells on this machine are not seen (%s)\n", pq_diag_msg(&d));
	return a;
}

const char *pq_exp_admit_path(const pq_exp_admit *a)
{
	return a->path;
}

void pq_exp_admit_close(pq_exp_admit *a)
{
	if (!a)
		return;
	if (lock(a) == 0) {
		for (size_t i = 0; i < PQ_EXP_ADMIT_SLOTS; i++)
			if (a->s[i].pid == a->pid) {
				memset(&a->s[i], 0, sizeof(slot));
				(void)put(a, i);
			}
		unlock(a);
	}
	close(a->fd);
	free(a);
}

int pq_exp_admit_take(pq_exp_admit *a, const pq_exp_admit_load *mine, const pq_exp_admit_cell *c, double budget,
		      int64_t now_ns)
{
	static const pq_exp_admit_load none = {.min_limit = SIZE_MAX};
	if (!pq_exp_admit_fits(mine, &none, c, budget))
		return 0;
	int rc = lock(a);
	if (rc < 0)
		return rc;
	if ((rc = load(a)) < 0)
		goto out;
	pq_exp_admit_load o;
	others(a, &o);
	long claim = find(a, CLAIM);
	if (pq_exp_admit_fits(mine, &o, c, budget)) {
		long i = claim >= 0 ? claim : free_slot(a);
		if (i < 0) {
			rc = PQ_ETOOBIG; /* a machine with hundreds of cells in flight: decide alone */
			goto out;
		}
		a->s[i] = (slot){.pid = a->pid, .tag = c->tag, .limit = (uint32_t)c->limit, .share = c->share,
				 .since_ns = now_ns, .end_ns = now_ns + (c->est_ns > 0 ? c->est_ns : 0)};
		rc = put(a, (size_t)i);
		rc = rc < 0 ? rc : 1;
		a->blocked_ns = 0;
		goto out;
	}
	if (!a->blocked_ns)
		a->blocked_ns = now_ns;
	/* claimed after the patience, and only when the cells in the way are expected to end
	 * within it: room is not held for minutes while the machine idles */
	long i = claim >= 0 ? claim : free_slot(a);
	if (i >= 0 && now_ns - a->blocked_ns >= PQ_EXP_ADMIT_PATIENCE_NS &&
	    (claim >= 0 || o.ends_ns - now_ns <= PQ_EXP_ADMIT_PATIENCE_NS)) {
		a->s[i] = (slot){.pid = a->pid, .tag = CLAIM, .limit = (uint32_t)c->limit, .share = c->share,
				 .since_ns = a->blocked_ns};
		rc = put(a, (size_t)i);
	}
out:
	unlock(a);
	return rc;
}

/* This process's slot `tag`, under the lock: dropped (clear), else its share set. */
static int update(pq_exp_admit *a, int tag, int clear, double share)
{
	int rc = lock(a);
	if (rc < 0)
		return rc;
	if ((rc = load(a)) == 0) {
		long i = find(a, tag);
		if (i >= 0) {
			if (clear)
				memset(&a->s[i], 0, sizeof(slot));
			else
				a->s[i].share = share;
			rc = put(a, (size_t)i);
		}
	}
	unlock(a);
	return rc;
}

int pq_exp_admit_done(pq_exp_admit *a, int tag)
{
	return update(a, tag, 1, 0);
}

int pq_exp_admit_share(pq_exp_admit *a, int tag, double share)
{
	return update(a, tag, 0, share);
}

int pq_exp_admit_others(pq_exp_admit *a, pq_exp_admit_load *out)
{
	int rc = lock(a);
	if (rc < 0)
		return rc;
	if ((rc = load(a)) == 0)
		others(a, out);
	unlock(a);
	return rc;
}
