#include "core/wfile.h"

#include <errno.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Why a stream's earlier write failed when errno no longer says (other calls came
 * between): its file system being full is the one reason worth naming; else EIO. */
static int lost_errno(FILE *f)
{
	struct statvfs v;
	return fstatvfs(fileno(f), &v) == 0 && v.f_bavail == 0 ? ENOSPC : EIO;
}

static int fail(pq_diag *d, const char *what, const char *verb, const char *path, int e)
{
	if (!e)
		e = EIO;
	return pq_diag_set(d, -e, "%s%scannot %s %s: %s", what ? what : "", what ? ": " : "", verb, path,
			   strerror(e));
}

int pq_wfile_open(pq_wfile *w, const char *path, const char *what, pq_diag *d)
{
	memset(w, 0, sizeof *w);
	w->what = what;
	if (strcmp(path, "-") == 0) {
		w->f = stdout;
		return 0;
	}
	if (snprintf(w->path, sizeof w->path, "%s", path) >= (int)sizeof w->path ||
	    snprintf(w->tmp, sizeof w->tmp, "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof w->tmp)
		return pq_diag_set(d, PQ_EINVAL, "%s%sthe path is too long: %.64s...", what ? what : "",
				   what ? ": " : "", path);
	w->f = fopen(w->tmp, "w");
	if (!w->f)
		return fail(d, what, "create", w->tmp, errno);
	return 0;
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
	bad = bad || fsync(fileno(w->f)) != 0;
	if (bad && !e)
		e = errno;
	if (fclose(w->f) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	w->f = NULL;
	if (!bad && rename(w->tmp, w->path) != 0) {
		bad = 1;
		e = errno;
	}
	if (bad) {
		unlink(w->tmp);
		return fail(d, w->what, "write", w->path, e);
	}
	return 0;
}

void pq_wfile_abort(pq_wfile *w)
{
	if (w->f && w->f != stdout) {
		fclose(w->f);
		unlink(w->tmp);
	}
	w->f = NULL;
}
