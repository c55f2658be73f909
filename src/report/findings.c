/* The findings (report/findings.h): the page's anchors, the builder every kind of finding
 * adds to, the findings that count what a section of the page holds (the model's agreement,
 * the loss cells, the studies' verdicts, the two clients, the warm browser), and the order
 * in which all are said; the arms' round-trip findings are findings_rtts.c's. */
#include "report/findings.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/agg.h"
#include "report/clients.h"
#include "report/findings_int.h"
#include "report/out.h"
#include "report/verdict.h"

#define STUDY_LINKS 3	/* differing rows linked per study */

void pq_findings_group_id(const pq_agg *a, const pq_agg_group *g, char *buf, size_t n)
{
	snprintf(buf, n, "key-g%zu", (size_t)(g - a->g));
}

void pq_findings_study_id(size_t i, char *buf, size_t n)
{
	snprintf(buf, n, "study-%zu", i + 1);
}

void pq_findings_size_fig_id(int host, int rtt, size_t part, char *buf, size_t n)
{
	if (part)
		snprintf(buf, n, "fig-size-h%d-r%d-p%zu", host, rtt, part);
	else
		snprintf(buf, n, "fig-size-h%d-r%d", host, rtt);
}

pq_finding *pq_findings_add(pq_findings_builder *b)
{
	if (b->out->n == PQ_FINDINGS_MAX) {
		b->out->more++;
		return NULL;
	}
	pq_finding *f = &b->out->f[b->out->n++];
	memset(f, 0, sizeof *f);
	return f;
}

void pq_findings_link_to(pq_finding *f, const char *id, const char *label)
{
	if (f->nlinks == PQ_FINDING_LINKS)
		return;
	snprintf(f->link[f->nlinks].id, sizeof f->link[0].id, "%s", id);
	snprintf(f->link[f->nlinks].label, sizeof f->link[0].label, "%s", label);
	f->nlinks++;
}

/* How many grid points the model agrees with, and the others' reasons counted. */
static void model(pq_findings_builder *b)
{
	const pq_agg *a = b->a;
	const char *tag[8];
	size_t count[8], ntag = 0, total = 0, agree = 0;
	for (size_t i = 0; i < a->n; i++) {
		const pq_agg_group *g = &a->g[i];
		if (!pq_verdict_model_of(g).judged)
			continue;
		total++;
		agree += (size_t)g->agrees;
		size_t t = 0;
		while (!g->agrees && t < ntag && strcmp(tag[t], g->agree_tag) != 0)
			t++;
		if (g->agrees || t == 8)
			continue;
		if (t == ntag) {
			tag[ntag] = g->agree_tag;
			count[ntag++] = 0;
		}
		count[t]++;
	}
	pq_finding *f = total ? pq_findings_add(b) : NULL;
	if (!f)
		return;
	if (agree == total)
		pq_out_cat(f->text, sizeof f->text, "The flight model agrees with all %zu grid points", total);
	else
		pq_out_cat(f->text, sizeof f->text, "The flight model agrees with %zu of %zu grid points; the other %zu: ",
			   agree, total, total - agree);
	for (size_t t = 0; t < ntag; t++)
		pq_out_cat(f->text, sizeof f->text, "%s%s (%zu)", t ? ", " : "", tag[t], count[t]);
	pq_findings_link_to(f, "agreement", "model table");
	pq_findings_link_to(f, "fig-agreement", "figure");
}

/* Under loss (report/agg_loss.c): how many loss cells the loss model agrees with, and
 * from which loss the medians pay their first extra round trip, measured and by the
 * model, over every arm, RTT and unit of loss. */
static void loss(pq_findings_builder *b)
{
	const pq_agg *a = b->a;
	pq_finding *f = a->loss_cells ? pq_findings_add(b) : NULL;
	if (!f)
		return;
	pq_out_cat(f->text, sizeof f->text, "The loss model's median and p95 agree with %zu of %zu cells with loss "
		   "(%zu of %zu within their fidelity budgets)", a->loss_agree_both, a->loss_cells, a->loss_clean_both,
		   a->loss_clean);
	pq_findings_link_to(f, "loss", "loss table");
	double lo = INFINITY, hi = -1, mlo = INFINITY, mhi = -1;
	size_t never = 0;
	for (size_t i = 0; i < a->nlosssteps; i++) {
		const pq_agg_lossstep *s = &a->losssteps[i];
		if (s->measured_pct >= 0)
			lo = fmin(lo, s->measured_pct), hi = fmax(hi, s->measured_pct);
		else
			never++;
		if (s->model_pct >= 0)
			mlo = fmin(mlo, s->model_pct), mhi = fmax(mhi, s->model_pct);
	}
	if (hi < 0 || !(f = pq_findings_add(b)))
		return;
	pq_out_cat(f->text, sizeof f->text, "Under loss the median handshake pays its first extra round trip from ");
	pq_out_cat(f->text, sizeof f->text, lo == hi ? "%g %% loss" : "%g to %g %% loss", lo, hi);
	pq_out_cat(f->text, sizeof f->text, " here, over %zu arm, RTT and unit combinations", a->nlosssteps - never);
	if (never)
		pq_out_cat(f->text, sizeof f->text, " (%zu more at none of the rates measured)", never);
	if (mhi >= 0)
		pq_out_cat(f->text, sizeof f->text, mlo == mhi ? "; the loss model puts it at %g %%" :
				   "; the loss model puts it at %g to %g %%", mlo, mhi);
	pq_findings_link_to(f, "loss", "each arm");
}

