/* Reading a results database in a unit test: q(path, sql) is the first column of the first
 * row as an integer (-1 when there is no row); a database that cannot be opened or a query
 * that does not compile fails the test. Include after cmocka.h and sqlite3.h. */
#ifndef PQ_TEST_TESTDB_H
#define PQ_TEST_TESTDB_H

__attribute__((unused)) static long long q(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	long long v = -1;
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

#endif
