#include "exp/runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core/clock.h"
#include "core/cpus.h"
#include "core/units.h"
#include "core/wire.h"
#include "exp/admit.h"
#include "exp/hostload.h"
#include "exp/jobs.h"
#include "load/chromium.h"
#include "load/run.h"
#include "net/check.h"
#include "net/link.h"
#include "pki/acct.h"
#include "pki/files.h"
#include "core/proc.h"
#include "core/sched.h"
#include "stats/sample.h"
#include "exp/runner_int.h"
#include "server/server.h"

/* A browser's cell on a link of ours runs as on two machines: the server on one CPU, the
 * browser on the others (core/sched.h, pq_sched_split, says what it changes), and the
 * link's forwarder beside the server, or beside the browser on a short link
 * (PQ_EXP_SPLIT_FWD_CLIENT_RTT_NS). So does a cell of pqtls's own client that runs alone
 * because its link's time scale (pq_exp_jobs_scale_ns, the dispatcher's own reason) is
 * under PQ_EXP_JOBS_SOLO_RTT_NS (exp/jobs.h): there a handshake's client, server and
 * forwarder are busy at once on two CPUs, and split, far fewer cells went over the host's
 * budget. A cell alone for its response's CPU is not split: a transfer keeps the forwarder
 * busy from end to end, and the endpoint beside it waits (both measured in docs/sweep.md,
 * "Measured here"). The forwarder is pinned here, the server and the client as they
 * start; the cell stores the CPUs as read back, or none when any of them could not be. */
static int split_wanted(const cellrun *r)
{
	if (r->cfg.browser)
		return 1;
	return r->row.host_cells_at_once <= 1 && pq_exp_jobs_scale_ns(&r->lc) < PQ_EXP_JOBS_SOLO_RTT_NS;
}

static void split_begin(cellrun *r)
{
	r->split_on = r->link && split_wanted(r) && pq_sched_split_get(&r->split) == 0;
	if (r->split_on) {
		int near = pq_link_config_rtt_ns(&r->lc) < PQ_EXP_SPLIT_FWD_CLIENT_RTT_NS;
		r->split_on = pq_link_pin(r->link, near ? &r->split.client : &r->split.server, r->row.link_fwd_cpus,
					  sizeof r->row.link_fwd_cpus) == 0;
	}
	if (!r->split_on)
		r->row.link_fwd_cpus[0] = '\0';
}

/* The forwarder back on every CPU, for the link's next cell. */
static void split_end(cellrun *r)
{
	if (r->split_on && pq_link_pin(r->link, &r->split.all, NULL, 0) < 0)
		r->row.host_server_cpus[0] = r->row.host_client_cpus[0] = r->row.link_fwd_cpus[0] = '\0';
	r->split_on = 0;
}

/* Not as asked: the rest of the cell runs, and is stored, as sharing every CPU. */
static void split_drop(cellrun *r)
{
	split_end(r);
	r->row.host_server_cpus[0] = r->row.host_client_cpus[0] = r->row.link_fwd_cpus[0] = '\0';
}

/* The server in a process of its own, started inside the server namespace: a crash of
 * the server is a failed cell, never the end of the sweep (exp/srvproc.h). */
static int server_start_in_ns(void *arg)
{
	cellrun *r = arg;
	if (!r->split_on)
		return pq_exp_srv_start(&r->srv, &r->cfg.server, r->o->server_exe, &r->diag);
	/* started from this thread, the server inherits its CPUs; read back from its process */
	int pinned = pq_sched_pin(0, &r->split.server, NULL, 0) == 0;
	int rc = pq_exp_srv_start(&r->srv, &r->cfg.server, r->o->server_exe, &r->diag);
	if (pinned && pq_sched_pin(0, &r->split.all, NULL, 0) < 0 && rc == 0)
		rc = pq_diag_set(&r->diag, PQ_ESTATE, "the sweep's thread could not take back its CPUs");
	char want[sizeof r->row.host_server_cpus];
	pq_sched_cpulist(&r->split.server, want, sizeof want);
	if (rc == 0)
		(void)pq_sched_cpus_of(r->srv.pid, r->row.host_server_cpus, sizeof r->row.host_server_cpus);
	if (rc != 0 || strcmp(want, r->row.host_server_cpus) != 0)
		split_drop(r);
	return rc;
}

