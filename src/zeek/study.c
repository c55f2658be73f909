#include "zeek/study.h"

#include <math.h>
#include <string.h>

#include "report/verdict.h"

/* Table III of the paper, % (CDN, non-CDN). */
static const struct {
	enum pq_zeek_metric m;
	const char *what;
	double cdn, other;
} table3[] = {
	{PQ_ZMT_TLS13, "TLS 1.3 adoption", 84.74, 75.73},
	{PQ_ZMT_RES_ALL, "resumption, all versions", 80.30, 35.44},
	{PQ_ZMT_RES_13, "resumption, TLS 1.3", 94.16, 46.09},
};

/* Figure 7 of the paper: the saving's range per RTT, ms, read off the figure. */
static const struct {
	double rtt_ms, lo, hi;
} fig7[] = {{50, 40, 80}, {100, 75, 155}};

#define FIG7_SLACK 0.10 /* a range read off a figure: 10 % either way */

/* What a metric's denominator counts. */
static const char *counted(enum pq_zeek_metric m)
{
	return m == PQ_ZMT_TLS13 ? "rows with a version" : "rows with a known outcome";
}

static void rate_text(char *buf, size_t n, const char *name, const pq_zeek_rate *r, enum pq_zeek_metric m)
{
	if (!r->n)
		snprintf(buf, n, "%s n/a (no %s)", name, counted(m));
	else
		snprintf(buf, n, "%s %.2f %% [%.1f, %.1f] (%llu/%llu)", name, 100 * r->r, 100 * r->lo, 100 * r->hi,
			 (unsigned long long)r->k, (unsigned long long)r->n);
}

/* The paper's finding, CDN above non-CDN, judged on two rates; the verdict in buf. */
static int direction(const pq_zeek_rate *cdn, const pq_zeek_rate *other, enum pq_zeek_metric m, char *buf, size_t n)
{
	if (!cdn->n || !other->n) {
		snprintf(buf, n, "cannot be judged: no %s %s here", !cdn->n ? "CDN" : "Other", counted(m));
		return PQ_VERDICT_UNJUDGED;
	}
	pq_verdict_order ord = pq_verdict_order_of(cdn->lo, cdn->hi, other->lo, other->hi);
	if (ord == PQ_VERDICT_ABOVE) {
		snprintf(buf, n, "agrees: CDNs above non-CDN servers, the 95 %% intervals apart (x%.2f here)",
			 other->r > 0 ? cdn->r / other->r : INFINITY);
		return PQ_VERDICT_AGREES;
	}
	if (ord == PQ_VERDICT_BELOW) {
		snprintf(buf, n, "differs: CDNs below non-CDN servers here, the 95 %% intervals apart");
		return PQ_VERDICT_DIFFERS;
	}
	snprintf(buf, n,
		 "cannot be judged: the 95 %% intervals overlap (%llu CDN and %llu Other %s): more rows would "
		 "tell",
		 (unsigned long long)cdn->n, (unsigned long long)other->n, counted(m));
	return PQ_VERDICT_UNJUDGED;
}

size_t pq_zeek_study_table3(const pq_zeek_agg *a, pq_zeek_study *out, size_t max)
{
	size_t k = 0;
	for (size_t i = 0; i < sizeof table3 / sizeof table3[0] && k < max; i++, k++) {
		pq_zeek_study *s = &out[k];
		pq_zeek_rate cdn, other;
		char c[128], o[128];
		pq_zeek_rate_of(a, PQ_ZCAT_CDN, table3[i].m, &cdn);
		pq_zeek_rate_of(a, PQ_ZCAT_OTHER, table3[i].m, &other);
		snprintf(s->what, sizeof s->what, "Table III: %s, CDN against non-CDN", table3[i].what);
		snprintf(s->theirs, sizeof s->theirs, "CDN %.2f %%, non-CDN %.2f %% (NCSA traffic; x%.2f)", table3[i].cdn,
			 table3[i].other, table3[i].cdn / table3[i].other);
		rate_text(c, sizeof c, "CDN", &cdn, table3[i].m);
		rate_text(o, sizeof o, "Other", &other, table3[i].m);
		snprintf(s->ours, sizeof s->ours, "%s, %s", c, o);
		s->agrees = direction(&cdn, &other, table3[i].m, s->verdict, sizeof s->verdict);
	}
	return k;
}

