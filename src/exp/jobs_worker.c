/* A worker process of a sweep's cells at once (exp/jobs_int.h): its own store connection
 * and runner, cells from the dispatcher until it says stop or is gone, each cell's outcome
 * and the running summary sent back, then its link down. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "exp/jobs_int.h"

static void wsend(int fd, wmsg *m)
{
	while (send(fd, m, sizeof *m, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

/* A worker: its own store connection and runner; cells from the dispatcher until it says
 * stop (or is gone), then its link down and its summary. Never returns. */
void pq_exp_jobs_worker(int fd, pid_t parent, unsigned index, const pq_exp_grid *g,
			const pq_exp_chains *chains, pq_store *owner, const pq_exp_run_opts *o)
{
	/* The dispatcher killed (even by SIGKILL): this worker ends after its cell, its link
	 * taken down (SIGTERM only sets the sweep's stop flag, inherited). */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
		_exit(1);
	pq_exp_run_opts wo = *o;
	wo.progress = NULL; /* the dispatcher draws the bar */
	wo.test_no_link = o->test_no_link_worker == (int)index + 1;
	pq_exp_run_summary sum;
	pq_exp_run_summary_init(&sum);
	pq_store *st = NULL;
	pq_exp_runner *R = NULL;
	wmsg m = {.kind = MSG_READY};
	long long failed_cell = -1;
	int no_link = 0;
	pq_diag d;
	int rc = pq_store_attach(owner, &st, &d);
	if (rc == 0)
		rc = pq_exp_runner_new(g, chains, st, &wo, NULL, &sum, &R, &d);
	if (rc == 0)
		wsend(fd, &m);
	while (rc == 0) {
		wcell wc = {.cell = -1};
		ssize_t k;
		while ((k = recv(fd, &wc, sizeof wc, 0)) < 0 && errno == EINTR)
			;
		long long cell = wc.cell;
		if (k != (ssize_t)sizeof wc || cell < 0 || (size_t)cell >= g->n)
			break; /* stop, or the dispatcher is gone */
		pq_exp_runner_at_once(R, wc.at_once);
		m = (wmsg){.kind = MSG_DONE, .cell = cell};
		if ((rc = pq_exp_runner_cell(R, &g->cells[cell], &m.oc, &d)) < 0) {
			failed_cell = cell;
			no_link = m.oc.no_link;
			break;
		}
		m.sum = sum;
		wsend(fd, &m);
	}
	pq_diag dd;
	int drc = pq_exp_runner_free(R, &dd);
	if (rc < 0 || drc < 0) {
		m = (wmsg){.kind = MSG_ERROR, .cell = failed_cell, .oc.no_link = no_link};
		snprintf(m.err, sizeof m.err, "%s", pq_diag_msg(rc < 0 ? &d : &dd));
		wsend(fd, &m);
	}
	m = (wmsg){.kind = MSG_FINAL, .sum = sum};
	wsend(fd, &m);
	pq_store_close(st);
	_exit(rc < 0 || drc < 0 ? 1 : 0);
}