static void load_progress(void *arg, const pq_load_progress *p)
{
	cellrun *r = arg;
	if (r->o->progress && !p->warmup) {
		/* a long cell moves the bar too */
		pq_exp_progress now = *r->pr;
		now.conns += p->done;
		now.failures += p->errors;
		now.elapsed_ns = pq_clock_now(&pq_clock_mono) - r->t0;
		now.arm = r->c->p.arm;
		r->o->progress(r->o->progress_arg, &now);
	}
	/* Tests: the server process crashes for real (abort, SIGSEGV) mid-cell. */
	if (r->srv.pid > 0 && !r->fault_sent && !p->warmup && p->done > 0 &&
	    (long long)r->c->index == r->o->test_server_fault_cell) {
		pq_exp_srv_fault(&r->srv, r->o->test_server_fault);
		r->fault_sent = 1;
	}
}

static int load_in_ns(void *arg)
{
	cellrun *r = arg;
	char exe[512];
	unsigned mss = pq_wire_mss(r->c->p.mtu) ? (unsigned)pq_wire_mss(r->c->p.mtu) : PQ_WIRE_MSS_DEFAULT;
	/* the client on the client's CPUs: pqtls's loop runs in this thread, and every browser
	 * the cell starts is forked from it */
	int pinned = r->split_on && r->row.host_server_cpus[0] &&
		     pq_sched_pin(0, &r->split.client, r->row.host_client_cpus, sizeof r->row.host_client_cpus) == 0;
	if (!pinned)
		split_drop(r);
	if (!r->cfg.browser)
		r->load_rc = pq_load_run(&r->cfg.load, &r->res, &r->diag);
	else if ((r->load_rc = pq_chromium_find(exe, sizeof exe, &r->diag)) == 0)
		r->load_rc = pq_chromium_run(&r->cfg.load, exe, mss, r->cfg.browser_state, &r->res, &r->diag);
	if (pinned && pq_sched_pin(0, &r->split.all, NULL, 0) < 0 && r->load_rc == 0)
		r->load_rc = pq_diag_set(&r->diag, PQ_ESTATE, "the sweep's thread could not take back its CPUs");
	return 0;
}

/* The cell's endpoints, built as bench and serve build theirs (exp/cellcfg.h), then
 * what only a cell has: the server's address, its chain's files, the client's trust in
 * it, the seed, progress and nice. The client's target is set once the server listens. */
static int build_endpoints(cellrun *r, pq_diag *d)
{
	int rc = pq_exp_cfg_build(&r->c->p, &r->lc, &r->cfg, d);
	if (rc < 0)
		return rc;
	int set_nice = r->o->endpoint_nice != PQ_SCHED_NICE_KEEP;
	pq_server_config *s = &r->cfg.server;
	s->listen = PQ_LINK_SERVER_ADDR ":0";
	s->tls.certs_dir = r->chain ? r->chain->info.dir : NULL;
	s->tls.emulated_sig = 1; /* a size-emulated chain is measured by its bytes */
	s->set_nice = set_nice;
	s->nice = r->o->endpoint_nice;
	if (r->link)
		r->row.server_hs_timeout_ns = r->row.server_idle_timeout_ns = s->handshake_timeout_ns;
	pq_load_config *l = &r->cfg.load;
	const char *ca = r->g->ca[0] ? r->g->ca : NULL;
	if (!ca && r->chain) {
		/* trust anchor identifiers: the client's store holds the intermediates too */
		snprintf(r->ca, sizeof r->ca, "%s/%s", r->chain->info.dir,
			 r->chain->info.n_held ? PQ_CHAIN_FILE_TRUST : PQ_CHAIN_FILE_ROOT);
		ca = r->ca;
	}
	int insecure = ca && strcmp(ca, "insecure") == 0;
	l->tls.ca_file = insecure ? NULL : ca;
	l->tls.insecure = insecure;
	l->tls.sig_pad = r->chain && r->chain->info.cv_carry > 0;
	l->servername = r->g->servername;
	l->seed = r->g->seed + 1000003u * (uint64_t)r->c->index;
	l->progress = load_progress;
	l->progress_arg = r;
	l->set_nice = set_nice;
	l->nice = r->o->endpoint_nice;
	r->eff.client_timeout_ns = l->timeout_ns;
	return 0;
}

