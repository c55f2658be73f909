#include "net/life_report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What st is, for a message about something that is not a report. */
static const char *kind(mode_t m)
{
	return S_ISLNK(m)    ? "a symbolic link"
	       : S_ISFIFO(m) ? "a FIFO"
	       : S_ISDIR(m)  ? "a directory"
	       : S_ISSOCK(m) ? "a socket"
	       : S_ISREG(m)  ? "a regular file"
			     : "a device";
}

/* 0 when dir is ours to use (made now when absent and `make`); -ENOENT when absent and
 * not made; else an error naming dir and why it is refused. */
static int own_dir(const char *dir, int make, pq_diag *d)
{
	struct stat st;
	int e = make && mkdir(dir, 0700) != 0 && errno != EEXIST ? errno : 0;
	if (e)
		return pq_diag_set(d, -e, "%s: cannot create the directory: %s", dir, strerror(e));
	if (lstat(dir, &st) != 0) {
		e = errno;
		return e == ENOENT ? -ENOENT : pq_diag_set(d, -e, "%s: %s", dir, strerror(e));
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
		return pq_diag_set(
		    d, PQ_EPERM,
		    "%s is not pqtls's own directory (%s, owner uid %u, mode %03o; want a "
		    "directory of uid %u that only it can write): not used; remove it",
		    dir, kind(st.st_mode), (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777),
		    (unsigned)geteuid());
	return 0;
}

static int report_path(char *buf, size_t n, const char *dir, const char *name, const char *suffix,
		       pq_diag *d)
{
	if (snprintf(buf, n, "%s/%s.down%s", dir, name, suffix) >= (int)n)
		return pq_diag_set(d, PQ_EINVAL, "link %s: the report's path is too long", name);
	return 0;
}

int pq_life_report_put(const char *dir, const char *name, const char *msg, pq_diag *d)
{
	char path[512], tmp[512];
	size_t n = strlen(msg);
	int rc = own_dir(dir, 1, d);
	if (rc == 0 && !(rc = report_path(path, sizeof path, dir, name, "", d)))
		rc = report_path(tmp, sizeof tmp, dir, name, ".tmp.XXXXXX", d);
	if (rc)
		return rc;
	/* mkostemp: O_CREAT|O_EXCL under a name nobody can guess, so never through a link */
	int fd = mkostemp(tmp, O_CLOEXEC), e = errno;
	if (fd < 0)
		return pq_diag_set(d, -e, "cannot create %s: %s", tmp, strerror(e));
	errno = 0;
	e = write(fd, msg, n) == (ssize_t)n && fsync(fd) == 0 ? 0 : (errno ? errno : EIO);
	if (close(fd) != 0 && !e)
		e = errno;
	/* rename replaces whatever is at NAME.down: a planted link is replaced, not followed */
	if (!e && rename(tmp, path) != 0)
		e = errno;
	if (e) {
		unlink(tmp);
		return pq_diag_set(d, -e, "cannot write %s: %s", path, strerror(e));
	}
	return 0;
}

/* NAME.down opened without following a link or waiting for a FIFO's writer; *st says
 * what it is (a symbolic link: fd -1). -ENOENT when there is none. */
static int open_report(const char *path, int *fd, struct stat *st)
{
	*fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (*fd < 0 && errno == ELOOP) {
		st->st_mode = S_IFLNK;
		return 0;
	}
	if (*fd < 0)
		return -errno;
	if (fstat(*fd, st) != 0) {
		int e = errno;
		close(*fd);
		*fd = -1;
		return -e;
	}
	return 0;
}

int pq_life_report_take(const char *dir, const char *name, pq_diag *d)
{
	char path[512], msg[600];
	struct stat st;
	int fd = -1;
	int rc = own_dir(dir, 0, d);
	if (rc == -ENOENT)
		return 0;
	if (rc == 0)
		rc = report_path(path, sizeof path, dir, name, "", d);
	if (rc)
		return pq_diag_prefix(d, PQ_EIO, "link %s is down, but its report cannot be read",
				      name);
	if ((rc = open_report(path, &fd, &st)) == -ENOENT)
		return 0;
	if (rc)
		return pq_diag_set(d, PQ_EIO,
				   "link %s is down, but its report %s cannot be read: %s", name,
				   path, strerror(-rc));
	if (!S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return pq_diag_set(
		    d, PQ_EIO,
		    "link %s is down, but %s is %s, not a report pqtls wrote: not read; "
		    "remove it",
		    name, path, kind(st.st_mode));
	}
	ssize_t n = read(fd, msg, sizeof msg - 1);
	close(fd);
	unlink(path);
	msg[n > 0 ? n : 0] = '\0';
	return pq_diag_set(d, PQ_EIO, "link %s is down, but its last step failed: %s", name,
			   n > 0 ? msg : "(the holder's report is empty)");
}
