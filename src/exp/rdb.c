#include "exp/rdb.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/text.h"
#include "exp/rdb_int.h"

/* Long enough for a sweep's commit to finish; a writer holding the file longer is
 * reported as a lock. */
#define BUSY_MS 2000

/* Every reason a database is refused, once: "PATH: [DETAIL: ]REASON" (pq_rdb_fail). */
static const char *const why_text[] = {
	[PQ_RDB_W_OPEN] = "cannot open it",
	[PQ_RDB_W_NOTREG] = "not a regular file; give a results database (a pqtls sweep's .db file)",
	[PQ_RDB_W_NOTDB] = "is not an SQLite database (a pqtls sweep writes its results as one)",
	[PQ_RDB_W_DAMAGED] = "the database is damaged (truncated or overwritten); re-run the sweep, or use a good copy",
	[PQ_RDB_W_HOTJ] = ("a writer was interrupted mid-transaction and left a hot journal beside the file, so it is not "
		    "consistent until the journal is rolled back; open it once with write access (sqlite3 FILE "
		    "'PRAGMA quick_check' does) and read it again"),
	[PQ_RDB_W_LOCKED] = "is locked by another process (a sweep or merge writing it?); try again when it has finished",
	[PQ_RDB_W_NOMETA] = ("is an SQLite database but not a pqtls results database (it has no meta table; pqtls sweep "
		      "writes one)"),
	[PQ_RDB_W_NOVER] = "its meta table has no schema_version: not a pqtls results database",
	[PQ_RDB_W_BADVER] = "meta.schema_version is not a whole number from 1: the file was changed by hand or damaged",
	[PQ_RDB_W_NOCELL] = "holds no measured cell (a sweep stopped before its first cell finished?): nothing to report",
	[PQ_RDB_W_NOTNUM] = "not a number: the file was changed by hand or damaged (a number is never stored as text)",
	[PQ_RDB_W_RANGE] = "not a value a measurement can produce: the file was changed by hand or damaged",
	[PQ_RDB_W_SQL] = "cannot read it",
	[PQ_RDB_W_NOMEM] = "out of memory",
};

int pq_rdb_fail(pq_diag *d, int err, const char *path, enum pq_rdb_why w, const char *detail)
{
	if (detail && detail[0])
		return pq_diag_set(d, err, "%s: %s: %s", path, detail, why_text[w]);
	return pq_diag_set(d, err, "%s: %s", path, why_text[w]);
}

/* An SQLite failure, by its extended code. */
int pq_rdb_sql_fail(sqlite3 *db, int rc, const char *path, const char *what, pq_diag *d)
{
	char detail[300];
	const char *msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
	snprintf(detail, sizeof detail, "%s: %s", what, msg);
	switch (rc) {
	case SQLITE_READONLY_ROLLBACK:
		return pq_rdb_fail(d, PQ_EIO, path, PQ_RDB_W_HOTJ, NULL);
	case SQLITE_NOMEM:
		return pq_rdb_fail(d, PQ_ENOMEM, path, PQ_RDB_W_NOMEM, NULL);
	}
	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return pq_rdb_fail(d, PQ_EIO, path, PQ_RDB_W_LOCKED, NULL);
	case SQLITE_NOTADB:
		return pq_rdb_fail(d, PQ_EPARSE, path, PQ_RDB_W_NOTDB, NULL);
	case SQLITE_CORRUPT:
		return pq_rdb_fail(d, PQ_EPARSE, path, PQ_RDB_W_DAMAGED, msg);
	case SQLITE_READONLY: {
		/* A hot journal the read-only connection cannot roll back. */
		char j[600];
		snprintf(j, sizeof j, "%s-journal", path);
		if (access(j, F_OK) == 0)
			return pq_rdb_fail(d, PQ_EIO, path, PQ_RDB_W_HOTJ, NULL);
		break;
	}
	}
	return pq_rdb_fail(d, PQ_EIO, path, PQ_RDB_W_SQL, detail);
}

/* "1".."99999" only: no sign, no trailing text. */
static int parse_version(const char *v)
{
	if (!v || !*v || strlen(v) > 5)
		return -1;
	for (const char *p = v; *p; p++)
		if (*p < '0' || *p > '9')
			return -1;
	int n = atoi(v);
	return n >= 1 ? n : -1;
}

