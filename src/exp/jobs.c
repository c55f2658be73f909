#include "exp/jobs.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/child.h"
#include "core/clock.h"
#include "core/cpus.h"
#include "core/proc.h"
#include "core/wire.h"
#include "exp/admit.h"
#include "exp/cellcfg.h"
#include "exp/jobs_int.h"
#include "exp/point.h"
#include "net/fwd.h"
#include "net/linkcfg.h"

enum { W_STARTING = -2, W_IDLE = -1 }; /* else the cell in flight */
typedef struct wslot {
	pid_t pid;
	int fd;
	long long busy;
	int ended, stop_sent;
	size_t limit;          /* of the cell in flight: its class's cap when it started */
	size_t cls;            /* its class (pq_exp_jobs_caps) */
	int64_t scale_ns;      /* its link's time scale */
	double share;          /* its CPU share as estimated when it started */
	int64_t started_ns;    /* when the cell in flight was handed out */
	const char *link_key;  /* of the last cell: its link is up there */
	uint64_t ticks;        /* its own and its reaped children's CPU ticks, last read */
	pq_exp_run_summary sum;
	int have_sum;
} wslot;

typedef struct disp {
	const pq_exp_grid *g;
	const pq_exp_run_opts *o;
	wslot *w;
	size_t nw, inflight, peak;
	size_t *todo, ntodo, next;
	size_t *again, nagain; /* cells handed back unmeasured by a worker that could not bring a link up */
	int64_t shown_ns;      /* when progress was last shown */
	pq_exp_jobs_caps caps;
	size_t cap_shown;      /* the cap of the class last dispatched, for the progress line */
	double cpu_budget;     /* CPUs the cells in flight may use together */
	unsigned base;         /* cells at once for a cell that does not stall (pq_exp_jobs_choose) */
	struct { const char *link_key; double share; } *cpu; /* learnt per link */
	pq_exp_jobs_conn_cpu *conn_cpu; /* CPU per connection by response size, learnt */
	size_t nconn_cpu;
	double *est_s;         /* per grid cell: its estimated time alone (pq_exp_cell_estimate_s) */
	double *work_s;        /* per grid cell: its weight in the progress line's ETA (pq_exp_cell_work_s) */
	size_t ncpu_known;
	pq_exp_progress pr;
	pq_exp_admit *admit;   /* the machine's cells in flight, every sweep's (NULL: this sweep's alone) */
	int admit_said;        /* the log said a cell waits for other sweeps' */
	struct {
		int64_t at;     /* when last read, 0 never */
		uint64_t busy;  /* the machine's busy ticks then */
		int ours;       /* the last window's verdict (pq_exp_jobs_ours) */
		int said;       /* the log said the cap stays for other work */
	} host;
	int64_t t0;
	int rc, stopping;
	pq_diag *d;
} disp;

static int start_workers(disp *D, unsigned jobs, const pq_exp_chains *chains, pq_store *st)
{
	pid_t self = getpid();
	fflush(stdout);
	fflush(stderr);
	for (unsigned i = 0; i < jobs; i++) {
		int sv[2];
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
			break;
		pid_t pid = fork();
		if (pid < 0) {
			close(sv[0]);
			close(sv[1]);
			break;
		}
		if (pid == 0) {
			close(sv[0]);
			for (size_t k = 0; k < D->nw; k++)
				close(D->w[k].fd);
			pq_exp_jobs_worker(sv[1], self, i, D->g, chains, st, D->o);
		}
		close(sv[1]);
		D->w[D->nw++] = (wslot){.pid = pid, .fd = sv[0], .busy = W_STARTING};
	}
	if (D->nw < jobs && D->o->log)
		fprintf(D->o->log, "jobs: %zu of %u workers started (%s); measuring with those\n", D->nw, jobs,
			strerror(errno));
	return D->nw ? 0 : pq_diag_set(D->d, -errno, "cannot start a worker process: %s", strerror(errno));
}

