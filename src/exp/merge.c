#include "exp/merge.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/text.h"
#include "exp/colsql.h"
#include "exp/rdb.h"
#include "exp/sql.h"
#include "exp/store.h"

static int read_meta(const char *path, char *name, char *hash, pq_diag *d)
{
	sqlite3 *db = NULL;
	int rc = pq_rdb_open_db(path, &db, d);
	if (rc < 0)
		return rc;
	if (pq_sql_get_text(db, "SELECT value FROM meta WHERE key = 'spec_name'", name, 80) < 0 ||
	    pq_sql_get_text(db, "SELECT value FROM meta WHERE key = 'spec_hash'", hash, 80) < 0)
		rc = pq_diag_set(d, PQ_EPARSE, "%s: no spec in meta", path);
	sqlite3_close(db);
	return rc;
}

/* INSERT INTO main.t SELECT every column of src.t (the column table's; one an older input
 * lacks as its default, exp/colsql.h), with id columns shifted by offsets. */
static int copy_table(sqlite3 *db, enum pq_table_id t, const char *const shift[][2], pq_diag *d)
{
	const char *table = pq_tables[t].name;
	size_t n = pq_table_ncols(t);
	unsigned char *present = malloc(n);
	char dflt[64];
	pq_buf cols, sel;
	pq_col c;
	pq_buf_init(&cols, 1 << 16);
	pq_buf_init(&sel, 1 << 16);
	int rc = present ? pq_cols_present(db, "src", t, present, n) : PQ_ENOMEM;
	for (size_t i = 0; rc == 0 && pq_table_col(t, i, &c) == 0; i++) {
		const char *expr = NULL;
		for (int k = 0; shift[k][0]; k++)
			if (strcmp(shift[k][0], c.name) == 0)
				expr = shift[k][1];
		rc = pq_buf_printf(&cols, "%s%s", i ? ", " : "", c.name);
		if (rc == 0 && !present[i])
			rc = pq_buf_printf(&sel, "%s%s", i ? ", " : "", pq_col_default(&c, dflt, sizeof dflt));
		else if (rc == 0)
			rc = pq_buf_printf(&sel, "%s%s%s%s", i ? ", " : "", c.name, expr ? " + " : "", expr ? expr : "");
	}
	char *ins = rc ? NULL
		       : sqlite3_mprintf("INSERT INTO main.%s (%s) SELECT %s FROM src.%s", table, pq_buf_str(&cols),
					 pq_buf_str(&sel), table);
	if (rc < 0)
		rc = pq_diag_set(d, rc, "merge: %s: %s", table, pq_strerror(rc));
	else
		rc = ins ? pq_sql_exec(db, ins, table, d) : pq_diag_set(d, PQ_ENOMEM, "merge: out of memory");
	sqlite3_free(ins);
	pq_buf_dispose(&cols);
	pq_buf_dispose(&sel);
	free(present);
	return rc;
}

static int duplicate_cell(sqlite3 *db, const char *input, pq_diag *d)
{
	char key[80] = "", shown[160];
	int rc = pq_sql_get_text(db,
				 "SELECT s.cell_key || ' (host ' || s.host_name || ')' FROM src.cell s JOIN main.cell m "
				 "USING (cell_key, host_name) LIMIT 1",
				 key, sizeof key);
	if (rc < 0)
		return pq_diag_set(d, PQ_EIO, "%s: %s", input, sqlite3_errmsg(db));
	if (key[0])
		return pq_diag_set(d, PQ_EEXIST,
				   "%s: cell %s is also in an earlier input: the inputs overlap (the same file twice, "
				   "or shards of different --shard counts)",
				   input, pq_text_shown(key, strlen(key), shown, sizeof shown));
	return 0;
}

static int merge_one(sqlite3 *db, const char *input, pq_diag *d)
{
	char *q = sqlite3_mprintf("ATTACH DATABASE %Q AS src", input);
	int rc = pq_sql_exec(db, q ? q : "", "attaching an input", d);
	sqlite3_free(q);
	if (rc < 0)
		return rc;
	char run_base[32], lc_base[32], cell_base[32];
	if ((rc = pq_sql_exec(db, "BEGIN", "merge", d)) < 0)
		goto out;
	if ((rc = duplicate_cell(db, input, d)) < 0)
		goto out;
	if (pq_sql_get_text(db, "SELECT COALESCE(MAX(run_id), 0) FROM main.run", run_base, sizeof run_base) < 0 ||
	    pq_sql_get_text(db, "SELECT COALESCE(MAX(link_check_id), 0) FROM main.link_check", lc_base,
			    sizeof lc_base) < 0 ||
	    pq_sql_get_text(db, "SELECT COALESCE(MAX(cell_id), 0) FROM main.cell", cell_base, sizeof cell_base) < 0) {
		rc = pq_diag_set(d, PQ_EIO, "%s: %s", input, sqlite3_errmsg(db));
		goto out;
	}
	const char *const run_shift[][2] = {{"run_id", run_base}, {NULL, NULL}};
	const char *const lc_shift[][2] = {{"link_check_id", lc_base}, {"run_id", run_base}, {NULL, NULL}};
	const char *const cell_shift[][2] = {
		{"cell_id", cell_base}, {"run_id", run_base}, {"link_check_id", lc_base}, {NULL, NULL}};
	const char *const conn_shift[][2] = {{"cell_id", cell_base}, {NULL, NULL}};
	if ((rc = copy_table(db, PQ_T_RUN, run_shift, d)) < 0 || (rc = copy_table(db, PQ_T_LINK_CHECK, lc_shift, d)) < 0 ||
	    (rc = copy_table(db, PQ_T_CELL, cell_shift, d)) < 0 || (rc = copy_table(db, PQ_T_CONN, conn_shift, d)) < 0)
		rc = pq_diag_prefix(d, rc, "%s", input);
	if (rc == 0)
		rc = pq_sql_exec(db, "COMMIT", "merge", d);
out:
	if (rc < 0 && sqlite3_errcode(db) == SQLITE_FULL)
		rc = -ENOSPC; /* the output's disk: the caller names the output */
	if (rc < 0)
		(void)sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	if (pq_sql_exec(db, "DETACH DATABASE src", "detaching an input", rc < 0 ? NULL : d) < 0 && rc == 0)
		rc = PQ_EIO;
	return rc;
}

