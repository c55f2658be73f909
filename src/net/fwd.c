#include "net/fwd.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/sched.h"

#define FWD_BATCH 64
#define FWD_MAX_PKTS 65536      /* in flight, both directions: bounds memory */

static void release_due(pq_fwd *f, int64_t now)
{
	for (int dir = 0; dir < 2; dir++) {
		pq_pkt *p;
		/* A test's injected lateness holds every release back by fault_late_ns. */
		while ((p = pq_path_pop(&f->path[dir], now - f->fault_late_ns))) {
			/* Lateness is measured when the write starts: write() carries the packet
			 * through the receiving stack, which is the receiver's cost, not ours. */
			int64_t t = pq_mono_ns();
			ssize_t w = write(f->tun[1 - dir], p->data, p->len);
			if (w != (ssize_t)p->len) {
				f->path[dir].stats.pkts_out--;
				f->path[dir].stats.bytes_out -= p->len;
				f->path[dir].stats.drop_unplanned++;
				f->write_errors[dir]++;
			} else {
				if (f->pcap)
					pq_pcapw_write(f->pcap, t, p->data, p->len);
				pq_late_note(&f->late, p->t_ready, t);
			}
			pq_pkt_put(&f->pool, p);
		}
	}
}

/* Reads up to FWD_BATCH packets from one TUN; returns how many. */
static int read_batch(pq_fwd *f, int dir)
{
	int got = 0;
	for (; got < FWD_BATCH; got++) {
		pq_pkt *p = pq_pkt_get(&f->pool);
		if (!p) {
			/* Out of buffers: still drain the device, counting what we drop. */
			uint8_t scratch[65536];
			if (read(f->tun[dir], scratch, sizeof scratch) <= 0)
				break;
			f->path[dir].stats.pkts_in++;
			f->path[dir].stats.drop_unplanned++;
			continue;
		}
		ssize_t n = read(f->tun[dir], p->data, f->pool.cap);
		if (n <= 0) {
			pq_pkt_put(&f->pool, p);
			break;
		}
		p->len = (uint32_t)n;
		pq_path_push(&f->path[dir], p, pq_mono_ns());
	}
	return got;
}

static int64_t next_due(pq_fwd *f)
{
	int64_t a = pq_path_next_ns(&f->path[0]), b = pq_path_next_ns(&f->path[1]);
	int64_t n = a < b ? a : b;
	return n == INT64_MAX ? n : n + f->fault_late_ns;
}

