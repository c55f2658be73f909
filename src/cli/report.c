/* pqtls report: the HTML report, the key tables and the CSV behind the figures, from a
 * results database (src/report/). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "report/agg.h"
#include "report/compare.h"
#include "report/html.h"
#include "exp/rdb.h"
#include "report/tables.h"

#define PATH "pqtls report"
/* A report of a large sweep is a few MB; refuse to build one past this. */
#define MAX_PAGE (256u << 20)

struct report_opts {
	const char *out, *csv;
	int md, quiet, clean_only;
	long long seed;
};

#define O(f) offsetof(struct report_opts, f)
static const pq_opt report_opts_table[] = {
    {"out", 'o', PQ_OPT_STR, O(out), "FILE", NULL,
     "the HTML report (default: report.html beside the database; compare.html beside the first of two)", NULL, 0,
     0},
    {"md", 0, PQ_OPT_FLAG, O(md), NULL, NULL, "print the key tables and the studies as Markdown instead of text",
     NULL, 0, 0},
    {"csv", 0, PQ_OPT_STR, O(csv), "DIR", NULL,
     "also write the tables behind each figure as CSV files into DIR (made if absent)", NULL, 0, 0},
    {"seed", 0, PQ_OPT_INT, O(seed), "N", "1", "seed of every bootstrap (the same seed, the same report)",
     NULL, 0, 4294967295.0},
    {"quiet", 'q', PQ_OPT_FLAG, O(quiet), NULL, NULL, "print no table, only write the files", NULL,
     0, 0},
    {"clean-only", 0, PQ_OPT_FLAG, O(clean_only), NULL, NULL,
     "leave out cells measured on a link or host over its fidelity budget, or on a link that missed its "
     "self-check (the page says how many): every table, figure and verdict from clean cells only", NULL, 0, 0},
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};
#undef O

/* NAME beside the database (report.html; compare.html for two runs). */
static void default_out(const char *db, const char *name, char *buf, size_t n)
{
	const char *slash = strrchr(db, '/');
	if (slash)
		snprintf(buf, n, "%.*s/%s", (int)(slash - db), db, name);
	else
		snprintf(buf, n, "%s", name);
}

/* One database opened, cleaned with --clean-only and analysed; what the reader found
 * missing is said before any figure. */
static int load(const struct report_opts *o, const char *path, pq_rdb *db, pq_agg *a)
{
	pq_diag d = {0};
	if (pq_rdb_open(path, db, &d) < 0)
		return pq_cli_fail(PATH, "%s", pq_diag_msg(&d));
	if (o->clean_only && pq_agg_keep_clean(db, path, "--clean-only", &d) < 0) {
		pq_rdb_close(db);
		return pq_cli_fail(PATH, "%s", pq_diag_msg(&d));
	}
	if (db->note[0])
		fprintf(stderr, "%s: note: %s\n", PATH, db->note);
	if (pq_agg_build(db, (uint64_t)o->seed, a, &d) < 0) {
		pq_rdb_close(db);
		return pq_cli_fail(PATH, "%s", pq_diag_msg(&d));
	}
	return PQ_EXIT_OK;
}