/* Figure 7 at one RTT with the paper's own rates and the sweep's gains. */
static void fig7_rtt(const pq_zeek_savings *sv, size_t f, pq_zeek_study *s)
{
	const double rc = table3[1].cdn / 100, ro = table3[1].other / 100, rtt = fig7[f].rtt_ms;
	double lo = INFINITY, hi = -INFINITY, olo = INFINITY, ohi = -INFINITY, best = -INFINITY;
	size_t paying = 0, measured = 0;
	const char *best_chain = "";
	int inside = 1;
	for (size_t i = 0; i < sv->n; i++) {
		const pq_zeek_ttfb *t = &sv->v[i];
		if (!t->rtt_known || fabs(t->rtt_ms - rtt) >= 0.5)
			continue;
		double gain = t->fresh_ms - t->resumed_ms;
		measured++;
		if (gain > best) {
			best = gain;
			best_chain = t->chain;
		}
		if (gain < 0.5 * rtt)
			continue; /* no round trip saved: below the paper's thresholds */
		paying++;
		double c = rc * gain, o = ro * gain;
		lo = fmin(lo, c), hi = fmax(hi, c), olo = fmin(olo, o), ohi = fmax(ohi, o);
		inside &= pq_verdict_inside(c, fig7[f].lo * (1 - FIG7_SLACK), fig7[f].hi * (1 + FIG7_SLACK));
	}
	snprintf(s->what, sizeof s->what, "Figure 7: the saving resumption brings at %g ms RTT, with the paper's rates",
		 rtt);
	snprintf(s->theirs, sizeof s->theirs, "%g-%g ms (CDN, chains past a threshold), about twice non-CDN's",
		 fig7[f].lo, fig7[f].hi);
	if (!measured) {
		snprintf(s->ours, sizeof s->ours, "no chain measured fresh and resumed at %g ms", rtt);
		snprintf(s->verdict, sizeof s->verdict,
			 "cannot be judged: the sweep has no chain fresh and resumed at %g ms RTT (the ttfb-rtt "
			 "preset measures them)",
			 rtt);
		s->agrees = PQ_VERDICT_UNJUDGED;
		return;
	}
	if (!paying) {
		snprintf(s->ours, sizeof s->ours, "no chain pays half a round trip more when fresh (largest gain %.1f ms: %.120s)",
			 best, best_chain);
		snprintf(s->verdict, sizeof s->verdict,
			 "cannot be judged: the paper's range is of chains past a threshold, and none measured here is");
		s->agrees = PQ_VERDICT_UNJUDGED;
		return;
	}
	snprintf(s->ours, sizeof s->ours,
		 "%zu chain%s past a threshold: CDN %.1f-%.1f ms, non-CDN %.1f-%.1f ms (x %.4f and %.4f of the "
		 "gains measured here; largest %.1f ms: %.120s)",
		 paying, paying == 1 ? "" : "s", lo, hi, olo, ohi, rc, ro, best, best_chain);
	if (inside)
		snprintf(s->verdict, sizeof s->verdict, "agrees: every CDN saving (%.1f-%.1f ms) inside the paper's %g-%g ms",
			 lo, hi, fig7[f].lo, fig7[f].hi);
	else
		snprintf(s->verdict, sizeof s->verdict, "differs: CDN savings of %.1f-%.1f ms, not all inside the paper's %g-%g ms (to 10 %%)",
			 lo, hi, fig7[f].lo, fig7[f].hi);
	s->agrees = inside;
}

