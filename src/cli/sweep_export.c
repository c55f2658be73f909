/* pqtls sweep export: a results database as CSV files or JSON lines. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "exp/export.h"

struct export_opts {
	const char *csv, *jsonl;
};

#define O(f) offsetof(struct export_opts, f)
static const pq_opt export_table[] = {
	{"csv", 0, PQ_OPT_STR, O(csv), "DIR", NULL, "one CSV per table and view into DIR", NULL, 0, 0},
	{"jsonl", 0, PQ_OPT_STR, O(jsonl), "FILE", NULL,
	 "one JSON object per connection, with its cell (- = standard output)", NULL, 0, 0},
	{NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};
#undef O

static int export_run(const pq_cmd *cmd, void *optsp, pq_cli_args *a)
{
	(void)cmd;
	struct export_opts *o = optsp;
	const char *path = "pqtls sweep export";
	pq_diag d;
	if (!o->csv == !o->jsonl)
		return pq_cli_usage_error(path, "give one of --csv DIR or --jsonl FILE");
	/* SIGINT, SIGTERM or SIGHUP: the export stops at the next row and removes its
	 * temporary file (or staging directory); exit 128 + the signal. */
	pq_cli_catch_signals();
	const char *out = o->csv ? o->csv : o->jsonl;
	int rc = o->csv ? pq_exp_export_csv(a->argv[0], o->csv, &pq_cli_signal, &d)
			: pq_exp_export_jsonl(a->argv[0], o->jsonl, &pq_cli_signal, &d);
	if (rc < 0 && pq_cli_signal) {
		pq_cli_fail(path,
			    "%s: stopped; the export to %s was not made, and nothing of it is left",
			    strsignal(pq_cli_signal), out);
		return 128 + pq_cli_signal;
	}
	if (rc < 0)
		return pq_cli_fail(path, "%s", pq_diag_msg(&d));
	if (o->csv || strcmp(o->jsonl, "-") != 0)
		printf("%s -> %s\n", a->argv[0], out);
	return PQ_EXIT_OK;
}

const pq_cmd pq_cmd_sweep_export = {
	.name = "export",
	.summary = "write a results database as CSV files (--csv DIR) or JSON lines (--jsonl FILE)",
	.usage = "DB --csv DIR | --jsonl FILE",
	.description = "--csv writes run, cell, conn, link_check and the cell_stats and arm_stats views, one\n"
		       "FILE.csv each with a header line; --jsonl one line per connection with its cell's\n"
		       "parameters (docs/results.md). The output appears whole or not at all: the\n"
		       "file is written to a temporary name and renamed, the CSV set into a staging\n"
		       "directory moved into DIR at the end; a failure, SIGINT, SIGTERM or SIGHUP\n"
		       "removes them.\n"
		       "Examples:\n"
		       "  pqtls sweep export out/quick/results.db --csv quick-csv\n"
		       "  pqtls sweep export out/quick/results.db --jsonl quick.jsonl",
	.opts = export_table,
	.opts_size = sizeof(struct export_opts),
	.run = export_run,
	.min_args = 1,
	.max_args = 1,
};
