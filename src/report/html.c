#include "report/html.h"
#include "report/cand.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "exp/hostload.h"
#include "net/link.h"
#include "report/charts.h"
#include "report/clients.h"
#include "report/keyhtml.h"
#include "report/studies.h"
#include "report/loss.h"
#include "report/svg.h"

#define MAX_PTS PQ_AGG_LINE_PTS

typedef struct page {
	pq_out *o;
	const pq_rdb *db;
	const pq_agg *a;
	uint64_t seed;
	pq_chart_ids figs;
} page;

static const char *CSS =
    "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0 auto;"
    "max-width:1200px;padding:0 12px;color:#111;background:#fff}"
    "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #bbb}"
    "h3{font-size:1.05em}"
    ".scroll{overflow-x:auto;max-width:100%}"
    "table{border-collapse:collapse;margin:.5em 0;font-variant-numeric:tabular-nums}"
    "th,td{border:1px solid #ccc;padding:3px 6px;text-align:right;vertical-align:top}"
    "th{background:#f2f2f2;cursor:pointer}td.l,th.l{text-align:left}"
    "td.na{color:#666;font-style:italic}td.bad{background:#fde8e8}"
    "td.l,th.l{overflow-wrap:anywhere}table.key td:first-child{min-width:7em}table.pivot td,td.d{white-space:nowrap}table.arms{font-size:.9em}"
    "@media (max-width:600px){body{font-size:14px}th,td{padding:2px 4px}table{font-size:13px}}"
    ".hosts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,1400px),1fr));gap:16px}"
    "figure.chart{margin:1em 0;max-width:760px}figure.chart>svg{width:100%;height:auto;display:block}ul.legend svg{flex:none}"
    ".panels{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,520px),1fr));gap:0 20px}"
    ".panels figure.chart{max-width:none;margin:.5em 0}"
    "figcaption{font-size:.9em;color:#333}"
    ".grid line{stroke:#e3e3e3;stroke-width:1}.frame{fill:none;stroke:#444}"
    ".xt,.xl{text-anchor:middle;font-size:12px}.yt{text-anchor:end;font-size:12px}"
    ".yl{text-anchor:middle;font-size:12px}.ml{font-size:11px;fill:#222;paint-order:stroke;stroke:#fff;stroke-width:3px}.ml.end{text-anchor:end}"
    ".mark{stroke:#333;stroke-width:1.2;stroke-dasharray:4 3;fill:none}"
    ".diag{stroke:#999;stroke-width:1;stroke-dasharray:3 3;fill:none}"
    ".band{opacity:.18}"
    "ul.legend{list-style:none;padding:0;margin:.3em 0;display:flex;flex-wrap:wrap;gap:4px 14px;font-size:.9em}"
    "ul.legend li{display:flex;align-items:center;gap:4px}"
    ".note{font-size:.9em;color:#333}"
    "ul.findings{padding-left:1.2em}ul.findings li{margin:.25em 0}tr:target{background:#fff3b0}"
    "@media print{.scroll{overflow:visible}figure.chart,table{break-inside:avoid}"
    "body{max-width:none}th{cursor:auto}}";

/* Click a header to sort its table by that column (numbers first by value). */
static const char *JS =
    "document.querySelectorAll('table.sort').forEach(function(t){"
    "t.querySelectorAll('th').forEach(function(h,i){h.addEventListener('click',function(){"
    "var b=t.tBodies[0],r=Array.prototype.slice.call(b.rows),up=h.dataset.up!=='1';"
    "h.dataset.up=up?'1':'0';r.sort(function(x,y){var a=x.cells[i].textContent,c=y.cells[i].textContent,"
    "p=parseFloat(a),q=parseFloat(c);var v=(isNaN(p)||isNaN(q))?a.localeCompare(c):p-q;return up?v:-v;});"
    "r.forEach(function(e){b.appendChild(e);});});});});";

/* The findings (report/findings.h), each with links to its evidence on this page; with a
 * second run, what the comparison found first (report/compare.h's summary). */
