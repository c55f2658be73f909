#include "report/tables.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/clients.h"

static void med_ci(char *buf, size_t n, const pq_ci_desc *d)
{
	if (d->n == 0)
		snprintf(buf, n, "none");
	else if (d->has_ci)
		snprintf(buf, n, "%.2f [%.2f, %.2f]", d->median, d->median_lo, d->median_hi);
	else
		snprintf(buf, n, "%.2f (no CI, n<6)", d->median);
}

static void vs_base(char *buf, size_t n, const pq_agg_group *g)
{
	if (g->base == PQ_AGG_BASE_SELF)
		snprintf(buf, n, "baseline");
	else if (g->base == PQ_AGG_BASE_NONE)
		snprintf(buf, n, "no baseline at this RTT and response");
	else if (!g->has_vs[g->diff_phase])
		snprintf(buf, n, "too few values");
	else
		pq_boot_verdict(&g->vs[g->diff_phase], 1, "ms", buf, n);
}

static void model_txt(char *buf, size_t n, const pq_agg_group *g)
{
	if (!g->has_model)
		snprintf(buf, n, "no model");
	else if (!isfinite(g->rounds[PQ_AGG_HS])) /* Chromium's: its tcp_info is not read */
		snprintf(buf, n, "%.1f/%.1f vs not measured", g->model.handshake_t, g->model.ttfb_t);
	else if (!g->n[PQ_AGG_TTFB]) /* no response asked: the handshake alone */
		snprintf(buf, n, "%.1f/none vs %.1f/none%s%s", g->model.handshake_t, g->rounds[PQ_AGG_HS],
			 g->agrees ? "" : ": ", g->agrees ? "" : g->agree_tag);
	else
		snprintf(buf, n, "%.1f/%.1f vs %.1f/%.1f%s%s", g->model.handshake_t, g->model.ttfb_t,
			 g->rounds[PQ_AGG_HS], g->rounds[PQ_AGG_TTFB], g->agrees ? "" : ": ",
			 g->agrees ? "" : g->agree_tag);
}

/* One key-table row's cells as text: arm, each varying dimension, n, the times. */
#define KCOLS (2 + PQ_DIM_COUNT + 6)
typedef struct krow {
	char c[KCOLS][400];
	size_t n;
} krow;

static void key_row(const pq_agg *a, const pq_agg_group *g, krow *r)
{
	r->n = 0;
	snprintf(r->c[r->n++], sizeof r->c[0], "%s", a->arms[g->arm]);
	for (size_t k = 0; k < a->npoint_dims; k++)
		pq_agg_dim_show(g->cell, a->point_dims[k], r->c[r->n++], sizeof r->c[0]);
	snprintf(r->c[r->n++], sizeof r->c[0], g->marked ? "%zu (%zu), %zu cell%s over budget" : "%zu (%zu)",
		 g->n[PQ_AGG_HS], g->failed, g->marked, g->marked == 1 ? "" : "s");
	med_ci(r->c[r->n++], sizeof r->c[0], &g->desc[PQ_AGG_HS]);
	med_ci(r->c[r->n++], sizeof r->c[0], &g->desc[PQ_AGG_TTFB]);
	vs_base(r->c[r->n++], sizeof r->c[0], g);
	model_txt(r->c[r->n++], sizeof r->c[0], g);
	if (a->any_hrr) /* connections the server answered with a HelloRetryRequest */
		snprintf(r->c[r->n++], sizeof r->c[0], "%zu/%zu", g->hrr, g->total);
}