/* Measures one cell into r->res and r->row; the cell's own failures go into the row. */
static void measure(cellrun *r)
{
	char target[160];
	pq_hostload before, after;
	static pq_server_stats st; /* the server's; one cell at a time, too large for the stack */
	int have_st = 0;
	pq_diag_clear(&r->diag);
	pq_exp_row_chain(r);
	pq_hostload_sample(&before, r->o->cpus);
	int64_t t0 = pq_clock_now(&pq_clock_mono);
	int64_t self0 = pq_proc_cpu_ns(RUSAGE_SELF), thr0 = pq_proc_cpu_ns(RUSAGE_THREAD);
	/* The link's own accounting covers the cell: from before its server starts to after it
	 * stopped (a failure to read the counts leaves the cell's fidelity unknown). */
	int window = r->link && pq_link_window_begin(r->link) == 0;
	int rc = 0;
	if ((rc = build_endpoints(r, &r->diag)) < 0) {
		r->row.status = "failed";
		snprintf(r->row.failure_reason, sizeof r->row.failure_reason, "load did not run: %s",
			 pq_diag_msg(&r->diag));
		goto done;
	}
	split_begin(r);
	if (r->link) {
		rc = pq_link_run_in(r->link, PQ_SIDE_SERVER, server_start_in_ns, r, &r->diag);
		if (rc < 0) {
			r->row.status = "failed";
			snprintf(r->row.failure_reason, sizeof r->row.failure_reason, "server did not start: %s",
				 pq_diag_msg(&r->diag));
			goto done;
		}
		snprintf(target, sizeof target, "%s:%u", PQ_LINK_SERVER_ADDR, r->srv.port);
	} else {
		snprintf(target, sizeof target, "%s", r->g->server);
	}
	if ((rc = pq_addr_parse(target, "server", 0, &r->cfg.load.target, &r->diag)) == 0)
		rc = r->link ? pq_link_run_in(r->link, PQ_SIDE_CLIENT, load_in_ns, r, &r->diag) : load_in_ns(r);
	if (rc == 0)
		rc = r->load_rc;
	r->row.client_cpu_ns = pq_proc_cpu_ns(RUSAGE_THREAD) - thr0;
	char died[128] = ""; /* "the server died: killed by signal 11 (Segmentation fault) mid-cell" */
	int64_t server_cpu = 0;
	if (r->srv.pid > 0) {
		pq_diag sd;
		if (pq_exp_srv_finish(&r->srv, &st, &server_cpu, &sd) < 0)
			snprintf(died, sizeof died, "%s mid-cell", pq_diag_msg(&sd));
		else {
			pq_exp_row_server(r, &st);
			have_st = 1;
		}
	}
	/* the server's process, and the link's forwarder in ours */
	r->row.server_link_cpu_ns =
		r->link ? pq_proc_cpu_ns(RUSAGE_SELF) - self0 - r->row.client_cpu_ns + server_cpu : -1;
	size_t ok = 0;
	for (size_t i = 0; i < r->res.n; i++)
		ok += r->res.recs[i].err == PQ_LERR_NONE;
	if (rc < 0) {
		r->row.status = "failed";
		snprintf(r->row.failure_reason, sizeof r->row.failure_reason, "load did not run: %s",
			 pq_diag_msg(&r->diag));
	} else if (ok < r->res.n || died[0] || r->res.n < (size_t)r->c->p.connections) {
		char f[320];
		pq_exp_row_failures(&r->res, f, sizeof f);
		r->row.status = ok ? "failures" : "failed";
		snprintf(r->row.failure_reason, sizeof r->row.failure_reason, "%s%s%s%s", died, died[0] && f[0] ? "; " : "",
			 f, r->res.stopped_early ? "; the load stopped early: its first connections all failed" : "");
	}
done:
	split_end(r);
	if (window && pq_link_window_end(r->link, &r->row.link) == 0)
		r->row.link_ok = pq_link_window_ok(&r->row.link, r->link_why, sizeof r->link_why);
	pq_hostload_sample(&after, r->o->cpus);
	r->row.host_throttled_us = pq_hostload_throttled_us(&before, &after);
	r->row.wall_ns = pq_clock_now(&pq_clock_mono) - t0;
	r->row.host_steal_pct = before.steal.total ? 100 * pq_steal_fraction(&before.steal, &after.steal) : -1;
	pq_exp_row_endpoints(r, have_st ? &st : NULL);
	r->row.host_runq_before = before.runq;
	r->row.host_runq_after = after.runq;
	r->row.host_load1_before = before.load1;
	r->row.host_load1_after = after.load1;
}

