#include "exp/store.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "exp/colsql.h"
#include "exp/sql.h"

struct pq_store {
	sqlite3 *db;
	int lock_fd;
	int64_t run_id;
	char path[512];
	char host[256];
};

sqlite3 *pq_store_db(pq_store *s)
{
	return s->db;
}

const char *pq_store_host(const pq_store *s)
{
	return s->host;
}

void pq_store_utc_now(char out[32])
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int mkdirs(const char *path, pq_diag *d)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s", path);
	char *dir = dirname(buf);
	char part[512] = "";
	size_t len = 0;
	for (char *p = dir; *p; p++) {
		part[len++] = *p;
		part[len] = '\0';
		if ((p[1] == '/' || p[1] == '\0') && len && mkdir(part, 0755) < 0 && errno != EEXIST)
			return pq_diag_set(d, -errno, "%s: cannot create directory %s: %s", path, part,
					   strerror(errno));
	}
	return 0;
}

/* The schema and meta rows, one transaction: a crash leaves no schema at all, never half. */
static int write_schema(sqlite3 *db, const char *path, const char *spec_name, const char *grid_hash, pq_diag *d)
{
	char *err = NULL, *schema = pq_cols_schema_sql();
	char meta[512];
	int rc = 0;
	snprintf(meta, sizeof meta,
		 "INSERT INTO meta VALUES ('schema_version', '%d'), ('created_by', 'pqtls " PQTLS_VERSION "');",
		 PQ_SCHEMA_VERSION);
	if (!schema)
		return pq_diag_set(d, PQ_ENOMEM, "%s: cannot create the database: out of memory", path);
	if (sqlite3_exec(db, "BEGIN", NULL, NULL, &err) != SQLITE_OK ||
	    sqlite3_exec(db, schema, NULL, NULL, &err) != SQLITE_OK ||
	    sqlite3_exec(db, meta, NULL, NULL, &err) != SQLITE_OK ||
	    pq_sql_exec_text2(db, "INSERT INTO meta VALUES ('spec_name', ?1), ('spec_hash', ?2)", spec_name,
			      grid_hash) < 0 ||
	    sqlite3_exec(db, "COMMIT", NULL, NULL, &err) != SQLITE_OK) {
		rc = pq_diag_set(d, PQ_EIO, "%s: cannot create the database: %s", path, err ? err : sqlite3_errmsg(db));
		sqlite3_free(err);
	}
	free(schema);
	return rc;
}

int pq_store_create(const char *path, const char *spec_name, const char *grid_hash, pq_diag *d)
{
	char tmp[600];
	snprintf(tmp, sizeof tmp, "%s.tmp-%d", path, (int)getpid());
	unlink(tmp);
	sqlite3 *db = NULL;
	int rc = 0;
	if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		rc = pq_diag_set(d, PQ_EIO, "%s: cannot create the database: %s", path,
				 db ? sqlite3_errmsg(db) : "out of memory");
		goto out;
	}
	if ((rc = write_schema(db, path, spec_name, grid_hash, d)) < 0)
		goto out;
	if (sqlite3_close(db) != SQLITE_OK) {
		rc = pq_diag_set(d, PQ_EIO, "%s: cannot write the database", path);
		db = NULL;
		goto out;
	}
	db = NULL;
	if (rename(tmp, path) < 0)
		rc = pq_diag_set(d, -errno, "%s: cannot create: %s", path, strerror(errno));
out:
	sqlite3_close(db);
	if (rc < 0)
		unlink(tmp);
	return rc;
}

/* Opens path; the owner (it holds the lock and upgrades an older file later) takes any
 * version this pqtls reads, a worker only the current one. */
static int open_common(const char *path, int owner, pq_store **out, pq_diag *d)
{
	int version = 0;
	pq_store *s = calloc(1, sizeof *s);
	if (!s)
		return pq_diag_set(d, PQ_ENOMEM, "out of memory");
	s->lock_fd = -1;
	snprintf(s->path, sizeof s->path, "%s", path);
	if (gethostname(s->host, sizeof s->host) < 0)
		snprintf(s->host, sizeof s->host, "unknown");
	int rc = 0;
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		rc = pq_diag_set(d, PQ_EIO, "%s: cannot open: %s", path, s->db ? sqlite3_errmsg(s->db) : "out of memory");
		goto out;
	}
	sqlite3_busy_timeout(s->db, 5000);
	rc = owner ? pq_rdb_read_version(s->db, path, &version, d) : pq_rdb_check_version(s->db, path, d);
