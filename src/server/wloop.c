/* What every worker loop (worker.c over TCP, quic.c over the QUIC listener) starts and
 * ends with: the thread's nice and an epoll set over its socket and the stop eventfd. */
#include <errno.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "core/sched.h"
#include "server/internal.h"

int pq_worker_open(pq_worker *w, void *listen_tag, void *stop_tag)
{
	const pq_server *srv = w->srv;
	struct epoll_event le = {.events = EPOLLIN, .data.ptr = listen_tag};
	struct epoll_event se = {.events = EPOLLIN, .data.ptr = stop_tag};
	w->stats.nice = pq_sched_set_nice(srv->cfg.set_nice ? srv->cfg.nice : PQ_SCHED_NICE_KEEP);
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (w->epfd < 0 || epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->listen_fd, &le) < 0 ||
	    epoll_ctl(w->epfd, EPOLL_CTL_ADD, srv->stop_fd, &se) < 0)
		return -errno;
	return 0;
}

void pq_worker_close(pq_worker *w)
{
	if (w->epfd >= 0)
		close(w->epfd);
	w->epfd = -1;
}