/* A study's source: its name without the table or figure ("paper (seeds/003)"). */
static void source_of(const char *study, char *buf, size_t n)
{
	const char *cut = strstr(study, " Table ");
	const char *fig = strstr(study, " Figure ");
	if (!cut || (fig && fig < cut))
		cut = fig;
	const char *paren = cut ? strstr(cut, " (") : NULL;
	if (!cut)
		snprintf(buf, n, "%s", study);
	else
		snprintf(buf, n, "%.*s%s", (int)(cut - study), study, paren ? paren : "");
}

/* Each study's rows counted by verdict, one sentence per source. */
static void studies(pq_findings_builder *b)
{
	const pq_agg *a = b->a;
	for (size_t i = 0; i < a->nstudies; i++) {
		char src[64], other[64];
		source_of(a->studies[i].study, src, sizeof src);
		int first = 1;
		for (size_t k = 0; k < i && first; k++) {
			source_of(a->studies[k].study, other, sizeof other);
			first = strcmp(src, other) != 0;
		}
		if (!first)
			continue;
		size_t n[3] = {0, 0, 0}; /* by verdict (pq_verdict_word): cannot be judged, differs, agrees */
		pq_finding *f = pq_findings_add(b);
		if (!f)
			return;
		for (size_t k = i; k < a->nstudies; k++) {
			source_of(a->studies[k].study, other, sizeof other);
			if (strcmp(src, other) != 0)
				continue;
			n[a->studies[k].agrees - PQ_VERDICT_UNJUDGED]++;
			char id[40], label[48];
			pq_findings_study_id(k, id, sizeof id);
			snprintf(label, sizeof label, "differs: row %zu", k + 1);
			if (a->studies[k].agrees == PQ_VERDICT_DIFFERS && f->nlinks < STUDY_LINKS)
				pq_findings_link_to(f, id, label);
		}
		size_t all = n[0] + n[1] + n[2];
		if (src[0] >= 'a' && src[0] <= 'z') /* "the blog", not "the AWS" */
			pq_out_cat(f->text, sizeof f->text, "The ");
		pq_out_cat(f->text, sizeof f->text, "%s ", src);
		if (n[0] == all || n[1] == all || n[2] == all) {
			pq_out_cat(f->text, sizeof f->text, "%s in %s row%s here", pq_verdict_word(a->studies[i].agrees),
				   all == 1 ? "its one" : "all its", all == 1 ? "" : "s");
		} else {
			size_t said = 0, parts = (n[0] > 0) + (n[1] > 0) + (n[2] > 0);
			for (int v = 2; v >= 0; v--)
				if (n[v])
					pq_out_cat(f->text, sizeof f->text, "%s%s in %zu", said++ ? (said == parts ? " and " : ", ") : "",
						   pq_verdict_word(v + PQ_VERDICT_UNJUDGED), n[v]);
			pq_out_cat(f->text, sizeof f->text, " of its %zu rows here", all);
		}
		pq_findings_link_to(f, "studies", "the studies");
	}
}

/* pqtls's client beside Chromium, over the grid points both measured. */
static void clients(pq_findings_builder *b)
{
	pq_finding *f = b->a->npairs ? pq_findings_add(b) : NULL;
	if (!f)
		return;
	pq_clients_summary_text(b->a, f->text, sizeof f->text);
	pq_findings_link_to(f, "clients", "both clients");
}

/* What a post-quantum chain costs a warm browser's certificate verification. */
static void warm(pq_findings_builder *b)
{
	pq_finding *f = b->a->nwarm ? pq_findings_add(b) : NULL;
	if (!f)
		return;
	pq_clients_warm_text(b->a, f->text, sizeof f->text);
	pq_findings_link_to(f, "clients-warm", "the warm browser");
}

void pq_findings_build(const pq_agg *a, pq_findings *out)
{
	pq_findings_builder b = {.a = a, .out = out};
	memset(out, 0, sizeof *out);
	pq_findings_arms(&b);
	clients(&b);
	warm(&b);
	pq_findings_steps(&b);
	pq_findings_no_difference(&b);
	model(&b);
	loss(&b);
	studies(&b);
}