static void findings(pq_out *o, const pq_findings *f, const pq_compare *cmp)
{
	pq_out_printf(o, "<section id=\"findings\"><h2>Findings</h2><ul class=\"findings\">");
	if (cmp) {
		pq_out_printf(o, "<li>Beside B = <code>");
		pq_out_text(o, cmp->name_b);
		pq_out_printf(o, "</code>: ");
		pq_out_text(o, cmp->summary);
		pq_out_printf(o, ". <small>(<a href=\"#compare\">two runs side by side</a>)</small></li>");
	}
	for (size_t i = 0; i < f->n; i++) {
		pq_out_printf(o, "<li>");
		pq_out_text(o, f->f[i].text);
		pq_out_printf(o, ".");
		for (size_t k = 0; k < f->f[i].nlinks; k++) {
			pq_out_printf(o, "%s<a href=\"#", k ? ", " : " <small>(");
			pq_out_text(o, f->f[i].link[k].id);
			pq_out_printf(o, "\">");
			pq_out_text(o, f->f[i].link[k].label);
			pq_out_printf(o, "</a>%s", k + 1 == f->f[i].nlinks ? ")</small>" : "");
		}
		pq_out_printf(o, "</li>");
	}
	if (f->more)
		pq_out_printf(o, "<li>%zu more finding%s held; the tables below hold their evidence.</li>", f->more,
			      f->more == 1 ? "" : "s");
	if (!f->n)
		pq_out_printf(o, "<li>None: no difference here is both measurable and explained by round trips, and no "
				 "grid point has the flight model's prediction.</li>");
	pq_out_printf(o, "</ul><p class=\"note\">Generated from the analysis below, sentence by sentence; each is stated "
			 "only where its evidence says so (a bootstrap interval that excludes 0, and the flight model's "
			 "round trips) and links to it.</p></section>");
}

static void fig_add(page *p, const char *id)
{
	pq_chart_ids_add(&p->figs, id);
}

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

/* Time against chain size at one RTT: the agg's lines (measured medians and the model's
 * TTFB per arm that sweeps the size, or per family of key arms), the model's cliffs
 * marked, and the steps found in the measurement. Draws the lines of (rtt, host) from
 * a->lines[from] on, at most 4 to a chart (part `part`); returns the index to continue
 * from (a->nlines when all are drawn). */
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

static size_t size_chart(page *p, int rtt, int host, size_t from, size_t part)
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
		fig_add(p, id);
	}
	return nl ? i : a->nlines;
}

/* TTLB slowdown (%) of each response-size arm against the first such arm on one link
 * (the agg's series; one chart per link, named by its profile and RTT). */
static void ttlb_chart(page *p, size_t first)
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
	fig_add(p, id);
}

static void agreement(page *p)
{
	const pq_agg *a = p->a;
	double px[MAX_PTS], py[MAX_PTS], bx[MAX_PTS], by[MAX_PTS];
	char resp[48];
	size_t n = 0, nb = 0, total = 0, agree = 0;
	pq_out *o = p->o;
	pq_out_printf(o, "<h2 id=\"agreement\">The flight model against the measurement</h2>"
			 "<div class=\"scroll\"><table class=\"sort\"><thead><tr><th class=\"l\">host</th>"
			 "<th class=\"l\">arm</th><th>RTT ms</th><th>chain B</th><th>response B</th>"
			 "<th>handshake predicted / measured</th><th>TTFB predicted / measured</th>"
			 "<th class=\"l\">agrees</th></tr></thead><tbody>");
	for (size_t i = 0; i < a->n; i++) {
		const pq_agg_group *g = &a->g[i];
		int ph = isfinite(g->rounds[PQ_AGG_TTFB]) ? PQ_AGG_TTFB : PQ_AGG_HS;
		double pred = ph == PQ_AGG_TTFB ? g->model.ttfb_t : g->model.handshake_t;
		if (!g->has_model || !isfinite(g->rounds[ph]))
			continue;
		total++;
		agree += (size_t)g->agrees;
		double *X = g->agrees ? px : bx, *Y = g->agrees ? py : by;
		size_t *k = g->agrees ? &n : &nb;
		if (*k < MAX_PTS) {
			X[*k] = pred + 0.04 * (double)(g->arm % 5) - 0.08; /* spread equal points */
			Y[(*k)++] = g->rounds[ph];
		}
		pq_out_printf(o, "<tr><td class=\"l\">");
		pq_out_text(o, a->hosts[g->host]);
		pq_out_printf(o, "</td><td class=\"l\">");
		pq_out_text(o, a->arms[g->arm]);
		pq_agg_response_show(g->cell, resp, sizeof resp);
		pq_out_printf(o, "</td><td>%g</td><td>%lld</td><td%s>%s</td><td>%.2f / %.2f</td>",
			      (double)g->cell->rtt_us / 1e3, g->cell->chain_der_bytes, g->cell->response_bytes < 0 ? " class=\"na\"" : "",
			      resp, g->model.handshake_t, g->rounds[PQ_AGG_HS]);
		if (ph == PQ_AGG_TTFB)
			pq_out_printf(o, "<td>%.2f / %.2f</td>", g->model.ttfb_t, g->rounds[PQ_AGG_TTFB]);
		else
			pq_out_printf(o, "<td class=\"na\">no response asked</td>");
		pq_out_printf(o, "<td class=\"l%s\">", g->agrees ? "" : " bad");
		pq_out_text(o, g->agrees ? "yes" : g->agree_why);
		pq_out_printf(o, "</td></tr>");
	}
	pq_out_printf(o, "</tbody></table></div><p>%zu of %zu cells agree (measured median over min RTT within "
			 "%.2f RTT of the prediction, paced where the server's congestion control paces, in every "
			 "phase); each other cell names its reason.</p>",
		      agree, total, PQ_MODEL_AGREE_RTT);
	if (!total)
		return;
	pq_svg_series s[2] = {{"agrees", px, py, n, NULL, NULL, PQ_SVG_POINTS, 2},
			      {"differs (reason in the table)", bx, by, nb, NULL, NULL, PQ_SVG_POINTS, 1}};
	pq_svg_chart c = {.id = "fig-agreement",
			  .caption = "Measured TTFB in round trips (median over min RTT; the handshake where no "
				     "response was asked) against the flight model's prediction, one point per "
				     "cell; the dashed line is agreement.",
			  .x = {"predicted TTFB (round trips)", 0, 0, 0},
			  .y = {"measured TTFB (round trips)", 0, 0, 0},
			  .s = s,
			  .ns = 2,
			  .diagonal = 1};
	pq_svg_chart_write(o, &c);
	fig_add(p, "fig-agreement");
}

