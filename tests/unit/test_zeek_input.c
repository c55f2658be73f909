/* zeek/input: whole files read plain or gzip (a directory, a missing file, a file over
 * the cap and a cut gzip stream refused with the path), a directory expanded into the
 * ssl logs under it (sorted, recursively, hidden entries and other logs left out; one
 * with none, one nested too deep and a missing path refused), and the gzip magic test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "testdir.h"

#include "zeek/input.h"

static void write_gzip(const char *path, const char *text, size_t n)
{
	gzFile g = gzopen(path, "wb");
	assert_non_null(g);
	assert_int_equal(gzwrite(g, text, (unsigned)n), (int)n);
	assert_int_equal(gzclose(g), Z_OK);
}

static void slurp(void **state)
{
	(void)state;
	pq_diag d = {0};
	char *buf = NULL;
	size_t len = 0;
	const char *plain = testdir_write("plain.log", "#fields\tts\n1\n");
	assert_int_equal(pq_zeek_slurp(plain, 1 << 20, &buf, &len, &d), 0);
	assert_int_equal(len, 13);
	assert_string_equal(buf, "#fields\tts\n1\n");
	free(buf);

	const char *gz = testdir_path("packed.log.gz");
	write_gzip(gz, "a\tb\n", 4);
	assert_int_equal(pq_zeek_slurp(gz, 1 << 20, &buf, &len, &d), 0);
	assert_int_equal(len, 4);
	assert_string_equal(buf, "a\tb\n");
	free(buf);

	/* bigger than the first buffer: it grows, and the bytes are all there */
	size_t big = 300000;
	char *text = malloc(big);
	assert_non_null(text);
	for (size_t i = 0; i < big; i++)
		text[i] = (char)('a' + i % 26);
	write_gzip(gz, text, big);
	assert_int_equal(pq_zeek_slurp(gz, 1 << 20, &buf, &len, &d), 0);
	assert_int_equal(len, big);
	assert_memory_equal(buf, text, big);
	assert_int_equal(buf[big], '\0');
	free(buf);
	free(text);
}

static void slurp_refused(void **state)
{
	(void)state;
	pq_diag d = {0};
	char *buf = (char *)"untouched";
	size_t len = 77;
	assert_int_equal(pq_zeek_slurp(dir, 1 << 20, &buf, &len, &d), -EISDIR);
	assert_non_null(strstr(pq_diag_msg(&d), "is a directory; give a file"));
	assert_true(strncmp(pq_diag_msg(&d), dir, strlen(dir)) == 0);

	const char *missing = testdir_path("missing.log");
	assert_true(pq_zeek_slurp(missing, 1 << 20, &buf, &len, &d) < 0);
	assert_non_null(strstr(pq_diag_msg(&d), missing));

	/* over the cap: 2 MiB of text against 1 MiB */
	const char *gz = testdir_path("huge.log.gz");
	size_t big = 2u << 20;
	char *text = calloc(1, big);
	assert_non_null(text);
	memset(text, 'x', big);
	write_gzip(gz, text, big);
	free(text);
	assert_int_equal(pq_zeek_slurp(gz, 1 << 20, &buf, &len, &d), PQ_ETOOBIG);
	assert_non_null(strstr(pq_diag_msg(&d), "larger than 1 MiB"));

	/* the cap is exact: 100 bytes are read under a cap of 100, 101 are refused, in bytes */
	const char *edge = testdir_path("edge.log.gz");
	char hundred[101];
	memset(hundred, 'y', sizeof hundred);
	write_gzip(edge, hundred, 100);
	assert_int_equal(pq_zeek_slurp(edge, 100, &buf, &len, &d), 0);
	assert_int_equal(len, 100);
	free(buf);
	buf = (char *)"untouched";
	len = 77;
	write_gzip(edge, hundred, 101);
	assert_int_equal(pq_zeek_slurp(edge, 100, &buf, &len, &d), PQ_ETOOBIG);
	assert_non_null(strstr(pq_diag_msg(&d), "larger than 100 bytes"));
	assert_string_equal(buf, "untouched");

	/* a gzip stream cut in half: refused with where it broke, not read short */
	const char *cut = testdir_path("cut.log.gz");
	static char rows[4000];
	for (size_t i = 0; i < sizeof rows; i++)
		rows[i] = (char)('0' + (i * 7919) % 75);
	write_gzip(cut, rows, sizeof rows);
	struct stat st;
	assert_int_equal(stat(cut, &st), 0);
	assert_int_equal(truncate(cut, st.st_size / 2), 0);
	assert_int_equal(pq_zeek_slurp(cut, 1 << 20, &buf, &len, &d), PQ_EPARSE);
	assert_true(strncmp(pq_diag_msg(&d), cut, strlen(cut)) == 0);
	assert_non_null(strstr(pq_diag_msg(&d), "byte"));
	assert_string_equal(buf, "untouched"); /* nothing handed out */
	assert_int_equal(len, 77);
}