static void key_head(const pq_agg *a, krow *r)
{
	r->n = 0;
	snprintf(r->c[r->n++], sizeof r->c[0], "arm");
	for (size_t k = 0; k < a->npoint_dims; k++)
		snprintf(r->c[r->n++], sizeof r->c[0], "%s", pq_dims[a->point_dims[k]].label);
	snprintf(r->c[r->n++], sizeof r->c[0], "n (failed)");
	snprintf(r->c[r->n++], sizeof r->c[0], "handshake ms [95%% CI]");
	snprintf(r->c[r->n++], sizeof r->c[0], "TTFB ms [95%% CI]");
	snprintf(r->c[r->n++], sizeof r->c[0], "%s minus %s (bootstrap)", a->diff_what, a->arms[0]);
	snprintf(r->c[r->n++], sizeof r->c[0], "model RTTs hs/TTFB vs measured");
	if (a->any_hrr)
		snprintf(r->c[r->n++], sizeof r->c[0], "HRR");
}

static void key_notes(pq_out *o, const pq_agg *a, int md)
{
	for (size_t i = 0; i < a->nnotes; i++) {
		if (md)
			pq_out_md(o, a->notes[i]);
		else
			pq_out_term(o, a->notes[i]);
		pq_out_printf(o, "\n");
	}
	pq_out_printf(o, "\n");
}

/* A table's row i (0: its heading) into r; 0 when the table has no row i. */
typedef int (*row_fn)(const void *ctx, size_t i, krow *r);

/* Writes a table as Markdown, or as text with each column padded to its widest cell
 * (never cut). */
static void table_write(pq_out *o, row_fn row, const void *ctx, int md)
{
	krow *r = malloc(sizeof *r);
	size_t w[KCOLS] = {0};
	if (!r) {
		o->err = PQ_ENOMEM;
		return;
	}
	for (size_t i = 0; row(ctx, i, r); i++)
		for (size_t c = 0; c < r->n; c++) {
			size_t k = pq_out_term_width(r->c[c]);
			w[c] = k > w[c] ? k : w[c];
		}
	for (size_t i = 0; row(ctx, i, r); i++) {
		for (size_t c = 0; c < r->n; c++) {
			if (md) {
				pq_out_printf(o, "| ");
				pq_out_md(o, r->c[c]);
				pq_out_printf(o, " ");
			} else {
				pq_out_term_pad(o, r->c[c], c + 1 < r->n ? w[c] + 2 : 0);
			}
		}
		pq_out_printf(o, md ? "|\n" : "\n");
		if (md && i == 0) {
			for (size_t c = 0; c < r->n; c++)
				pq_out_printf(o, "|---");
			pq_out_printf(o, "|\n");
		}
	}
	free(r);
}

typedef struct key_ctx {
	const pq_agg *a;
	int host;
} key_ctx;

/* The key table of one host: one row per grid point, a column per varying dimension. */
static int key_table_row(const void *ctx, size_t i, krow *r)
{
	const key_ctx *k = ctx;
	if (i == 0) {
		key_head(k->a, r);
		return 1;
	}
	for (size_t j = 0; j < k->a->n; j++)
		if (k->a->g[j].host == k->host && --i == 0) {
			key_row(k->a, &k->a->g[j], r);
			return 1;
		}
	return 0;
}

/* What each arm fixes, once (as on the page): a row per arm that has a grid point. */
static int arms_row(const void *ctx, size_t i, krow *r)
{
	const pq_agg *a = ctx;
	r->n = 0;
	if (i == 0) {
		snprintf(r->c[r->n++], sizeof r->c[0], "arm");
		for (size_t k = 0; k < a->narm_dims; k++)
			snprintf(r->c[r->n++], sizeof r->c[0], "%s", pq_dims[a->arm_dims[k]].label);
		return 1;
	}
	for (size_t arm = 0; arm < a->narms; arm++) {
		const pq_agg_group *g = NULL;
		for (size_t j = 0; j < a->n && !g; j++)
			g = a->g[j].arm == (int)arm ? &a->g[j] : NULL;
		if (!g || --i)
			continue;
		snprintf(r->c[r->n++], sizeof r->c[0], "%s", a->arms[arm]);
		for (size_t k = 0; k < a->narm_dims; k++)
			pq_agg_dim_show(g->cell, a->arm_dims[k], r->c[r->n++], sizeof r->c[0]);
		return 1;
	}
	return 0;
}

