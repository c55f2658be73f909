/* The findings of each arm's round trips (report/findings.h): an arm that differs from the
 * baseline by whole round trips (and resumption or 0-RTT removing such a cost), a size
 * sweep's measured step where the flight model puts its cliff, and the arms with no
 * measurable difference; each by the rule findings.h states, linked to its evidence. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/wire.h"
#include "model/flight.h"
#include "report/agg.h"
#include "report/curve.h"
#include "report/findings.h"
#include "report/findings_int.h"
#include "report/out.h"

#define ARM_SENTENCES 4 /* arms named a sentence each; the others in one more */
#define NAMES 24	/* arms named in the sentence of no measurable difference */

static void link_group(pq_finding *f, const pq_agg *a, const pq_agg_group *g)
{
	char id[40], label[48];
	pq_findings_group_id(a, g, id, sizeof id);
	snprintf(label, sizeof label, "%s%g ms", f->nlinks ? "" : "key table, ", (double)g->cell->rtt_us / 1e3);
	pq_findings_link_to(f, id, label);
}

/* The chain-size figure that draws group g (a key arm's full handshake on a family's
 * line, or a point of its own arm's size sweep), linked when there is one. */
static void link_figure(pq_finding *f, const pq_agg *a, const pq_agg_group *g)
{
	size_t part = 0;
	for (size_t i = 0; i < a->nlines; i++) {
		const pq_agg_line *l = &a->lines[i];
		if (l->host != g->host || l->rtt != g->rtt)
			continue;
		if ((l->arm == g->arm && l->browser == g->browser) || (l->arm < 0 && g->cell->resume_pct <= 0 && pq_curve_same_but_chain(l->fam->cell, g->cell))) {
			char id[40], label[48];
			pq_findings_size_fig_id(l->host, l->rtt, part / PQ_FINDINGS_LINES_PER_FIG, id, sizeof id);
			snprintf(label, sizeof label, "figure, %g ms", (double)g->cell->rtt_us / 1e3);
			pq_findings_link_to(f, id, label);
			return;
		}
		part++;
	}
}

static double rtt_ms(const pq_agg_group *g)
{
	return g->min_rtt_ms > 0 ? g->min_rtt_ms : (double)g->cell->rtt_us / 1e3;
}

/* The model's round trips of a group in the phase its difference is taken in. */
static double model_t(const pq_agg_group *g)
{
	return g->diff_phase == PQ_AGG_TTFB ? g->model.ttfb_t : g->model.handshake_t;
}

/* How many whole round trips more (> 0) or fewer (< 0) than its baseline group g took, by
 * the rule in findings.h; 0 when that is not what the evidence says. */
static int whole_rtts(const pq_agg_group *g)
{
	const pq_agg_group *b = g->base_g;
	enum pq_agg_phase p = g->diff_phase;
	if (!b || !g->has_vs[p] || !g->vs[p].measurable || !g->has_model || !b->has_model || !g->agrees ||
	    !b->agrees || g->browser || b->browser)
		return 0;
	double pred = model_t(g) - model_t(b);
	long k = lround(pred);
	if (!k || fabs(pred - (double)k) > PQ_MODEL_AGREE_RTT ||
	    fabs(g->vs[p].diff / rtt_ms(g) - (double)k) > PQ_MODEL_AGREE_RTT)
		return 0;
	return (int)k;
}

/* Whether g took the baseline's round trips, by the same evidence: the model predicts as
 * many and the measured difference is none or under PQ_MODEL_AGREE_RTT of a round trip.
 * Neither says anything of Chromium's grid points: their round trips are not measured (its
 * tcp_info is not read) and their first byte holds the browser's own work; the clients'
 * finding (report/clients.h) sets them against pqtls's. */
static int same_rtts(const pq_agg_group *g)
{
	const pq_agg_group *b = g->base_g;
	enum pq_agg_phase p = g->diff_phase;
	return b && !g->browser && !b->browser && g->has_vs[p] && g->has_model && b->has_model && g->agrees && b->agrees &&
	       fabs(model_t(g) - model_t(b)) <= PQ_MODEL_AGREE_RTT &&
	       (!g->vs[p].measurable || fabs(g->vs[p].diff / rtt_ms(g)) <= PQ_MODEL_AGREE_RTT);
}

