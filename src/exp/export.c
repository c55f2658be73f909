#include "exp/export.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : pq_diag_set(d, PQ_EIO, "%s: %s", table, sqlite3_errmsg(db));
}

/* Runs write(db, f) into path through path.tmp. */
static int to_file(const char *path, int (*fn)(sqlite3 *, const char *, FILE *, pq_diag *), sqlite3 *db,
		   const char *arg, pq_diag *d)
{
	char tmp[600];
	if (strcmp(path, "-") == 0) { /* standard output: nothing to rename */
		int rc = fn(db, arg, stdout, d);
		if (fflush(stdout) != 0 && rc == 0)
			rc = pq_diag_set(d, PQ_EIO, "standard output: cannot write: %s", strerror(errno));
		return rc;
	}
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return pq_diag_set(d, -errno, "%s: cannot write: %s", path, strerror(errno));
	int rc = fn(db, arg, f, d);
	if (fclose(f) != 0 && rc == 0)
		rc = pq_diag_set(d, PQ_EIO, "%s: cannot write: %s", path, strerror(errno));
	if (rc == 0 && rename(tmp, path) < 0)
		rc = pq_diag_set(d, -errno, "%s: cannot write: %s", path, strerror(errno));
	if (rc < 0)
		unlink(tmp);
	return rc;
}

int pq_exp_export_csv(const char *db_path, const char *dir, pq_diag *d)
{
	sqlite3 *db = NULL;
	int rc = pq_rdb_open_db(db_path, &db, d);
	if (rc < 0)
		return rc;
	struct stat st;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		rc = pq_diag_set(d, -errno, "%s: cannot create the directory: %s", dir, strerror(errno));
		goto out;
	}
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		rc = pq_diag_set(d, -ENOTDIR, "%s: exists and is not a directory; CSV export writes one file per table "
					      "into a directory (a new one, or an existing one)", dir);
		goto out;
	}
	for (int i = 0; tables[i] && rc == 0; i++) {
		char path[600];
		snprintf(path, sizeof path, "%s/%s.csv", dir, tables[i]);
		rc = to_file(path, write_csv, db, tables[i], d);
	}
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
		if (!o)
			break;
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
		if (!line)
			break;
	}
	sqlite3_finalize(st);
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
