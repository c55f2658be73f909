/* zeek/run, scan, input: files cut into chunks on every thread give the counts of one
 * thread; a chunk learns the header in effect at its start (several header blocks, a
 * separator change); skipped lines carry their line in the file, whatever the chunk;
 * gzip is read whole; directories expand to their ssl logs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testdir.h"

#include "zeek/report.h"
#include "zeek/run.h"
#include "zeek/scan.h"

static char path[300], gzpath[300];

/* Three header blocks: tab, then '|' with other column order, then tab again; a bad row
 * at known lines. */
static void make_log(void)
{
	snprintf(path, sizeof path, "%s/ssl.log", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	int line = 0;
	for (int block = 0; block < 3; block++) {
		if (block == 1) {
			fprintf(f, "#separator |\n#fields|resumed|id.resp_h|version|ts\n#types|bool|addr|string|time\n");
			line += 3;
		} else {
			fprintf(f, "#separator \\x09\n#set_separator\t,\n#fields\tts\tid.resp_h\tversion\tresumed\n"
				   "#types\ttime\taddr\tstring\tbool\n");
			line += 4;
		}
		for (int i = 0; i < 3000; i++) {
			line++;
			const char *res = i % 3 ? "F" : "T";
			if (i == 1234)
				fprintf(f, "garbage line %d\n", line); /* wrong field count */
			else if (block == 1)
				fprintf(f, "%s|10.0.%d.%d|TLSv1%d|%d.5\n", res, i % 7, i % 200, 2 + i % 2, 1700000000 + i * 60);
			else
				fprintf(f, "%d.5\t10.0.%d.%d\tTLSv1%d\t%s\n", 1700000000 + i * 60, i % 7, i % 200, 2 + i % 2, res);
		}
	}
	fclose(f);
	char cmd[700];
	snprintf(gzpath, sizeof gzpath, "%s/ssl.1.log.gz", dir);
	snprintf(cmd, sizeof cmd, "gzip -c %s > %s", path, gzpath);
	assert_int_equal(system(cmd), 0);
}

static void run_with(const char *file, int threads, size_t chunk, pq_zeek_agg *a)
{
	pq_zeek_files files = {0};
	pq_diag d = {0};
	assert_int_equal(pq_zeek_files_add(&files, file, &d), 0);
	pq_zeek_run_cfg cfg = {threads, chunk, NULL};
	pq_zeek_agg_init(a, NULL);
	assert_int_equal(pq_zeek_run(&files, &cfg, a, &d), 0);
	pq_zeek_files_free(&files);
}

static void chunks_equal_one_thread(void **state)
{
	(void)state;
	pq_zeek_agg one;
	run_with(path, 1, (size_t)1 << 30, &one);
	assert_int_equal(one.rows, 3 * 2999);
	assert_int_equal(one.bad[PQ_ZB_FIELDS], 3);
	assert_int_equal(one.header_blocks, 3);
	assert_int_equal(one.nsamples, 3);
	assert_int_equal(one.samples[0].line, 4 + 1235);
	assert_int_equal(one.samples[1].line, 4 + 3000 + 3 + 1235);
	assert_int_equal(one.samples[2].line, 4 + 3000 + 3 + 3000 + 4 + 1235);
	size_t chunks[] = {1, 100, 4096, 65536};
	int threads[] = {1, 2, 3, 4};
	for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
		pq_zeek_agg m;
		run_with(path, threads[c], chunks[c], &m);
		assert_memory_equal(one.cat, m.cat, sizeof one.cat);
		assert_int_equal(one.rows, m.rows);
		assert_int_equal(one.header_blocks, m.header_blocks);
		assert_int_equal(m.nsamples, 3);
		for (int i = 0; i < 3; i++)
			assert_int_equal(one.samples[i].line, m.samples[i].line);
		assert_int_equal(one.days.len, m.days.len);
		pq_zeek_agg_dispose(&m);
	}
	pq_zeek_agg gz;
	run_with(gzpath, 2, 100, &gz);
	assert_memory_equal(one.cat, gz.cat, sizeof one.cat);
	assert_int_equal(gz.samples[2].line, one.samples[2].line);
	pq_zeek_agg_dispose(&gz);
	/* The directory holds both: twice the rows, files sorted. */
	pq_zeek_agg both;
	run_with(dir, 2, 4096, &both);
	assert_int_equal(both.rows, 2 * one.rows);
	assert_int_equal(both.files, 2);
	pq_zeek_agg_dispose(&both);
	pq_zeek_agg_dispose(&one);
}