/* Two runs side by side (report/compare.h): the points both hold with each run's median
 * and the bootstrap difference B - A, then those only one of them holds. */
static void compare_rows(pq_out *o, const pq_compare *c, size_t from, size_t to, int hosts)
{
	int both = from < c->shared;
	pq_out_printf(o, "<div class=\"scroll\"><table class=\"sort\"><thead><tr><th class=\"l\">grid point</th>%s"
			 "<th class=\"l\">phase</th>%s</tr></thead><tbody>", hosts ? "<th class=\"l\">host</th>" : "",
		      both ? "<th>A ms, median [95 % CI]</th><th>B ms, median [95 % CI]</th><th class=\"l\">B minus A "
			     "(bootstrap 95 % CI)</th>" : "<th>ms, median [95 % CI]</th><th>n (failed)</th>");
	for (size_t i = from; i < to; i++) {
		const pq_compare_point *p = &c->p[i];
		const pq_agg *a = pq_compare_agg_of(c, p);
		const pq_agg_group *g = pq_compare_group_of(p);
		char label[400], buf[160];
		pq_compare_label(c, p, label, sizeof label);
		pq_out_printf(o, "<tr><td class=\"l\">");
		pq_out_text(o, label);
		if (hosts) {
			pq_out_printf(o, "</td><td class=\"l\">");
			pq_out_text(o, a->hosts[g->host]);
		}
		pq_out_printf(o, "</td><td class=\"l\">%s</td>", pq_agg_phase_name[p->phase]);
		pq_keyhtml_ms_ci(o, &g->desc[p->phase]);
		if (!both) {
			pq_out_printf(o, "<td>%zu (%zu)</td></tr>", g->n[PQ_AGG_HS], g->failed);
			continue;
		}
		pq_keyhtml_ms_ci(o, &p->gb->desc[p->phase]);
		if (p->has_diff) {
			pq_compare_verdict(p, buf, sizeof buf);
			pq_out_printf(o, "<td class=\"l%s\">", p->measurable ? " bad" : "");
			pq_out_text(o, buf);
			pq_out_printf(o, "</td></tr>");
		} else {
			pq_out_printf(o, "<td class=\"na\">too few values</td></tr>");
		}
	}
	pq_out_printf(o, "</tbody></table></div>");
}

