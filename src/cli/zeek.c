/* pqtls zeek: TLS 1.3 adoption and resumption by CDN / cloud / other from Zeek ssl.log
 * (src/zeek/). This file parses options and prints; the library does the work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "core/buf.h"
#include "core/proc.h"
#include "core/wfile.h"
#include "zeek/certs.h"
#include "zeek/partial.h"
#include "zeek/report.h"
#include "zeek/run.h"
#include "zeek/savings.h"
#include "zeek/study.h"

#ifndef PQTLS_DATA_DIR
#define PQTLS_DATA_DIR "data"
#endif
#define DEFAULT_RANGES PQTLS_DATA_DIR "/zeek/cdncheck-sources_data.json.gz"

/* Everything was read, but some input lines were skipped (counted in the report). */
#define EXIT_SKIPPED 3

struct zeek_opts {
	const char *ranges, *asn_db, *cdn_asns, *cloud_asns, *partial, *sweep, *x509, *files, *group;
	int by, json, csv, partials;
	long long threads, top;
	uint64_t chunk;
};

#define O(f) offsetof(struct zeek_opts, f)
#define OUT_OPTS                                                                                         \
	{"by", 0, PQ_OPT_CHOICE, O(by), NULL, "none", "add a trend of TLS 1.3 share and resumption",        \
	 "none|day|month", 0, 0},                                                                        \
	{"json", 0, PQ_OPT_FLAG, O(json), NULL, NULL, "print one JSON object", NULL, 0, 0},                \
	{"csv", 0, PQ_OPT_FLAG, O(csv), NULL, NULL,                                                      \
	 "print CSV: period,category,metric,k,n,rate,ci95_lo,ci95_hi", NULL, 0, 0},                      \
	{"top", 0, PQ_OPT_INT, O(top), "N", "10", "entries in each top list", NULL, 1, 100000}

#define CLASSIFY_OPTS                                                                                    \
	{"ranges", 0, PQ_OPT_STR, O(ranges), "FILE[,FILE]", "builtin",                                   \
	 "CDN/cloud address ranges: cdncheck's sources_data.json shape or 'CIDR cdn|cloud [NAME]' lines; " \
	 "cdn:FILE / cloud:FILE for bare CIDR lists; 'builtin' is the snapshot in data/zeek, 'none' disables", \
	 NULL, 0, 0},                                                                                    \
	{"asn-db", 0, PQ_OPT_STR, O(asn_db), "FILE", NULL,                                               \
	 "MaxMind DB with ASNs (GeoLite2-ASN or compatible): classify by ASN where no range decides", NULL, 0, 0}, \
	{"cdn-asns", 0, PQ_OPT_STR, O(cdn_asns), "LIST|@FILE", NULL,                                     \
	 "CDN ASNs replacing the built-in list (docs/zeek.md gives its sources)", NULL, 0, 0},            \
	{"cloud-asns", 0, PQ_OPT_STR, O(cloud_asns), "LIST|@FILE", NULL,                                 \
	 "cloud ASNs replacing the built-in list", NULL, 0, 0},                                          \
	{"threads", 't', PQ_OPT_INT, O(threads), "N", "0", "threads (0: one per CPU this process may use)", NULL, 0, 1024},   \
	{"chunk", 0, PQ_OPT_SIZE, O(chunk), NULL, "64MiB",                                               \
	 "piece of an uncompressed log each thread takes at a time", NULL, 0, 0}