/* The progress so far; the ETA's weight of what is done counts the cells in flight by
 * their time so far against their estimate (at most 90 % of it until they end): the
 * long cells handed out first would otherwise count for nothing for minutes. */
static void progress(disp *D, const char *arm)
{
	int64_t now = pq_clock_now(&pq_clock_mono);
	D->shown_ns = now;
	D->pr.elapsed_ns = now - D->t0;
	D->pr.inflight = D->inflight;
	D->pr.inflight_max = D->cap_shown;
	if (arm)
		D->pr.arm = arm;
	pq_exp_progress pr = D->pr;
	for (size_t i = 0; i < D->nw; i++)
		if (D->w[i].busy >= 0) {
			double est = D->est_s[D->w[i].busy], part = (double)(now - D->w[i].started_ns) / 1e9;
			part = est > 0 ? part / est : 0.9;
			pr.work_done += D->work_s[D->w[i].busy] * (part < 0.9 ? part : 0.9);
		}
	if (D->o->progress)
		D->o->progress(D->o->progress_arg, &pr);
}

/* The idle worker for cell c: one whose link is c's, else any; -1 none. */
static int pick(const disp *D, const pq_exp_cell *c)
{
	int any = -1;
	for (size_t i = 0; i < D->nw; i++) {
		const wslot *w = &D->w[i];
		if (w->busy != W_IDLE || w->ended || w->stop_sent)
			continue;
		if (w->link_key && strcmp(w->link_key, c->link_key) == 0)
			return (int)i;
		if (any < 0)
			any = (int)i;
	}
	return any;
}

/* The CPU share cell c is expected to use: what its link's cells used (a moving average),
 * else a guess from the most CPU per connection of the cells that moved no more than c
 * (pq_exp_jobs_conn_cpu_for) and c's estimated time (pq_exp_jobs_share_guess). */
static double share_of(const disp *D, const pq_exp_cell *c)
{
	for (size_t i = 0; i < D->ncpu_known; i++)
		if (strcmp(D->cpu[i].link_key, c->link_key) == 0)
			return D->cpu[i].share;
	double per_conn = pq_exp_jobs_conn_cpu_for(D->conn_cpu, D->nconn_cpu, c->p.response_bytes);
	return pq_exp_jobs_share_guess(per_conn, c->p.connections + pq_exp_cfg_warmup(&c->p),
				       D->est_s[c - D->g->cells], D->cpu_budget);
}

static void learn_share(disp *D, const pq_exp_cell *c, double share, double per_conn_s)
{
	const char *link_key = c->link_key;
	pq_exp_jobs_conn_cpu_learn(D->conn_cpu, &D->nconn_cpu, D->g->n, c->p.response_bytes, per_conn_s);
	if (share < 0)
		return;
	for (size_t i = 0; i < D->ncpu_known; i++)
		if (strcmp(D->cpu[i].link_key, link_key) == 0) {
			D->cpu[i].share = 0.7 * D->cpu[i].share + 0.3 * share;
			return;
		}
	D->cpu[D->ncpu_known].link_key = link_key;
	D->cpu[D->ncpu_known++].share = share;
}

/* The cells in flight with the CPU shares learnt since they started: a cell handed out
 * before any of its kind had ended carries a guess (half the budget) that would hold the
 * cells after it for its whole time, minutes for a lossy link's. The machine's table is
 * told too (exp/admit.h), so that other sweeps see the same. */
static void reshare(disp *D)
{
	for (size_t i = 0; i < D->nw; i++) {
		wslot *w = &D->w[i];
		if (w->busy < 0)
			continue;
		double share = share_of(D, &D->g->cells[w->busy]);
		if (share == w->share)
			continue;
		w->share = share;
		if (D->admit && pq_exp_admit_share(D->admit, (int)i, share) < 0) {
			pq_exp_admit_close(D->admit);
			D->admit = NULL;
		}
	}
}

