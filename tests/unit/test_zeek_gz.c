/* zeek/gz: a gzip log read member after member, a plain file as it is, and what zlib's
 * gzread drops in silence (data after the last member that is not gzip) named with its
 * offset, as a cut or damaged stream is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "testdir.h"

#include "zeek/gz.h"

/* Appends `text` to path as one gzip member. */
static void add_member(const char *path, const char *text)
{
	gzFile g = gzopen(path, "ab");
	assert_non_null(g);
	assert_int_equal(gzwrite(g, text, (unsigned)strlen(text)), (int)strlen(text));
	assert_int_equal(gzclose(g), Z_OK);
}

static void add_plain(const char *path, const char *text)
{
	FILE *f = fopen(path, "ab");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static long file_size(const char *path)
{
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	return (long)st.st_size;
}

/* The whole of path through the reader, in small reads (so members and refills meet
 * the buffer's edges), with what ended it. */
static char *read_all(const char *path, enum pq_zeek_gz_end *end, char *trouble, size_t n)
{
	pq_zeek_gz *g;
	pq_diag d = {0};
	assert_int_equal(pq_zeek_gz_open(path, &g, &d), 0);
	static char out[1 << 16];
	size_t got = 0;
	long r;
	while ((r = pq_zeek_gz_read(g, out + got, got + 7 < sizeof out ? 7 : sizeof out - got - 1, &d)) > 0)
		got += (size_t)r;
	assert_int_equal(r, 0);
	out[got] = '\0';
	*end = pq_zeek_gz_trouble_kind(g);
	snprintf(trouble, n, "%s", pq_zeek_gz_trouble(g));
	pq_zeek_gz_free(g);
	return out;
}

static void members_and_plain(void **state)
{
	(void)state;
	char path[300], trouble[200];
	enum pq_zeek_gz_end end;
	snprintf(path, sizeof path, "%s/two.log.gz", dir);
	add_member(path, "first line\n");
	add_member(path, "second line\n");
	assert_string_equal(read_all(path, &end, trouble, sizeof trouble), "first line\nsecond line\n");
	assert_int_equal(end, PQ_ZGZ_OK);
	assert_string_equal(trouble, "");
	/* not gzip at all: as it is */
	const char *plain = testdir_write("plain.log", "a\nb\n");
	assert_string_equal(read_all(plain, &end, trouble, sizeof trouble), "a\nb\n");
	assert_int_equal(end, PQ_ZGZ_OK);
	const char *empty = testdir_write("empty.log", "");
	assert_string_equal(read_all(empty, &end, trouble, sizeof trouble), "");
	assert_int_equal(end, PQ_ZGZ_OK);
}

/* Rows appended uncompressed after a member: the member is read, the rest is named with
 * the byte where it starts (zlib's gzread ended there with no word). */
static void tail_not_gzip(void **state)
{
	(void)state;
	char path[300], trouble[200], want[200];
	enum pq_zeek_gz_end end;
	snprintf(path, sizeof path, "%s/tail.log.gz", dir);
	add_member(path, "row 1\n");
	long member = file_size(path);
	add_plain(path, "row 2\n");
	assert_string_equal(read_all(path, &end, trouble, sizeof trouble), "row 1\n");
	assert_int_equal(end, PQ_ZGZ_TAIL);
	snprintf(want, sizeof want, "from byte %ld: not gzip after a whole gzip stream", member);
	if (!strstr(trouble, want))
		fail_msg("'%s' lacks '%s'", trouble, want);
	assert_true(strlen(trouble) < 96); /* whole in a report's sample */
	/* a cut stream: what came before, and the cut */
	char cut[300];
	snprintf(cut, sizeof cut, "%s/cut.log.gz", dir);
	FILE *in = fopen(path, "rb"), *out = fopen(cut, "wb");
	assert_true(in && out);
	char buf[512];
	size_t n = fread(buf, 1, (size_t)member - 9, in); /* the trailer and a little data gone */
	assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	fclose(out);
	read_all(cut, &end, trouble, sizeof trouble);
	assert_int_equal(end, PQ_ZGZ_DAMAGED);
	assert_non_null(strstr(trouble, "unexpected end of file"));
	/* a file that cannot be opened is named */
	pq_zeek_gz *g;
	pq_diag d = {0};
	assert_true(pq_zeek_gz_open("/nonexistent/ssl.log.gz", &g, &d) < 0);
	assert_non_null(strstr(d.msg, "/nonexistent/ssl.log.gz: cannot open"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(members_and_plain),
		cmocka_unit_test(tail_not_gzip),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