static const char *count_word(long k)
{
	static const char *const w[] = {"no", "one", "two", "three", "four", "five"};
	return k >= 0 && k < 6 ? w[k] : NULL;
}

/* "costs one more round trip", "saves two round trips" */
static void rtts_words(char *b, size_t n, int k)
{
	long m = labs((long)k);
	char num[24];
	snprintf(num, sizeof num, "%ld", m);
	pq_out_cat(b, n, "%s %s%s round trip%s", k > 0 ? "costs" : "saves", count_word(m) ? count_word(m) : num,
		   k > 0 ? " more" : "", m == 1 ? "" : "s");
}

/* "70 and 148 ms" from the groups' RTTs; "1, 70 and 148 ms"; each RTT once, and where
 * the groups also differ in another dimension (two groups of key exchange at each RTT),
 * "70 and 148 ms, with each group" (the first such dimension: the others follow from it). */
static void rtt_list(char *b, size_t n, const pq_agg_group *const *g, size_t ng)
{
	long long seen[PQ_AGG_MAX_RTTS];
	size_t ns = 0;
	for (size_t i = 0; i < ng; i++) {
		size_t k = 0;
		while (k < ns && seen[k] != g[i]->cell->rtt_us)
			k++;
		if (k == ns && ns < PQ_AGG_MAX_RTTS)
			seen[ns++] = g[i]->cell->rtt_us;
	}
	for (size_t i = 0; i < ns; i++)
		pq_out_cat(b, n, "%s%g", i == 0 ? "" : i + 1 == ns ? " and " : ", ", (double)seen[i] / 1e3);
	pq_out_cat(b, n, " ms");
	for (size_t d = 0, said = 0; ns < ng && !said && d < PQ_DIM_COUNT; d++) { /* the first names it */
		if (d == PQ_D_RTT || d == PQ_D_PROFILE || d == PQ_D_TIMEOUT || (pq_dims[d].flags & PQ_DIM_STORED))
			continue;
		int differ = 0;
		for (size_t i = 1; i < ng && !differ; i++)
			differ = !pq_dimval_equal(&g[0]->cell->dim[d], &g[i]->cell->dim[d]);
		if (differ)
			pq_out_cat(b, n, ", with each %s", pq_dims[d].label), said = 1;
	}
}

/* An article for a name as it is read aloud: "an ml-dsa-65", "a 16 KiB". */
static const char *article(const char *s)
{
	return s[0] && strchr("aefhilmnorsxAEFHILMNORSX8", s[0]) ? "an" : "a";
}

/* "An ml-dsa-65 leaf + 1 intermediate chain (15.7 kB first flight)": what the arm's chain is. */
static void chain_words(char *b, size_t n, const pq_rdb_cell *c)
{
	const char *inter = pq_agg_dim_text(c, "intermediate"), *mtc = pq_agg_dim_text(c, "mtc");
	double pad = pq_agg_dim_num(c, "pad-chain-to");
	char a[4];
	snprintf(a, sizeof a, "%s", article(c->leaf));
	a[0] = (char)(a[0] - 'a' + 'A');
	pq_out_cat(b, n, "%s %s leaf", a, c->leaf);
	if (c->intermediates > 0)
		pq_out_cat(b, n, " + %d %s%sintermediate%s", c->intermediates,
			   inter && strcmp(inter, c->leaf) != 0 ? inter : "", inter && strcmp(inter, c->leaf) != 0 ? " " : "",
			   c->intermediates == 1 ? "" : "s");
	else
		pq_out_cat(b, n, "-only");
	pq_out_cat(b, n, " chain");
	if (mtc && *mtc && strcmp(mtc, "none") != 0)
		pq_out_cat(b, n, " (MTC %s)", mtc);
	if (pad > 0)
		pq_out_cat(b, n, " padded to %.1f kB", (double)c->chain_der_bytes / 1e3);
	if (c->flight_bytes > 0)
		pq_out_cat(b, n, " (%.1f kB first flight)", (double)c->flight_bytes / 1e3);
}