/* Cells still to hand out: handed back ones, then the rest of the run order. */
static int pending(const disp *D)
{
	return D->nagain || D->next < D->ntodo;
}

/* A log line starts on a line of its own when the progress bar is drawn. */
static const char *bar_nl(const disp *D)
{
	return D->o->progress ? "\n" : "";
}

/* Whether the machine's other sweeps let cell (limit, share, est_s alone) start on worker k beside
 * this sweep's n cells in flight (exp/admit.h); without the table, yes. */
static int admitted(disp *D, const size_t *limits, size_t n, double used, size_t limit, double share, int k,
		    double est_s)
{
	if (!D->admit)
		return 1;
	pq_exp_admit_load mine = {.n = n, .min_limit = SIZE_MAX, .used = used};
	for (size_t i = 0; i < n; i++)
		if (limits[i] < mine.min_limit)
			mine.min_limit = limits[i];
	pq_exp_admit_cell c = {.limit = limit, .share = share, .tag = k, .est_ns = (int64_t)(est_s * 1e9)};
	int rc = pq_exp_admit_take(D->admit, &mine, &c, D->cpu_budget, pq_clock_now(&pq_clock_mono));
	if (rc < 0) {
		if (D->o->log)
			fprintf(D->o->log, "%sjobs: %s: %s; this sweep no longer sees other sweeps' cells\n", bar_nl(D),
				pq_exp_admit_path(D->admit), pq_strerror(rc));
		pq_exp_admit_close(D->admit);
		D->admit = NULL;
		return 1;
	}
	if (rc == 0 && !D->admit_said && D->o->log) {
		pq_exp_admit_load o = {0};
		if (pq_exp_admit_others(D->admit, &o) == 0)
			fprintf(D->o->log,
				"%sjobs: another sweep on this machine has %zu cell%s in flight or waiting: the next cell "
				"waits for room beside them, as beside this sweep's own (%s)\n",
				bar_nl(D), o.n, o.n == 1 ? "" : "s", pq_exp_admit_path(D->admit));
		D->admit_said = 1;
	}
	return rc == 1;
}

/* Worker w's cell ended (or went back): the machine's table forgets it. */
static void admit_done(disp *D, const wslot *w)
{
	if (D->admit && pq_exp_admit_done(D->admit, (int)(w - D->w)) < 0) {
		pq_exp_admit_close(D->admit);
		D->admit = NULL;
	}
}

static void dispatch(disp *D)
{
	size_t limits[PQ_EXP_JOBS_MAX];
	while (!D->stopping && pending(D)) {
		size_t ci = D->nagain ? D->again[D->nagain - 1] : D->todo[D->next];
		const pq_exp_cell *c = &D->g->cells[ci];
		int64_t scale;
		size_t n = 0, lim = pq_exp_cell_limit(D->g, c, (unsigned)D->caps.max, D->base, &scale),
		       cap = pq_exp_jobs_caps_of(&D->caps, lim);
		double used = 0, share = share_of(D, c);
		for (size_t i = 0; i < D->nw; i++)
			if (D->w[i].busy >= 0) {
				limits[n++] = D->w[i].limit;
				used += D->w[i].share;
			}
		int k = pq_exp_jobs_may_start(limits, n, lim, cap) &&
				pq_exp_jobs_cpu_fits(used, n, share, D->cpu_budget)
			? pick(D, c)
			: -1;
		if (k < 0 || !admitted(D, limits, n, used, cap < lim ? cap : lim, share, k, D->est_s[ci]))
			return;
		wslot *w = &D->w[k];
		wcell wc = {.cell = (long long)ci, .at_once = (int)D->inflight + 1};
		if (send(w->fd, &wc, sizeof wc, MSG_NOSIGNAL) != (ssize_t)sizeof wc)
			return; /* gone: its end is read from the socket */
		w->busy = wc.cell;
		w->started_ns = pq_clock_now(&pq_clock_mono);
		w->limit = cap < lim ? cap : lim;
		w->cls = lim;
		w->scale_ns = scale;
		D->cap_shown = w->limit;
		w->share = share;
		w->link_key = c->link_key;
		if (D->nagain)
			D->nagain--;
		else
			D->next++;
		if (++D->inflight > D->peak)
			D->peak = D->inflight;
	}
}

