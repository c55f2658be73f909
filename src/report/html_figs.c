/* The page's Figures section (report/html_int.h): time against chain size at each host
 * and RTT, with the flight model's prediction, its cliffs and the measured steps, a panel
 * per line on shared axes; then report/charts.h's loss, RTT and CDF charts; then the TTLB
 * slowdown against response size per link. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/charts.h"
#include "report/findings.h"
#include "report/html_int.h"
#include "report/svg.h"

static void steps_text(const pq_agg_line *l, const char *name, double rtt, char *buf, size_t n)
{
	size_t ns = l->nsteps < PQ_AGG_LINE_STEPS ? l->nsteps : PQ_AGG_LINE_STEPS, off = 0;
	off += (size_t)snprintf(buf + off, n - off, " %s: ", name);
	if (off >= n)
		return;
	if (l->cpu_bound)
		snprintf(buf + off, n - off, "none claimed: at every size the handshake took at least %.1f ms (%.1f "
			 "round trips) beyond its round trips, CPU time that can make such a jump too;",
			 l->cpu_ms, l->cpu_ms / rtt);
	else if (!ns)
		snprintf(buf + off, n - off, "no step;");
	for (size_t i = 0; i < ns && off < n; i++)
		off += (size_t)snprintf(buf + off, n - off, "%.2f-%.2f kB (%+.2f RTT%s)%s", l->steps[i].x_before,
					l->steps[i].x_after, l->steps[i].jump_rtts,
					l->steps[i].jump < 0 ? ", a drop: noise, a larger chain takes no fewer round trips" : "",
					i + 1 < ns ? ", " : ";");
}

/* The axes every panel of the chain-size figure at (rtt, host) shares: the extent of all
 * its lines' sizes and times, measured and modelled. */
static void size_axes(const pq_agg *a, int rtt, int host, pq_svg_axis *x, pq_svg_axis *y)
{
	x->lo = y->lo = INFINITY;
	x->hi = y->hi = -INFINITY;
	for (size_t i = 0; i < a->nlines; i++) {
		const pq_agg_line *l = &a->lines[i];
		if (l->rtt != rtt || l->host != host)
			continue;
		for (size_t k = 0; k < l->n; k++) {
			const double v[3] = {l->fb[k], l->mfb[k], l->arm < 0 ? l->hs[k] : l->fb[k]};
			x->lo = fmin(x->lo, l->x[k]);
			x->hi = fmax(x->hi, l->x[k]);
			for (size_t j = 0; j < 3; j++)
				if (isfinite(v[j])) {
					y->lo = fmin(y->lo, v[j]);
					y->hi = fmax(y->hi, v[j]);
				}
		}
	}
	if (!(x->hi > x->lo) || !(y->hi > y->lo)) /* one point: from the data */
		x->lo = x->hi = y->lo = y->hi = 0;
	else
		y->lo = fmax(0, y->lo - 0.05 * (y->hi - y->lo)), y->hi += 0.05 * (y->hi - y->lo);
}

/* Time against chain size at one RTT: the agg's lines (measured medians and the model's
 * TTFB per arm that sweeps the size, or per family of key arms), the model's cliffs
 * marked, and the steps found in the measurement. Draws the lines of (rtt, host) from
 * a->lines[from] on, at most 4 to a chart (part `part`); returns the index to continue
 * from (a->nlines when all are drawn). */
static size_t size_chart(pq_html_page *p, int rtt, int host, size_t from, size_t part)
{
	const pq_agg *a = p->a;
	pq_svg_series s[9];
	pq_svg_mark marks[12];
	char steps[1200] = "", arm[4][100], fbname[4][160], mname[4][160], steplab[8][48];
	size_t nsl = 0;
	size_t nl = 0, ns = 0, nm = 0;
	const pq_agg_line *key = NULL;
	size_t keyi = 0;
	char keyname[160];
	double rt = (double)a->rtts[rtt] / 1e3;
	size_t i = from;
	for (; i < a->nlines && nl < PQ_FINDINGS_LINES_PER_FIG; i++) {
		const pq_agg_line *l = &a->lines[i];
		if (l->rtt != rtt || l->host != host)
			continue;
		if (l->arm < 0 && !key) {
			key = l;
			keyi = nl;
		}
		snprintf(arm[nl], sizeof arm[0], "%.80s%s", l->arm >= 0 ? a->arms[l->arm] : "key arms",
			 l->browser ? ", Chromium" : "");
		/* which family (link, group, transport...), when several share the RTT: the
		 * values it differs from another family's in */
		for (size_t k = 0; l->arm < 0 && k < a->nvary; k++) {
			size_t d = a->vary[k], len = strlen(arm[nl]);
			char v[48];
			if (!pq_agg_line_family_differs(a, l, d))
				continue;
			pq_agg_dim_show(l->first->cell, d, v, sizeof v);
			snprintf(arm[nl] + len, sizeof arm[0] - len, ", %.20s %.40s", pq_dims[d].label, v);
		}
		const char *ph = l->hs_only ? "handshake" : l->browser ? "network-only TTFB" : "TTFB";
		snprintf(fbname[nl], sizeof fbname[0], "%.99s: %s, measured median", arm[nl], ph);
		snprintf(mname[nl], sizeof mname[0], "%.99s: %s, model", arm[nl], ph);
		s[ns++] = (pq_svg_series){fbname[nl], l->x, l->fb, l->n, NULL, NULL, PQ_SVG_LINE, (int)(2 * nl)};
		s[ns++] = (pq_svg_series){mname[nl], l->x, l->mfb, l->n, NULL, NULL, PQ_SVG_STEP, (int)(2 * nl + 1)};
		size_t off = strlen(steps);
		steps_text(l, arm[nl], rt, steps + off, sizeof steps - off);
		if (l->has_cliff)
			marks[nm++] = (pq_svg_mark){l->cliff_kb, l->cliff_label};
		/* the measured steps up too, at the first size that pays (a drop is named in the
		 * caption only: round trips cannot explain it) */
		size_t nst = l->nsteps < PQ_AGG_LINE_STEPS ? l->nsteps : PQ_AGG_LINE_STEPS;
		for (size_t k = 0, up = 0; k < nst && up < 2 && nsl < 8 && nm < 12; k++) {
			if (l->steps[k].jump <= 0)
				continue;
			snprintf(steplab[nsl], sizeof steplab[0], "step %+.1f RTT", l->steps[k].jump_rtts);
			marks[nm++] = (pq_svg_mark){l->steps[k].x_after, steplab[nsl++]};
			up++;
		}
		nl++;
	}
	if (key) { /* the (first) key arms' line's handshake too */
		snprintf(keyname, sizeof keyname, "%.99s: handshake, measured median", arm[keyi]);
		s[ns++] = (pq_svg_series){keyname, key->x, key->hs, key->n, NULL, NULL, PQ_SVG_LINE, 2};
	}
	if (nl) {
		char id[48], cap[2000];
		pq_findings_size_fig_id(host, rtt, part, id, sizeof id);
		snprintf(cap, sizeof cap,
			 "%s: median time to first byte (handshake time where no response was asked) against "
			 "the chain's DER size at %g ms RTT (host %s%s), "
			 "with the flight model's prediction (round trips x RTT) and its cliffs marked. "
			 "Measured steps of at least half a round trip:%s",
			 arm[0], rt, a->hosts[host], part ? "; the panels at this RTT share their axes" : "", steps);
		pq_svg_chart c = {.id = id, .caption = cap, .x = {"chain size, DER (kB)", 0, 0, 0},
				  .y = {"time (ms)", 0, 0, 0}, .s = s, .ns = ns, .marks = marks, .nmarks = nm};
		size_axes(a, rtt, host, &c.x, &c.y);
		pq_svg_chart_write(p->o, &c);
		pq_html_fig_add(p, id);
	}
	return nl ? i : a->nlines;
}

