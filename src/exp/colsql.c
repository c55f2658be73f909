#include "exp/colsql.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exp/dim.h"
#include "exp/pctsql.h"
#include "exp/rdb.h"
#include "exp/sql.h"
#include "exp_schema.h"

/* CREATE TABLE t (...) with each column's fill as its comment, then t's indexes. */
static int create_table(pq_buf *b, enum pq_table_id t)
{
	const pq_table *tb = &pq_tables[t];
	size_t n = pq_table_ncols(t);
	pq_col c;
	int rc = pq_buf_printf(b, "CREATE TABLE %s (\n", tb->name);
	for (size_t i = 0; rc == 0 && pq_table_col(t, i, &c) == 0; i++) {
		int last = i + 1 == n && !tb->tail[0];
		rc = pq_buf_printf(b, "\t%-24s %s%s -- %s\n", c.name, c.sql, last ? "" : ",", c.fill);
	}
	if (rc == 0 && tb->tail[0])
		rc = pq_buf_printf(b, "\t%s\n", tb->tail);
	return rc ? rc : pq_buf_printf(b, ")%s;\n\n%s", tb->options, tb->indexes);
}

/* The conn columns that are a cell's too (NULL-terminated): in the views a cell's is
 * renamed NAME_asked beside the connection's own. */
static size_t conn_taken(const char **taken)
{
	size_t nt = 0;
	for (int i = 0; i < PQ_DIM_COUNT; i++)
		if (pq_dims[i].column && pq_table_find(PQ_T_CONN, pq_dims[i].column) >= 0)
			taken[nt++] = pq_dims[i].column;
	taken[nt] = NULL;
	return nt;
}

static int fill_dims(const char *args, const char *indent, char *buf, size_t n)
{
	(void)indent;
	static const char conn_tag[] = "conn: ";
	int beside = strncmp(args, conn_tag, strlen(conn_tag)) == 0;
	const char *taken[PQ_DIM_COUNT + 1];
	conn_taken(taken);
	return pq_dim_columns_each(args + (beside ? strlen(conn_tag) : 0), beside ? taken : NULL, buf, n);
}

static int fill_parts(const char *args, const char *indent, char *buf, size_t n)
{
	(void)indent;
	return pq_pctsql_parts(args, buf, n);
}

static int fill_value(const char *args, const char *indent, char *buf, size_t n)
{
	(void)indent;
	return pq_pctsql_value(args, buf, n);
}

/* The connection times whose median and p95 both stats views report, in their columns'
 * order: the time's column and the tag of its row number and count in the views' ok rows
 * (r_hs, n_hs). */
static const struct {
	const char *col, *tag;
} key_times[] = {{"handshake_us", "hs"}, {"ttfb_us", "fb"}, {"ttlb_us", "lb"}};
static const unsigned key_permille[] = {500, 950};

/* Adds k, the bytes just written at buf + *len into room bytes, to *len: 0, k's error, or
 * PQ_ETOOBIG when they did not fit. */
static int put(size_t *len, int k, size_t room)
{
	if (k < 0)
		return k;
	if ((size_t)k >= room)
		return PQ_ETOOBIG;
	*len += (size_t)k;
	return 0;
}

/* One key time's percentile: its parts for the aggregate, or (alias) its value from the
 * aggregate as NAME_pXX_us (ttfb_us at 950: ttfb_p95_us). */
static int key_pct(const char *alias, size_t t, unsigned p, char *buf, size_t n)
{
	const char *col = key_times[t].col, *tag = key_times[t].tag;
	char a[96];
	size_t len = 0;
	int rc;
	if (!alias) {
		snprintf(a, sizeof a, "%s r_%s n_%s %u", col, tag, tag, p);
		return pq_pctsql_parts(a, buf, n);
	}
	snprintf(a, sizeof a, "%s.%s %u", alias, col, p);
	rc = put(&len, pq_pctsql_value(a, buf, n), n);
	rc = rc ? rc
		: put(&len, snprintf(buf + len, n - len, " AS %.*s_p%u_us", (int)(strlen(col) - 3), col, p / 10),
		      n - len);
	return rc ? rc : (int)len;
}

/* "@PCT_EACH parts@" (in a view's aggregate over its ok rows) or "@PCT_EACH ALIAS@" (in
 * its SELECT, the aggregate as ALIAS): every key time's median and p95, comma-separated,
 * one a line at the mark's indentation. */
static int fill_each(const char *args, const char *indent, char *buf, size_t n)
{
	const char *alias = strcmp(args, "parts") == 0 ? NULL : args;
	size_t len = 0;
	int rc = 0;
	for (size_t t = 0; rc == 0 && t < sizeof key_times / sizeof key_times[0]; t++)
		for (size_t p = 0; rc == 0 && p < sizeof key_permille / sizeof key_permille[0]; p++) {
			if (len)
				rc = put(&len, snprintf(buf + len, n - len, ",\n%s", indent), n - len);
			rc = rc ? rc
				: put(&len, key_pct(alias, t, key_permille[p], buf + len, n - len), n - len);
		}
	return rc ? rc : (int)len;
}