static void stop_idle(disp *D)
{
	if (!D->stopping && pending(D))
		return;
	for (size_t i = 0; i < D->nw; i++) {
		wslot *w = &D->w[i];
		if (w->busy == W_IDLE && !w->stop_sent && !w->ended) {
			wcell wc = {.cell = -1};
			(void)send(w->fd, &wc, sizeof wc, MSG_NOSIGNAL);
			w->stop_sent = 1;
		}
	}
}

/* The sweep's first error is kept; dispatching stops, the cells in flight finish. */
static void fail(disp *D, const char *msg)
{
	if (D->rc == 0)
		D->rc = pq_diag_set(D->d, PQ_EIO, "%s", msg);
	D->stopping = 1;
}

/* Every couple of seconds: whether the workers' CPU time (theirs and their reaped cell
 * servers') was a large part of the machine's busy time since the last look. */
#define HOST_WINDOW_NS (2 * PQ_NS_PER_S)
static void host_window(disp *D)
{
	int64_t now = pq_clock_now(&pq_clock_mono);
	if (D->host.at && now - D->host.at < HOST_WINDOW_NS)
		return;
	char buf[4096], path[64];
	uint64_t busy = 0, ours = 0;
	pq_proc_read_text("/proc/stat", buf, sizeof buf);
	if (pq_proc_parse_busy(buf, &busy) < 0)
		return; /* no /proc: the verdict stays (yes at the start) */
	for (size_t i = 0; i < D->nw; i++) {
		uint64_t t;
		if (D->w[i].ended)
			continue;
		snprintf(path, sizeof path, "/proc/%d/stat", (int)D->w[i].pid);
		pq_proc_read_text(path, buf, sizeof buf);
		if (pq_proc_parse_tree(buf, &t) < 0)
			continue;
		ours += t >= D->w[i].ticks && D->host.at ? t - D->w[i].ticks : 0;
		D->w[i].ticks = t;
	}
	if (D->host.at)
		D->host.ours = pq_exp_jobs_ours(ours, busy >= D->host.busy ? busy - D->host.busy : 0);
	D->host.at = now;
	D->host.busy = busy;
}

/* Workers other than w still running. */
static size_t others(const disp *D, const wslot *w)
{
	size_t n = 0;
	for (size_t i = 0; i < D->nw; i++)
		n += &D->w[i] != w && !D->w[i].ended && !D->w[i].stop_sent;
	return n;
}