typedef struct linkrun {
	pq_link *link;
	int64_t check_id;
	int check_ok;
	pq_ktcp_state ktcp; /* the kernel's TCP settings as the link read them back */
} linkrun;

/* What a cell ran with, besides its point: the resolved link, the read-backs, and the
 * MSS its connections saw. */
static void cell_eff(cellrun *r, const linkrun *lr)
{
	if (!r->link) {
		int64_t t = r->eff.client_timeout_ns;
		pq_exp_eff_remote(&r->eff);
		r->eff.client_timeout_ns = t;
		return;
	}
	long long pad = r->eff.pad_bytes, ocsp = r->eff.ocsp_bytes;
	int64_t t = r->eff.client_timeout_ns;
	pq_exp_eff_from_link(&r->eff, &r->lc);
	r->eff.pad_bytes = pad;
	r->eff.ocsp_bytes = ocsp;
	r->eff.client_timeout_ns = t;
	/* Read back from a connection across the link (net/ktcp.h): never "default". */
	snprintf(r->eff.cc, sizeof r->eff.cc, "%s", lr->ktcp.cc);
	r->eff.initcwnd = (int)lr->ktcp.initcwnd;
	r->eff.ktcp = lr->ktcp;
	r->eff.ktcp_known = 1;
	for (size_t i = 0; i < r->res.n && r->eff.mss < 0; i++)
		if (r->res.recs[i].err == PQ_LERR_NONE && r->res.recs[i].mss > 0)
			r->eff.mss = (int)r->res.recs[i].mss;
}

/* The link's self-check, up to PQ_EXP_CHECK_TRIES times until one is within budget. */
static int check_tries(pq_store *st, const pq_exp_cell *c, const char *desc, const char *backend,
		       const pq_exp_run_opts *o, linkrun *lr, pq_exp_run_summary *sum, pq_diag *d)
{
	char line[1024] = "";
	int rc;
	for (int attempt = 1; attempt <= PQ_EXP_CHECK_TRIES; attempt++) {
		pq_check_result cr;
		if ((rc = pq_check_run(lr->link, NULL, &cr, d)) < 0)
			return pq_diag_prefix(d, rc, "link self-check (%s)", desc);
		if ((rc = pq_store_link_check(st, c->link_key, desc, backend, &cr, &lr->check_id, d)) < 0)
			return rc;
		sum->checks++;
		sum->checks_missed += !cr.ok;
		double tail = pq_check_probe_tail_ns(&cr);
		if (tail > sum->probe_tail_max_ns)
			sum->probe_tail_max_ns = tail;
		pq_check_format(&cr, line, sizeof line);
		if (o->log)
			fprintf(o->log, "link check%s: %s\n", attempt > 1 ? " (again)" : "", line);
		lr->check_ok = cr.ok;
		if (cr.ok)
			return 0;
	}
	if (o->strict)
		return pq_diag_set(d, PQ_EVERIFY,
				   "the link self-check failed %d times for %s: %s (stored in link_check; strict: the "
				   "sweep stops)",
				   PQ_EXP_CHECK_TRIES, desc, line);
	if (o->log)
		fprintf(o->log, "link check: missed %d times; measuring anyway, its cells marked (link_check_ok 0)\n",
			PQ_EXP_CHECK_TRIES);
	return 0;
}

