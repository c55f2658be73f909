#include "exp/export.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/wfile.h"
#include "exp/colsql.h"
#include "exp/rdb.h"

static const char *const tables[] = {"run", "link_check", "cell", "conn", "cell_stats", "arm_stats", NULL};

/* What a writer needs: the database, and the flag a signal sets (may be NULL). */
typedef struct job {
	sqlite3 *db;
	const volatile sig_atomic_t *stop;
} job;

typedef int (*write_fn)(const job *j, const char *arg, FILE *f, pq_diag *d);

/* Checked once a row: a signal ends the export, and what it wrote is removed. */
static int stopped(const job *j, pq_diag *d)
{
	if (!j->stop || !*j->stop)
		return 0;
	return pq_diag_set(d, PQ_EINTERRUPTED, "interrupted by a signal; nothing was written");
}

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

/* A stored table's columns in the column table's order (a file of an older version: its
 * missing columns as their defaults, exp/colsql.h); a view's as the file has them (and a
 * table the file lacks as SQLite names it). */
static int select_sql(sqlite3 *db, const char *table, pq_buf *b)
{
	int rc = pq_buf_printf(b, "SELECT ");
	size_t start = b->len;
	for (int t = 0; rc == 0 && t < PQ_T_COUNT; t++) {
		if (strcmp(pq_tables[t].name, table) != 0)
			continue;
		rc = pq_cols_select_sql(db, "main", (enum pq_table_id)t, NULL, b);
		if (rc == 0)
			return pq_buf_printf(b, " FROM %s", table);
		if (rc != PQ_EIO) /* PQ_EIO: no such table */
			return rc;
		b->len = start;
		rc = 0;
		break;
	}
	return rc ? rc : pq_buf_printf(b, "* FROM %s", table);
}

static int write_csv(const job *j, const char *table, FILE *f, pq_diag *d)
{
	sqlite3 *db = j->db;
	sqlite3_stmt *st = NULL;
	pq_buf sql;
	pq_buf_init(&sql, 1 << 16);
	int rc = select_sql(db, table, &sql);
	if (rc < 0) {
		pq_buf_dispose(&sql);
		return pq_diag_set(d, rc, "%s: %s", table, pq_strerror(rc));
	}
	rc = sqlite3_prepare_v2(db, pq_buf_str(&sql), -1, &st, NULL);
	pq_buf_dispose(&sql);
	if (rc != SQLITE_OK)
		return pq_diag_set(d, PQ_EIO, "%s: %s", table, sqlite3_errmsg(db));
	int n = sqlite3_column_count(st);
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
		w = w < 0 ? pq_diag_set(d, w, "%s: %s", table, strerror(-w)) : stopped(j, d);
		if (w < 0) {
			sqlite3_finalize(st);
			return w;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : pq_diag_set(d, PQ_EIO, "%s: %s", table, sqlite3_errmsg(db));
}

/* Runs fn into path, whole or not at all (core/wfile.h). `what` (may be NULL) names the
 * file in messages when path is only where it is made (a staging directory). */
static int to_file(const job *j, const char *path, const char *what, write_fn fn, const char *arg,
		   pq_diag *d)
{
	pq_wfile w;
	int rc = pq_wfile_open(&w, path, what, d);
	if (rc < 0)
		return rc;
	const char *shown = what ? what : strcmp(path, "-") ? path : "standard output";
	if ((rc = fn(j, arg, w.f, d)) < 0) {
		/* a failed write names the file, not the table */
		if (rc != PQ_EINTERRUPTED && ferror(w.f))
			rc = pq_diag_set(d, rc, "cannot write %s: %s", shown, pq_strerror(rc));
		pq_wfile_abort(&w);
		return rc;
	}
	return pq_wfile_close(&w, d);
}

/* The CSV set is made in a staging directory and moved into DIR only once every table is
 * written, so DIR holds the whole set or none of it. A new DIR is the staging directory
 * (DIR.tmp.XXXXXX beside it) renamed: it appears whole. An existing DIR (other files of
 * the user's stay) gets each file renamed in from DIR/.export.tmp.XXXXXX, on its own file
 * system, one rename after another at the end. On a failure or a signal the staging
 * directory and what it holds are removed, and DIR is as it was. */
typedef struct stage {
	char dir[PATH_MAX]; /* DIR, trailing slashes removed */
	char tmp[PATH_MAX + 32];
	int fresh; /* DIR did not exist: tmp becomes DIR */
} stage;

static int stage_open(stage *s, const char *dir, pq_diag *d)
{
	struct stat st;
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n >= sizeof s->dir)
		return pq_diag_set(d, PQ_EINVAL, "%.64s...: the path is too long", dir);
	memcpy(s->dir, dir, n);
	s->dir[n] = '\0';
	int e = stat(s->dir, &st) == 0 ? 0 : errno;
	if (!e && !S_ISDIR(st.st_mode))
		return pq_diag_set(d, -ENOTDIR,
				   "%s: exists and is not a directory; CSV export writes one file "
				   "per table into a directory (a new one, or an existing one)",
				   dir);
	if (e && e != ENOENT)
		return pq_diag_set(d, -e, "%s: %s", dir, strerror(e));
	s->fresh = e == ENOENT;
	snprintf(s->tmp, sizeof s->tmp, s->fresh ? "%s.tmp.XXXXXX" : "%s/.export.tmp.XXXXXX",
		 s->dir);
	e = mkdtemp(s->tmp) ? 0 : errno;
	if (e)
		return pq_diag_set(d, -e, "%s: cannot create the directory: %s", dir, strerror(e));
	return 0;
}