int pq_rdb_read_version(sqlite3 *db, const char *path, int *version, pq_diag *d)
{
	sqlite3_stmt *st = NULL;
	char v[64] = "";
	int have = 0;
	int rc = sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &st, NULL);
	if (rc != SQLITE_OK) {
		/* no meta table, or a damaged or locked file */
		int ext = sqlite3_extended_errcode(db);
		if (rc == SQLITE_ERROR && strstr(sqlite3_errmsg(db), "no such table"))
			return pq_rdb_fail(d, PQ_EPARSE, path, PQ_RDB_W_NOMETA, NULL);
		return pq_rdb_sql_fail(db, ext, path, "reading meta", d);
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		have = 1; /* shown escaped in the message, and then no version */
		pq_text_shown((const char *)sqlite3_column_text(st, 0), (size_t)sqlite3_column_bytes(st, 0), v, sizeof v);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return pq_rdb_sql_fail(db, sqlite3_extended_errcode(db), path, "reading meta", d);
	if (!have)
		return pq_rdb_fail(d, PQ_EPARSE, path, PQ_RDB_W_NOVER, NULL);
	int n = parse_version(v);
	if (n < 0) {
		char detail[96];
		snprintf(detail, sizeof detail, "meta.schema_version is '%.40s'", v);
		return pq_rdb_fail(d, PQ_EPARSE, path, PQ_RDB_W_BADVER, detail);
	}
	if (n > PQ_SCHEMA_VERSION)
		return pq_diag_set(d, PQ_EUNSUPPORTED,
				   "%s has schema version %d; this pqtls reads version %d (a newer pqtls wrote it: use "
				   "that one)",
				   path, n, PQ_SCHEMA_VERSION);
	if (n < PQ_SCHEMA_OLDEST)
		return pq_diag_set(d, PQ_EUNSUPPORTED,
				   "%s has schema version %d; this pqtls reads versions %d to %d (an older pqtls wrote it; "
				   "version 3 stores every dimension's effective value under new cell keys: re-run the "
				   "sweep with this pqtls, or read the file with the pqtls that wrote it)",
				   path, n, PQ_SCHEMA_OLDEST, PQ_SCHEMA_VERSION);
	*version = n;
	return 0;
}

int pq_rdb_check_version(sqlite3 *db, const char *path, pq_diag *d)
{
	int n = 0, rc = pq_rdb_read_version(db, path, &n, d);
	if (rc == 0 && n != PQ_SCHEMA_VERSION)
		rc = pq_diag_set(d, PQ_EUNSUPPORTED,
				 "%s has schema version %d; writing needs version %d (a sweep writing into it upgrades "
				 "it first)",
				 path, n, PQ_SCHEMA_VERSION);
	return rc;
}

/* A regular file that exists and can be read, before SQLite opens it (a FIFO would
 * block the open for ever). */
static int check_file(const char *path, pq_diag *d)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		char detail[200];
		snprintf(detail, sizeof detail, "%s", strerror(errno));
		return pq_diag_set(d, -errno, "%s: %s: %s", path, why_text[PQ_RDB_W_OPEN], detail);
	}
	if (S_ISDIR(st.st_mode))
		return pq_diag_set(d, -EISDIR, "%s: is a directory; give a results database (a pqtls sweep's .db file)",
				   path);
	if (!S_ISREG(st.st_mode)) {
		const char *kind = S_ISFIFO(st.st_mode)	 ? "a FIFO"
				   : S_ISCHR(st.st_mode) ? "a character device"
				   : S_ISBLK(st.st_mode) ? "a block device"
				   : S_ISSOCK(st.st_mode) ? "a socket"
							  : "not a file";
		return pq_rdb_fail(d, PQ_EINVAL, path, PQ_RDB_W_NOTREG, kind);
	}
	if (access(path, R_OK) < 0)
		return pq_diag_set(d, -errno, "%s: %s: %s", path, why_text[PQ_RDB_W_OPEN], strerror(errno));
	return 0;
}

/* The whole file is checked once (PRAGMA quick_check reads every page): a truncated or
 * overwritten file is named as damaged before anything is read from it. */
static int check_intact(sqlite3 *db, const char *path, pq_diag *d)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return pq_rdb_sql_fail(db, sqlite3_extended_errcode(db), path, "checking", d);
	char first[200] = "";
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(st, 0);
		snprintf(first, sizeof first, "%s", t ? (const char *)t : "");
	}
	int ext = sqlite3_extended_errcode(db);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return pq_rdb_sql_fail(db, ext, path, "checking", d);
	if (strcmp(first, "ok") != 0)
		return pq_rdb_fail(d, PQ_EPARSE, path, PQ_RDB_W_DAMAGED, first);
	return 0;
}

int pq_rdb_open_db(const char *path, sqlite3 **out, pq_diag *d)
{
	sqlite3 *db = NULL;
	*out = NULL;
	int rc = check_file(path, d);
	if (rc < 0)
		return rc;
	int src = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
	if (src != SQLITE_OK) {
		rc = pq_rdb_sql_fail(db, db ? sqlite3_extended_errcode(db) : src, path, "opening", d);
		goto out;
	}
	sqlite3_extended_result_codes(db, 1);
	sqlite3_busy_timeout(db, BUSY_MS);
	int version = 0;
	if ((rc = check_intact(db, path, d)) < 0 || (rc = pq_rdb_read_version(db, path, &version, d)) < 0)
		goto out;
	*out = db;
	db = NULL;
out:
	sqlite3_close(db);
	return rc;
}

int pq_rdb_open(const char *path, pq_rdb *out, pq_diag *d)
{
	sqlite3 *db = NULL;
	memset(out, 0, sizeof *out);
	int rc = pq_rdb_open_db(path, &db, d);
	if (rc < 0)
		goto out;
	if ((rc = pq_rdb_read_version(db, path, &out->schema, d)) < 0)
		goto out;
	/* One read transaction: a sweep committing meanwhile cannot tear the picture. */
	if ((rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL)) != SQLITE_OK) {
		rc = pq_rdb_sql_fail(db, sqlite3_extended_errcode(db), path, "starting to read", d);
		goto out;
	}
	rc = pq_rdb_load(db, path, out, d);
out:
	sqlite3_close(db);
	if (rc)
		pq_rdb_close(out);
	return rc;
}

