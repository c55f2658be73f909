/* pqtls sweep: an experiment grid (a spec file, a preset, or dimensions given as options)
 * measured in this one process into a SQLite database (src/exp/). This file parses and
 * runs (what it shows: sweep_show.c; its own session: sweep_session.c); the engine is
 * src/exp/runner.c. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/link_cli.h"
#include "cli/sweep_int.h"
#include "core/awake.h"
#include "core/clock.h"
#include "core/cpus.h"
#include "core/proc.h"
#include "core/sched.h"
#include "core/units.h"
#include "exp/admit.h"
#include "exp/chains.h"
#include "exp/colsql.h"
#include "exp/dim.h"
#include "exp/grid.h"
#include "exp/jobs.h"
#include "exp/preset.h"
#include "exp/runner.h"
#include "exp/spec.h"
#include "exp/store.h"
#include "net/fwd.h"
#include "net/link.h"

struct sweep_opts {
	const char *dim[PQ_DIM_COUNT]; /* --KEY for every spec key (exp/dim.h) */
	const char *preset, *out, *shard, *cache, *fault_late, *jobs;
	int presets, keys, schema, no_check, strict, dry_run, quiet, backend, awake, fault_no_check_link;
	long long endpoint_nice, remeasure, fault_no_link; /* PQ_OPT_INT fills a long long */
};

