/* The report page (report/html.h): its head (style, the figures' ids), the findings it
 * opens with, the sections in their order and the script that sorts tables; each section
 * is written by its own file (html_int.h). */
#include "report/html.h"
#include "report/cand.h"

#include <stdio.h>
#include <stdlib.h>

#include "report/clients.h"
#include "report/html_int.h"
#include "report/keyhtml.h"
#include "report/loss.h"
#include "report/studies.h"

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
    "td.l,th.l{overflow-wrap:anywhere}table.key td:first-child{min-width:7em}table.pivot td,td.d,th.d{white-space:nowrap}table.arms{font-size:.9em}"
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

void pq_html_fig_add(pq_html_page *p, const char *id)
{
	pq_chart_ids_add(&p->figs, id);
}

void pq_report_html(pq_out *o, const pq_rdb *db, const pq_agg *a, const char *source, const pq_compare *cmp)
{
	pq_out body;
	pq_html_page *p = calloc(1, sizeof *p);
	if (!p) {
		o->err = PQ_ENOMEM;
		return;
	}
	pq_out_init(&body, o->b.cap);
	*p = (pq_html_page){.o = &body, .db = db, .a = a, .seed = a->seed};
	if (cmp)
		pq_html_compare(&body, cmp);
	pq_keyhtml_section(&body, a);
	pq_clients_html(&body, a);
	pq_cand_html(&body, a);
	pq_report_studies(&body, a);
	pq_report_loss(&body, a);
	pq_html_figures(p);
	pq_html_agreement(p);
	pq_html_fidelity(p);
	pq_html_manifest(p);
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