static void on_message(disp *D, wslot *w, const wmsg *m)
{
	switch (m->kind) {
	case MSG_READY:
		w->busy = W_IDLE;
		break;
	case MSG_DONE: {
		const pq_exp_cell *c = &D->g->cells[m->cell];
		admit_done(D, w);
		w->busy = W_IDLE;
		w->sum = m->sum;
		w->have_sum = 1;
		D->inflight--;
		D->pr.done++;
		D->pr.conns += m->oc.conns;
		D->pr.failures += m->oc.failures;
		D->pr.marked += (size_t)m->oc.marked;
		D->pr.work_done += D->work_s[m->cell];
		learn_share(D, c, m->oc.cpu_share, m->oc.cpu_per_conn_s);
		reshare(D);
		size_t before = pq_exp_jobs_caps_of(&D->caps, w->cls);
		host_window(D);
		int ch = pq_exp_jobs_caps_done(&D->caps, w->cls, m->oc.marked, D->host.ours);
		size_t after = pq_exp_jobs_caps_of(&D->caps, w->cls);
		if (m->oc.marked && !D->host.ours && !D->host.said && D->o->log)
			fprintf(D->o->log,
				"%sjobs: cells go over their budgets while other work uses most of this machine's busy CPU "
				"time (the sweep under %.0f %%): fewer cells at once would not help, so %zu stay\n",
				bar_nl(D), 100 * PQ_EXP_JOBS_OURS_SHARE, before);
		D->host.said = m->oc.marked ? !D->host.ours : D->host.said;
		if (ch && D->o->log)
			fprintf(D->o->log, "%sjobs: at most %zu cell%s at once beside cells like this one (%.0f ms links), was %zu (%s)\n",
				bar_nl(D), after, after == 1 ? "" : "s", (double)w->scale_ns / PQ_NS_PER_MS, before,
				ch < 0 ? "a cell went over the link's or the host's budget" : "the last cells were clean");
		progress(D, c->p.arm);
		break;
	}
	case MSG_ERROR:
		if (m->oc.no_link && m->cell >= 0 && w->busy == m->cell && others(D, w) && !D->stopping) {
			/* A machine out of namespaces, TUN devices or descriptors for one more link:
			 * the others go on, the cell goes back to them. */
			D->again[D->nagain++] = (size_t)m->cell;
			admit_done(D, w);
			w->busy = W_IDLE;
			w->stop_sent = 1; /* it ends by itself */
			D->inflight--;
			pq_exp_jobs_caps_lower_max(&D->caps);
			if (D->o->log)
				fprintf(D->o->log, "%sjobs: a worker could not bring up a link (%s); measuring with %zu\n",
					bar_nl(D), m->err,
					D->caps.max);
			break;
		}
		fail(D, m->err);
		break;
	case MSG_FINAL:
		w->sum = m->sum;
		w->have_sum = 1;
		break;
	}
}

/* A worker's socket closed: it has ended; reaped here. One that ended mid-cell (killed)
 * is the sweep's error: its cell is not stored and a resume measures it. */
static void on_end(disp *D, wslot *w)
{
	int status = 0;
	close(w->fd);
	w->fd = -1;
	w->ended = 1;
	while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
		;
	char why[160], msg[512];
	pq_child_describe_status(status, why, sizeof why);
	if (w->busy >= 0) {
		admit_done(D, w);
		snprintf(msg, sizeof msg, "a worker process %s while it measured cell %lld (%s); that cell is not stored "
			 "(the same command measures it)", why, w->busy, D->g->cells[w->busy].p.arm);
		D->inflight--;
		fail(D, msg);
	} else if (w->busy == W_STARTING) {
		snprintf(msg, sizeof msg, "a worker process %s before it measured anything", why);
		fail(D, msg);
	}
}

static int loop(disp *D)
{
	struct pollfd pf[PQ_EXP_JOBS_MAX];
	size_t idx[PQ_EXP_JOBS_MAX];
	for (;;) {
		if (D->o->stop && *D->o->stop && !D->stopping) {
			D->stopping = 1;
		}
		dispatch(D);
		stop_idle(D);
		size_t n = 0;
		for (size_t i = 0; i < D->nw; i++)
			if (!D->w[i].ended) {
				pf[n] = (struct pollfd){.fd = D->w[i].fd, .events = POLLIN};
				idx[n++] = i;
			}
		if (!n)
			return D->rc;
		int k = poll(pf, (nfds_t)n, 250);
		if (k < 0 && errno != EINTR)
			return pq_diag_set(D->d, -errno, "jobs: poll: %s", strerror(errno));
		if (k == 0 && pq_clock_now(&pq_clock_mono) - D->shown_ns >= PQ_NS_PER_S)
			progress(D, NULL); /* the ETA moves while long cells run */
		for (size_t i = 0; k > 0 && i < n; i++) {
			if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			wslot *w = &D->w[idx[i]];
			wmsg m;
			ssize_t got = recv(w->fd, &m, sizeof m, MSG_DONTWAIT);
			if (got == (ssize_t)sizeof m)
				on_message(D, w, &m);
			else if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN))
				on_end(D, w);
		}
	}
}