/* Why the model puts g k round trips from its baseline b, where it can say in words. */
static void why_words(char *buf, size_t n, const pq_agg_group *g, const pq_agg_group *b, int k)
{
	const pq_model_out *m = &g->model, *mb = &b->model;
	int iw = g->cell->initcwnd > 0 ? g->cell->initcwnd : PQ_WIRE_IW_DEFAULT;
	int past = k > 0 && m->flight_rounds > mb->flight_rounds && mb->flight_rounds == 1;
	if (m->hrr_rounds != mb->hrr_rounds)
		pq_out_cat(buf, n, ": %s", m->hrr_rounds > mb->hrr_rounds ? "the server answers its key share with a HelloRetryRequest"
									: "the baseline's key share draws a HelloRetryRequest");
	else if (past && g->cell->quic)
		pq_out_cat(buf, n, ": over QUIC its first flight takes %u round trips, past the server's budget of %dx "
				   "the client's Initial bytes", m->flight_rounds, PQ_WIRE_QUIC_AMP_FACTOR);
	else if (past)
		pq_out_cat(buf, n, ": its first flight (%zu segments) is past the initial window of %d segments",
			   m->flight_segments, iw);
	else if (m->flight_rounds != mb->flight_rounds)
		pq_out_cat(buf, n, ": its first flight takes %u windows, the baseline's %u", m->flight_rounds, mb->flight_rounds);
}

/* The groups of arm k at host h that hold the finding `want` (whole_rtts; 0: same_rtts). */
static size_t holding(const pq_agg *a, int h, int k, int want, const pq_agg_group **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < a->n && n < max; i++) {
		const pq_agg_group *g = &a->g[i];
		if (g->host == h && g->arm == k && (want ? whole_rtts(g) == want : same_rtts(g)))
			out[n++] = g;
	}
	return n;
}

static void host_words(char *b, size_t n, const pq_agg *a, int h)
{
	if (a->nhosts > 1)
		pq_out_cat(b, n, " on host %s", a->hosts[h]);
}

/* "(+72.3 ms, +148.6 ms TTFB against ecdsa-p256)" */
static void diffs_words(char *b, size_t n, const pq_agg *a, const pq_agg_group *const *g, size_t ng)
{
	pq_out_cat(b, n, " (");
	for (size_t i = 0; i < ng; i++)
		pq_out_cat(b, n, "%s%+.1f ms", i ? ", " : "", g[i]->vs[g[i]->diff_phase].diff);
	pq_out_cat(b, n, " %s against %s)", pq_agg_phase_name[g[0]->diff_phase], a->arms[0]);
}

/* The kind of an arm's grid points: all full handshakes (0), all resumed (1), all 0-RTT
 * (2), or mixed (-1). */
static int resumption_of(const pq_agg *a, int h, int k)
{
	int kind = -2;
	for (size_t i = 0; i < a->n; i++) {
		const pq_rdb_cell *c = a->g[i].cell;
		if (a->g[i].host != h || a->g[i].arm != k)
			continue;
		int mine = c->resume_pct <= 0 ? 0 : c->resume_pct < 100 ? -1 : c->early_data ? 2 : 1;
		kind = kind == -2 || kind == mine ? mine : -1;
	}
	return kind;
}

/* Resumption takes away what a full handshake's chain cost: an arm whose grid points are
 * arm k's resumed, taking the baseline's round trips where k's took more. */
static void resumed_after(pq_findings_builder *b, int h, const pq_agg_group *const *cost, size_t ncost)
{
	const pq_agg *a = b->a;
	for (size_t r = 1; r < a->narms; r++) {
		const pq_agg_group *g[PQ_AGG_MAX_RTTS];
		size_t ng = 0;
		if (resumption_of(a, h, (int)r) != 1 || b->said[h][r])
			continue;
		for (size_t i = 0; i < ncost; i++)
			for (size_t j = 0; j < a->n && ng < PQ_AGG_MAX_RTTS; j++) {
				const pq_agg_group *x = &a->g[j];
				if (x->host == h && x->arm == (int)r && x->rtt == cost[i]->rtt &&
				    x->cell->response_bytes == cost[i]->cell->response_bytes &&
				    pq_curve_same_but_resumption(x->cell, cost[i]->cell) && same_rtts(x))
					g[ng++] = x;
			}
		pq_finding *f = ng ? pq_findings_add(b) : NULL;
		if (!f)
			continue;
		b->said[h][r] = 1;
		pq_out_cat(f->text, sizeof f->text, "Resumption removes that cost: %s takes as many round trips as %s at ",
			   a->arms[r], a->arms[0]);
		rtt_list(f->text, sizeof f->text, g, ng);
		host_words(f->text, sizeof f->text, a, h);
		size_t measurable = 0;
		for (size_t i = 0; i < ng; i++) {
			measurable += (size_t)g[i]->vs[g[i]->diff_phase].measurable;
			link_group(f, a, g[i]);
		}
		if (!measurable)
			pq_out_cat(f->text, sizeof f->text, " (no measurable difference%s)",
				   ng == 2 ? " at either" : ng > 2 ? " at any" : "");
		else
			diffs_words(f->text, sizeof f->text, a, g, ng); /* each under a quarter of a round trip */
		pq_out_cat(f->text, sizeof f->text, ", as the flight model predicts: no certificate in its flight");
	}
}