static int link_up(const pq_exp_grid *g, const pq_exp_cell *c, pq_store *st, const pq_exp_run_opts *o,
		   linkrun *lr, pq_exp_run_summary *sum, pq_diag *d)
{
	pq_link_config lc;
	char desc[512];
	int rc = pq_exp_point_link(&c->p, g->seed, c->arm_where, &lc, d);
	if (rc < 0)
		return rc;
	lc.backend = o->backend;
	pq_link_config_describe(&lc, desc, sizeof desc);
	if (o->test_no_link)
		return pq_diag_set(d, PQ_EIO, "link (%s): the test's fault: no link in this process", desc);
	pq_link_opts lo;
	if (o->link_tune)
		lo = *o->link_tune;
	else
		pq_link_opts_init(&lo);
	lo.pcap_path = NULL;
	lo.log = o->log;
	lo.fault_late_ns = o->fault_link_late_ns;
	lo.spin_pool = o->spin_pool;
	lo.caps = o->caps;
	if ((rc = pq_link_up(&lc, &lo, &lr->link, d)) < 0)
		return pq_diag_prefix(d, rc, "link (%s)", desc);
	lr->ktcp = *pq_link_ktcp(lr->link);
	const char *backend = pq_backend_name(pq_link_backend(lr->link));
	if (o->log)
		fprintf(o->log, "link up: %s (%s)\n", desc, backend);
	/* A check that misses its budget is repeated (up to PQ_EXP_CHECK_TRIES in all): on a
	 * shared VM a moment of steal can spoil one; every attempt is stored. */
	lr->check_ok = -1;
	if (o->no_check)
		return pq_store_link_check(st, c->link_key, desc, backend, NULL, &lr->check_id, d);
	/* A fast link checked once for the sweep with the machine to itself (exp/jobs.c) is
	 * not pushed again beside the cells in flight: its verdict is the one stored then. */
	for (size_t i = 0; i < o->nprechecked; i++)
		if (strcmp(o->prechecked[i].link_key, c->link_key) == 0) {
			lr->check_id = o->prechecked[i].check_id;
			lr->check_ok = o->prechecked[i].ok;
			if (o->log)
				fprintf(o->log, "link check: as checked with the machine to itself at the sweep's start (%s)\n",
					lr->check_ok ? "within budget" : "missed");
			return 0;
		}
	return check_tries(st, c, desc, backend, o, lr, sum, d);
}

static void report(const pq_exp_run_opts *o, pq_exp_progress *p, int64_t t0, const char *arm)
{
	p->elapsed_ns = pq_clock_now(&pq_clock_mono) - t0;
	p->arm = arm;
	if (o->progress)
		o->progress(o->progress_arg, p);
}

struct pq_exp_runner {
	const pq_exp_grid *g;
	const pq_exp_chains *chains;
	pq_store *st;
	const pq_exp_run_opts *o;
	const pq_exp_progress *pr;
	int64_t t0;
	pq_exp_run_summary *sum;
	linkrun lr;
	const char *cur_link;
	int at_once; /* cells in flight as the next is handed out, itself included */
};