static void compare_section(pq_out *o, const pq_compare *c)
{
	int hosts = c->a->nhosts > 1 || c->b->nhosts > 1;
	pq_out_printf(o, "<h2 id=\"compare\">Two runs side by side</h2><p>A = <code>");
	pq_out_text(o, c->name_a);
	pq_out_printf(o, "</code> (this page's run), B = <code>");
	pq_out_text(o, c->name_b);
	pq_out_printf(o, "</code>. ");
	pq_out_text(o, c->grid);
	pq_out_printf(o, ". ");
	pq_out_text(o, c->summary);
	pq_out_printf(o, ".</p><p class=\"note\">Grid points are matched by host and point_key (on every other dimension where one is set "
			 "aside); each run's median with its "
			 "95 %% interval (order statistics) in %s, or the handshake where either asked no response, and "
			 "the difference of the medians, B minus A, by bootstrap (" PQ_AGG_BOOT_REPS_WORDS " resamples of each run, seed %llu). "
			 "A difference is measurable, and marked, when its interval excludes 0 and its near end is "
			 "beyond what the endpoints of either run waited for a CPU in a median connection: two runs are "
			 "measured at different moments, and each host can move its own medians by its waits.</p>"
			 "<h3>In both (%zu)</h3>",
		      c->what, (unsigned long long)c->a->seed, c->shared);
	if (c->shared)
		compare_rows(o, c, 0, c->shared, hosts);
	pq_out_printf(o, "<h3>Only in A (%zu)</h3>", c->only_a);
	if (c->only_a)
		compare_rows(o, c, c->shared, c->shared + c->only_a, hosts);
	pq_out_printf(o, "<h3>Only in B (%zu)</h3>", c->only_b);
	if (c->only_b)
		compare_rows(o, c, c->shared + c->only_a, c->n, hosts);
}

/* One number, or words where it was not measured. */
static void num_or_na(pq_out *o, double v, int decimals)
{
	if (isfinite(v)) {
		pq_out_printf(o, "<td>%.*f</td>", decimals, v);
	} else {
		pq_out_printf(o, "<td class=\"na\">not measured</td>");
	}
}

/* Several numbers in one cell, "a / b / c", each in words where it was not measured. */
static void nums_or_na(pq_out *o, const double *v, size_t n, int decimals)
{
	size_t known = 0;
	for (size_t i = 0; i < n; i++)
		known += isfinite(v[i]) != 0;
	if (!known) {
		pq_out_printf(o, "<td class=\"na\">not measured</td>");
		return;
	}
	pq_out_printf(o, "<td>");
	for (size_t i = 0; i < n; i++) {
		if (isfinite(v[i]))
			pq_out_printf(o, "%s%.*f", i ? " / " : "", decimals, v[i]);
		else
			pq_out_printf(o, "%s<small>not measured</small>", i ? " / " : "");
	}
	pq_out_printf(o, "</td>");
}

static const char *verdict(int ok)
{
	return ok > 0 ? "ok" : ok == 0 ? "over" : "not known";
}

/* Per cell: what the link itself did (the forwarder's release lateness and drops) and how
 * busy the host was; cells over a budget are marked. */