/* schema.sql's marks, each "OPEN ARGS CLOSE" replaced by what fill makes of ARGS (indent:
 * the blanks that start the mark's line, for a fill of several lines): every
 * "@DIMS TEMPLATE@" through pq_dim_columns_each ("@DIMS conn: TEMPLATE@": beside the conn
 * table, whose columns of the same name a cell's are renamed from), the one percentile's
 * "@PCT_PARTS ...@" and "@PCT ...@" (exp/pctsql.h), and "@PCT_EACH ...@", those two over
 * every key time. */
static const struct {
	const char *open, *close;
	int (*fill)(const char *args, const char *indent, char *buf, size_t n);
} marks[] = {
    {"@DIMS ", "@", fill_dims},
    {"@PCT_PARTS ", "@", fill_parts},
    {"@PCT ", "@", fill_value},
    {"@PCT_EACH ", "@", fill_each},
};

/* The first mark at or after s: its index, *at where it starts; -1 when there is none. */
static int next_mark(const char *s, const char **at)
{
	int k = -1;
	*at = NULL;
	for (int i = 0; i < (int)(sizeof marks / sizeof marks[0]); i++) {
		const char *m = strstr(s, marks[i].open);
		if (m && (!*at || m < *at)) {
			*at = m;
			k = i;
		}
	}
	return k;
}

/* The blanks that start the line of text holding at. */
static void indent_of(const char *text, const char *at, char *buf, size_t n)
{
	const char *line = at;
	while (line > text && line[-1] != '\n')
		line--;
	snprintf(buf, n, "%.*s", (int)strspn(line, " \t"), line);
}

static int views(pq_buf *b)
{
	char part[8192], args[128], indent[32];
	const char *s = pq_exp_schema_sql, *at;
	int rc = 0, k;
	while (rc == 0 && (k = next_mark(s, &at)) >= 0) {
		const char *a = at + strlen(marks[k].open), *close = strstr(a, marks[k].close);
		int n = PQ_EPARSE; /* a mark without its end: schema.sql is wrong */
		if (close && (size_t)(close - a) < sizeof args) {
			snprintf(args, sizeof args, "%.*s", (int)(close - a), a);
			indent_of(pq_exp_schema_sql, at, indent, sizeof indent);
			n = marks[k].fill(args, indent, part, sizeof part);
		}
		rc = n < 0 ? n : pq_buf_append(b, s, (size_t)(at - s));
		rc = rc ? rc : pq_buf_append(b, part, (size_t)n);
		s = close ? close + strlen(marks[k].close) : s;
	}
	return rc ? rc : pq_buf_append(b, s, strlen(s));
}

static char *done(pq_buf *b, int rc)
{
	if (rc == 0 && b->len == 0)
		rc = pq_buf_append(b, "", 1); /* never NULL for an empty text */
	if (rc) {
		pq_buf_dispose(b);
		return NULL;
	}
	return b->p;
}

char *pq_cols_views_sql(void)
{
	pq_buf b;
	pq_buf_init(&b, 1 << 20);
	return done(&b, views(&b));
}

char *pq_cols_schema_sql(void)
{
	pq_buf b;
	pq_buf_init(&b, 1 << 20);
	int rc = pq_buf_printf(&b, "-- pqtls results database, schema version %d (docs/results.md)\n",
			       PQ_SCHEMA_VERSION);
	for (int t = 0; rc == 0 && t < PQ_T_COUNT; t++)
		rc = create_table(&b, (enum pq_table_id)t);
	rc = rc ? rc : pq_buf_append(&b, "\n", 1);
	rc = rc ? rc : views(&b);
	rc = rc ? rc : pq_buf_printf(&b, "PRAGMA user_version = %d;\n", PQ_SCHEMA_VERSION);
	return done(&b, rc);
}

int pq_cols_insert_sql(enum pq_table_id t, char *buf, size_t n)
{
	pq_col c;
	size_t len = (size_t)snprintf(buf, n, "INSERT INTO %s (", pq_tables[t].name);
	for (int pass = 0; pass < 2; pass++) {
		int first = 1;
		for (size_t i = 0; len < n && pq_table_col(t, i, &c) == 0; i++) {
			if (c.flags & PQ_COL_DB)
				continue;
			len += (size_t)snprintf(buf + len, n - len, "%s%s%s", first ? "" : ", ", pass ? ":" : "", c.name);
			first = 0;
		}
		if (len < n)
			len += (size_t)snprintf(buf + len, n - len, "%s", pass ? ")" : ") VALUES (");
	}
	return len < n ? (int)len : PQ_ETOOBIG;
}

int pq_cols_present(sqlite3 *db, const char *schema, enum pq_table_id t, unsigned char *present, size_t n)
{
	char sql[128];
	sqlite3_stmt *st = NULL;
	int rows = 0;
	memset(present, 0, n);
	snprintf(sql, sizeof sql, "PRAGMA %s.table_info(%s)", schema, pq_tables[t].name);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return PQ_EIO;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int i = pq_table_find(t, (const char *)sqlite3_column_text(st, 1));
		rows++;
		if (i >= 0 && (size_t)i < n)
			present[i] = 1;
	}
	sqlite3_finalize(st);
	return rows ? 0 : PQ_EIO; /* no such table */
}