static int same_file(const char *x, const char *y)
{
	struct stat a, b;
	return stat(x, &a) == 0 && stat(y, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int report_run(const pq_cmd *cmd, void *optsp, pq_cli_args *args)
{
	(void)cmd;
	struct report_opts *o = optsp;
	const char *dbpath = args->argv[0], *other = args->argc > 1 ? args->argv[1] : NULL;
	char outpath[4096];
	pq_diag d = {0};
	pq_rdb db, db2;
	pq_agg a, a2;
	pq_compare cmp;
	pq_out page, text;
	int ex;
	if (other && same_file(dbpath, other))
		return pq_cli_usage_error(PATH, "%s and %s are the same file: give two results databases to set side by "
					  "side (two runs of a grid, or of two grids), or one for its report", dbpath, other);
	if ((ex = load(o, dbpath, &db, &a)) != PQ_EXIT_OK)
		return ex;
	if (other && (ex = load(o, other, &db2, &a2)) != PQ_EXIT_OK) {
		pq_agg_free(&a);
		pq_rdb_close(&db);
		return ex;
	}
	if (other && pq_compare_build(&db, &a, dbpath, &db2, &a2, other, &cmp, &d) < 0) {
		ex = pq_cli_fail(PATH, "%s", pq_diag_msg(&d));
		pq_agg_free(&a2);
		pq_rdb_close(&db2);
		pq_agg_free(&a);
		pq_rdb_close(&db);
		return ex;
	}
	default_out(dbpath, other ? "compare.html" : "report.html", outpath, sizeof outpath);
	if (o->out)
		snprintf(outpath, sizeof outpath, "%s", o->out);
	pq_out_init(&page, MAX_PAGE);
	pq_out_init(&text, MAX_PAGE);
	pq_report_html(&page, &db, &a, dbpath, other ? &cmp : NULL);
	if (pq_out_save(&page, outpath, &d) < 0) {
		ex = pq_cli_fail(PATH, "%s", pq_diag_msg(&d));
		goto out;
	}
	if (o->csv && ((mkdir(o->csv, 0777) != 0 && errno != EEXIST) || pq_report_csv(&a, o->csv, &d) < 0 ||
		       (other && pq_report_compare_csv(&cmp, o->csv, &d) < 0))) {
		ex = pq_cli_fail(PATH, "%s", d.msg[0] ? d.msg : "cannot make the --csv directory");
		goto out;
	}
	if (!o->quiet) {
		if (other)
			pq_report_compare_text(&text, &cmp, o->md);
		else
			pq_report_key_text(&text, &a, o->md);
		fwrite(text.b.p ? text.b.p : "", 1, text.b.len, stdout);
		fflush(stdout); /* the table before the note, also when both go to one file */
		fprintf(stderr, "%s: wrote %s\n", PATH, outpath);
	}
out:
	pq_out_dispose(&page);
	pq_out_dispose(&text);
	if (other) {
		pq_compare_free(&cmp);
		pq_agg_free(&a2);
		pq_rdb_close(&db2);
	}
	pq_agg_free(&a);
	pq_rdb_close(&db);
	return ex;
}

const pq_cmd pq_cmd_report = {
    .name = "report",
    .summary = "write the HTML report, key tables and CSV from a results database",
    .usage = "[options] RESULTS.db [OTHER.db]",
    .description =
	"Reads a results database (pqtls sweep --out, or pqtls merge) and writes one\n"
	"self-contained HTML page. It opens, as the terminal does, with findings generated\n"
	"from the analysis, each linked to its evidence. The key table has one row per grid\n"
	"point (trials pooled) and a column for every dimension whose stored value varies\n"
	"(the rest are listed once, with their values): 95 % intervals, the difference\n"
	"against the first arm (seeded bootstrap), the flight model beside the measurement.\n"
	"Then the studies (../shared/seeds) beside this database's cells, found by what the\n"
	"cells hold, each with its published figure, this database's with its interval and a\n"
	"verdict; figures chosen from what varies (TTFB against chain size per RTT with the\n"
	"steps, TTLB slowdown per link profile, handshake percentiles against loss, TTFB\n"
	"against RTT, a CDF per grid point); the run manifest and each link's self-check.\n"
	"Several hosts are shown side by side. The key table and the studies also go to the\n"
	"terminal (or as Markdown with --md); names from the database are shown escaped,\n"
	"never cut. Medians and percentiles are the SQL views' (cell_stats, arm_stats) to the\n"
	"last digit.\n\n\n\n"
	"Two databases (A, then B) are set side by side: the grid points both hold (by host\n"
	"and point_key), each with both medians and intervals and the bootstrap difference\n"
	"B - A, and the points only one holds, on the terminal (--md), in a section of A's\n"
	"page (default compare.html beside A) and in compare.csv; databases of two grids are\n"
	"compared where their points meet, and the header says so.\n\n"
	"Examples:\n"
	"  pqtls report out/quick/results.db\n"
	"  pqtls report all.db -o all.html --md --csv all-csv\n"
	"  pqtls report monday.db tuesday.db --csv cmp\n",
    .opts = report_opts_table,
    .opts_size = sizeof(struct report_opts),
    .run = report_run,
    .min_args = 1,
    .max_args = 2,
};