static void fidelity(page *p)
{
	const struct pq_agg_fid *f = &p->a->fid;
	pq_out *o = p->o;
	char budget[32];
	pq_fmt_duration(budget, sizeof budget, PQ_LINK_LATE_BUDGET_NS);
	pq_out_printf(o, "<h2 id=\"fidelity\">Link and host fidelity per cell</h2><p>");
	if (f->link_known)
		pq_out_printf(o, "%zu of %zu cells with the link's own accounting were over its budget (release "
				 "lateness p99 over %s, or an unplanned drop); ",
			      f->link_over, f->link_known, budget);
	else
		pq_out_printf(o, "No cell has the link's own accounting (netem, a remote server, or a database "
				 "from before it was kept); ");
	pq_out_printf(o, "%zu of %zu were over the host's budget: the hypervisor took more than %.0f %% of the host's "
			 "CPU time, or the client's and the server's median connections waited, together, more than %.0f %% of "
			 "the RTT (and %.0f ms) for a CPU inside the machine (%zu cells); %zu on a link that missed its "
			 "self-check. %zu of %zu cells are marked.",
		      f->host_over, f->host_known, PQ_HOSTLOAD_STEAL_BUDGET_PCT, 100 * PQ_HOSTLOAD_WAIT_BUDGET_RTT,
		      PQ_HOSTLOAD_WAIT_FLOOR_US / 1e3, f->wait_over, f->check_missed, f->marked, p->db->ncells);
	if (isfinite(f->late_p99_max_us))
		pq_out_printf(o, " The worst cell's release lateness p99 was %.2f ms", f->late_p99_max_us / 1e3);
	if (isfinite(f->steal_max_pct))
		pq_out_printf(o, "%s the most steal in a cell %.1f %%", isfinite(f->late_p99_max_us) ? ";" : " The",
			      f->steal_max_pct);
	if (isfinite(f->wait_max_us))
		pq_out_printf(o, "%s the endpoints' longest median wait for a CPU %.2f ms",
			      isfinite(f->late_p99_max_us) || isfinite(f->steal_max_pct) ? ";" : " The", f->wait_max_us / 1e3);
	pq_out_printf(o, "%s A release late by much more than the forwarder's own wait for a CPU in the "
			 "machine waited for a vCPU the hypervisor was not running.</p><div class=\"scroll\"><table class=\"sort\"><thead><tr><th class=\"l\">host</th>"
			 "<th class=\"l\">arm</th><th>trial</th><th>RTT ms</th><th>release lateness us p50 / p99 / max</th>"
			 "<th>releases</th><th>drops: loss / queue / unplanned</th><th>forwarder's wait for a CPU us</th>"
			 "<th>steal %%</th><th>client's / server's wait p50 us</th><th>nice / session group</th>"
			 "<th class=\"l\">link / host / self-check</th></tr></thead><tbody>",
		      isfinite(f->late_p99_max_us) || isfinite(f->steal_max_pct) || isfinite(f->wait_max_us) ? "." : "");
	for (size_t i = 0; i < p->db->ncells; i++) {
		const pq_rdb_cell *c = &p->db->cells[i];
		const pq_rdb_fidelity *x = &c->fid;
		pq_out_printf(o, "<tr><td class=\"l\">");
		pq_out_text(o, c->host);
		pq_out_printf(o, "</td><td class=\"l\">");
		pq_out_text(o, c->arm);
		pq_out_printf(o, "</td><td>%d</td><td>%g</td>", c->trial, (double)c->rtt_us / 1e3);
		const double late[] = {x->late_p50_us, x->late_p99_us, x->late_max_us};
		const double drops[] = {x->drop_loss < 0 ? NAN : (double)x->drop_loss,
					x->drop_queue < 0 ? NAN : (double)x->drop_queue,
					x->drop_unplanned < 0 ? NAN : (double)x->drop_unplanned};
		const double waits[] = {x->client_wait_p50_us, x->server_wait_p50_us};
		nums_or_na(o, late, 3, 1);
		num_or_na(o, x->releases < 0 ? NAN : (double)x->releases, 0);
		nums_or_na(o, drops, 3, 0);
		num_or_na(o, x->fwd_wait_us, 1);
		num_or_na(o, x->steal_pct, 1);
		nums_or_na(o, waits, 2, 0);
		if (x->nice == PQ_RDB_NICE_NONE)
			pq_out_printf(o, "<td class=\"na\">not known</td>");
		else if (x->group_nice == PQ_RDB_NICE_NONE)
			pq_out_printf(o, "<td>%d</td>", x->nice);
		else
			pq_out_printf(o, "<td>%d / %d</td>", x->nice, x->group_nice);
		pq_out_printf(o, "<td class=\"l%s\">%s / %s / %s</td></tr>",
			      x->link_ok == 0 || x->host_ok == 0 || x->check_ok == 0 ? " bad" : "", verdict(x->link_ok),
			      verdict(x->host_ok), x->check_ok == 0 ? "missed" : verdict(x->check_ok));
	}
	pq_out_printf(o, "</tbody></table></div>");
}

#define DUMP_RECORDS 4 /* records side by side in one table: more would not fit the width */