/* Figure 7's "about twice" with the data set's own rates. */
static void fig7_ratio(const pq_zeek_agg *a, pq_zeek_study *s)
{
	const double theirs = table3[1].cdn / table3[1].other;
	pq_zeek_rate cdn, other;
	char c[128], o[128];
	pq_zeek_rate_of(a, PQ_ZCAT_CDN, PQ_ZMT_RES_ALL, &cdn);
	pq_zeek_rate_of(a, PQ_ZCAT_OTHER, PQ_ZMT_RES_ALL, &other);
	snprintf(s->what, sizeof s->what, "Figure 7: CDNs' saving against non-CDN's, with these logs' rates");
	snprintf(s->theirs, sizeof s->theirs, "about 2x (x%.2f from Table III's 80.30 %% and 35.44 %%)", theirs);
	rate_text(c, sizeof c, "CDN", &cdn, PQ_ZMT_RES_ALL);
	rate_text(o, sizeof o, "Other", &other, PQ_ZMT_RES_ALL);
	double lo = other.hi > 0 ? cdn.lo / other.hi : NAN, hi = other.lo > 0 ? cdn.hi / other.lo : INFINITY;
	if (cdn.n && other.n && other.r > 0)
		snprintf(s->ours, sizeof s->ours, "x%.2f [%.2f, %.2f] (resumption, all versions: %s, %s)", cdn.r / other.r, lo,
			 hi, c, o);
	else
		snprintf(s->ours, sizeof s->ours, "no ratio (resumption, all versions: %s, %s)", c, o);
	s->agrees = direction(&cdn, &other, PQ_ZMT_RES_ALL, s->verdict, sizeof s->verdict);
	if (s->agrees == PQ_VERDICT_AGREES && !other.k) {
		snprintf(s->verdict, sizeof s->verdict,
			 "cannot be judged: CDNs resume more, but no Other row resumed, so the ratio has no bound");
		s->agrees = PQ_VERDICT_UNJUDGED;
	} else if (s->agrees == PQ_VERDICT_AGREES && !pq_verdict_inside(theirs, lo, hi)) {
		snprintf(s->verdict, sizeof s->verdict,
			 "differs in size: CDNs save more, x%.2f [%.2f, %.2f], an interval without the paper's x%.2f",
			 cdn.r / other.r, lo, hi, theirs);
		s->agrees = PQ_VERDICT_DIFFERS;
	} else if (s->agrees == PQ_VERDICT_AGREES) {
		snprintf(s->verdict, sizeof s->verdict, "agrees: CDNs save x%.2f [%.2f, %.2f] what non-CDN servers save, the paper's x%.2f inside",
			 cdn.r / other.r, lo, hi, theirs);
	}
}

size_t pq_zeek_study_fig7(const pq_zeek_savings *s, const pq_zeek_agg *a, pq_zeek_study *out, size_t max)
{
	size_t k = 0;
	for (size_t f = 0; f < sizeof fig7 / sizeof fig7[0] && k < max; f++)
		fig7_rtt(s, f, &out[k++]);
	if (k < max)
		fig7_ratio(a, &out[k++]);
	return k;
}

void pq_zeek_study_print(FILE *f, const pq_zeek_study *v, size_t n)
{
	fprintf(f, "\nBeside the paper (arXiv 2604.24869, ../shared/seeds/003):\n");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\n  theirs:  %s\n  here:    %s\n  verdict: %s\n", v[i].what, v[i].theirs, v[i].ours,
			v[i].verdict);
}

cJSON *pq_zeek_study_json(const pq_zeek_study *v, size_t n)
{
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; arr && i < n; i++) {
		cJSON *o = cJSON_CreateObject();
		if (!o || !cJSON_AddStringToObject(o, "what", v[i].what) || !cJSON_AddStringToObject(o, "theirs", v[i].theirs) ||
		    !cJSON_AddStringToObject(o, "here", v[i].ours) || !cJSON_AddStringToObject(o, "verdict", v[i].verdict) ||
		    !cJSON_AddNumberToObject(o, "agrees", v[i].agrees)) {
			cJSON_Delete(o);
			cJSON_Delete(arr);
			return NULL;
		}
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}
