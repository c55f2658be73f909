/* The page's sections on how the run went (report/html_int.h): per cell, what the link
 * itself did and how busy the host was, against their budgets; the run manifest and the
 * link self-checks as the database holds them. */
#include <math.h>
#include <string.h>

#include "core/units.h"
#include "exp/hostload.h"
#include "net/link.h"
#include "report/html_int.h"

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
void pq_html_fidelity(pq_html_page *p)
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
			 "the RTT, %.0f %% of the median connection's time and %.0f ms for a CPU inside the machine (%zu "
			 "cells); %zu on a link that missed its self-check. %zu of %zu cells are marked.",
		      f->host_over, f->host_known, PQ_HOSTLOAD_STEAL_BUDGET_PCT, 100 * PQ_HOSTLOAD_WAIT_BUDGET_RTT,
		      100 * PQ_HOSTLOAD_WAIT_BUDGET_CONN, PQ_HOSTLOAD_WAIT_FLOOR_US / 1e3, f->wait_over, f->check_missed, f->marked, p->db->ncells);
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

void pq_html_manifest(pq_html_page *p)
{
	static const char *const skip[] = {"run_id", NULL};
	pq_out *o = p->o;
	pq_out_printf(o, "<h2 id=\"manifest\">Run manifest</h2>");
	table_dump(o, &p->db->run, skip);
	pq_out_printf(o, "<h2 id=\"checks\">Link self-checks</h2>");
	if (!p->db->link_check.nrows)
		pq_out_printf(o, "<p>No link was checked (a remote server, or a sweep asked not to check its links).</p>");
	else
		table_dump(o, &p->db->link_check, skip);
}