/* tmp to out, never over a file that appeared at out meanwhile: two merges naming the same
 * new file both find it absent at their start, and a plain rename would let the later one
 * replace the other's output without a word. renameat2's RENAME_NOREPLACE, or where the
 * file system has no such rename a hard link, which refuses an existing name too. 0, or
 * -errno (-EEXIST: out is there now). */
static int publish(const char *tmp, const char *out)
{
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, out, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
		return -errno;
	if (link(tmp, out) < 0)
		return -errno;
	unlink(tmp);
	return 0;
}

static void count(sqlite3 *db, const char *sql, size_t *out)
{
	char v[32];
	*out = pq_sql_get_text(db, sql, v, sizeof v) == 0 ? (size_t)strtoull(v, NULL, 10) : 0;
}

/* out must be a name nothing holds: a file, or a symbolic link even when what it points
 * to is missing (the final rename would find the link there and be refused, and the
 * message would blame another merge). */
static int check_new(const char *out, pq_diag *d)
{
	struct stat st;
	char target[256], shown[300];
	if (lstat(out, &st) < 0)
		return 0;
	if (S_ISLNK(st.st_mode) && access(out, F_OK) < 0) {
		ssize_t n = readlink(out, target, sizeof target - 1);
		return pq_diag_set(d, PQ_EEXIST,
				   "%s is a dangling symbolic link (to %s, which does not exist); merge writes a new file "
				   "and does not write through a link: remove the link or choose another -o",
				   out, pq_text_shown(target, n > 0 ? (size_t)n : 0, shown, sizeof shown));
	}
	return pq_diag_set(d, PQ_EEXIST, "%s exists; merge writes a new file (remove it or choose another)", out);
}

int pq_exp_merge(const char *const *inputs, size_t n, const char *out, pq_exp_merge_stats *stats, pq_diag *d)
{
	char name[80], hash[80], name2[80], hash2[80], tmp[600];
	sqlite3 *db = NULL;
	int rc = 0;
	if (n < 1)
		return pq_diag_set(d, PQ_EINVAL, "merge: no input databases");
	if ((rc = check_new(out, d)) < 0)
		return rc;
	if ((rc = read_meta(inputs[0], name, hash, d)) < 0)
		return rc;
	for (size_t i = 1; i < n; i++) {
		if ((rc = read_meta(inputs[i], name2, hash2, d)) < 0)
			return rc;
		/* names and hashes as stored: escaped, never raw on the terminal */
		char a[160], b[160], ha[64], hb[64];
		if (strcmp(hash, hash2) != 0)
			return pq_diag_set(d, PQ_EMISMATCH,
					   "%s holds another grid than %s ('%s' %s vs '%s' %s): merge combines shards or "
					   "hosts of one spec",
					   inputs[i], inputs[0], pq_text_shown(name2, strlen(name2), a, sizeof a),
					   pq_text_shown(hash2, strnlen(hash2, 12), ha, sizeof ha),
					   pq_text_shown(name, strlen(name), b, sizeof b),
					   pq_text_shown(hash, strnlen(hash, 12), hb, sizeof hb));
	}
	snprintf(tmp, sizeof tmp, "%s", out);
	const char *dir = dirname(tmp);
	if (access(dir, W_OK | X_OK) < 0)
		return pq_diag_set(d, -errno, "%s: cannot write the merged database in %s: %s", out, dir, strerror(errno));
	snprintf(tmp, sizeof tmp, "%s.tmp-%d", out, (int)getpid());
	unlink(tmp);
	if ((rc = pq_store_create(tmp, name, hash, d)) < 0)
		return rc;
	if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		rc = pq_diag_set(d, PQ_EIO, "%s: cannot open", tmp);
		goto out;
	}
	/* One transaction per input (DETACH is not allowed inside one); the whole merge is
	 * still all or nothing, as the output appears under its name only at the end. */
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = merge_one(db, inputs[i], d);
	if (rc == -ENOSPC)
		rc = pq_diag_prefix(d, rc, "%s: cannot write the merged database (the disk is full)", out);
	if (rc == 0 && stats) {
		count(db, "SELECT COUNT(*) FROM run", &stats->runs);
		count(db, "SELECT COUNT(*) FROM cell", &stats->cells);
		count(db, "SELECT COUNT(*) FROM conn", &stats->conns);
		count(db, "SELECT COUNT(DISTINCT host_name) FROM cell", &stats->hosts);
	}
out:
	if (db && sqlite3_close(db) != SQLITE_OK && rc == 0)
		rc = pq_diag_set(d, PQ_EIO, "%s: cannot close", tmp);
	int prc = rc == 0 ? publish(tmp, out) : 0;
	if (prc == -EEXIST)
		rc = pq_diag_set(d, PQ_EEXIST,
				 "%s was created by another process while this merge ran (another pqtls merge to the "
				 "same file?); it is left as it is, and this merge wrote nothing (run it again with "
				 "another -o)",
				 out);
	else if (prc < 0)
		rc = pq_diag_set(d, prc, "%s: %s", out, strerror(-prc));
	if (rc < 0)
		unlink(tmp);
	return rc;
}
