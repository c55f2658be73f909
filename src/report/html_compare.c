/* The page's section of two runs side by side (report/html_int.h, report/compare.h): the
 * grid points both hold, with each run's median and the bootstrap difference B - A, then
 * those only one of them holds. */
#include "report/html_int.h"
#include "report/keyhtml.h"

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

void pq_html_compare(pq_out *o, const pq_compare *c)
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