out:
	if (rc < 0)
		pq_store_close(s);
	else
		*out = s;
	return rc;
}

static int lock_busy(const char *path, pq_diag *d)
{
	return pq_diag_set(d, PQ_EEXIST,
			   "%s: another pqtls sweep is writing this file; wait for it to end or write elsewhere", path);
}

/* The descriptor of path, created empty when absent, with our exclusive flock on it. The
 * lock comes before anything is written: two sweeps started together on a new file meet
 * here, and the second is refused before either writes a schema. flock, not a POSIX lock:
 * SQLite releases every POSIX lock of the process on the file when it unlocks (F_UNLCK
 * over the whole file), and would drop ours. The descriptor (close-on-exec, so helper
 * programs do not keep it) stays open until after sqlite3_close; the kernel releases the
 * lock when the process ends, however it ends. A file renamed over path between the open
 * and the lock (an older pqtls created through a temporary name) is opened again. */
static int lock_path(const char *path, int *fd_out, pq_diag *d)
{
	for (int tries = 0; tries < 8; tries++) {
		int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		struct stat a, b;
		if (fd < 0)
			return pq_diag_set(d, -errno, "%s: cannot open for writing: %s", path, strerror(errno));
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			close(fd);
			return lock_busy(path, d);
		}
		if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
			*fd_out = fd;
			return 0;
		}
		close(fd);
	}
	return lock_busy(path, d);
}

