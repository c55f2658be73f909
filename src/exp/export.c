#include "exp/export.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/wfile.h"
#include "exp/rdb.h"

static const char *const tables[] = {"run", "link_check", "cell", "conn", "cell_stats", "arm_stats", NULL};

static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* A write that failed (a full disk): -errno as the write left it, so the message can say
 * why; 0 while the stream is fine. The caller stops at once. */
static int write_failed(FILE *f)
{
	return ferror(f) ? -(errno ? errno : EIO) : 0;
}

static int write_csv(sqlite3 *db, const char *table, FILE *f, pq_diag *d)
{
	char sql[128];
	sqlite3_stmt *st = NULL;
	snprintf(sql, sizeof sql, "SELECT * FROM %s", table);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return pq_diag_set(d, PQ_EIO, "%s: %s", table, sqlite3_errmsg(db));
	int n = sqlite3_column_count(st), rc;
	for (int i = 0; i < n; i++) {
		fputs(i ? "," : "", f);
		csv_field(f, sqlite3_column_name(st, i));
	}
	fputc('\n', f);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < n; i++) {
			fputs(i ? "," : "", f);
			const unsigned char *v = sqlite3_column_text(st, i);
			if (v)
				csv_field(f, (const char *)v);
		}
		fputc('\n', f);
		int w = write_failed(f);
		if (w < 0) {
			sqlite3_finalize(st);
			return pq_diag_set(d, w, "%s: %s", table, strerror(-w));
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : pq_diag_set(d, PQ_EIO, "%s: %s", table, sqlite3_errmsg(db));
}

/* Runs write(db, f) into path, whole or not at all (core/wfile.h). */
static int to_file(const char *path, int (*fn)(sqlite3 *, const char *, FILE *, pq_diag *), sqlite3 *db,
		   const char *arg, pq_diag *d)
{
	pq_wfile w;
	int rc = pq_wfile_open(&w, path, NULL, d);
	if (rc < 0)
		return rc;
	if ((rc = fn(db, arg, w.f, d)) < 0) {
		/* a failed write names the file, not the table */
		if (ferror(w.f))
			rc = pq_diag_set(d, rc, "cannot write %s: %s", strcmp(path, "-") ? path : "standard output",
					 pq_strerror(rc));
		pq_wfile_abort(&w);
		return rc;
	}
	return pq_wfile_close(&w, d);
}

/* Every table or none: a failure (a full disk at the fourth table) removes the files this
 * export wrote, and the directory when it made it. */
int pq_exp_export_csv(const char *db_path, const char *dir, pq_diag *d)
{
	sqlite3 *db = NULL;
	int rc = pq_rdb_open_db(db_path, &db, d);
	int made = 0, done = 0;
	char path[600];
	if (rc < 0)
		return rc;
	struct stat st;
	if (mkdir(dir, 0755) == 0)
		made = 1;
	else if (errno != EEXIST) {
		rc = pq_diag_set(d, -errno, "%s: cannot create the directory: %s", dir, strerror(errno));
		goto out;
	}
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		rc = pq_diag_set(d, -ENOTDIR, "%s: exists and is not a directory; CSV export writes one file per table "
					      "into a directory (a new one, or an existing one)", dir);
		goto out;
	}
	for (; tables[done] && rc == 0; done += rc == 0) {
		snprintf(path, sizeof path, "%s/%s.csv", dir, tables[done]);
		rc = to_file(path, write_csv, db, tables[done], d);
	}
	for (int i = 0; rc < 0 && i < done; i++) {
		snprintf(path, sizeof path, "%s/%s.csv", dir, tables[i]);
		unlink(path);
	}
	if (rc < 0 && made)
		rmdir(dir);
out:
	sqlite3_close(db);
	return rc;
}

static int write_jsonl(sqlite3 *db, const char *unused, FILE *f, pq_diag *d)
{
	(void)unused;
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT * FROM conn_cell ORDER BY cell_key, host_name, conn_index", -1, &st,
			       NULL) != SQLITE_OK)
		return pq_diag_set(d, PQ_EIO, "conn_cell: %s", sqlite3_errmsg(db));
	int n = sqlite3_column_count(st), rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		cJSON *o = cJSON_CreateObject();
		if (!o) {
			rc = SQLITE_NOMEM;
			break;
		}
		for (int i = 0; i < n; i++) {
			const char *name = sqlite3_column_name(st, i);
			switch (sqlite3_column_type(st, i)) {
			case SQLITE_INTEGER:
			case SQLITE_FLOAT:
				cJSON_AddNumberToObject(o, name, sqlite3_column_double(st, i));
				break;
			case SQLITE_NULL:
				cJSON_AddNullToObject(o, name);
				break;
			default:
				cJSON_AddStringToObject(o, name, (const char *)sqlite3_column_text(st, i));
			}
		}
		char *line = cJSON_PrintUnformatted(o);
		if (line)
			fprintf(f, "%s\n", line);
		cJSON_free(line);
		cJSON_Delete(o);
		if (!line) {
			rc = SQLITE_NOMEM;
			break;
		}
		int w = write_failed(f);
		if (w < 0) {
			sqlite3_finalize(st);
			return pq_diag_set(d, w, "conn_cell: %s", strerror(-w));
		}
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_NOMEM)
		return pq_diag_set(d, PQ_ENOMEM, "conn_cell: out of memory writing JSON lines");
	return rc == SQLITE_DONE ? 0 : pq_diag_set(d, PQ_EIO, "conn_cell: %s", sqlite3_errmsg(db));
}

int pq_exp_export_jsonl(const char *db_path, const char *file, pq_diag *d)
{
	sqlite3 *db = NULL;
	int rc = pq_rdb_open_db(db_path, &db, d);
	if (rc < 0)
		return rc;
	rc = to_file(file, write_jsonl, db, NULL, d);
	sqlite3_close(db);
	return rc;
}