int pq_cols_select_sql(sqlite3 *db, const char *schema, enum pq_table_id t, const char *const *names, pq_buf *b)
{
	size_t n = pq_table_ncols(t);
	unsigned char *present = malloc(n);
	char dflt[64];
	pq_col c;
	int rc = present ? pq_cols_present(db, schema, t, present, n) : PQ_ENOMEM;
	for (size_t k = 0; rc == 0 && (names ? names[k] != NULL : k < n); k++) {
		int i = names ? pq_table_find(t, names[k]) : (int)k;
		if (i < 0 || pq_table_col(t, (size_t)i, &c) < 0) {
			rc = PQ_EINVAL;
			break;
		}
		if (present[i])
			rc = pq_buf_printf(b, "%s%s", k ? ", " : "", c.name);
		else
			rc = pq_buf_printf(b, "%s%s AS %s", k ? ", " : "", pq_col_default(&c, dflt, sizeof dflt), c.name);
	}
	free(present);
	return rc;
}

/* Every column of t the file lacks, added with its type and default. */
static int add_columns(sqlite3 *db, const char *path, enum pq_table_id t, pq_diag *d)
{
	size_t n = pq_table_ncols(t);
	unsigned char *present = malloc(n);
	pq_col c;
	int rc = present ? pq_cols_present(db, "main", t, present, n) : PQ_ENOMEM;
	if (rc < 0)
		rc = pq_diag_set(d, rc, "%s: has no %s table to upgrade: not a pqtls results database", path,
				 pq_tables[t].name);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (present[i] || pq_table_col(t, i, &c) < 0)
			continue;
		char *sql = sqlite3_mprintf("ALTER TABLE %s ADD COLUMN %s %s", pq_tables[t].name, c.name, c.sql);
		rc = sql ? pq_sql_exec(db, sql, path, d) : pq_diag_set(d, PQ_ENOMEM, "%s: out of memory", path);
		sqlite3_free(sql);
	}
	free(present);
	return rc;
}

/* DROP VIEW for every view the views text creates (a user's own views stay). */
static int drop_views(sqlite3 *db, const char *path, const char *text, pq_diag *d)
{
	static const char create[] = "CREATE VIEW ";
	int rc = 0;
	for (const char *p = strstr(text, create); rc == 0 && p; p = strstr(p + 1, create)) {
		const char *name = p + strlen(create);
		char *sql = sqlite3_mprintf("DROP VIEW IF EXISTS %.*s", (int)strcspn(name, " \n("), name);
		rc = sql ? pq_sql_exec(db, sql, path, d) : pq_diag_set(d, PQ_ENOMEM, "%s: out of memory", path);
		sqlite3_free(sql);
	}
	return rc;
}

/* Whether every table has every column of the column table (a version 4 file written
 * before a column was added to it may lack some). */
static int complete(sqlite3 *db)
{
	for (int t = 0; t < PQ_T_COUNT; t++) {
		size_t n = pq_table_ncols((enum pq_table_id)t);
		unsigned char *present = malloc(n);
		int all = present && pq_cols_present(db, "main", (enum pq_table_id)t, present, n) == 0;
		for (size_t i = 0; all && i < n; i++)
			all = present[i];
		free(present);
		if (!all)
			return 0;
	}
	return 1;
}

int pq_cols_migrate(sqlite3 *db, const char *path, pq_diag *d)
{
	int from = 0;
	int rc = pq_rdb_read_version(db, path, &from, d);
	if (rc < 0 || (from == PQ_SCHEMA_VERSION && complete(db)))
		return rc;
	char *v = pq_cols_views_sql(), ver[96];
	if (!v)
		return pq_diag_set(d, PQ_ENOMEM, "%s: out of memory", path);
	snprintf(ver, sizeof ver, "UPDATE meta SET value = '%d' WHERE key = 'schema_version'; PRAGMA user_version = %d",
		 PQ_SCHEMA_VERSION, PQ_SCHEMA_VERSION);
	if ((rc = pq_sql_exec(db, "BEGIN IMMEDIATE", path, d)) < 0)
		goto out;
	for (int t = 0; rc == 0 && t < PQ_T_COUNT; t++)
		rc = add_columns(db, path, (enum pq_table_id)t, d);
	if (rc == 0 && (rc = drop_views(db, path, v, d)) == 0 && (rc = pq_sql_exec(db, v, path, d)) == 0 &&
	    (rc = pq_sql_exec(db, ver, path, d)) == 0)
		rc = pq_sql_exec(db, "COMMIT", path, d);
	if (rc < 0) {
		(void)sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		rc = pq_diag_prefix(d, rc, "upgrading from schema version %d to %d (every column)", from,
				    PQ_SCHEMA_VERSION);
	}
out:
	free(v);
	return rc;
}