int pq_exp_runner_new(const pq_exp_grid *g, const pq_exp_chains *chains, pq_store *st, const pq_exp_run_opts *o,
		      const pq_exp_progress *pr, pq_exp_run_summary *sum, pq_exp_runner **out, pq_diag *d)
{
	pq_exp_runner *R = calloc(1, sizeof *R);
	if (!R)
		return pq_diag_set(d, PQ_ENOMEM, "out of memory");
	*R = (pq_exp_runner){.g = g, .chains = chains, .st = st, .o = o, .pr = pr, .sum = sum,
			     .t0 = pq_clock_now(&pq_clock_mono), .at_once = 1};
	*out = R;
	return 0;
}

void pq_exp_runner_at_once(pq_exp_runner *R, int n)
{
	R->at_once = n < 1 ? 1 : n;
}

int pq_exp_runner_free(pq_exp_runner *R, pq_diag *d)
{
	int rc = 0;
	if (!R)
		return 0;
	if (R->lr.link)
		rc = pq_link_down(R->lr.link, d);
	free(R);
	return rc;
}

static cellrun *cell_new(const pq_exp_runner *R, const pq_exp_cell *c)
{
	cellrun *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->g = R->g;
	r->c = c;
	r->o = R->o;
	r->pr = R->pr;
	r->t0 = R->t0;
	r->link = R->lr.link;
	r->chain = R->g->server[0] ? NULL : pq_exp_chains_find(R->chains, &c->p);
	pq_store_cell_row_init(&r->row);
	pq_store_utc_now(r->row.started_at);
	r->row.host_cells_at_once = R->at_once;
	r->row.link_check_id = R->lr.check_id;
	r->row.link_check_ok = R->lr.check_ok;
	return r;
}

/* Takes the link that is up down and brings up c's, self-checked (link_up). *no_link:
 * the error (if any) came from bringing c's link up, so nothing of a cell was measured. */
static int switch_link(pq_exp_runner *R, const pq_exp_cell *c, int *no_link, pq_diag *d)
{
	int rc = 0;
	*no_link = 0;
	if (R->lr.link && (rc = pq_link_down(R->lr.link, d)) < 0)
		return rc;
	R->lr.link = NULL;
	R->cur_link = NULL;
	if ((rc = link_up(R->g, c, R->st, R->o, &R->lr, R->sum, d)) < 0) {
		*no_link = 1;
		return rc;
	}
	R->cur_link = c->link_key;
	return 0;
}

int pq_exp_runner_check_link(pq_exp_runner *R, const pq_exp_cell *c, pq_exp_prechecked *out, pq_diag *d)
{
	int no_link, rc = switch_link(R, c, &no_link, d);
	if (rc == 0)
		*out = (pq_exp_prechecked){.link_key = c->link_key, .check_id = R->lr.check_id, .ok = R->lr.check_ok};
	return rc;
}

/* Measures cell c on its link (brought up when it is not the one up), again while it is
 * over a budget (o->remeasure), and stores the last attempt. */