static void arms_text(pq_out *o, const pq_agg *a, int md)
{
	if (!a->narm_dims)
		return;
	pq_out_printf(o, md ? "### Arms\n\nWhat each arm fixes, the same in all its grid points:\n\n"
			    : "Arms: what each arm fixes, the same in all its grid points\n");
	table_write(o, arms_row, a, md);
	pq_out_printf(o, "\n");
}

static void key_host(pq_out *o, const pq_agg *a, size_t h, int md)
{
	key_ctx k = {a, (int)h};
	pq_out_printf(o, md ? "### host " : "host ");
	if (md)
		pq_out_md(o, a->hosts[h]);
	else
		pq_out_term(o, a->hosts[h]);
	pq_out_printf(o, md ? "\n\n" : ": one row per grid point; medians in ms with 95 %% intervals\n");
	table_write(o, key_table_row, &k, md);
	pq_out_printf(o, "\n");
}

/* The studies' rows (report/studies.h) after the key tables. */
static void studies_text(pq_out *o, const pq_agg *a, int md)
{
	if (md)
		pq_out_printf(o, "### The studies beside this database\n\n| study | question | what it reported | here | verdict |\n"
				 "|---|---|---|---|---|\n");
	else
		pq_out_printf(o, "The studies beside this database (their figures quoted from ../shared/seeds):\n");
	for (size_t i = 0; i < a->nstudies; i++) {
		const pq_agg_study *s = &a->studies[i];
		const char *f[5] = {s->study, s->question, s->theirs, s->ours, s->verdict};
		static const char *const tag[5] = {"", ": ", "\n  theirs:  ", "\n  here:    ", "\n  verdict: "};
		for (int k = 0; k < 5; k++) {
			pq_out_printf(o, "%s", md ? "| " : tag[k]);
			if (md)
				pq_out_md(o, f[k]);
			else
				pq_out_term(o, f[k]);
			pq_out_printf(o, "%s", md ? " " : "");
		}
		pq_out_printf(o, "%s\n", md ? "|" : "");
	}
	if (!a->nstudies)
		pq_out_printf(o, "%sno study's question can be answered from this database's cells\n", md ? "\n" : "  ");
	pq_out_printf(o, "\n");
}

/* The findings (report/findings.h) before everything else; the page links each to its
 * evidence, the text names it. */
static void findings_text(pq_out *o, const pq_findings *f, int md)
{
	pq_out_printf(o, md ? "### Findings\n\n" : "Findings (generated from the analysis below; the page links each to its evidence):\n");
	for (size_t i = 0; i < f->n; i++) {
		pq_out_printf(o, "- ");
		if (md)
			pq_out_md(o, f->f[i].text);
		else
			pq_out_term(o, f->f[i].text);
		pq_out_printf(o, ".\n");
	}
	if (f->more)
		pq_out_printf(o, "- %zu more finding%s held; the tables below hold their evidence.\n", f->more,
			      f->more == 1 ? "" : "s");
	if (!f->n)
		pq_out_printf(o, "- None: no difference here is both measurable and explained by round trips.\n");
	pq_out_printf(o, "\n");
}