/* One sentence for arm k at host h, whose grid points differ from the baseline by whole
 * round trips (the first such difference's count, at every RTT it holds). */
static void arm_sentence(pq_findings_builder *b, int h, int k, int kind, const pq_agg_group *const *g, size_t ng)
{
	const pq_agg *a = b->a;
	int rt = whole_rtts(g[0]);
	pq_finding *f = pq_findings_add(b);
	if (!f)
		return;
	b->said[h][k] = 1;
	char *t = f->text;
	size_t n = sizeof f->text;
	if (kind == 2 && rt < 0) {
		pq_out_cat(t, n, "0-RTT (%s) brings the first byte %s round trip%s sooner at ", a->arms[k],
			   count_word(-rt) ? count_word(-rt) : "several", rt == -1 ? "" : "s");
		rtt_list(t, n, g, ng);
	} else {
		if (pq_curve_same_but_chain(g[0]->base_g->cell, g[0]->cell))
			chain_words(t, n, g[0]->cell);
		else
			pq_out_cat(t, n, "The arm %s", a->arms[k]);
		pq_out_cat(t, n, " ");
		rtts_words(t, n, rt);
		pq_out_cat(t, n, " at ");
		rtt_list(t, n, g, ng);
	}
	host_words(t, n, a, h);
	diffs_words(t, n, a, g, ng);
	pq_out_cat(t, n, ", as the flight model predicts");
	if (kind == 2 && rt < 0)
		pq_out_cat(t, n, ": the request goes with the ClientHello");
	else
		why_words(t, n, g[0], g[0]->base_g, rt);
	for (size_t i = 0; i < ng && i + 1 < PQ_FINDING_LINKS; i++)
		link_group(f, a, g[i]);
	link_figure(f, a, g[ng - 1]);
}

/* The arms that differ from the baseline by whole round trips, resumption after the arm
 * whose cost it removes; beyond ARM_SENTENCES arms, one sentence names the rest. */
void pq_findings_arms(pq_findings_builder *b)
{
	const pq_agg *a = b->a;
	char rest[600] = "";
	size_t nrest = 0, nsaid = 0;
	for (size_t h = 0; h < a->nhosts; h++)
		for (size_t k = 1; k < a->narms; k++) {
			const pq_agg_group *g[PQ_AGG_MAX_RTTS];
			int kind = resumption_of(a, (int)h, (int)k);
			if (a->kind[k] != PQ_AGG_KEY || kind == 1 || kind < 0)
				continue;
			size_t ng = 0;
			for (size_t i = 0; i < a->n && !ng; i++)
				if (a->g[i].host == (int)h && a->g[i].arm == (int)k && whole_rtts(&a->g[i]))
					ng = holding(a, (int)h, (int)k, whole_rtts(&a->g[i]), g, PQ_AGG_MAX_RTTS);
			if (!ng)
				continue;
			if (nsaid++ >= ARM_SENTENCES) {
				pq_out_cat(rest, sizeof rest, "%s%s", nrest++ ? ", " : "", a->arms[k]);
				b->said[h][k] = 1;
				continue;
			}
			arm_sentence(b, (int)h, (int)k, kind, g, ng);
			if (kind == 0 && whole_rtts(g[0]) > 0)
				resumed_after(b, (int)h, g, ng);
		}
	pq_finding *f = nrest ? pq_findings_add(b) : NULL;
	if (f) {
		snprintf(f->text, sizeof f->text, "%zu more arm%s differ from %s by whole round trips as the flight model "
			 "predicts: %s", nrest, nrest == 1 ? "" : "s", a->arms[0], rest);
		pq_findings_link_to(f, "key", "key table");
	}
}