int pq_exp_runner_cell(pq_exp_runner *R, const pq_exp_cell *c, pq_exp_cell_outcome *oc, pq_diag *d)
{
	const pq_exp_grid *g = R->g;
	const pq_exp_run_opts *o = R->o;
	int rc = 0;
	memset(oc, 0, sizeof *oc);
	oc->cpu_share = oc->cpu_per_conn_s = -1;
	if (!g->server[0] && (!R->cur_link || strcmp(R->cur_link, c->link_key) != 0) &&
	    (rc = switch_link(R, c, &oc->no_link, d)) < 0)
		return rc; /* with no_link: nothing of the cell measured or stored */
	cellrun *r = NULL;
	int own_cpu = pq_exp_cell_cpu_bound(g, c);
	/* A cell over the link's or the host's budget is measured again, up to o->remeasure
	 * times, unless its mark is its own transfer's waits (pq_hostload_worth_again); the
	 * last attempt is stored (marked if it is over too). */
	for (int attempt = 0;; attempt++) {
		if (!(r = cell_new(R, c)))
			return pq_diag_set(d, PQ_ENOMEM, "out of memory");
		if ((rc = pq_exp_point_link(&c->p, g->seed, c->arm_where, &r->lc, d)) < 0)
			break;
		measure(r);
		/* a failure is data, never measured away; only a clean-running cell's timing is */
		if ((r->row.link_ok != 0 && r->row.host_ok != 0) || attempt >= o->remeasure || r->fault_sent ||
		    strcmp(r->row.status, "ok") != 0)
			break;
		char why[320];
		pq_exp_row_over_why(r, why, sizeof why);
		if (!pq_hostload_worth_again(r->row.link_ok, r->row.host_ok, r->row.host_steal_pct, own_cpu)) {
			if (o->log)
				fprintf(o->log, "cell %zu (%s, trial %d): over budget (%s); not measured again: it runs alone "
					"for its response's CPU, so these waits are its own transfer's\n",
					c->index, c->p.arm, c->p.trial, why);
			R->sum->cells_own_wait++;
			break;
		}
		if (o->log)
			fprintf(o->log, "cell %zu (%s, trial %d): over budget (%s); measuring it again (%d of %d)\n", c->index,
				c->p.arm, c->p.trial, why, attempt + 1, o->remeasure);
		R->sum->cells_remeasured++;
		pq_load_result_dispose(&r->res);
		free(r);
	}
	if (rc == 0) {
		cell_eff(r, &R->lr);
		rc = pq_store_cell(R->st, c, &r->eff, &r->row, r->res.recs, r->res.n, d);
	}
	if (rc == 0) {
		pq_exp_run_summary *sum = R->sum;
		size_t ok = 0;
		for (size_t k = 0; k < r->res.n; k++)
			ok += r->res.recs[k].err == PQ_LERR_NONE;
		oc->conns = r->res.n;
		oc->failures = r->res.n - ok;
		oc->failed = strcmp(r->row.status, "failed") == 0;
		oc->marked = r->row.link_ok == 0 || r->row.host_ok == 0;
		oc->cpu_share = r->row.client_cpu_ns >= 0 && r->row.server_link_cpu_ns >= 0 && r->row.wall_ns > 0
					? (double)(r->row.client_cpu_ns + r->row.server_link_cpu_ns) / (double)r->row.wall_ns
					: -1;
		size_t all = r->res.n + pq_exp_cfg_warmup(&c->p);
		oc->cpu_per_conn_s = oc->cpu_share >= 0 && all
					     ? (double)(r->row.client_cpu_ns + r->row.server_link_cpu_ns) / 1e9 / (double)all
					     : -1;
		sum->cells_run++;
		sum->cells_failed += (size_t)oc->failed;
		sum->cells_partial += strcmp(r->row.status, "failures") == 0;
		sum->conns += oc->conns;
		sum->conn_failures += oc->failures;
		if (o->log && strcmp(r->row.status, "ok") != 0)
			fprintf(o->log, "cell %zu (%s, trial %d): %s: %s\n", c->index, c->p.arm, c->p.trial,
				r->row.status, r->row.failure_reason);
		rc = pq_exp_row_fidelity(o, r, sum, d);
	}
	pq_load_result_dispose(&r->res);
	free(r);
	return rc;
}

double pq_exp_progress_eta_s(const pq_exp_progress *p, double est_s)
{
	double el = (double)p->elapsed_ns / 1e9, rem;
	size_t measured = p->done - p->skipped, left = p->total - p->done;
	if (!left)
		return 0;
	if (p->work_done > 0 && p->work_total > p->work_done)
		rem = el * (p->work_total - p->work_done) / p->work_done;
	else if (measured)
		rem = el / (double)measured * (double)left;
	else
		rem = est_s - el;
	return rem > 0 ? rem : 0;
}