static void scan_truncated_and_json(void **state)
{
	(void)state;
	pq_zeek_agg a;
	pq_zeek_scan s;
	pq_zeek_agg_init(&a, NULL);
	pq_zeek_scan_init(&s, &a, "x.json", 0, 1);
	char buf[] = "{\"id.resp_h\":\"1.2.3.4\"}\n\n{bad\n{\"id.resp_h\":\"1.2.3.5\"}";
	long used = pq_zeek_scan_buf(&s, buf, strlen(buf), 0);
	assert_int_equal(used, (long)(strchr(strchr(buf, '{') + 1, '{') - buf) + 5); /* up to "{bad\n" */
	assert_int_equal(a.rows, 1);
	assert_int_equal(a.bad[PQ_ZB_JSON], 1);
	used = pq_zeek_scan_buf(&s, buf + used, strlen(buf + used), 1);
	assert_true(used > 0);
	assert_int_equal(a.bad[PQ_ZB_TRUNCATED], 1);
	assert_int_equal(a.samples[1].line, 4);
	/* A TSV file whose first line is damaged, then JSON rows: the rows are still read. */
	pq_zeek_scan_init(&s, &a, "y.log", 0, 0);
	char mixed[] = "garbage\n{\"id.resp_h\":\"1.2.3.6\"}\n";
	assert_int_equal(pq_zeek_scan_buf(&s, mixed, strlen(mixed), 1), (long)strlen(mixed));
	assert_int_equal(a.rows, 2);
	assert_int_equal(a.bad[PQ_ZB_NOHEADER], 1);
	pq_zeek_agg_dispose(&a);
}

static void input_errors(void **state)
{
	(void)state;
	pq_zeek_files files = {0};
	pq_diag d = {0};
	assert_int_not_equal(pq_zeek_files_add(&files, "/nonexistent/ssl.log", &d), 0);
	assert_non_null(strstr(d.msg, "/nonexistent/ssl.log"));
	char sub[400];
	snprintf(sub, sizeof sub, "%s/empty", dir);
	char cmd[1400];
	snprintf(cmd, sizeof cmd, "mkdir -p %s && touch %s/x509.log %s/notes.txt", sub, sub, sub);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(pq_zeek_files_add(&files, sub, &d), PQ_EINVAL);
	assert_non_null(strstr(d.msg, "no ssl log files"));
	char *text = NULL;
	size_t len = 0;
	assert_int_equal(pq_zeek_slurp(gzpath, 1 << 20, &text, &len, &d), 0); /* gunzipped */
	assert_int_equal(strncmp(text, "#separator", 10), 0);
	free(text);
	assert_int_equal(pq_zeek_slurp(path, 1024, &text, &len, &d), PQ_ETOOBIG);
	assert_int_equal(pq_zeek_is_gzip(gzpath, &d), 1);
	assert_int_equal(pq_zeek_is_gzip(path, &d), 0);
	pq_zeek_files_free(&files);
}

static int setup(void **state)
{
	if (testdir_setup(state))
		return -1;
	make_log();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(chunks_equal_one_thread),
		cmocka_unit_test(scan_truncated_and_json),
		cmocka_unit_test(input_errors),
	};
	return cmocka_run_group_tests(tests, setup, testdir_teardown);
}
