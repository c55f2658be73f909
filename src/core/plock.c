#include "core/plock.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int pq_plock_new(pq_plock *l, pq_diag *d)
{
	*l = PQ_PLOCK_NONE;
	int fd = memfd_create("pqtls-lock", MFD_CLOEXEC);
	if (fd < 0)
		return pq_diag_set(d, -errno, "cannot make a lock for the workers (memfd_create): %s", strerror(errno));
	if (ftruncate(fd, 1) < 0) {
		int e = errno;
		close(fd);
		return pq_diag_set(d, -e, "cannot make a lock for the workers (ftruncate): %s", strerror(e));
	}
	l->fd = fd;
	return 0;
}

static struct flock whole(short type)
{
	return (struct flock){.l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
}

int pq_plock_hold(const pq_plock *l, pq_clock *clk, int64_t *waited_ns, pq_diag *d)
{
	int64_t t0 = pq_clock_now(clk);
	if (waited_ns)
		*waited_ns = 0;
	if (l->fd < 0)
		return 0;
	struct flock fl = whole(F_WRLCK);
	int r;
	while ((r = fcntl(l->fd, F_SETLKW, &fl)) < 0 && errno == EINTR)
		;
	if (r < 0)
		return pq_diag_set(d, -errno, "cannot take the workers' lock: %s", strerror(errno));
	if (waited_ns)
		*waited_ns = pq_clock_now(clk) - t0;
	return 0;
}

int pq_plock_held_elsewhere(const pq_plock *l, pq_diag *d)
{
	if (l->fd < 0)
		return 0;
	struct flock fl = whole(F_WRLCK);
	if (fcntl(l->fd, F_GETLK, &fl) < 0)
		return pq_diag_set(d, -errno, "cannot read the workers' lock: %s", strerror(errno));
	return fl.l_type != F_UNLCK;
}

void pq_plock_release(const pq_plock *l)
{
	if (l->fd < 0)
		return;
	struct flock fl = whole(F_UNLCK);
	(void)fcntl(l->fd, F_SETLK, &fl);
}

void pq_plock_free(pq_plock *l)
{
	if (l->fd >= 0)
		close(l->fd);
	*l = PQ_PLOCK_NONE;
}