/* The arms no finding named whose every difference from the baseline is not measurable. */
void pq_findings_no_difference(pq_findings_builder *b)
{
	const pq_agg *a = b->a;
	char list[700] = "", names[NAMES][200];
	size_t nl = 0;
	for (size_t h = 0; h < a->nhosts; h++)
		for (size_t k = 1; k < a->narms; k++) {
			size_t judged = 0, measurable = 0;
			for (size_t i = 0; i < a->n; i++) {
				const pq_agg_group *g = &a->g[i];
				if (g->host != (int)h || g->arm != (int)k || !g->has_vs[g->diff_phase])
					continue;
				judged++;
				measurable += (size_t)g->vs[g->diff_phase].measurable;
			}
			if (b->said[h][k] || !judged || measurable)
				continue;
			names[nl][0] = '\0';
			pq_out_cat(names[nl], sizeof names[0], "%s", a->arms[k]);
			if (a->nhosts > 1)
				pq_out_cat(names[nl], sizeof names[0], " (host %s)", a->hosts[h]);
			nl += nl < NAMES;
		}
	for (size_t i = 0; i < nl; i++)
		pq_out_cat(list, sizeof list, "%s%s", i == 0 ? "" : i + 1 == nl ? " and " : ", ", names[i]);
	pq_finding *f = nl ? pq_findings_add(b) : NULL;
	if (!f)
		return;
	snprintf(f->text, sizeof f->text, "No measurable difference in %s from %s at any RTT measured for %s (each "
		 "bootstrap interval contains 0)", a->diff_what, a->arms[0], list);
	pq_findings_link_to(f, "key", "key table");
}

/* One run of RTTs at which a step falls between the same two sizes on one host: "between
 * 12.3 and 14.3 kB at 10, 50 and 100 ms" (";"-separated from the run before it). */
typedef struct step_run {
	double before, after;
	int host;
	double rtt_ms[PQ_AGG_MAX_RTTS];
	size_t n;
} step_run;

static void step_run_say(pq_finding *f, const pq_agg *a, const step_run *r, int first)
{
	if (!r->n)
		return;
	pq_out_cat(f->text, sizeof f->text, "%sbetween %.1f and %.1f kB at ", first ? "" : "; ", r->before, r->after);
	for (size_t i = 0; i < r->n; i++)
		pq_out_cat(f->text, sizeof f->text, "%s%g", i == 0 ? "" : i + 1 == r->n ? " and " : ", ", r->rtt_ms[i]);
	pq_out_cat(f->text, sizeof f->text, " ms");
	host_words(f->text, sizeof f->text, a, r->host);
}

/* A size sweep's measured step where the model puts its cliff, per arm over its RTTs. */
void pq_findings_steps(pq_findings_builder *b)
{
	const pq_agg *a = b->a;
	for (size_t k = 0; k < a->narms; k++) {
		pq_finding *f = NULL;
		size_t said = 0, runs = 0;
		step_run r = {.n = 0};
		for (size_t i = 0; i < a->nlines; i++) {
			const pq_agg_line *l = &a->lines[i];
			const pq_step *s = l->nsteps ? &l->steps[0] : NULL;
			/* Chromium's steps beside pqtls's are the clients' finding's */
			if (l->arm != (int)k || l->browser || l->cpu_bound || !s || !l->has_cliff || s->jump <= 0 ||
			    !(l->cliff_kb > s->x_before && l->cliff_kb <= s->x_after))
				continue;
			if (!f && !(f = pq_findings_add(b)))
				return;
			if (!said++)
				pq_out_cat(f->text, sizeof f->text, "%s of arm %s steps up by %s round trip where the flight model puts "
					   "the chain's cliff (%.2f kB): ", l->hs_only ? "The handshake" : "TTFB", a->arms[k],
					   count_word(lround(s->jump_rtts)) ? count_word(lround(s->jump_rtts)) : "more than one", l->cliff_kb);
			if (!r.n || s->x_before != r.before || s->x_after != r.after || l->host != r.host ||
			    r.n == PQ_AGG_MAX_RTTS) {
				step_run_say(f, a, &r, runs == 0);
				runs += r.n > 0;
				r = (step_run){.before = s->x_before, .after = s->x_after, .host = l->host};
			}
			r.rtt_ms[r.n++] = (double)a->rtts[l->rtt] / 1e3;
			b->said[l->host][k] = 1;
			link_figure(f, a, l->first);
		}
		if (f)
			step_run_say(f, a, &r, runs == 0);
	}
}