/* dir/TABLE.csv for table i */
static void stage_path(char *buf, size_t n, const char *dir, int i)
{
	snprintf(buf, n, "%s/%s.csv", dir, tables[i]);
}

static int stage_commit(stage *s, pq_diag *d)
{
	char from[sizeof s->tmp + 32], to[sizeof s->dir + 32];
	int e = 0;
	if (s->fresh) {
		/* mkdtemp made it 0700; DIR gets what mkdir(DIR, 0755) would have */
		mode_t m = umask(0);
		umask(m);
		if (chmod(s->tmp, 0755 & ~m) != 0 || rename(s->tmp, s->dir) != 0)
			return pq_diag_set(d, -errno, "%s: cannot put it in place: %s", s->dir,
					   strerror(errno));
		return 0;
	}
	for (int i = 0; tables[i] && !e; i++) {
		stage_path(from, sizeof from, s->tmp, i);
		stage_path(to, sizeof to, s->dir, i);
		e = rename(from, to) != 0 ? errno : 0;
	}
	if (e)
		return pq_diag_set(d, -e, "%s: cannot put it in place: %s", to, strerror(e));
	rmdir(s->tmp);
	return 0;
}

static void stage_remove(const stage *s)
{
	char path[sizeof s->tmp + 32];
	for (int i = 0; tables[i]; i++) {
		stage_path(path, sizeof path, s->tmp, i);
		unlink(path);
	}
	rmdir(s->tmp);
}

int pq_exp_export_csv(const char *db_path, const char *dir, const volatile sig_atomic_t *stop,
		      pq_diag *d)
{
	job j = {.stop = stop};
	stage s;
	char path[sizeof s.tmp + 32], shown[sizeof s.dir + 32];
	int rc = pq_rdb_open_db(db_path, &j.db, d);
	if (rc < 0)
		return rc;
	if ((rc = stage_open(&s, dir, d)) < 0)
		goto out;
	for (int i = 0; tables[i] && rc == 0; i++) {
		stage_path(path, sizeof path, s.tmp, i);
		stage_path(shown, sizeof shown, s.dir, i);
		rc = to_file(&j, path, shown, write_csv, tables[i], d);
	}
	if (rc == 0)
		rc = stage_commit(&s, d);
	if (rc < 0)
		stage_remove(&s);
out:
	sqlite3_close(j.db);
	return rc;
}

static int write_jsonl(const job *j, const char *unused, FILE *f, pq_diag *d)
{
	(void)unused;
	sqlite3 *db = j->db;
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
		w = w < 0 ? pq_diag_set(d, w, "conn_cell: %s", strerror(-w)) : stopped(j, d);
		if (w < 0) {
			sqlite3_finalize(st);
			return w;
		}
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_NOMEM)
		return pq_diag_set(d, PQ_ENOMEM, "conn_cell: out of memory writing JSON lines");
	return rc == SQLITE_DONE ? 0 : pq_diag_set(d, PQ_EIO, "conn_cell: %s", sqlite3_errmsg(db));
}

int pq_exp_export_jsonl(const char *db_path, const char *file, const volatile sig_atomic_t *stop,
			pq_diag *d)
{
	job j = {.stop = stop};
	int rc = pq_rdb_open_db(db_path, &j.db, d);
	if (rc < 0)
		return rc;
	rc = to_file(&j, file, NULL, write_jsonl, NULL, d);
	sqlite3_close(j.db);
	return rc;
}