/* pqtls's client beside Chromium (report/clients.h): a row per grid point both measured. */
static int clients_row(const void *ctx, size_t i, krow *r)
{
	const pq_agg *a = ctx;
	r->n = 0;
	if (i == 0) {
		static const char *const head[] = {
		    "grid point", "pqtls TTFB ms [95% CI]", "Chromium TTFB ms [95% CI]",
		    "Chromium minus pqtls (bootstrap)", "network-only minus pqtls (bootstrap)", "difference split",
		    "model TTFB RTTs pqtls/Chromium vs measured (network-only)"};
		for (size_t k = 0; k < sizeof head / sizeof head[0]; k++)
			snprintf(r->c[r->n++], sizeof r->c[0], "%s", head[k]);
		return 1;
	}
	if (i > a->npairs)
		return 0;
	const pq_agg_pair *p = &a->pairs[i - 1];
	char b[200];
	pq_agg_point_label(a, p->pq, "client", r->c[r->n++], sizeof r->c[0]);
	med_ci(r->c[r->n++], sizeof r->c[0], &p->pq->desc[PQ_AGG_TTFB]);
	med_ci(r->c[r->n++], sizeof r->c[0], &p->br->desc[PQ_AGG_TTFB]);
	if (p->has_fb)
		pq_boot_verdict(&p->fb, 1, "ms", r->c[r->n++], sizeof r->c[0]);
	else
		snprintf(r->c[r->n++], sizeof r->c[0], "too few values");
	if (p->has_net) {
		pq_boot_verdict(&p->net, 1, "ms", b, sizeof b);
		char over[32]; /* the model's tolerance, as pq_model_agrees applies it */
		snprintf(over, sizeof over, " (over %g)", PQ_MODEL_AGREE_RTT);
		snprintf(r->c[r->n++], sizeof r->c[0], "%s, %+.2f RTT%s", b, p->net_rtts,
			 p->within ? "" : p->wan ? over : " (not WAN)");
	} else {
		snprintf(r->c[r->n++], sizeof r->c[0], "too few values");
	}
	pq_clients_split_text(p, r->c[r->n++], sizeof r->c[0]);
	pq_clients_model_text(p, r->c[r->n++], sizeof r->c[0]);
	return 1;
}

static void clients_text(pq_out *o, const pq_agg *a, int md)
{
	if (!a->npairs)
		return;
	pq_out_printf(o, md ? "### pqtls's client beside Chromium\n\n" : "pqtls's client beside Chromium: ");
	pq_out_printf(o, "medians in ms; differences Chromium minus pqtls, whole and network-only (its first flight in, "
			 "then one request's round trip), in ms and round trips of the link\n%s", md ? "\n" : "");
	table_write(o, clients_row, a, md);
	pq_out_printf(o, "\n");
}

void pq_report_key_text(pq_out *o, const pq_agg *a, int md)
{
	findings_text(o, &a->findings, md);
	key_notes(o, a, md);
	arms_text(o, a, md);
	for (size_t h = 0; h < a->nhosts; h++)
		key_host(o, a, h, md);
	clients_text(o, a, md);
	const struct pq_agg_fid *f = &a->fid;
	if (f->link_known || f->host_known || f->check_missed)
		pq_out_printf(o, "fidelity: %zu cells marked: %zu of %zu over the link's budget, %zu of %zu over the host's, "
				 "%zu on a link that missed its self-check (the HTML page lists every cell)\n\n",
			      f->marked, f->link_over, f->link_known, f->host_over, f->host_known, f->check_missed);
	studies_text(o, a, md);
}

/* --- two runs side by side (report/compare.h) --- */

typedef struct cmp_ctx {
	const pq_compare *c;
	size_t from, to; /* its points c->p[from..to-1] */
	int hosts;	 /* a host column: either run holds several hosts */
} cmp_ctx;

