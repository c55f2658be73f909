/* What pqtls sweep shows (cli/sweep_int.h): a time as hours and minutes, the progress
 * line while cells run, the presets with their estimated times, and the dry run's grid. */
#include <stdio.h>

#include "cli/sweep_int.h"
#include "core/proc.h"
#include "exp/jobs.h"
#include "exp/preset.h"
#include "exp/runner.h"
#include "exp/spec.h"

void pq_sweep_fmt_eta(char *buf, size_t n, double s)
{
	if (s >= 3600)
		snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
	else
		snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)s % 60);
}

void pq_sweep_progress(void *arg, const pq_exp_progress *p)
{
	pq_sweep_bar *b = arg;
	char eta[32];
	double el = (double)p->elapsed_ns / 1e9;
	pq_sweep_fmt_eta(eta, sizeof eta, pq_exp_progress_eta_s(p, b->est_s));
	int width = 24, fill = p->total ? (int)((double)width * (double)p->done / (double)p->total) : width;
	fprintf(stderr, "\r[%.*s%*s] %zu/%zu cells  %zu/%zu at once  %.1f conn/s  %llu failed  %zu marked  ETA %s  %-20.20s",
		fill, "########################", width - fill, "", p->done, p->total, p->inflight, p->inflight_max,
		el > 0 ? (double)p->conns / el : 0.0, (unsigned long long)p->failures, p->marked, eta,
		p->arm ? p->arm : "");
	fflush(stderr);
}

int pq_sweep_list_presets(unsigned jobs)
{
	printf("%-20s %6s %8s %8s  %s\n", "preset", "cells", "serial", "--jobs", "what");
	size_t all_n = 0;
	double all_s = 0, all_j = 0;
	int all_known = 1;
	for (const pq_exp_preset *p = pq_exp_presets; p->name; p++) {
		pq_exp_spec s;
		pq_exp_grid g;
		pq_diag d;
		char t[32] = "?", tj[32] = "?", why[160];
		size_t n = 0;
		pq_exp_spec_init(&s);
		if (pq_exp_spec_parse(&s, p->name, p->text, &d) == 0 && pq_exp_grid_expand(&s, &g, &d) == 0) {
			n = g.n;
			pq_exp_grid_order(&g);
			unsigned base, j = pq_exp_jobs_choose(&g, jobs, "--jobs", pq_proc_ncpu(), g.n, &base, why, sizeof why);
			double es = pq_exp_estimate_s(&g, 1, 1), ej = pq_exp_estimate_s(&g, j, base);
			pq_sweep_fmt_eta(t, sizeof t, es);
			pq_sweep_fmt_eta(tj, sizeof tj, ej);
			all_n += n, all_s += es, all_j += ej;
			pq_exp_grid_dispose(&g);
		} else {
			all_known = 0;
		}
		pq_exp_spec_dispose(&s);
		printf("%-20s %6zu %8s %8s  %s\n", p->name, n, t, tj, p->summary);
	}
	char t[32] = "?", tj[32] = "?";
	if (all_known) {
		pq_sweep_fmt_eta(t, sizeof t, all_s);
		pq_sweep_fmt_eta(tj, sizeof tj, all_j);
	}
	printf("%-20s %6zu %8s %8s  %s\n", "(all)", all_n, t, tj, "every preset, one after another (bench/presets.sh runs them)");
	printf("(time: estimated here from the RTTs, sizes and rates, one cell at a time and at the --jobs given, "
	       "default auto; --trials and --connections scale a preset down)\n");
	return PQ_EXIT_OK;
}

void pq_sweep_print_grid(const pq_exp_grid *g, unsigned si, unsigned sn, unsigned jobs, unsigned base, const char *why)
{
	char t[32];
	pq_sweep_fmt_eta(t, sizeof t, pq_exp_estimate_s(g, jobs, base));
	printf("%zu cells (shard %u/%u), about %s here with up to %u at once (%s)\n", g->n, si, sn, t, jobs, why);
	for (size_t i = 0; i < g->n; i++) {
		char text[2048];
		if (pq_exp_point_text(&g->cells[i].p, 1, text, sizeof text) < 0)
			text[0] = '\0';
		printf("%5zu %s %.2fs %s\n", g->cells[i].index, g->cells[i].key, pq_exp_cell_estimate_s(&g->cells[i].p),
		       text);
	}
}