/* Each cell's estimated time and weight at `jobs` at once, then the cells to hand out in
 * their order: each trial's cells by class where its grid points allow
 * (pq_exp_jobs_order_classes), then longest links first, or grouped by class when that
 * plays out sooner (pq_exp_jobs_order_played). */
static int order_todo(disp *D, unsigned jobs)
{
	const pq_exp_grid *g = D->g;
	for (size_t i = 0; i < g->n; i++)
		D->work_s[i] = pq_exp_cell_work_s(g, &g->cells[i], jobs, D->base);
	for (size_t i = 0; i < D->ntodo; i++)
		D->pr.work_total += D->work_s[D->todo[i]];
	int rc = pq_exp_order_cells(g, D->todo, D->ntodo, jobs, D->base, D->est_s, NULL);
	return rc < 0 ? pq_diag_set(D->d, rc, "out of memory") : 0;
}

/* Each fast link (pq_link_config_fast) of the cells to measure, self-checked once, here,
 * before any worker starts: the machine to itself. Checked beside the cells in flight,
 * each worker's own check of such a link measured the cells' load, not the link: its
 * probe's 1 Gbit/s push beside five to seven cells delivered 3-40 % less than the rate
 * with the release lateness within budget, and at full ttlb 25 of 30 such checks missed.
 * The workers take the verdict (o->prechecked); each cell is still judged by its own
 * link's accounting and the host's budget. */
static int precheck(disp *D, const pq_exp_chains *chains, pq_store *st, pq_exp_run_opts *jo,
		    pq_exp_run_summary *sum, pq_exp_prechecked **out)
{
	const pq_exp_grid *g = D->g;
	pq_exp_runner *R = NULL;
	pq_exp_prechecked *pre = NULL;
	size_t n = 0;
	int rc = 0;
	if (jo->no_check || g->server[0])
		return 0;
	jo->test_no_link = jo->test_no_link_precheck; /* the checks' own runner's; the workers set theirs */
	for (size_t i = 0; i < D->ntodo && rc == 0; i++) {
		const pq_exp_cell *c = &g->cells[D->todo[i]];
		pq_link_config lc;
		int seen = 0;
		if (pq_exp_point_link(&c->p, g->seed, c->arm_where, &lc, NULL) < 0 || !pq_link_config_fast(&lc))
			continue;
		for (size_t k = 0; k < n && !seen; k++)
			seen = strcmp(pre[k].link_key, c->link_key) == 0;
		if (seen)
			continue;
		if (!pre && !(pre = calloc(D->ntodo, sizeof *pre))) {
			rc = pq_diag_set(D->d, PQ_ENOMEM, "out of memory");
			break;
		}
		if (!R && (rc = pq_exp_runner_new(g, chains, st, jo, NULL, sum, &R, D->d)) < 0)
			break;
		if (jo->log)
			fprintf(jo->log, "jobs: checking a fast link with the machine to itself, before the cells start\n");
		if ((rc = pq_exp_runner_check_link(R, c, &pre[n], D->d)) < 0)
			rc = pq_diag_prefix(D->d, rc, "the check of a fast link before the cells start (%s); nothing was "
						      "measured", c->arm_where);
		n += rc == 0;
	}
	pq_diag fd;
	int frc = pq_exp_runner_free(R, rc < 0 ? &fd : D->d);
	jo->test_no_link = 0;
	if (rc == 0)
		rc = frc;
	if (rc < 0) {
		free(pre);
		return rc;
	}
	jo->prechecked = pre;
	jo->nprechecked = n;
	*out = pre;
	return 0;
}