/* A table's rows as columns (a field per row), DUMP_RECORDS records to a table. */
static void table_dump(pq_out *o, const pq_rdb_table *t, const char *const *skip)
{
	for (size_t from = 0; from < t->nrows || (!from && !t->nrows); from += DUMP_RECORDS) {
		size_t to = from + DUMP_RECORDS < t->nrows ? from + DUMP_RECORDS : t->nrows;
		pq_out_printf(o, "<div class=\"scroll\"><table class=\"dump\"><tbody>");
		for (size_t c = 0; c < t->ncols; c++) {
			int skipped = 0;
			for (size_t k = 0; skip && skip[k]; k++)
				skipped |= strcmp(skip[k], t->cols[c]) == 0;
			if (skipped)
				continue;
			pq_out_printf(o, "<tr><th class=\"l\">");
			pq_out_text(o, t->cols[c]);
			pq_out_printf(o, "</th>");
			for (size_t r = from; r < to; r++) {
				const char *v = t->vals[r * t->ncols + c];
				pq_out_printf(o, "<td class=\"l%s\">", v ? "" : " na");
				pq_out_text(o, v ? v : "NULL");
				pq_out_printf(o, "</td>");
			}
			pq_out_printf(o, "</tr>");
		}
		pq_out_printf(o, "</tbody></table></div>");
		if (!t->nrows)
			break;
	}
}

static void manifest(page *p)
{
	static const char *const skip[] = {"run_id", NULL};
	pq_out *o = p->o;
	pq_out_printf(o, "<h2 id=\"manifest\">Run manifest</h2>");
	table_dump(o, &p->db->run, skip);
	pq_out_printf(o, "<h2 id=\"checks\">Link self-checks</h2>");
	if (!p->db->link_check.nrows)
		pq_out_printf(o, "<p>No link was checked (a remote server, or --no-check).</p>");
	else
		table_dump(o, &p->db->link_check, skip);
}

static void figures(page *p)
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

void pq_report_html(pq_out *o, const pq_rdb *db, const pq_agg *a, const char *source, const pq_compare *cmp)
{
	pq_out body;
	page *p = calloc(1, sizeof *p);
	if (!p) {
		o->err = PQ_ENOMEM;
		return;
	}
	pq_out_init(&body, o->b.cap);
	*p = (page){.o = &body, .db = db, .a = a, .seed = a->seed};
	if (cmp)
		compare_section(&body, cmp);
	pq_keyhtml_section(&body, a);
	pq_clients_html(&body, a);
	pq_cand_html(&body, a);
	pq_report_studies(&body, a);
	pq_report_loss(&body, a);
	figures(p);
	agreement(p);
	fidelity(p);
	manifest(p);
	pq_out_printf(o, "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
			 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
			 "<meta name=\"pqtls-figures\" content=\"");
	for (size_t i = 0; i < p->figs.n; i++)
		pq_out_printf(o, "%s%s", i ? " " : "", p->figs.id[i]);
	pq_out_printf(o, "\"><title>pqtls report: ");
	pq_out_text(o, db->spec_name[0] ? db->spec_name : source);
	pq_out_printf(o, "</title><style>%s</style></head><body><h1>pqtls report: ", CSS);
	pq_out_text(o, db->spec_name[0] ? db->spec_name : "results");
	pq_out_printf(o, "</h1>");
	findings(o, &a->findings, cmp);
	pq_out_printf(o, "<p class=\"note\">From <code>");
	pq_out_text(o, source);
	pq_out_printf(o, "</code>: %zu cells, %zu connections, %zu host%s. ", db->ncells, db->nconns, a->nhosts,
		      a->nhosts == 1 ? "" : "s");
	if (cmp) {
		pq_out_printf(o, "Beside <code>");
		pq_out_text(o, cmp->name_b);
		pq_out_printf(o, "</code>: <a href=\"#compare\">two runs side by side</a>. ");
	}
	pq_out_printf(o, "Times in milliseconds. "
			 "Sections: <a href=\"#findings\">findings</a>, <a href=\"#key\">key table</a>, %s%s<a href=\"#studies\">the studies</a>, "
			 "<a href=\"#figures\">figures</a>, <a href=\"#agreement\">model agreement</a>, "
			 "<a href=\"#fidelity\">link and host fidelity</a>, "
			 "<a href=\"#manifest\">manifest</a>, <a href=\"#checks\">link checks</a>.</p>",
		      a->npairs ? "<a href=\"#clients\">pqtls's client beside Chromium</a>, " : "",
		      a->ncands ? "<a href=\"#candidates\">each candidate</a>, " : "");
	if (body.err)
		o->err = body.err;
	else if (pq_buf_append(&o->b, body.b.p, body.b.len) < 0)
		o->err = PQ_ETOOBIG;
	pq_out_printf(o, "<script>%s</script></body></html>\n", JS);
	pq_out_dispose(&body);
	free(p);
}