static const pq_opt summary_table[] = {
	CLASSIFY_OPTS,
	{"partial", 0, PQ_OPT_STR, O(partial), "FILE", NULL,
	 "also write the exact counts to FILE for `pqtls zeek merge`", NULL, 0, 0},
	OUT_OPTS,
	{NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

static const pq_opt savings_table[] = {
	{"sweep", 0, PQ_OPT_STR, O(sweep), "RESULTS.db", NULL,
	 "the results database of a `pqtls sweep` with fresh and resumed arms (required)", NULL, 0, 0},
	{"partials", 0, PQ_OPT_FLAG, O(partials), NULL, NULL,
	 "the arguments are --partial files, not logs", NULL, 0, 0},
	CLASSIFY_OPTS,
	{"csv", 0, PQ_OPT_FLAG, O(csv), NULL, NULL,
	 "print CSV: chain,rtt_ms,ttfb_fresh_ms,ttfb_resumed_ms,category,resumption,saving_ms,...", NULL, 0, 0},
	{NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

static const pq_opt certs_table[] = {
	{"x509", 0, PQ_OPT_STR, O(x509), "FILE[,FILE]", NULL,
	 "x509.log (key and signature types; DER sizes too when it has the base64 cert column)", NULL, 0, 0},
	{"files", 0, PQ_OPT_STR, O(files), "FILE[,FILE]", NULL,
	 "files.log (DER sizes: seen_bytes of each certificate, by fuid or sha256)", NULL, 0, 0},
	{"group", 0, PQ_OPT_STR, O(group), "GROUP", "X25519MLKEM768",
	 "key-exchange group of the first flight the chains are weighed in", NULL, 0, 0},
	{"json", 0, PQ_OPT_FLAG, O(json), NULL, NULL, "print one JSON object", NULL, 0, 0},
	{"threads", 't', PQ_OPT_INT, O(threads), "N", "0", "threads (0: one per CPU this process may use)", NULL, 0, 1024},
	{"chunk", 0, PQ_OPT_SIZE, O(chunk), NULL, "64MiB",
	 "piece of an uncompressed log each thread takes at a time", NULL, 0, 0},
	{NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

static const pq_opt merge_table[] = {
	OUT_OPTS,
	{NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

static int print(const char *path, const struct zeek_opts *o, const pq_zeek_agg *a, const char *classification)
{
	pq_zeek_report_opts ro = {(int)o->top, o->by, classification};
	if (o->json) {
		cJSON *j = pq_zeek_report_json(a, &ro);
		char *s = j ? cJSON_Print(j) : NULL;
		cJSON_Delete(j);
		if (!s)
			return pq_cli_fail(path, "out of memory");
		puts(s);
		free(s);
	} else if (o->csv) {
		pq_zeek_report_csv(stdout, a, &ro);
	} else {
		pq_zeek_report_text(stdout, a, &ro);
	}
	pq_diag d;
	if (pq_wfile_stdout_check("the report", &d) < 0)
		return pq_cli_fail(path, "%s", pq_diag_msg(&d));
	uint64_t skipped = pq_zeek_report_skipped(a);
	if (skipped) {
		fprintf(stderr, "%s: %llu input lines skipped as malformed (reasons and first lines in the report)\n",
			path, (unsigned long long)skipped);
		return EXIT_SKIPPED;
	}
	return PQ_EXIT_OK;
}

static int load_ranges(pq_zeek_classifier *c, const char *spec, pq_buf *desc, pq_diag *d)
{
	char *copy = strdup(spec), *save = NULL;
	int rc = copy ? 0 : PQ_ENOMEM;
	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t && !rc; t = strtok_r(NULL, ",", &save)) {
		int cat = PQ_ZCAT_N;
		if (!strncmp(t, "cdn:", 4))
			cat = PQ_ZCAT_CDN, t += 4;
		else if (!strncmp(t, "cloud:", 6))
			cat = PQ_ZCAT_CLOUD, t += 6;
		const char *path = strcmp(t, "builtin") ? t : DEFAULT_RANGES;
		rc = pq_zeek_ranges_load(c, path, cat, d);
		if (!rc)
			rc = pq_buf_printf(desc, "%sranges %s", desc->len ? "; " : "", path);
	}
	if (!rc)
		rc = pq_buf_printf(desc, " (%zu prefixes)", c->lpm.prefixes);
	free(copy);
	return rc;
}

static int setup(const struct zeek_opts *o, pq_zeek_classifier *c, pq_buf *desc, pq_diag *d)
{
	int rc = pq_zeek_asns_default(c);
	if (!rc && strcmp(o->ranges, "none"))
		rc = load_ranges(c, o->ranges, desc, d);
	if (!rc && o->cdn_asns)
		rc = pq_zeek_asns_set(c, PQ_ZCAT_CDN, o->cdn_asns, "--cdn-asns", d);
	if (!rc && o->cloud_asns)
		rc = pq_zeek_asns_set(c, PQ_ZCAT_CLOUD, o->cloud_asns, "--cloud-asns", d);
	if (!rc && o->asn_db) {
		rc = pq_zeek_asn_open(c, o->asn_db, d);
		if (!rc)
			rc = pq_buf_printf(desc, "%sthen ASN from %s (%zu CDN ASNs%s, %zu cloud ASNs%s)",
					   desc->len ? "; " : "", o->asn_db, c->cdn.n, o->cdn_asns ? "" : " built-in",
					   c->cloud.n, o->cloud_asns ? "" : " built-in");
	}
	if (!rc && !desc->len)
		rc = pq_buf_printf(desc, "none (every server Unknown)");
	return rc;
}

/* Classifies and counts the logs named by args into agg; desc says how it classified. */
static int collect(const struct zeek_opts *o, const pq_cli_args *args, pq_zeek_classifier *c, pq_zeek_agg *agg,
		   pq_buf *desc, pq_diag *d)
{
	pq_zeek_files files = {0};
	int rc = setup(o, c, desc, d);
	for (int i = 0; !rc && i < args->argc; i++)
		rc = pq_zeek_files_add(&files, args->argv[i], d);
	if (!rc) {
		pq_zeek_run_cfg cfg = {o->threads ? (int)o->threads : (int)pq_proc_ncpu(),
				       (size_t)(o->chunk ? o->chunk : 1), c};
		rc = pq_zeek_run(&files, &cfg, agg, d);
	}
	pq_zeek_files_free(&files);
	return rc;
}

/* Loads each comma-separated x509/files log into db. */
static int load_certdb(pq_zeek_certdb *db, const char *list, pq_diag *d)
{
	char *copy = list ? strdup(list) : NULL, *save = NULL;
	int rc = list && !copy ? PQ_ENOMEM : 0;
	for (char *p = copy ? strtok_r(copy, ",", &save) : NULL; p && !rc; p = strtok_r(NULL, ",", &save))
		rc = pq_zeek_certdb_load(db, p, d);
	free(copy);
	return rc;
}

/* --chunk 0 would be one-byte pieces (every line split across threads): refused. */
static int bad_chunk(const char *path, const struct zeek_opts *o)
{
	return o->chunk ? 0
			: pq_cli_usage_error(path, "--chunk: 0 is not a piece of a log; give a size of at least 1 B "
						   "(default 64MiB)");
}

static int certs_run(const pq_cmd *cmd, void *opts, pq_cli_args *args)
{
	const char *path = "pqtls zeek certs";
	struct zeek_opts *o = opts;
	(void)cmd;
	if (!o->x509 && !o->files)
		return pq_cli_usage_error(path, "give --x509 FILE and/or --files FILE: the certificates' sizes and types");
	if (bad_chunk(path, o))
		return PQ_EXIT_USAGE;
	pq_zeek_certdb db;
	pq_zeek_files files = {0};
	pq_zeek_agg agg;
	pq_zeek_certstats st;
	pq_diag d = {0};
	int ex = PQ_EXIT_FAIL;
	pq_zeek_certdb_init(&db);
	pq_zeek_agg_init(&agg, NULL);
	int rc = load_certdb(&db, o->x509, &d);
	if (!rc)
		rc = load_certdb(&db, o->files, &d);
	for (int i = 0; !rc && i < args->argc; i++)
		rc = pq_zeek_files_add(&files, args->argv[i], &d);
	if (!rc) {
		pq_zeek_run_cfg cfg = {o->threads ? (int)o->threads : (int)pq_proc_ncpu(),
				       (size_t)(o->chunk ? o->chunk : 1), NULL, 1};
		rc = pq_zeek_run(&files, &cfg, &agg, &d);
	}
	if (!rc)
		rc = pq_zeek_certs_eval(&db, &agg.chains, o->group, &st, &d);
	if (rc) {
		if (rc == PQ_EINVAL && strstr(d.msg, "group '"))
			ex = pq_cli_usage_error(path, "--%s", pq_diag_msg(&d));
		else
			pq_cli_fail(path, "%s", pq_diag_msg(&d));
		goto out;
	}
	if (o->json) {
		cJSON *j = pq_zeek_certs_json(&st);
		char *txt = j ? cJSON_Print(j) : NULL;
		cJSON_Delete(j);
		if (txt)
			puts(txt);
		free(txt);
	} else {
		pq_zeek_certs_print(stdout, &st);
	}
	ex = fflush(stdout) ? pq_cli_fail(path, "writing the table failed") : PQ_EXIT_OK;
	uint64_t skipped = pq_zeek_report_skipped(&agg) + db.bad;
	if (ex == PQ_EXIT_OK && skipped) {
		fprintf(stderr, "%s: %llu input lines skipped as malformed\n", path, (unsigned long long)skipped);
		ex = EXIT_SKIPPED;
	}
out:
	pq_zeek_files_free(&files);
	pq_zeek_agg_dispose(&agg);
	pq_zeek_certdb_dispose(&db);
	return ex;
}

/* Adds partial files into agg; *classification is the first one's. */
static int read_partials(const char *path, const pq_cli_args *args, pq_zeek_agg *agg, char **classification,
			 pq_diag *d)
{
	int rc = 0;
	/* The same file twice (a glob and a name, or a link) would count its logs twice. */
	for (int i = 0; i < args->argc; i++) {
		struct stat a, b;
		for (int j = 0; j < i && stat(args->argv[i], &a) == 0; j++)
			if (stat(args->argv[j], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
				return pq_diag_set(d, PQ_EINVAL,
						   "%s: the same file as %s: each partial file may be given once (its "
						   "logs would be counted twice)",
						   args->argv[i], args->argv[j]);
	}
	for (int i = 0; !rc && i < args->argc; i++) {
		char *cl = NULL;
		rc = pq_zeek_partial_read(agg, args->argv[i], &cl, d);
		if (!rc && *classification && cl && strcmp(cl, *classification))
			fprintf(stderr, "%s: warning: %s was classified differently (%s) from the first file (%s)\n",
				path, args->argv[i], cl, *classification);
		if (!*classification)
			*classification = cl;
		else
			free(cl);
	}
	return rc;
}

/* What summary and savings hold while they read: the classifier, the counts, and a line
 * saying how servers were classified. */
typedef struct session {
	pq_zeek_classifier c;
	pq_zeek_agg agg;
	pq_buf desc;
} session;

static int session_init(session *z)
{
	pq_buf_init(&z->desc, 4096);
	pq_zeek_agg_init(&z->agg, &z->c);
	return pq_zeek_classifier_init(&z->c);
}

static void session_dispose(session *z)
{
	pq_zeek_agg_dispose(&z->agg);
	pq_zeek_classifier_dispose(&z->c);
	pq_buf_dispose(&z->desc);
}

static int summary_run(const pq_cmd *cmd, void *opts, pq_cli_args *args)
{
	const char *path = "pqtls zeek summary";
	struct zeek_opts *o = opts;
	(void)cmd;
	if (o->json && o->csv)
		return pq_cli_usage_error(path, "--json and --csv are exclusive: choose one");
	if (bad_chunk(path, o))
		return PQ_EXIT_USAGE;
	session z;
	pq_diag d = {0};
	int ex = PQ_EXIT_FAIL;
	int rc = session_init(&z);
	if (!rc)
		rc = collect(o, args, &z.c, &z.agg, &z.desc, &d);
	if (!rc && o->partial)
		rc = pq_zeek_partial_write(&z.agg, pq_buf_str(&z.desc), o->partial, &d);
	if (rc)
		pq_cli_fail(path, "%s", pq_diag_msg(&d));
	else
		ex = print(path, o, &z.agg, pq_buf_str(&z.desc));
	session_dispose(&z);
	return ex;
}

static int savings_run(const pq_cmd *cmd, void *opts, pq_cli_args *args)
{
	const char *path = "pqtls zeek savings";
	struct zeek_opts *o = opts;
	(void)cmd;
	if (!o->sweep)
		return pq_cli_usage_error(path, "--sweep RESULTS.db is required (a pqtls sweep results database)");
	if (bad_chunk(path, o))
		return PQ_EXIT_USAGE;
	session z;
	pq_zeek_savings sv = {0};
	pq_diag d = {0};
	char *classification = NULL;
	int ex = PQ_EXIT_FAIL;
	int rc = session_init(&z);
	if (!rc)
		rc = pq_zeek_savings_load(&sv, o->sweep, &d);
	if (!rc)
		rc = o->partials ? read_partials(path, args, &z.agg, &classification, &d)
				 : collect(o, args, &z.c, &z.agg, &z.desc, &d);
	if (rc) {
		pq_cli_fail(path, "%s", pq_diag_msg(&d));
		goto out;
	}
	if (!o->csv)
		printf("classification: %s\n", classification ? classification : pq_buf_str(&z.desc));
	pq_zeek_savings_print(stdout, &sv, &z.agg, o->csv);
	if (!o->csv) {
		pq_zeek_study st[PQ_ZEEK_STUDY_MAX];
		pq_zeek_study_print(stdout, st, pq_zeek_study_fig7(&sv, &z.agg, st, PQ_ZEEK_STUDY_MAX));
	}
	ex = fflush(stdout) ? pq_cli_fail(path, "writing the table failed") : PQ_EXIT_OK;
	if (ex == PQ_EXIT_OK && pq_zeek_report_skipped(&z.agg)) {
		fprintf(stderr, "%s: %llu input lines skipped as malformed (`zeek summary` lists them)\n", path,
			(unsigned long long)pq_zeek_report_skipped(&z.agg));
		ex = EXIT_SKIPPED;
	}
out:
	free(classification);
	pq_zeek_savings_free(&sv);
	session_dispose(&z);
	return ex;
}

static int merge_run(const pq_cmd *cmd, void *opts, pq_cli_args *args)
{
	const char *path = "pqtls zeek merge";
	struct zeek_opts *o = opts;
	(void)cmd;
	if (o->json && o->csv)
		return pq_cli_usage_error(path, "--json and --csv are exclusive: choose one");
	pq_zeek_agg agg;
	pq_zeek_agg_init(&agg, NULL);
	char *classification = NULL;
	pq_diag d = {0};
	int ex = PQ_EXIT_FAIL;
	int rc = read_partials(path, args, &agg, &classification, &d);
	if (rc)
		pq_cli_fail(path, "%s", pq_diag_msg(&d));
	else
		ex = print(path, o, &agg, classification);
	free(classification);
	pq_zeek_agg_dispose(&agg);
	return ex;
}

static const pq_cmd zeek_summary = {
	.name = "summary",
	.summary = "TLS versions, resumption by CDN/cloud/other with 95% CIs, groups, top names and ASNs",
	.usage = "[options] FILE|DIR ...",
	.description =
		"Reads Zeek ssl.log files, tab-separated (any Zeek version; columns from the #fields header) or\n"
		"JSON lines, plain or gzip; a directory stands for its ssl*.log[.gz] and *_ssl*.log[.gz]. Every core\n"
		"reads (across files, and within a large uncompressed file); memory grows with the number of\n"
		"distinct servers, server names and days, not with the number of rows.\n"
		"Malformed lines are skipped, counted by reason and listed with file and line.\n"
		"Exit status: 0 all read, 3 done but some lines skipped, 1 failure, 2 usage error.\n\n"
		"  pqtls zeek summary /var/log/zeek/2026-04-14/ --by day\n"
		"  pqtls zeek summary ssl.*.log.gz --asn-db GeoLite2-ASN.mmdb --json\n"
		"  parallel pqtls zeek summary {} --partial {}.part ::: *.log.gz; pqtls zeek merge *.part\n",
	.opts = summary_table,
	.opts_size = sizeof(struct zeek_opts),
	.run = summary_run,
	.min_args = 1,
	.max_args = -1,
};

static const pq_cmd zeek_merge = {
	.name = "merge",
	.summary = "add up --partial files exactly (as one run over all their inputs) and report",
	.usage = "[options] PARTIAL.json ...",
	.description = "PARTIAL.json files are written by 'pqtls zeek summary --partial FILE' (one per log, day or\n"
		       "machine); merging them gives exactly the report of one run over all their inputs.\n"
		       "Exit status: 0, or 3 when the runs that wrote the files skipped malformed lines.\n\n"
		       "  parallel pqtls zeek summary {} --partial {}.part ::: ssl.*.log.gz\n"
		       "  pqtls zeek merge ssl.*.log.gz.part --by month --json\n",
	.opts = merge_table,
	.opts_size = sizeof(struct zeek_opts),
	.run = merge_run,
	.min_args = 1,
	.max_args = -1,
};

static const pq_cmd zeek_savings = {
	.name = "savings",
	.summary = "expected TTFB saving per connection from resumption, per category (the paper's Figure 7)",
	.usage = "--sweep RESULTS.db [options] FILE|DIR ... (or --partials PARTIAL.json ...)",
	.description =
		"Combines each category's resumption rate (all TLS versions) from the logs with the median\n"
		"time to first byte a pqtls sweep measured fresh and resumed, per chain and RTT, without loss\n"
		"and without 0-RTT: saving = rate x (fresh - resumed), in ms and in % of the fresh TTFB,\n"
		"with the rate's 95% Wilson interval. Exit status as for summary.\n\n"
		"  pqtls zeek savings --sweep results.db /var/log/zeek/2026-04-14/\n"
		"  pqtls zeek savings --sweep results.db --partials parts/*.json --csv\n",
	.opts = savings_table,
	.opts_size = sizeof(struct zeek_opts),
	.run = savings_run,
	.min_args = 1,
	.max_args = -1,
};

static const pq_cmd zeek_certs = {
	.name = "certs",
	.summary = "server certificate chains from ssl.log + x509.log/files.log: would they fit IW10 with ML-DSA?",
	.usage = "--x509 FILE [--files FILE] [options] SSL_LOG|DIR ...",
	.description =
		"Joins the chains ssl.log names (cert_chain_fps or cert_chain_fuids) to each certificate's DER\n"
		"size (files.log seen_bytes, or x509.log's base64 cert column) and key and signature types\n"
		"(x509.log), and weighs the server's first flight with pqtls's own accounting: as logged, and\n"
		"with ML-DSA-44 or ML-DSA-65 keys and signatures in every certificate. Zeek sees no\n"
		"certificates in TLS 1.3, so the chains are those of TLS 1.2 and earlier connections.\n"
		"Exit status as for summary.\n\n"
		"  pqtls zeek certs --x509 x509.log --files files.log ssl.log\n",
	.opts = certs_table,
	.opts_size = sizeof(struct zeek_opts),
	.run = certs_run,
	.min_args = 1,
	.max_args = -1,
};

static const pq_cmd *const zeek_subs[] = {&zeek_summary, &zeek_merge, &zeek_savings, &zeek_certs, NULL};

const pq_cmd pq_cmd_zeek = {
	.name = "zeek",
	.summary = "TLS 1.3 adoption and resumption by CDN/cloud/other from Zeek ssl.log (summary, merge, savings, certs)",
	.usage = "SUBCOMMAND [options]",
	.subs = zeek_subs,
};