int pq_exp_run_jobs(const pq_exp_grid *g, const pq_exp_chains *chains, pq_store *st, const pq_exp_run_opts *o,
		    unsigned jobs, unsigned base, pq_exp_run_summary *sum, pq_diag *d)
{
	if (jobs <= 1)
		return pq_exp_run(g, chains, st, o, sum, d);
	if (jobs > PQ_EXP_JOBS_MAX)
		jobs = PQ_EXP_JOBS_MAX;
	pq_exp_run_opts jo = *o;
	pq_exp_prechecked *pre = NULL;
	pq_fwd_spin_pool *pool = NULL;
	disp D = {.g = g, .o = &jo, .d = d, .t0 = pq_clock_now(&pq_clock_mono), .pr = {.total = g->n},
		  .base = base,
		  .cpu_budget = PQ_EXP_JOBS_CPU_BUDGET * (double)(o->cpus ? o->cpus->usable : pq_proc_ncpu())};
	pq_exp_run_summary_init(sum);
	int rc = 0;
	D.todo = calloc(g->n ? g->n : 1, sizeof *D.todo);
	D.again = calloc(jobs, sizeof *D.again);
	D.w = calloc(jobs, sizeof *D.w);
	D.cpu = calloc(g->n ? g->n : 1, sizeof *D.cpu);
	D.conn_cpu = calloc(g->n ? g->n : 1, sizeof *D.conn_cpu);
	D.est_s = calloc(g->n ? g->n : 1, sizeof *D.est_s);
	D.work_s = calloc(g->n ? g->n : 1, sizeof *D.work_s);
	if (!D.todo || !D.again || !D.w || !D.cpu || !D.conn_cpu || !D.est_s || !D.work_s) {
		rc = pq_diag_set(d, PQ_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < g->n; i++) {
		int done = pq_store_cell_done(st, g->cells[i].key, d);
		if (done < 0) {
			rc = done;
			goto out;
		}
		if (done) {
			sum->cells_skipped++;
			D.pr.skipped++;
			D.pr.done++;
		} else {
			D.todo[D.ntodo++] = i;
		}
	}
	if ((rc = order_todo(&D, jobs)) < 0)
		goto out;
	if ((rc = precheck(&D, chains, st, &jo, sum, &pre)) < 0)
		goto out;
	if (D.ntodo < jobs)
		jobs = D.ntodo ? (unsigned)D.ntodo : 1;
	/* No SQLite connection crosses the fork (exp/store.h): the owner's is closed while
	 * the workers write, its lock kept. */
	pq_store_suspend(st);
	/* The workers' forwarders share one spin budget (net/fwd.h); without the mapping each
	 * keeps its own, as a link alone does. */
	jo.spin_pool = pool = pq_fwd_spin_pool_new();
	rc = start_workers(&D, jobs, chains, st);
	/* The machine's other sweeps: without their table (no /run, a read-only file system)
	 * this sweep decides alone, as each did before the table, and says so. Opened after
	 * the workers are forked, so that none holds its descriptor (and with it the table's
	 * lock, were this process killed inside it). */
	if (rc == 0)
		D.admit = pq_exp_admit_join(o->log);
	pq_exp_jobs_caps_init(&D.caps, D.nw);
	D.cap_shown = D.nw;
	D.host.ours = 1;
	if (rc == 0) {
		progress(&D, NULL);
		rc = loop(&D);
	}
	pq_diag rd;
	int rrc = pq_store_resume(st, &rd);
	if (rc == 0 && rrc < 0)
		rc = pq_diag_set(d, rrc, "%s", pq_diag_msg(&rd));
	if (rc < 0 && !D.nw)
		goto out;
	sum->interrupted = pending(&D);
	sum->inflight_peak = D.peak;
	for (size_t i = 0; i < D.nw; i++)
		if (D.w[i].have_sum) {
			size_t skipped = sum->cells_skipped;
			int intr = sum->interrupted;
			pq_exp_run_summary_add(sum, &D.w[i].sum);
			sum->cells_skipped = skipped;
			sum->interrupted = intr;
		}
out:
	free(D.todo);
	free(D.again);
	free(D.w);
	free(D.cpu);
	free(D.conn_cpu);
	free(D.est_s);
	free(D.work_s);
	free(pre);
	pq_fwd_spin_pool_free(pool);
	pq_exp_admit_close(D.admit);
	return rc;
}
