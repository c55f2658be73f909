#include "core/wfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* "WHAT: " before a message, or nothing when the caller gave no name. */
#define WHAT(w) (w) ? (w) : "", (w) ? ": " : ""

/* Why a stream's earlier write failed when errno no longer says (other calls came
 * between): a pipe or socket's reader gone (EPIPE: `| head`, `| true`; pipefs always
 * reads as full, which said "No space left on device" here), else its file system
 * full, the one reason worth naming; else EIO. */
static int lost_errno(FILE *f)
{
	struct stat st;
	struct statvfs v;
	int fd = fileno(f);
	if (fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return EPIPE;
	return fstatvfs(fd, &v) == 0 && v.f_bavail == 0 ? ENOSPC : EIO;
}

static int fail(pq_diag *d, const char *what, const char *verb, const char *path, int e)
{
	if (!e)
		e = EIO;
	return pq_diag_set(d, -e, "%s%scannot %s %s: %s", WHAT(what), verb, path, strerror(e));
}

static int copy_path(char *dst, size_t n, const char *src, const char *what, pq_diag *d)
{
	if (snprintf(dst, n, "%s", src) >= (int)n)
		return pq_diag_set(d, PQ_EINVAL, "%s%sthe path is too long: %.64s...", WHAT(what),
				   src);
	return 0;
}

/* w->target: PATH itself, or the file its symbolic link leads to (the link is left a
 * link); *st says what is there (st_mode 0: nothing, or nothing reachable: creating the
 * temporary file then says why). */
static int resolve(pq_wfile *w, struct stat *st, pq_diag *d)
{
	if (lstat(w->path, st) != 0) {
		st->st_mode = 0;
		return copy_path(w->target, sizeof w->target, w->path, w->what, d);
	}
	if (!S_ISLNK(st->st_mode))
		return copy_path(w->target, sizeof w->target, w->path, w->what, d);
	_Static_assert(sizeof w->target >= PATH_MAX, "realpath writes up to PATH_MAX bytes");
	if (realpath(w->path, w->target) && stat(w->target, st) == 0)
		return 0;
	int e = errno;
	return pq_diag_set(
	    d, -e,
	    "%s%s%s is a symbolic link that leads to no file (%s); give the file's own "
	    "path, or remove the link",
	    WHAT(w->what), w->path, strerror(e));
}

/* A device or FIFO: opened as it is (a FIFO waits for its reader, as a shell's > does). */
static int open_in_place(pq_wfile *w, pq_diag *d)
{
	struct stat st;
	int fd = open(w->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return fail(d, w->what, "open", w->path, errno);
	/* Became a regular file since resolve(): it is not written over in place. */
	if (fstat(fd, &st) != 0 || S_ISREG(st.st_mode)) {
		close(fd);
		return pq_diag_set(d, -EAGAIN,
				   "%s%s%s changed while it was being opened; try again",
				   WHAT(w->what), w->path);
	}
	w->in_place = 1;
	if (!(w->f = fdopen(fd, "w"))) {
		int e = errno;
		close(fd);
		return fail(d, w->what, "open", w->path, e);
	}
	return 0;
}

/* TARGET.tmp.PID, created O_EXCL so that nothing planted under the name is written
 * through; one already there (left by a process that had this pid, or planted) is
 * removed first, once. */
static int open_tmp(pq_wfile *w, pq_diag *d)
{
	int rc = copy_path(w->tmp, sizeof w->tmp, w->target, w->what, d);
	if (rc < 0)
		return rc;
	snprintf(w->tmp + strlen(w->tmp), sizeof w->tmp - strlen(w->tmp), ".tmp.%d", (int)getpid());
	int fd = open(w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0 && errno == EEXIST && unlink(w->tmp) == 0)
		fd = open(w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0)
		return fail(d, w->what, "create", w->tmp, errno);
	if (!(w->f = fdopen(fd, "w"))) {
		int e = errno;
		close(fd);
		unlink(w->tmp);
		return fail(d, w->what, "create", w->tmp, e);
	}
	return 0;
}

int pq_wfile_open(pq_wfile *w, const char *path, const char *what, pq_diag *d)
{
	struct stat st;
	memset(w, 0, sizeof *w);
	w->what = what;
	if (strcmp(path, "-") == 0) {
		w->f = stdout;
		return 0;
	}
	int rc = copy_path(w->path, sizeof w->path, path, what, d);
	if (rc == 0)
		rc = resolve(w, &st, d);
	if (rc < 0)
		return rc;
	if (S_ISDIR(st.st_mode))
		return pq_diag_set(d, -EISDIR, "%s%s%s is a directory; give a file name",
				   WHAT(what), path);
	if (st.st_mode && !S_ISREG(st.st_mode))
		return open_in_place(w, d);
	return open_tmp(w, d);
}

int pq_wfile_stdout_check(const char *what, pq_diag *d)
{
	errno = 0;
	int bad = fflush(stdout) != 0;
	int e = errno;
	if (bad || ferror(stdout))
		return fail(d, what, "write", "standard output", e ? e : lost_errno(stdout));
	return 0;
}

int pq_wfile_close(pq_wfile *w, pq_diag *d)
{
	if (!w->f)
		return 0;
	if (w->f == stdout) {
		w->f = NULL;
		return pq_wfile_stdout_check(w->what, d);
	}
	/* errno of the first failure: a write that failed earlier is retried by the flush. */
	errno = 0;
	int bad = fflush(w->f) != 0 || ferror(w->f);
	int e = bad && !errno ? lost_errno(w->f) : errno;
	/* A device or FIFO has nothing to sync (fsync says EINVAL) and nothing to rename. */
	bad = bad || (!w->in_place && fsync(fileno(w->f)) != 0);
	if (bad && !e)
		e = errno;
	if (fclose(w->f) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	w->f = NULL;
	if (!bad && !w->in_place && rename(w->tmp, w->target) != 0) {
		bad = 1;
		e = errno;
	}
	if (bad) {
		if (!w->in_place)
			unlink(w->tmp);
		return fail(d, w->what, "write", w->path, e);
	}
	return 0;
}

void pq_wfile_abort(pq_wfile *w)
{
	if (w->f && w->f != stdout) {
		fclose(w->f);
		if (!w->in_place)
			unlink(w->tmp);
	}
	w->f = NULL;
}