static void files(void **state)
{
	(void)state;
	pq_diag d = {0};
	char sub[300], hidden[300], path[400];
	snprintf(sub, sizeof sub, "%s/tree/b", dir);
	snprintf(hidden, sizeof hidden, "%s/tree/.hidden", dir);
	snprintf(path, sizeof path, "%s/tree", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(mkdir(hidden, 0700), 0);
	static const char *const made[] = {"tree/ssl.log",	  "tree/b/tor_ssl.log.gz",
					   "tree/b/ssl.00:00:00-01:00:00.log.gz", "tree/conn.log",
					   "tree/ssl.txt",	  "tree/.hidden/ssl.log",
					   "tree/b/x_sslish.log", "tree/a_ssl.log"};
	for (size_t i = 0; i < sizeof made / sizeof made[0]; i++)
		testdir_write(made[i], "x\n");
	pq_zeek_files f = {0};
	assert_int_equal(pq_zeek_files_add(&f, path, &d), 0);
	static const char *const want[] = {"tree/a_ssl.log", "tree/b/ssl.00:00:00-01:00:00.log.gz",
					   "tree/b/tor_ssl.log.gz", "tree/b/x_sslish.log",
					   "tree/ssl.log"};
	assert_int_equal(f.n, sizeof want / sizeof want[0]);
	for (size_t i = 0; i < f.n; i++)
		assert_string_equal(f.v[i], testdir_path(want[i]));
	/* a file is taken as named, whatever its name */
	assert_int_equal(pq_zeek_files_add(&f, testdir_path("tree/conn.log"), &d), 0);
	assert_int_equal(f.n, 6);
	assert_string_equal(f.v[5], testdir_path("tree/conn.log"));
	pq_zeek_files_free(&f);
	assert_null(f.v);
	assert_int_equal(f.n, 0);
	pq_zeek_files_free(&f); /* twice: harmless */
}

static void files_refused(void **state)
{
	(void)state;
	pq_diag d = {0};
	pq_zeek_files f = {0};
	const char *missing = testdir_path("nowhere");
	assert_int_equal(pq_zeek_files_add(&f, missing, &d), -ENOENT);
	assert_non_null(strstr(pq_diag_msg(&d), missing));
	assert_non_null(strstr(pq_diag_msg(&d), strerror(ENOENT)));

	char none[300];
	snprintf(none, sizeof none, "%s/none", dir);
	assert_int_equal(mkdir(none, 0700), 0);
	testdir_write("none/conn.log", "x\n");
	assert_int_equal(pq_zeek_files_add(&f, none, &d), PQ_EINVAL);
	assert_non_null(strstr(pq_diag_msg(&d), "no ssl log files in it"));
	assert_int_equal(f.n, 0);

	/* 18 directories deep */
	char deep[1000];
	int n = snprintf(deep, sizeof deep, "%s/deep", dir);
	assert_int_equal(mkdir(deep, 0700), 0);
	for (int i = 0; i < 18; i++) {
		n += snprintf(deep + n, sizeof deep - (size_t)n, "/d");
		assert_int_equal(mkdir(deep, 0700), 0);
	}
	snprintf(deep, sizeof deep, "%s/deep", dir);
	assert_int_equal(pq_zeek_files_add(&f, deep, &d), PQ_ETOOBIG);
	assert_non_null(strstr(pq_diag_msg(&d), "nested deeper than 16"));
	pq_zeek_files_free(&f);
}

static void is_gzip(void **state)
{
	(void)state;
	pq_diag d = {0};
	const char *gz = testdir_path("magic.log.gz");
	write_gzip(gz, "x", 1);
	assert_int_equal(pq_zeek_is_gzip(gz, &d), 1);
	assert_int_equal(pq_zeek_is_gzip(testdir_write("plain2.log", "\x1fx"), &d), 0);
	assert_int_equal(pq_zeek_is_gzip(testdir_write("short.log", "\x1f"), &d), 0);
	assert_int_equal(pq_zeek_is_gzip(testdir_write("empty.log", ""), &d), 0);
	const char *missing = testdir_path("missing.gz");
	assert_int_equal(pq_zeek_is_gzip(missing, &d), -ENOENT);
	assert_non_null(strstr(pq_diag_msg(&d), "cannot open"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(slurp), cmocka_unit_test(slurp_refused), cmocka_unit_test(files),
	    cmocka_unit_test(files_refused), cmocka_unit_test(is_gzip),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