/* TTLB slowdown (%) of each response-size arm against the first such arm on one link
 * (the agg's series; one chart per link, named by its profile and RTT). */
static void ttlb_chart(pq_html_page *p, size_t first)
{
	const pq_agg *a = p->a;
	const pq_agg_slow *f = &a->slow[first];
	for (size_t i = 0; i < first; i++)
		if (a->slow[i].host == f->host && strcmp(a->slow[i].first->cell->link_key, f->first->cell->link_key) == 0)
			return; /* drawn with an earlier series */
	pq_svg_series s[8];
	size_t ns = 0;
	for (size_t i = first; i < a->nslow && ns < 8; i++) {
		const pq_agg_slow *w = &a->slow[i];
		if (w->host != f->host || strcmp(w->first->cell->link_key, f->first->cell->link_key) != 0)
			continue;
		s[ns] = (pq_svg_series){a->arms[w->arm], w->kib, w->pct, w->n, w->lo, w->hi, PQ_SVG_LINE, (int)ns};
		ns++;
	}
	char id[48], cap[700];
	const char *prof = pq_agg_dim_text(f->first->cell, "profile");
	snprintf(id, sizeof id, "fig-ttlb-h%d-s%zu", f->host, first);
	snprintf(cap, sizeof cap,
		 "Time-to-last-byte slowdown against %s (median ratio - 1, %%) by response size%s%s, at %g ms RTT "
		 "(host %s); bands are bootstrap 95 %% intervals.",
		 a->arms[f->base], prof && *prof ? " on profile " : "", prof && *prof ? prof : "",
		 pq_agg_dim_num(f->first->cell, "rtt") / 1e3, a->hosts[f->host]);
	pq_svg_chart c = {.id = id, .caption = cap, .x = {"response size (KiB)", 0, 0, 1},
			  .y = {"TTLB slowdown (%)", 0, 0, 0}, .s = s, .ns = ns};
	pq_svg_panels_write(p->o, &c, 4, 1);
	pq_html_fig_add(p, id);
}

void pq_html_figures(pq_html_page *p)
{
	const pq_agg *a = p->a;
	pq_out_printf(p->o, "<h2 id=\"figures\">Figures</h2>");
	for (size_t h = 0; h < a->nhosts; h++)
		for (size_t r = 0; r < a->nrtts; r++) {
			size_t nl = 0;
			for (size_t i = 0; i < a->nlines; i++)
				nl += a->lines[i].rtt == (int)r && a->lines[i].host == (int)h;
			if (nl > 1) /* small multiples: a panel per line, on shared axes */
				pq_out_printf(p->o, "<div class=\"panels\">");
			for (size_t from = 0, part = 0; from < a->nlines; part++)
				from = size_chart(p, (int)r, (int)h, from, part);
			if (nl > 1)
				pq_out_printf(p->o, "</div>");
		}
	for (size_t h = 0; h < a->nhosts; h++)
		for (size_t r = 0; r < a->nrtts; r++)
			pq_charts_loss(p->o, a, (int)h, (int)r, &p->figs);
	for (size_t h = 0; h < a->nhosts; h++)
		pq_charts_rtt(p->o, a, (int)h, &p->figs);
	for (size_t h = 0; h < a->nhosts; h++)
		for (size_t r = 0; r < a->nrtts; r++)
			pq_charts_cdf(p->o, a, (int)h, (int)r, &p->figs);
	for (size_t i = 0; i < a->nslow; i++)
		ttlb_chart(p, i);
}