#undef O /* cli/link_cli.h's, for the link commands' tables */
#define O(f) offsetof(struct sweep_opts, f)
static const pq_opt sweep_fixed[] = {
	{"preset", 'p', PQ_OPT_STR, O(preset), "NAME", NULL, "run a built-in study (--presets lists them)", NULL, 0, 0},
	{"presets", 0, PQ_OPT_FLAG, O(presets), NULL, NULL, "list the presets with their size and time here", NULL, 0, 0},
	{"keys", 0, PQ_OPT_FLAG, O(keys), NULL, NULL, "list the spec keys with what they take and their defaults", NULL, 0, 0},
	{"schema", 0, PQ_OPT_FLAG, O(schema), NULL, NULL,
	 "print the SQL of the results database this pqtls writes (docs/results.md)", NULL, 0, 0},
	{"out", 'o', PQ_OPT_STR, O(out), "FILE", NULL,
	 "results database, default out/NAME/results.db (re-running the same command resumes it)", NULL, 0, 0},
	{"shard", 0, PQ_OPT_STR, O(shard), "I/N", NULL, "run only shard I of N of the grid's cells (default: all)", NULL, 0, 0},
	{"jobs", 'j', PQ_OPT_STR, O(jobs), "N", "auto",
	 "measure up to N cells at once, each on a link of its own (1..64; auto: " PQ_STR(PQ_EXP_JOBS_PER_CPU) " per CPU, up to twice as many "
	 "for cells whose connections wait out lost packets, more for those waiting on a slow or jittery link, "
	 "one at a time for a remote server); a cell under "
	 "10 ms RTT, a browser's, or one whose response keeps the CPUs busy (a large response on a fast link, or "
	 "many at once) runs alone, and fewer run at once while cells go over their budgets; other sweeps' cells "
	 "on the same CPUs count as this one's ($PQTLS_RUN_DIR, default " PQ_EXP_ADMIT_DIR "); what is stored does "
	 "not depend on N", NULL, 0, 0},
	{"no-check", 0, PQ_OPT_FLAG, O(no_check), NULL, NULL,
	 "skip the links' self-checks (each cell's link and host fidelity is still measured and stored)", NULL, 0, 0},
	{"strict", 0, PQ_OPT_FLAG, O(strict), NULL, NULL,
	 "stop when a link misses its self-check or a cell's link goes over its budget (default: measure, "
	 "mark the cell, go on)", NULL, 0, 0},
	{"backend", 0, PQ_OPT_CHOICE, O(backend), NULL, "auto", "link emulation backend", PQ_BACKEND_CHOICES, 0, 0},
	{"cache", 0, PQ_OPT_STR, O(cache), "DIR", NULL, "chain cache (default $PQTLS_CACHE, else ~/.cache/pqtls)", NULL, 0, 0},
	{"dry-run", 'n', PQ_OPT_FLAG, O(dry_run), NULL, NULL, "print the grid and its estimated time, measure nothing", NULL, 0, 0},
	{"quiet", 'q', PQ_OPT_FLAG, O(quiet), NULL, NULL, "no progress or link lines", NULL, 0, 0},
	{"endpoint-nice", 0, PQ_OPT_INT, O(endpoint_nice), "N", NULL /* PQ_EXP_ENDPOINT_NICE, below */,
	 "the nice value each cell's client and server run at, -20..19 (raising needs root), so that other work on this "
	 "machine delays the measured connections less; stored per cell (host_nice) beside their waits for a CPU",
	 NULL, PQ_SCHED_NICE_MIN, PQ_SCHED_NICE_MAX},
	{"keep-awake", 0, PQ_OPT_CHOICE, O(awake), NULL, "on",
	 "keep the CPUs from halting while measuring, so that no vCPU wakes late under a link's forwarder "
	 "(bench/awake.sh measures it): poll holds a CPU latency request of 0 us (/dev/cpu_dma_latency), so idle CPUs "
	 "poll in the kernel's idle loop (needs root and a cpuidle driver with a POLL state); spin runs a busy thread "
	 "per CPU that takes only cycles nobody else wants (SCHED_IDLE, nice 19), never under a cgroup CPU quota below "
	 "the CPUs it may run on; on polls where it can, else spins (stored as run.keep_awake)",
	 "on|off|poll|spin", 0, 0},
	{"remeasure", 0, PQ_OPT_INT, O(remeasure), "N", NULL /* PQ_EXP_REMEASURE_DEFAULT, below */,
	 "measure a cell over the link's or the host's budget again, up to N times (0..5), but not one over the "
	 "host's budget alone that runs alone for its own response's CPU (its waits are its own); only its last "
	 "attempt is stored, the sweep's last line counts the attempts thrown away", NULL, 0, PQ_EXP_REMEASURE_MAX},
	{NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

/* Faults for the tests, in the option table of pq_cmd_sweep_faults only: the test program
 * tests/tools/pqtls_faults.c runs that command; pqtls's own command table (main.c) does
 * not list it, so `pqtls sweep` neither shows nor takes these (as the server crash of
 * pq_exp_run_opts.test_server_fault_cell, no user reaches them). */
static const pq_opt sweep_faults[] = {
	{"fault-link-late", 0, PQ_OPT_STR, O(fault_late), "DURATION", NULL,
	 "every link releases each packet this much late (0..100ms), so it misses its budget", NULL, 0, 0},
	{"fault-no-link-worker", 0, PQ_OPT_INT, O(fault_no_link), "K", NULL,
	 "with --jobs, worker K (1, 2, ...) cannot bring up any link (as on a machine out of namespaces or descriptors)",
	 NULL, 0, PQ_EXP_JOBS_MAX},
	{"fault-no-link-precheck", 0, PQ_OPT_FLAG, O(fault_no_check_link), NULL, NULL,
	 "with --jobs, the sweep's own check of a fast link, before the cells start, cannot bring the link up", NULL, 0,
	 0},
	{NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

enum {
	NFIXED = sizeof sweep_fixed / sizeof sweep_fixed[0] - 1,
	NFAULTS = sizeof sweep_faults / sizeof sweep_faults[0] - 1,
};

/* The fixed options, then `extra`, then one per spec key, from the dimension table: a new
 * dimension gets its option, its help line and its place in the manifest's command line
 * here without a change to this file. Fills t (NULL-terminated) once. */
static const pq_opt *table_of(pq_opt *t, const pq_opt *extra, size_t nextra)
{
	static char help[PQ_DIM_COUNT][400];
	static char nice_def[8], remeasure_def[8];
	if (t[0].name)
		return t;
	memcpy(t, sweep_fixed, NFIXED * sizeof *t);
	snprintf(nice_def, sizeof nice_def, "%d", PQ_EXP_ENDPOINT_NICE);
	snprintf(remeasure_def, sizeof remeasure_def, "%d", PQ_EXP_REMEASURE_DEFAULT);
	for (int i = 0; i < NFIXED; i++) {
		if (!strcmp(t[i].name, "endpoint-nice"))
			t[i].def = nice_def;
		if (!strcmp(t[i].name, "remeasure"))
			t[i].def = remeasure_def;
	}
	if (nextra)
		memcpy(t + NFIXED, extra, nextra * sizeof *t);
	for (int i = 0, j = NFIXED + (int)nextra; i < PQ_DIM_COUNT; i++) {
		const pq_dim *k = &pq_dims[i];
		if (k->flags & PQ_DIM_STORED)
			continue; /* stored, not asked for */
		snprintf(help[i], sizeof help[i], "%s (default %s%s)", k->help, k->def,
			 k->flags & PQ_DIM_GLOBAL ? "" : "; a list is a dimension");
		t[j++] = (pq_opt){k->key, 0, PQ_OPT_STR,
					 offsetof(struct sweep_opts, dim) + (size_t)i * sizeof(const char *), k->metavar,
					 NULL, help[i], NULL, 0, 0};
	}
	return t;
}

static const pq_opt *sweep_table(void)
{
	static pq_opt t[NFIXED + PQ_DIM_COUNT + 1];
	return table_of(t, NULL, 0);
}

static const pq_opt *sweep_faults_table(void)
{
	static pq_opt t[NFIXED + NFAULTS + PQ_DIM_COUNT + 1];
	return table_of(t, sweep_faults, NFAULTS);
}
#undef O

static const char *path_name = "pqtls sweep";
static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void catch_signals(void)
{
	/* The first signal ends the sweep after the cell in progress; a second one kills it
	 * at once (the database keeps every finished cell either way). */
	struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESETHAND};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* The command as it was given (options in table order), for the run manifest, after the
 * forwarder's tuning from the environment when any is set. */
static void command_line(const pq_cmd *cmd, const struct sweep_opts *o, const pq_cli_args *a, char *buf,
			 size_t n)
{
	size_t len = pq_linkcli_env_text(buf, n);
	if (len < n)
		len += (size_t)snprintf(buf + len, n - len, "pqtls sweep");
	for (int i = 0; i < a->argc && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, " '%s'", a->argv[i]);
	for (const pq_opt *op = cmd->opts_fn(); op->name && len < n; op++) {
		if (!pq_cli_given(cmd, a, op->name))
			continue;
		if (op->type == PQ_OPT_STR)
			len += (size_t)snprintf(buf + len, n - len, " --%s '%s'", op->name,
						*(const char *const *)((const char *)o + op->offset));
		else if (op->type == PQ_OPT_CHOICE)
			len += (size_t)snprintf(buf + len, n - len, " --%s %d", op->name,
						*(const int *)((const char *)o + op->offset));
		else
			len += (size_t)snprintf(buf + len, n - len, " --%s", op->name);
	}
}

static int load_spec(const struct sweep_opts *o, const pq_cli_args *a, pq_exp_spec *s, pq_diag *d)
{
	if (o->preset) {
		const pq_exp_preset *p = pq_exp_preset_find(o->preset);
		if (!p) {
			char names[256];
			pq_exp_preset_names(names, sizeof names);
			return pq_diag_set(d, PQ_EINVAL, "--preset: no preset '%s' (known: %s)", o->preset, names);
		}
		char where[64];
		snprintf(where, sizeof where, "preset %s", p->name);
		return pq_exp_spec_parse(s, where, p->text, d);
	}
	if (a->argc == 1)
		return pq_exp_spec_load(s, a->argv[0], d);
	return pq_exp_spec_parse(s, "command line", "name = sweep\n", d);
}

static int apply_dims(const struct sweep_opts *o, pq_exp_spec *s, pq_diag *d)
{
	for (int i = 0; i < PQ_DIM_COUNT; i++) {
		if (!o->dim[i])
			continue;
		char what[64];
		snprintf(what, sizeof what, "--%s", pq_dims[i].key);
		int rc = pq_exp_spec_set(s, pq_dims[i].key, o->dim[i], what, d);
		if (rc < 0)
			return rc;
	}
	if (s->merged[0] && !o->quiet)
		fprintf(stderr, "pqtls sweep: note: the options made arms alike, each measured once: %s\n", s->merged);
	return 0;
}

static int usage_or_fail(int rc, const pq_diag *d)
{
	if (rc == PQ_EINVAL || rc == PQ_ERANGE || rc == PQ_EPARSE || rc == PQ_EEXIST || rc == PQ_ETOOBIG ||
	    rc == PQ_EUNSUPPORTED)
		return pq_cli_usage_error(path_name, "%s", pq_diag_msg(d));
	return pq_cli_fail(path_name, "%s", pq_diag_msg(d));
}

/* --keep-awake's choices, in the option's order. */
enum { AWAKE_ON, AWAKE_OFF, AWAKE_POLL, AWAKE_SPIN };

/* The CPUs kept from halting as `how` asks (core/awake.h); *name is what ran, for the run
 * row: "poll", "spin" or "off". Only a poll asked for by name that cannot be held fails
 * (before anything is written); `on` falls back to the spinners and says why. */
static int keep_awake(int how, const pq_cpus *cpus, FILE *log, pq_awake *a, const char **name, pq_diag *d)
{
	pq_diag pd;
	*name = "off";
	if (how == AWAKE_OFF)
		return 0;
	if (how != AWAKE_SPIN && pq_awake_poll_start(a, NULL, &pd) == 0) {
		*name = "poll";
		return 0;
	}
	if (how == AWAKE_POLL)
		return pq_diag_set(d, pd.code, "--keep-awake poll: %s (--keep-awake spin keeps the CPUs awake with busy "
					       "threads instead)", pq_diag_msg(&pd));
	if (how == AWAKE_ON && log)
		fprintf(log, "pqtls sweep: keep-awake: the CPUs' polling idle is not available (%s); spinners instead\n",
			pq_diag_msg(&pd));
	/* Under a cgroup CPU quota below the CPUs it may run on, the spinners' cycles count
	 * against it: they spent a quota of 1.5 CPUs in 286 of 289 periods, and every cell
	 * waited out the throttling (docs/sweep.md, "A share of a machine"). */
	if (cpus->quota > 0 && cpus->quota < (double)cpus->allowed) {
		if (log)
			fprintf(log, "pqtls sweep: keep-awake off: a cgroup CPU quota of %.2f CPUs is in force (%s), and "
				     "the spinners' cycles would count against it\n", cpus->quota, cpus->quota_dir);
		return 0;
	}
	if (pq_awake_start(a, cpus->usable, &pd) < 0) {
		if (log)
			fprintf(log, "pqtls sweep: %s; measuring without it\n", pq_diag_msg(&pd));
		return 0;
	}
	*name = "spin";
	return 0;
}

static int sweep_run(const pq_cmd *cmd, void *optsp, pq_cli_args *a)
{
	struct sweep_opts *o = optsp;
	pq_exp_spec spec;
	pq_exp_grid g = {0};
	pq_exp_chains chains = {0};
	pq_store *st = NULL;
	pq_diag d;
	unsigned si = 1, sn = 1;
	char out[512], cmdline[4096];
	int rc = PQ_EXIT_FAIL, lrc;
	unsigned jobs_asked = PQ_EXP_JOBS_AUTO, jobs = 1, jobs_base = 1;
	char jobs_why[400];
	pq_cpus cpus;
	pq_cpus_get(&cpus);
	pq_awake awake;
	pq_awake_init(&awake);
	const char *awake_how = "off";

	if (o->jobs && pq_exp_jobs_parse(o->jobs, "--jobs", &jobs_asked, &d) < 0)
		return pq_cli_usage_error(path_name, "%s", pq_diag_msg(&d));
	if (o->presets)
		return pq_sweep_list_presets(jobs_asked);
	if (o->keys) {
		pq_dim_print_keys(stdout);
		return PQ_EXIT_OK;
	}
	if (o->schema) {
		char *sql = pq_cols_schema_sql();
		if (!sql)
			return pq_cli_fail(path_name, "out of memory");
		fputs(sql, stdout);
		free(sql);
		return fflush(stdout) == 0 ? PQ_EXIT_OK : pq_cli_fail(path_name, "cannot write the schema");
	}
	pq_exp_spec_init(&spec);
	if (o->preset && a->argc)
		return pq_cli_usage_error(path_name, "give a spec file or --preset, not both");
	if (o->shard && pq_exp_shard_parse(o->shard, "--shard", &si, &sn, &d) < 0)
		return pq_cli_usage_error(path_name, "%s", pq_diag_msg(&d));
	int64_t fault_late = 0;
	if (o->fault_late && pq_parse_duration(o->fault_late, "--fault-link-late", &fault_late, &d) < 0)
		return pq_cli_usage_error(path_name, "%s", pq_diag_msg(&d));
	if (fault_late < 0 || fault_late > PQ_FWD_FAULT_LATE_MAX_NS)
		return pq_cli_usage_error(path_name, "--fault-link-late: '%s' is out of range (0 to 100ms)", o->fault_late);
	/* The forwarder's tuning from the same environment `pqtls link` reads; refused here,
	 * before anything is written. */
	pq_link_opts tune;
	if (pq_linkcli_opts(&tune, path_name, NULL))
		return PQ_EXIT_USAGE;
	if ((lrc = load_spec(o, a, &spec, &d)) < 0 || (lrc = apply_dims(o, &spec, &d)) < 0 ||
	    (lrc = pq_exp_grid_expand(&spec, &g, &d)) < 0) {
		rc = usage_or_fail(lrc, &d);
		goto out;
	}
	size_t whole = g.n;
	pq_exp_grid_shard(&g, si, sn);
	pq_exp_grid_order(&g);
	jobs = pq_exp_jobs_choose(&g, jobs_asked, "--jobs", cpus.usable, g.n, &jobs_base, jobs_why, sizeof jobs_why);
	if (cpus.usable < cpus.online) { /* say why the machine's CPUs are not all counted */
		size_t len = strlen(jobs_why);
		char ct[200];
		pq_cpus_text(&cpus, ct, sizeof ct);
		snprintf(jobs_why + len, sizeof jobs_why - len, "; this process may use %s", ct);
	}
	if (o->dry_run) {
		pq_sweep_print_grid(&g, si, sn, jobs, jobs_base, jobs_why);
		rc = PQ_EXIT_OK;
		goto out;
	}
	snprintf(out, sizeof out, "%s", o->out ? o->out : "");
	if (!o->out)
		snprintf(out, sizeof out, "out/%s/results.db", spec.name);
	if ((lrc = pq_store_precheck(out, &d)) < 0) {
		rc = pq_cli_fail(path_name, "%s", pq_diag_msg(&d));
		goto out;
	}
	if (!g.server[0] && pq_link_check_privileges((enum pq_backend)o->backend, &d) < 0) {
		rc = pq_cli_fail(path_name, "%s", pq_diag_msg(&d));
		goto out;
	}
	pq_ktcp_caps caps;
	char browser[64];
	if ((lrc = pq_exp_check_browser(&g, browser, sizeof browser, &d)) < 0) {
		rc = pq_cli_fail(path_name, "%s", pq_diag_msg(&d));
		goto out;
	}
	if ((lrc = pq_exp_check_kernel(&g, &caps, &d)) < 0) {
		rc = usage_or_fail(lrc, &d);
		goto out;
	}
	/* From here on the sweep measures: in a session of its own when that lets the
	 * endpoints' priority count (the parent only waits for it and returns its code). */
	int child_code;
	if (pq_sweep_own_session((int)o->endpoint_nice, out, &child_code) == 1) {
		rc = child_code;
		goto out;
	}
	FILE *log = o->quiet ? NULL : stderr;
	char cache[512];
	if (o->cache)
		snprintf(cache, sizeof cache, "%s", o->cache);
	else if (pq_cli_cache_root(cache, sizeof cache) < 0) {
		rc = pq_cli_usage_error(path_name, "--cache DIR is needed: neither PQTLS_CACHE nor HOME is set");
		goto out;
	}
	if (!g.server[0] && (lrc = pq_exp_chains_prepare(&g, cache, log, &chains, &d)) < 0) {
		rc = usage_or_fail(lrc, &d);
		goto out;
	}
	if (!g.server[0] && (lrc = keep_awake(o->awake, &cpus, log, &awake, &awake_how, &d)) < 0) {
		rc = pq_cli_fail(path_name, "%s", pq_diag_msg(&d));
		goto out;
	}
	if ((lrc = pq_store_open(out, spec.name, g.hash, &st, &d)) < 0) {
		rc = pq_cli_fail(path_name, "%s", pq_diag_msg(&d));
		goto out;
	}
	command_line(cmd, o, a, cmdline, sizeof cmdline);
	pq_store_run run = {.spec_name = spec.name, .grid_hash = g.hash, .spec_text = spec.text,
			    .command_line = cmdline, .remote = g.server, .chromium_version = browser,
			    .link_backend = g.server[0] ? "none" : pq_backend_name((enum pq_backend)o->backend),
			    .seed = g.seed, .shard_index = si, .shard_count = sn, .cells_planned = g.n,
			    .cpus = &cpus, .keep_awake = g.server[0] ? NULL : awake_how};
	if ((lrc = pq_store_run_begin(st, &run, &d)) < 0) {
		rc = pq_cli_fail(path_name, "%s", pq_diag_msg(&d));
		goto out;
	}
	pq_sweep_bar b = {.est_s = pq_exp_estimate_s(&g, jobs, jobs_base), .t0 = pq_clock_now(&pq_clock_mono)};
	char t[32];
	pq_sweep_fmt_eta(t, sizeof t, b.est_s);
	if (!o->quiet)
		fprintf(stderr, "pqtls sweep: %s: %zu cells of %zu (shard %u/%u), about %s at up to %u at once (%s); "
				"results in %s\n",
			spec.name, g.n, whole, si, sn, t, jobs, jobs_why, out);
	catch_signals();
	pq_exp_run_opts ro = {.no_check = o->no_check, .strict = o->strict, .backend = (enum pq_backend)o->backend,
			      .log = log, .stop = &stop_flag, .test_server_fault_cell = -1,
			      .fault_link_late_ns = fault_late, .caps = &caps, .endpoint_nice = (int)o->endpoint_nice,
			      .remeasure = (int)o->remeasure, .test_no_link_worker = (int)o->fault_no_link,
			      .test_no_link_precheck = o->fault_no_check_link,
			      .link_tune = &tune, .cpus = &cpus};
	if (!o->quiet && pq_cli_progress_enabled()) {
		ro.progress = pq_sweep_progress;
		ro.progress_arg = &b;
	}
	pq_exp_run_summary sum;
	/* Cell servers are exec'd from the very file this process runs, through
	 * /proc/self/exe: by path, a rebuild of the binary under a running sweep failed every
	 * cell started while the linker wrote it (exit 127), and a replaced binary may not
	 * speak this one's configuration. They name themselves `pqtls` for ps and pgrep
	 * (exp/srvproc.c). Without /proc they are forked only. */
	ro.server_exe = access("/proc/self/exe", X_OK) == 0 ? "/proc/self/exe" : NULL;
	long long throttled0 = pq_cpus_throttled_ns(&cpus);
	lrc = pq_exp_run_jobs(&g, &chains, st, &ro, jobs, jobs_base, &sum, &d);
	pq_awake_stop(&awake);
	long long throttled1 = pq_cpus_throttled_ns(&cpus);
	if (ro.progress)
		fprintf(stderr, "\n");
	char status[600];
	snprintf(status, sizeof status, "%s%s", lrc < 0 ? "failed: " : sum.interrupted ? "interrupted" : "complete",
		 lrc < 0 ? pq_diag_msg(&d) : "");
	pq_diag d2;
	if (pq_store_run_end(st, status, &d2) < 0)
		fprintf(stderr, "pqtls sweep: %s\n", pq_diag_msg(&d2));
	char noise[600];
	pq_exp_run_noise(&sum, noise, sizeof noise);
	if (lrc < 0) {
		fprintf(stderr, "pqtls sweep: %s\n", noise);
		rc = pq_cli_fail(path_name, "%s (finished cells are kept in %s)", pq_diag_msg(&d), out);
		goto out;
	}
	if (pq_store_still_ours(st, &d) < 0) {
		rc = pq_cli_fail(path_name, "%s", pq_diag_msg(&d));
		goto out;
	}
	char partial[96] = "";
	if (sum.cells_partial) /* a cell whose server died mid-cell is one of these, not "0 failed" */
		snprintf(partial, sizeof partial, " and %zu with failures (connections failed or the server died)",
			 sum.cells_partial);
	printf("%s: %zu cells measured, %zu already done, %zu failed%s; %llu connections, %llu failed; %s\n", out,
	       sum.cells_run, sum.cells_skipped, sum.cells_failed, partial, (unsigned long long)sum.conns,
	       (unsigned long long)sum.conn_failures,
	       sum.interrupted ? "interrupted (run the same command to resume)" : "complete");
	printf("%s\n", noise);
	if (throttled0 >= 0 && throttled1 >= throttled0)
		printf("cgroup: its CPU quota of %.2f CPUs throttled the sweep's processes for %.2f s in all (%s/cpu.stat), "
		       "during %zu of its cells (cell.host_throttled_us); a throttled cell stalls for the rest of a period, "
		       "which the cells' budgets judge\n",
		       cpus.quota, (double)(throttled1 - throttled0) / 1e9, cpus.quota_dir, sum.cells_throttled);
	rc = sum.interrupted ? 128 + SIGINT : PQ_EXIT_OK;
out:
	pq_awake_stop(&awake);
	pq_store_close(st);
	pq_exp_chains_dispose(&chains);
	pq_exp_grid_dispose(&g);
	pq_exp_spec_dispose(&spec);
	return rc;
}

extern const pq_cmd pq_cmd_sweep_export;
static const pq_cmd *const sweep_subs[] = {&pq_cmd_sweep_export, NULL};

static const char sweep_desc[] =
	"A spec file is 'key = value, value' lines (a list is a dimension) and '[arm LABEL]'\n"
	"sections; options named like keys replace the spec's (every arm's too; arms that\n"
	"become alike, as ttfb-size's bbr arms under --cc cubic, are measured once). Keys:\n"
	"  pqtls sweep --keys lists them; docs/sweep.md explains the format.\n"
	"Examples:\n"
	"  pqtls sweep --preset quick\n"
	"  pqtls sweep --presets\n"
	"  pqtls sweep study.spec --shard 2/3 --out shard2.db\n"
	"  pqtls sweep --sig ecdsa-p256,ml-dsa-65 --rtt 10ms,50ms --connections 20 --out a.db\n"
	"  pqtls sweep export results.db --csv DIR | --jsonl FILE\n"
	"Results: SQLite, one row per connection (docs/results.md). Ctrl-C ends after the cell in\n"
	"progress; the same command again resumes.\n" LINK_ENV_HELP;

const pq_cmd pq_cmd_sweep = {
	.name = "sweep",
	.summary = "run an experiment grid in one process and store every connection in SQLite",
	.usage = "[SPEC] [options]  |  export DB --csv DIR | --jsonl FILE",
	.description = sweep_desc,
	.opts_fn = sweep_table,
	.opts_size = sizeof(struct sweep_opts),
	.run = sweep_run,
	.subs = sweep_subs,
	.min_args = 0,
	.max_args = 1,
};

const pq_cmd pq_cmd_sweep_faults = {
	.name = "sweep",
	.summary = "pqtls sweep with faults for the tests (not a command of pqtls)",
	.usage = "[SPEC] [options]",
	.description = sweep_desc,
	.opts_fn = sweep_faults_table,
	.opts_size = sizeof(struct sweep_opts),
	.run = sweep_run,
	.min_args = 0,
	.max_args = 1,
};