int pq_store_still_ours(const pq_store *s, pq_diag *d)
{
	struct stat a, b;
	if (s->lock_fd < 0 || fstat(s->lock_fd, &a) < 0)
		return pq_diag_set(d, PQ_ESTATE, "%s: not open for writing", s->path);
	if (stat(s->path, &b) < 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return pq_diag_set(d, PQ_EIO,
				   "%s was removed or replaced while this sweep wrote it: the cells it measured "
				   "are not in the file there now",
				   s->path);
	return 0;
}

/* The per-connection settings of a writer (WAL itself is the file's, set once). */
static int writer_pragmas(sqlite3 *db, const char *path, const char *more, pq_diag *d)
{
	char sql[160], *err = NULL;
	snprintf(sql, sizeof sql, "%sPRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON", more);
	int rc = 0;
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		rc = pq_diag_set(d, PQ_EIO, "%s: %s", path, err ? err : "cannot set the database up for writing");
	sqlite3_free(err);
	return rc;
}

int pq_store_open(const char *path, const char *spec_name, const char *grid_hash, pq_store **out, pq_diag *d)
{
	int rc = mkdirs(path, d);
	int fd = -1;
	pq_store *s = NULL;
	struct stat st;
	if (rc < 0)
		return rc;
	if ((rc = lock_path(path, &fd, d)) < 0)
		return rc;
	if (fstat(fd, &st) == 0 && st.st_size == 0) {
		/* New (or left empty by a run killed while creating it): the schema goes in under
		 * the lock, in one transaction, so the file is empty or whole. */
		sqlite3 *db = NULL;
		if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
			rc = pq_diag_set(d, PQ_EIO, "%s: cannot create the database: %s", path,
					 db ? sqlite3_errmsg(db) : "out of memory");
		else
			rc = write_schema(db, path, spec_name, grid_hash, d);
		if (sqlite3_close(db) != SQLITE_OK && rc == 0)
			rc = pq_diag_set(d, PQ_EIO, "%s: cannot write the database", path);
		if (rc < 0) { /* still ours (locked) and empty or rolled back: not left behind */
			unlink(path);
			close(fd);
			return rc;
		}
	}
	rc = open_common(path, 1, &s, d);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	s->lock_fd = fd;
	char have[80] = "";
	if ((rc = writer_pragmas(s->db, path, "PRAGMA journal_mode = WAL; ", d)) < 0)
		goto out;
	if (pq_sql_get_text(s->db, "SELECT value FROM meta WHERE key = 'spec_hash'", have, sizeof have) < 0 ||
	    strcmp(have, grid_hash) != 0) {
		char name[80] = "";
		if (pq_sql_get_text(s->db, "SELECT value FROM meta WHERE key = 'spec_name'", name, sizeof name) < 0)
			snprintf(name, sizeof name, "?");
		rc = pq_diag_set(d, PQ_EMISMATCH,
				 "%s holds another grid ('%s', hash %.12s; this one is '%s', %.12s): a database holds "
				 "one grid, so resuming needs the same spec, options and seed; write elsewhere",
				 path, name, have, spec_name, grid_hash);
	}
	/* a file of an older version, of this grid, is upgraded in place before anything is
	 * written into it */
	if (rc == 0)
		rc = pq_cols_migrate(s->db, path, d);
out:
	if (rc < 0)
		pq_store_close(s);
	else
		*out = s;
	return rc;
}

int pq_store_attach(const pq_store *owner, pq_store **out, pq_diag *d)
{
	pq_store *s = NULL;
	int rc = open_common(owner->path, 0, &s, d);
	if (rc < 0)
		return rc;
	/* a sweep's own workers only meet each other here (the owner's lock keeps others out) */
	sqlite3_busy_timeout(s->db, 60000);
	if ((rc = writer_pragmas(s->db, owner->path, "", d)) < 0) {
		pq_store_close(s);
		return rc;
	}
	s->run_id = owner->run_id;
	snprintf(s->host, sizeof s->host, "%s", owner->host);
	*out = s;
	return 0;
}

void pq_store_suspend(pq_store *s)
{
	sqlite3_close(s->db);
	s->db = NULL;
}

int pq_store_resume(pq_store *s, pq_diag *d)
{
	if (s->db)
		return 0;
	if (sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		int rc = pq_diag_set(d, PQ_EIO, "%s: cannot open again: %s", s->path,
				     s->db ? sqlite3_errmsg(s->db) : "out of memory");
		sqlite3_close(s->db);
		s->db = NULL;
		return rc;
	}
	sqlite3_busy_timeout(s->db, 5000);
	return writer_pragmas(s->db, s->path, "PRAGMA journal_mode = WAL; ", d);
}

void pq_store_close(pq_store *s)
{
	if (!s)
		return;
	/* The writer leaves the file in rollback-journal mode, so that readers (export, merge,
	 * a report on a read-only copy) neither need nor leave -wal/-shm files beside it. It
	 * needs no other connection to be open; if one is, the file simply stays in WAL mode. */
	if (s->db && s->lock_fd >= 0)
		sqlite3_exec(s->db, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL);
	sqlite3_close(s->db);
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	free(s);
}

static void read_line_of(const char *file, const char *prefix, char *out, size_t n)
{
	FILE *f = fopen(file, "r");
	char line[256];
	out[0] = '\0';
	while (f && fgets(line, sizeof line, f)) {
		if (prefix && strncmp(line, prefix, strlen(prefix)) != 0)
			continue;
		char *v = prefix ? strchr(line, ':') : line;
		v = v ? v + (prefix ? 1 : 0) : line;
		while (*v == ' ' || *v == '\t')
			v++;
		snprintf(out, n, "%s", v);
		out[strcspn(out, "\n")] = '\0';
		break;
	}
	if (f)
		fclose(f);
}

int pq_store_run_begin(pq_store *s, const pq_store_run *r, pq_diag *d)
{
	unsigned char u[16];
	char uuid[33], kernel[300], cpu[256], cc[64], now[32];
	struct utsname un;
	if (RAND_bytes(u, sizeof u) != 1)
		memset(u, 0, sizeof u);
	for (int i = 0; i < 16; i++)
		snprintf(uuid + 2 * i, 3, "%02x", u[i]);
	if (uname(&un) == 0)
		snprintf(kernel, sizeof kernel, "%s %s %s", un.sysname, un.release, un.machine);
	else
		snprintf(kernel, sizeof kernel, "unknown");
	read_line_of("/proc/cpuinfo", "model name", cpu, sizeof cpu);
	read_line_of("/proc/sys/net/ipv4/tcp_congestion_control", NULL, cc, sizeof cc);
	pq_store_utc_now(now);
	pq_sql_stmt st;
	char sql[4096];
	int rc = pq_cols_insert_sql(PQ_T_RUN, sql, sizeof sql);
	rc = rc < 0 ? pq_diag_set(d, rc, "the run's INSERT is too long") : pq_sql_prepare(&st, s->db, sql, d);
	if (rc < 0)
		return rc;
	pq_store_run_rec rec = {r, uuid, OpenSSL_version(OPENSSL_VERSION), kernel, cpu[0] ? cpu : "unknown",
				cc[0] ? cc : "unknown", s->host, now, sysconf(_SC_NPROCESSORS_ONLN)};
	pq_store_bind_rec(&st, PQ_T_RUN, &rec);
	rc = pq_sql_step_done(&st, "recording the run", d);
	if (rc == 0)
		s->run_id = sqlite3_last_insert_rowid(s->db);
	return rc;
}

int pq_store_run_end(pq_store *s, const char *status, pq_diag *d)
{
	char now[32];
	pq_sql_stmt st;
	pq_store_utc_now(now);
	int rc = pq_sql_prepare(&st, s->db, "UPDATE run SET ended_at = :now, end_status = :st WHERE run_id = :id", d);
	if (rc < 0)
		return rc;
	pq_sql_text(&st, ":now", now);
	pq_sql_text(&st, ":st", status);
	pq_sql_int(&st, ":id", s->run_id);
	return pq_sql_step_done(&st, "ending the run", d);
}

int pq_store_cell_done(pq_store *s, const char *cell_key, pq_diag *d)
{
	pq_sql_stmt st;
	int rc = pq_sql_prepare(&st, s->db, "SELECT 1 FROM cell WHERE cell_key = :k AND host_name = :h", d);
	if (rc < 0)
		return rc;
	pq_sql_text(&st, ":k", cell_key);
	pq_sql_text(&st, ":h", s->host);
	rc = sqlite3_step(st.st);
	int done = rc == SQLITE_ROW;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		done = pq_diag_set(d, PQ_EIO, "%s: %s", s->path, sqlite3_errmsg(s->db));
	pq_sql_finalize(&st);
	return done;
}

void pq_store_bind_window(pq_sql_stmt *st, const pq_link_window *w, int ok)
{
	const pq_path_stats *a = &w->dir[0], *b = &w->dir[1];
	if (ok >= 0)
		pq_sql_int(st, ":link_ok", ok);
	if (w->late_known && w->late.n > 0) {
		pq_sql_double(st, ":link_late_p50_us", w->late.p50 / 1e3);
		pq_sql_double(st, ":link_late_p99_us", w->late.p99 / 1e3);
		pq_sql_double(st, ":link_late_max_us", w->late.max / 1e3);
	}
	if (w->late_known) {
		pq_sql_int(st, ":link_releases_pkts", (long long)w->late.n);
		pq_sql_int(st, ":link_drop_loss_pkts", (long long)(a->drop_loss + b->drop_loss));
		pq_sql_int(st, ":link_drop_queue_pkts", (long long)(a->drop_queue + b->drop_queue));
		pq_sql_int(st, ":link_drop_unplanned_pkts", (long long)pq_link_window_unplanned(w));
	}
	if (w->late_known && w->fwd_wait_ns >= 0)
		pq_sql_double(st, ":link_fwd_wait_us", (double)w->fwd_wait_ns / 1e3);
}

int pq_store_link_check(pq_store *s, const char *link_key, const char *desc, const char *backend,
			const pq_check_result *r, int64_t *id, pq_diag *d)
{
	char now[32], summary[512];
	pq_sql_stmt st;
	pq_store_utc_now(now);
	char sql[4096];
	int rc = pq_cols_insert_sql(PQ_T_LINK_CHECK, sql, sizeof sql);
	rc = rc < 0 ? pq_diag_set(d, rc, "the link check's INSERT is too long") : pq_sql_prepare(&st, s->db, sql, d);
	if (rc < 0)
		return rc;
	if (r)
		pq_check_format(r, summary, sizeof summary);
	else
		snprintf(summary, sizeof summary, "not checked");
	pq_store_check_rec rec = {s->run_id, link_key, desc, backend, r, summary, now};
	pq_store_bind_rec(&st, PQ_T_LINK_CHECK, &rec);
	if (r)
		pq_store_bind_window(&st, &r->link, r->link_ok);
	rc = pq_sql_step_done(&st, "storing the link check", d);
	if (rc == 0)
		*id = sqlite3_last_insert_rowid(s->db);
	return rc;
}

int64_t pq_store_run_id(const pq_store *s)
{
	return s->run_id;
}

int pq_store_precheck(const char *path, pq_diag *d)
{
	char buf[512];
	int rc = mkdirs(path, d);
	if (rc < 0)
		return rc;
	if (access(path, F_OK) == 0) {
		if (access(path, R_OK | W_OK) < 0)
			return pq_diag_set(d, -errno, "%s: cannot write the results: %s", path, strerror(errno));
		return 0;
	}
	snprintf(buf, sizeof buf, "%s", path);
	if (access(dirname(buf), W_OK) < 0)
		return pq_diag_set(d, -errno, "%s: cannot create the results in %s: %s", path, buf, strerror(errno));
	return 0;
}