static int cmp_row(const void *ctx, size_t i, krow *r)
{
	const cmp_ctx *k = ctx;
	int both = k->from < k->c->shared;
	r->n = 0;
	if (i == 0) {
		snprintf(r->c[r->n++], sizeof r->c[0], "grid point");
		if (k->hosts)
			snprintf(r->c[r->n++], sizeof r->c[0], "host");
		snprintf(r->c[r->n++], sizeof r->c[0], "phase");
		snprintf(r->c[r->n++], sizeof r->c[0], both ? "A ms [95%% CI]" : "ms [95%% CI]");
		snprintf(r->c[r->n++], sizeof r->c[0], both ? "B ms [95%% CI]" : "n (failed)");
		if (both)
			snprintf(r->c[r->n++], sizeof r->c[0], "B minus A (bootstrap)");
		return 1;
	}
	if (k->from + i - 1 >= k->to)
		return 0;
	const pq_compare_point *p = &k->c->p[k->from + i - 1];
	const pq_agg *a = pq_compare_agg_of(k->c, p);
	const pq_agg_group *g = pq_compare_group_of(p);
	pq_compare_label(k->c, p, r->c[r->n++], sizeof r->c[0]);
	if (k->hosts)
		snprintf(r->c[r->n++], sizeof r->c[0], "%s", a->hosts[g->host]);
	snprintf(r->c[r->n++], sizeof r->c[0], "%s", pq_agg_phase_name[p->phase]);
	med_ci(r->c[r->n++], sizeof r->c[0], &g->desc[p->phase]);
	if (!both) {
		snprintf(r->c[r->n++], sizeof r->c[0], "%zu (%zu)", g->n[PQ_AGG_HS], g->failed);
		return 1;
	}
	med_ci(r->c[r->n++], sizeof r->c[0], &p->gb->desc[p->phase]);
	if (p->has_diff)
		pq_compare_verdict(p, r->c[r->n++], sizeof r->c[0]);
	else
		snprintf(r->c[r->n++], sizeof r->c[0], "too few values");
	return 1;
}

static void sentence(pq_out *o, const char *s, int md)
{
	if (md)
		pq_out_md(o, s);
	else
		pq_out_term(o, s);
	pq_out_printf(o, ".\n");
}

/* One of the three tables: a heading sentence, then its rows. */
static void cmp_table(pq_out *o, const cmp_ctx *k, const char *title, int md)
{
	pq_out_printf(o, "%s", md ? "#### " : "");
	sentence(o, title, md);
	if (k->to > k->from) {
		pq_out_printf(o, "%s", md ? "\n" : "");
		table_write(o, cmp_row, k, md);
	}
	pq_out_printf(o, "\n");
}

void pq_report_compare_text(pq_out *o, const pq_compare *c, int md)
{
	char t[1200];
	snprintf(t, sizeof t, "Two runs side by side: A = %s (spec %s, %zu grid point%s), B = %s (spec %s, %zu grid "
		 "point%s); bootstrap seed %llu", c->name_a, c->spec_a, c->a->n, c->a->n == 1 ? "" : "s", c->name_b,
		 c->spec_b, c->b->n, c->b->n == 1 ? "" : "s", (unsigned long long)c->a->seed);
	pq_out_printf(o, "%s", md ? "### " : "");
	sentence(o, t, md);
	pq_out_printf(o, "%s", md ? "\n" : "");
	sentence(o, c->grid, md);
	pq_out_printf(o, "%s", md ? "\n" : "");
	sentence(o, c->summary, md);
	pq_out_printf(o, "\n");
	int hosts = c->a->nhosts > 1 || c->b->nhosts > 1;
	const cmp_ctx k[3] = {{c, 0, c->shared, hosts},
			      {c, c->shared, c->shared + c->only_a, hosts},
			      {c, c->shared + c->only_a, c->n, hosts}};
	if (c->shared)
		snprintf(t, sizeof t, "In both, %zu grid point%s: medians in ms with 95 %% intervals, and the difference B "
			 "minus A (measurable when its interval excludes 0 and reaches beyond the endpoints' waits "
			 "for a CPU in either run)", c->shared, c->shared == 1 ? "" : "s");
	else
		snprintf(t, sizeof t, "In both: no grid point");
	cmp_table(o, &k[0], t, md);
	snprintf(t, sizeof t, "Only in A (%s): %zu grid point%s", c->name_a, c->only_a, c->only_a == 1 ? "" : "s");
	cmp_table(o, &k[1], t, md);
	snprintf(t, sizeof t, "Only in B (%s): %zu grid point%s", c->name_b, c->only_b, c->only_b == 1 ? "" : "s");
	cmp_table(o, &k[2], t, md);
}