static void arm(pq_fwd *f, int64_t at)
{
	struct itimerspec its = {0};
	if (at != INT64_MAX) {
		if (at < 1)
			at = 1;
		its.it_value.tv_sec = at / PQ_NS_PER_S;
		its.it_value.tv_nsec = at % PQ_NS_PER_S;
	}
	timerfd_settime(f->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

int64_t pq_fwd_spin_ns(int64_t early_ns)
{
	return early_ns >= 0 && early_ns <= 10 * PQ_NS_PER_MS ? early_ns : PQ_FWD_DEFAULT_EARLY_NS;
}

pq_fwd_spin_pool *pq_fwd_spin_pool_new(void)
{
	void *p = mmap(NULL, sizeof(pq_fwd_spin_pool), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p; /* zeroed by the kernel */
}

void pq_fwd_spin_pool_free(pq_fwd_spin_pool *p)
{
	if (p)
		munmap(p, sizeof *p);
}

void pq_fwd_spin_init(pq_fwd_spin *s, int rt, pq_fwd_spin_pool *pool)
{
	s->window_start = INT64_MIN;
	s->spent = 0;
	s->budget = rt ? PQ_FWD_RT_SPIN_WINDOW_NS * PQ_FWD_RT_SPIN_SHARE / 100 : 0;
	s->pool = rt ? pool : NULL;
}

/* May the forwarders together spin in the window of `now`? The first to see a new window
 * resets it; a charge racing that reset may be lost, which only lets one more spin in. */
static int pool_ok(pq_fwd_spin_pool *p, int64_t now)
{
	int64_t w = now / PQ_FWD_RT_SPIN_WINDOW_NS, seen = __atomic_load_n(&p->window, __ATOMIC_ACQUIRE);
	if (seen != w && __atomic_compare_exchange_n(&p->window, &seen, w, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		__atomic_store_n(&p->spent, 0, __ATOMIC_RELEASE);
	return __atomic_load_n(&p->spent, __ATOMIC_ACQUIRE) < PQ_FWD_RT_SPIN_WINDOW_NS * PQ_FWD_POOL_SPIN_SHARE / 100;
}

int pq_fwd_spin_ok(pq_fwd_spin *s, int64_t now)
{
	if (!s->budget)
		return 1;
	if (s->window_start == INT64_MIN || now - s->window_start >= PQ_FWD_RT_SPIN_WINDOW_NS) {
		s->window_start = now;
		s->spent = 0;
	}
	return s->spent < s->budget && (!s->pool || pool_ok(s->pool, now));
}

void pq_fwd_spin_charge(pq_fwd_spin *s, int64_t ns)
{
	if (ns <= 0)
		return;
	s->spent += ns;
	if (s->pool)
		__atomic_add_fetch(&s->pool->spent, ns, __ATOMIC_ACQ_REL);
}

static void *fwd_main(void *arg)
{
	pq_fwd *f = arg;
	int stop = 0;
	pq_fwd_spin spin;
	pq_fwd_spin_init(&spin, f->rt_prio > 0, f->spin_pool);
	__atomic_store_n(&f->tid, (int)gettid(), __ATOMIC_RELEASE);
	(void)pq_sched_name_thread(PQ_SCHED_NAME_FWD); /* a name only: failing costs nothing */
	/* No timer slack (the default lets the kernel defer a timed wake-up by 50 us; the
	 * real-time class has none anyway). A higher CFS weight for when the real-time class
	 * is refused or not asked; failing (no CAP_SYS_NICE) only costs accuracy. */
	if (prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0)) {
	}
	if (setpriority(PRIO_PROCESS, (id_t)gettid(), f->nice)) {
	}
	while (!stop && !__atomic_load_n(&f->stop_req, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&f->mu);
		release_due(f, pq_mono_ns());
		int64_t next = next_due(f);
		pthread_mutex_unlock(&f->mu);

		/* The real-time class spins only within its budget; past it, the timer wakes
		 * the thread at the release time itself. */
		int64_t now = pq_mono_ns();
		int64_t lead = pq_fwd_spin_ok(&spin, now) ? f->early_ns : 0;
		if (next != INT64_MAX && next - now <= lead) {
			/* Close to a release: spin, taking arrivals as they come. */
			while (pq_mono_ns() < next) {
				pthread_mutex_lock(&f->mu);
				read_batch(f, 0);
				read_batch(f, 1);
				next = next_due(f);
				pthread_mutex_unlock(&f->mu);
			}
			pq_fwd_spin_charge(&spin, pq_mono_ns() - now);
			continue;
		}
		int64_t at = next == INT64_MAX ? INT64_MAX : next - lead;
		/* Over the spin budget (a dense train, never sparse traffic): at most one timed
		 * wake-up per batch_ns, taking every release due by then; one per packet of a
		 * paced train costs more CPU than the packets themselves. */
		if (!lead && f->batch_ns > 0 && at != INT64_MAX) {
			int64_t earliest = pq_mono_ns() + f->batch_ns;
			if (at < earliest)
				at = earliest;
		}
		arm(f, at);
		struct epoll_event ev[4];
		int n = epoll_wait(f->epoll_fd, ev, 4, -1);
		pthread_mutex_lock(&f->mu);
		for (int i = 0; i < n; i++) {
			int fd = ev[i].data.fd;
			if (fd == f->tun[0] || fd == f->tun[1]) {
				read_batch(f, fd == f->tun[0] ? 0 : 1);
			} else if (fd == f->timer_fd) {
				uint64_t x;
				if (read(fd, &x, sizeof x) < 0) { /* spurious: nothing to do */
				}
			} else if (fd == f->stop_fd) {
				stop = 1;
			}
		}
		pthread_mutex_unlock(&f->mu);
	}
	return NULL;
}

/* Starts the thread in SCHED_FIFO at f->rt_prio when asked (the class is set before it
 * runs, so it knows its class from its first instruction); when that is refused, in the
 * normal class, noting why. Returns 0 or the pthread_create error. */
static int start_thread(pq_fwd *f)
{
	if (f->rt_prio > 0) {
		pthread_attr_t at;
		struct sched_param sp = {.sched_priority = f->rt_prio};
		int e = pthread_attr_init(&at);
		if (!e)
			e = pthread_attr_setinheritsched(&at, PTHREAD_EXPLICIT_SCHED);
		if (!e)
			e = pthread_attr_setschedpolicy(&at, SCHED_FIFO);
		if (!e)
			e = pthread_attr_setschedparam(&at, &sp);
		if (!e)
			e = pthread_create(&f->thread, &at, fwd_main, f);
		pthread_attr_destroy(&at);
		if (!e)
			return 0;
		snprintf(f->sched_note, sizeof f->sched_note,
			 "the forwarder runs in the normal class at nice %d: SCHED_FIFO priority %d refused (%s%s)",
			 f->nice, f->rt_prio, strerror(e),
			 e == EPERM ? ": needs CAP_SYS_NICE and a real-time budget" : "");
		f->rt_prio = 0;
	}
	return pthread_create(&f->thread, NULL, fwd_main, f);
}

int pq_fwd_start(pq_fwd *f, const pq_link_config *cfg, const int64_t comp_ns[2], int tun_c, int tun_s,
		 pq_pcapw *pcap, const pq_fwd_tune *tune, pq_diag *d)
{
	int rc = 0;
	memset(f, 0, sizeof *f);
	f->tun[0] = tun_c;
	f->tun[1] = tun_s;
	f->pcap = pcap;
	f->early_ns = pq_fwd_spin_ns(tune ? tune->early_ns : -1);
	f->nice = tune ? tune->nice : PQ_FWD_DEFAULT_NICE;
	int64_t batch = tune ? tune->batch_ns : PQ_FWD_DEFAULT_BATCH_NS;
	f->batch_ns = batch < 0 ? 0 : batch > PQ_FWD_BATCH_MAX_NS ? PQ_FWD_BATCH_MAX_NS : batch;
	int rt_prio = tune ? tune->rt_prio : PQ_FWD_DEFAULT_RT_PRIO;
	f->rt_prio = rt_prio < 0 ? 0 : rt_prio > PQ_FWD_RT_PRIO_MAX ? PQ_FWD_RT_PRIO_MAX : rt_prio;
	int64_t fault = tune ? tune->fault_late_ns : 0;
	f->fault_late_ns = fault < 0 ? 0 : fault > PQ_FWD_FAULT_LATE_MAX_NS ? PQ_FWD_FAULT_LATE_MAX_NS : fault;
	f->spin_pool = tune ? tune->spin_pool : NULL;
	f->timer_fd = f->stop_fd = f->epoll_fd = -1;
	/* Priority inheritance: a stats reader holding the lock cannot keep a real-time
	 * forwarder waiting behind other work. */
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&f->mu, &ma);
	pthread_mutexattr_destroy(&ma);
	pq_late_init(&f->late, 0);
	pq_pkt_pool_init(&f->pool, cfg->mtu + 256u, FWD_MAX_PKTS);
	for (int dir = 0; dir < 2; dir++) {
		pq_dir_cfg dc = cfg->dir[dir];
		dc.delay_ns = dc.delay_ns > comp_ns[dir] ? dc.delay_ns - comp_ns[dir] : 0;
		if ((rc = pq_path_init(&f->path[dir], &dc, cfg->seed + (uint64_t)dir * 0x9e3779b9u, &f->pool, d)))
			goto out;
	}
	f->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	f->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	f->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (f->timer_fd < 0 || f->stop_fd < 0 || f->epoll_fd < 0) {
		rc = pq_diag_set(d, -errno, "forwarder: cannot create its timer/event fds: %s", strerror(errno));
		goto out;
	}
	int fds[4] = {f->tun[0], f->tun[1], f->timer_fd, f->stop_fd};
	for (int i = 0; i < 4; i++) {
		struct epoll_event ev = {.events = EPOLLIN, .data.fd = fds[i]};
		if (epoll_ctl(f->epoll_fd, EPOLL_CTL_ADD, fds[i], &ev)) {
			rc = pq_diag_set(d, -errno, "forwarder: epoll_ctl: %s", strerror(errno));
			goto out;
		}
	}
	/* Signals belong to the thread that runs the commands, never to the forwarder. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int e = start_thread(f);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		rc = pq_diag_set(d, -e, "forwarder: cannot start its thread: %s", strerror(e));
		goto out;
	}
	f->running = 1;
out:
	if (rc) {
		f->pcap = NULL; /* the caller still owns it on failure */
		pq_diag tmp;
		(void)pq_fwd_stop(f, &tmp);
		pq_fwd_dispose(f);
	}
	return rc;
}

int pq_fwd_stop(pq_fwd *f, pq_diag *d)
{
	if (f->running) {
		uint64_t one = 1;
		__atomic_store_n(&f->stop_req, 1, __ATOMIC_RELEASE);
		if (write(f->stop_fd, &one, sizeof one) < 0) {
			/* eventfd writes cannot fail short of overflow; join anyway */
		}
		pthread_join(f->thread, NULL);
		f->running = 0;
	}
	for (int i = 0; i < 2; i++) {
		pq_path_dispose(&f->path[i]);
		if (f->tun[i] >= 0)
			close(f->tun[i]);
		f->tun[i] = -1;
	}
	int fds[3] = {f->timer_fd, f->stop_fd, f->epoll_fd};
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	f->timer_fd = f->stop_fd = f->epoll_fd = -1;
	int rc = pq_pcapw_close(f->pcap, d);
	f->pcap = NULL;
	pq_pkt_pool_dispose(&f->pool);
	return rc;
}

void pq_fwd_stats_get(pq_fwd *f, pq_fwd_stats *out)
{
	pthread_mutex_lock(&f->mu);
	out->dir[0] = f->path[0].stats;
	out->dir[1] = f->path[1].stats;
	pq_late_life(&f->late, &out->late);
	pthread_mutex_unlock(&f->mu);
}

void pq_fwd_window_take(pq_fwd *f, pq_late_win *out, pq_path_stats dir[2])
{
	pq_late_win next;
	uint64_t hint = __atomic_load_n(&f->win_hint, __ATOMIC_RELAXED);
	pq_late_win_prepare(&next, (size_t)(hint < 4096 ? 4096 : hint > (1u << 20) ? (1u << 20) : hint * 2));
	pthread_mutex_lock(&f->mu);
	pq_late_take(&f->late, &next, out);
	dir[0] = f->path[0].stats;
	dir[1] = f->path[1].stats;
	pthread_mutex_unlock(&f->mu);
	if (out->n > hint) /* the largest window so far: a cell's, not the gap between two */
		__atomic_store_n(&f->win_hint, out->n, __ATOMIC_RELAXED);
}

int64_t pq_fwd_wait_ns(const pq_fwd *f)
{
	int tid = __atomic_load_n(&f->tid, __ATOMIC_ACQUIRE);
	return tid && f->running ? pq_sched_tid_wait_ns(tid) : -1;
}

int pq_fwd_pin(pq_fwd *f, const cpu_set_t *cpus, char *list, size_t n)
{
	if (list && n)
		list[0] = '\0';
	if (!f->running)
		return PQ_ESTATE;
	int e = pthread_setaffinity_np(f->thread, sizeof *cpus, cpus);
	cpu_set_t now;
	CPU_ZERO(&now);
	if (list && n && pthread_getaffinity_np(f->thread, sizeof now, &now) == 0)
		pq_sched_cpulist(&now, list, n);
	return -e;
}

void pq_fwd_dispose(pq_fwd *f)
{
	pq_late_dispose(&f->late);
	pthread_mutex_destroy(&f->mu);
}