/* One cell at a time, but beside the machine's other sweeps (exp/admit.h): cell c waits
 * for room among their cells in flight as a cell of a sweep at --jobs does, with the class
 * limit auto would give it and the CPU share guessed for a cell none of whose kind has
 * ended (half the budget). 1: measure it; 0: stopped while waiting; negative: the table
 * failed (the caller goes on alone). */
static int admit_wait(pq_exp_admit *a, const pq_exp_grid *g, const pq_exp_cell *c, const pq_exp_run_opts *o,
		      int *said)
{
	unsigned ncpu = o->cpus ? o->cpus->usable : pq_proc_ncpu();
	double budget = PQ_EXP_JOBS_CPU_BUDGET * (double)ncpu;
	pq_exp_admit_load mine = {.min_limit = SIZE_MAX};
	pq_exp_admit_cell ac = {.limit = pq_exp_cell_limit(g, c, PQ_EXP_JOBS_MAX, PQ_EXP_JOBS_PER_CPU * ncpu, NULL),
				.share = budget / 2,
				.est_ns = (int64_t)(pq_exp_cell_estimate_s(&c->p) * 1e9)};
	for (;;) {
		int rc = pq_exp_admit_take(a, &mine, &ac, budget, pq_clock_now(&pq_clock_mono));
		if (rc != 0)
			return rc;
		if (!*said && o->log)
			fprintf(o->log, "jobs: another sweep on this machine has cells in flight: the next cell waits for room "
				"beside them, as beside this sweep's own\n");
		*said = 1;
		if (o->stop && *o->stop)
			return 0;
		struct timespec ts = {.tv_nsec = 250 * 1000000L};
		nanosleep(&ts, NULL);
	}
}

int pq_exp_run(const pq_exp_grid *g, const pq_exp_chains *chains, pq_store *st, const pq_exp_run_opts *o,
	       pq_exp_run_summary *sum, pq_diag *d)
{
	int64_t t0 = pq_clock_now(&pq_clock_mono);
	pq_exp_progress pr = {.total = g->n, .inflight_max = 1};
	pq_exp_runner *R = NULL;
	pq_exp_run_summary_init(sum);
	for (size_t i = 0; i < g->n; i++)
		pr.work_total += pq_exp_cell_work_s(g, &g->cells[i], 1, 1);
	int rc = pq_exp_runner_new(g, chains, st, o, &pr, sum, &R, d), said = 0;
	pq_exp_admit *adm = rc == 0 ? pq_exp_admit_join(o->log) : NULL;
	for (size_t i = 0; i < g->n && rc == 0; i++) {
		const pq_exp_cell *c = &g->cells[i];
		if (o->stop && *o->stop) {
			sum->interrupted = 1;
			break;
		}
		int done = pq_store_cell_done(st, c->key, d);
		if (done < 0) {
			rc = done;
			break;
		}
		double work = pq_exp_cell_work_s(g, c, 1, 1);
		if (done) {
			sum->cells_skipped++;
			pr.skipped++;
			pr.done++;
			pr.work_total -= work;
			continue;
		}
		int room = adm ? admit_wait(adm, g, c, o, &said) : 1;
		if (room == 0) {
			sum->interrupted = 1;
			break;
		}
		if (room < 0) {
			pq_exp_admit_close(adm);
			adm = NULL;
		}
		pq_exp_cell_outcome oc;
		rc = pq_exp_runner_cell(R, c, &oc, d);
		if (adm && pq_exp_admit_done(adm, 0) < 0) {
			pq_exp_admit_close(adm);
			adm = NULL;
		}
		if (rc < 0)
			break;
		pr.done++;
		pr.work_done += work;
		pr.conns += oc.conns;
		pr.failures += oc.failures;
		pr.marked += (size_t)oc.marked;
		report(o, &pr, t0, c->p.arm);
	}
	pq_exp_admit_close(adm);
	pq_diag dd;
	int drc = pq_exp_runner_free(R, &dd);
	if (rc == 0 && drc < 0)
		rc = pq_diag_set(d, drc, "%s", pq_diag_msg(&dd));
	return rc;
}

