/* zeek/tsv: header-driven columns, separators from the header, unset/empty, rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "zeek/tsv.h"

static int hdr(pq_zeek_tsv *t, const char *line)
{
	char b[1024];
	snprintf(b, sizeof b, "%s", line);
	return pq_zeek_tsv_header(t, b, strlen(b));
}

static int row(const pq_zeek_tsv *t, char *buf, const char *line, pq_zeek_rec *r)
{
	strcpy(buf, line);
	return pq_zeek_tsv_row(t, buf, strlen(buf), r);
}

static void columns_from_header(void **state)
{
	(void)state;
	pq_zeek_tsv t;
	pq_zeek_rec r;
	char b[1024];
	pq_zeek_tsv_init(&t);
	/* No header yet. */
	assert_int_equal(row(&t, b, "1\t1.2.3.4", &r), PQ_EPARSE);
	assert_int_equal(r.bad, PQ_ZB_NOHEADER);
	assert_int_equal(hdr(&t, "#separator \\x09"), 0);
	assert_int_equal(hdr(&t, "#fields\tserver_name\tresumed\tuid\tid.resp_h\tversion\tts\tcurve"), 0);
	assert_int_equal(hdr(&t, "#types\tstring\tbool\tstring\taddr\tstring\ttime\tstring"), 0);
	assert_int_equal(t.col[PQ_ZC_RESP_H], 3);
	assert_int_equal(t.col[PQ_ZC_ESTABLISHED], -1);
	assert_int_equal(row(&t, b, "a\\x2cb.example\tT\tCx\t2001:db8::5\tTLSv13\t1700000000.5\tX25519MLKEM768", &r), 0);
	assert_int_equal(r.resp.fam, 6);
	assert_int_equal(r.version, PQ_ZV_TLSv13);
	assert_int_equal(r.resumed, 1);
	assert_int_equal(r.established, PQ_ZEEK_UNKNOWN); /* no column: unknown, not false */
	assert_int_equal(r.server_name_len, 11);
	assert_memory_equal(r.server_name, "a,b.example", 11);
	assert_memory_equal(r.curve, "X25519MLKEM768", 14);
	assert_true(r.has_ts);
	assert_int_equal(r.ts, 1700000000);
	/* Unset and empty. */
	assert_int_equal(row(&t, b, "(empty)\t-\t-\t192.0.2.1\t-\tXXXXXXXXXX.XXXXXX\t-", &r), 0);
	assert_null(r.server_name);
	assert_null(r.curve);
	assert_int_equal(r.version, PQ_ZV_UNSET);
	assert_int_equal(r.resumed, PQ_ZEEK_UNKNOWN);
	assert_false(r.has_ts);
}

static void custom_separators(void **state)
{
	(void)state;
	pq_zeek_tsv t;
	pq_zeek_rec r;
	char b[1024];
	pq_zeek_tsv_init(&t);
	assert_int_equal(hdr(&t, "#separator |"), 0);
	assert_int_equal(hdr(&t, "#empty_field|EMPTY"), 0);
	assert_int_equal(hdr(&t, "#unset_field|NOT-SET"), 0);
	assert_int_equal(hdr(&t, "#fields|id.resp_h|server_name|resumed"), 0);
	assert_int_equal(row(&t, b, "1.2.3.4|EMPTY|NOT-SET", &r), 0);
	assert_null(r.server_name);
	assert_int_equal(r.resumed, PQ_ZEEK_UNKNOWN);
	assert_int_equal(row(&t, b, "1.2.3.4|\\x2d|F", &r), 0); /* an escaped '-' is a value */
	assert_memory_equal(r.server_name, "-", 1);
	assert_int_equal(r.resumed, 0);
	/* A tab inside a field is binary garbage here only if it is not the separator. */
	assert_int_equal(row(&t, b, "1.2.3.4|a\tb|F", &r), PQ_EPARSE);
	assert_int_equal(r.bad, PQ_ZB_BINARY);
}

static void bad_rows(void **state)
{
	(void)state;
	pq_zeek_tsv t;
	pq_zeek_rec r;
	char b[1024];
	pq_zeek_tsv_init(&t);
	assert_int_equal(hdr(&t, "#fields\tts\tid.resp_h\tresumed\tserver_name\testablished"), 0);
	struct {
		const char *line;
		int why;
	} cases[] = {
		{"1\t1.2.3.4\tT\tx", PQ_ZB_FIELDS},
		{"1\t1.2.3.4\tT\tx\tT\textra", PQ_ZB_FIELDS},
		{"1\t1.2.3.4.5\tT\tx\tT", PQ_ZB_ADDR},
		{"1\t-\tT\tx\tT", PQ_ZB_ADDR},
		{"1\t1.2.3.4\tyes\tx\tT", PQ_ZB_VALUE},
		{"1\t1.2.3.4\tT\tx\tmaybe", PQ_ZB_VALUE},
		{"1\t1.2.3.4\tT\tbad\\xQQ\tT", PQ_ZB_ESCAPE},
		{"1\t1.2.3.4\tT\tx\x01y\tT", PQ_ZB_BINARY},
		/* The control byte past the first 16 bytes (the vector path) and before. */
		{"1\t1.2.3.4\tT\tabcdefghijklmnopqrstuvw\x7fz\x02\tT", PQ_ZB_BINARY},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		assert_int_equal(row(&t, b, cases[i].line, &r), PQ_EPARSE);
		assert_int_equal(r.bad, cases[i].why);
	}
	/* 0x7f and bytes >= 0x80 are not control bytes by Zeek's escaping: the row is fine. */
	assert_int_equal(row(&t, b, "1\t1.2.3.4\tT\tabcdefghijklmnopqrs\x7f\xc3\xa9\tT", &r), 0);
}

static void bad_headers(void **state)
{
	(void)state;
	pq_zeek_tsv t;
	pq_zeek_rec r;
	char b[1024];
	pq_zeek_tsv_init(&t);
	assert_int_equal(hdr(&t, "#separator \\x09\\x09"), PQ_EPARSE);
	assert_int_equal(hdr(&t, "#separator \\xZZ"), PQ_EPARSE);
	/* a newline cannot separate fields: said so, and the rows under it are the header's */
	assert_int_equal(hdr(&t, "#separator \\x0a"), PQ_EPARSE);
	assert_non_null(strstr(t.bad_detail, "newline"));
	assert_null(strstr(t.bad_detail, "not one byte"));
	assert_int_equal(row(&t, b, "1\tTLSv13", &r), PQ_EPARSE);
	assert_int_equal(r.bad, PQ_ZB_HEADER);
	assert_int_equal(hdr(&t, "#fields\tid.resp_h\tversion"), PQ_EPARSE); /* still the block's separator */
	assert_non_null(strstr(t.bad_detail, "newline"));
	assert_int_equal(row(&t, b, "1.2.3.4\tTLSv13", &r), PQ_EPARSE);
	assert_int_equal(r.bad, PQ_ZB_HEADER);
	assert_int_equal(hdr(&t, "#separator \\x09"), 0);
	assert_int_equal(hdr(&t, "#fields\tts\tversion"), PQ_EPARSE); /* no id.resp_h */
	assert_non_null(strstr(t.bad_detail, "id.resp_h"));
	assert_int_equal(row(&t, b, "1\tTLSv13", &r), PQ_EPARSE);
	assert_int_equal(r.bad, PQ_ZB_HEADER);
	assert_int_equal(hdr(&t, "#fields\tid.resp_h\tid.resp_h"), PQ_EPARSE);
	assert_int_equal(row(&t, b, "1.2.3.4\t1.2.3.4", &r), PQ_EPARSE);
	assert_int_equal(r.bad, PQ_ZB_HEADER); /* under an unusable header, not "before any" */
	pq_zeek_span sp[PQ_ZEEK_TSV_MAXCOLS];
	int why = 0;
	snprintf(b, sizeof b, "1.2.3.4\t1.2.3.4");
	assert_int_equal(pq_zeek_tsv_split(&t, b, strlen(b), sp, &why), PQ_EPARSE);
	assert_int_equal(why, PQ_ZB_HEADER);
	assert_int_equal(hdr(&t, "#fields\tid.resp_h\tversion"), 0); /* a new block: usable again */
	assert_int_equal(row(&t, b, "1.2.3.4\tTLSv12", &r), 0);
	assert_int_equal(hdr(&t, "#types\taddr"), PQ_EPARSE);
	assert_int_equal(hdr(&t, "#empty_field\t0123456789012345678901234567890123456789"), PQ_EPARSE);
	assert_int_equal(hdr(&t, "#set_separator\t,,"), PQ_EPARSE);
	assert_int_equal(hdr(&t, "#path\tssl"), 0);
	assert_int_equal(hdr(&t, "#close\t2026-01-01-00-00-00"), 0);
	assert_int_equal(t.blocks, 4);
}

/* Rows with more fields than pqtls notes (512): still counted exactly, in both the
 * vector steps and the byte loop at the end of the input. */
static void many_fields(void **state)
{
	(void)state;
	pq_zeek_tsv t;
	pq_zeek_rec r;
	static char b[4096];
	pq_zeek_tsv_init(&t);
	assert_int_equal(hdr(&t, "#fields	ts	id.resp_h	resumed	server_name	established"), 0);
	size_t n = (size_t)snprintf(b, sizeof b, "1	1.2.3.4	T	x	T");
	for (int i = 0; i < 700 - 5; i++)
		b[n++] = '\t';
	b[n] = '\0';
	assert_int_equal(pq_zeek_tsv_row(&t, b, n, &r), PQ_EPARSE);
	assert_int_equal(r.bad, PQ_ZB_FIELDS);
	assert_string_equal(r.bad_detail, "700 fields, header has 5");
	size_t got = 0;
	b[n++] = '\n';
	assert_int_equal(pq_zeek_tsv_row_next(&t, b, n, &r, &got), PQ_EPARSE);
	assert_string_equal(r.bad_detail, "700 fields, header has 5");
	assert_int_equal(got, n - 1);
	/* A separator as the last byte of the first 32-byte step (after the address). */
	char e[] = "1700000000.123456\t198.51.100.77\tF\tname-ending-at-32\tT\n";
	assert_int_equal(pq_zeek_tsv_row_next(&t, e, strlen(e), &r, &got), 0);
	assert_int_equal(r.resumed, 0);
	assert_int_equal(r.established, 1);
	assert_int_equal(r.server_name_len, strlen("name-ending-at-32"));
	assert_memory_equal(r.server_name, "name-ending-at-32", r.server_name_len);
	assert_int_equal(r.resp.b[3], 77);
}

/* One pass over a buffer: rows end at their newline; a partial row asks for more. */
static void rows_in_a_buffer(void **state)
{
	(void)state;
	pq_zeek_tsv t;
	pq_zeek_rec r;
	size_t n = 0;
	pq_zeek_tsv_init(&t);
	char none[] = "1\t1.2.3.4\n";
	assert_int_equal(pq_zeek_tsv_row_next(&t, none, strlen(none), &r, &n), PQ_EPARSE);
	assert_int_equal(r.bad, PQ_ZB_NOHEADER);
	assert_int_equal(n, 9);
	assert_int_equal(hdr(&t, "#fields\tts\tid.resp_h\tserver_name"), 0);
	/* Rows longer and shorter than the 16-byte vector, a control byte before the newline. */
	char buf[] = "1\t192.0.2.1\ta-rather-long-server-name.example\n2\t::1\tb\n3\t192.0.2.3\tx\x01y\n4\t192.0.2.4\tpart";
	char *p = buf;
	size_t avail = strlen(buf);
	assert_int_equal(pq_zeek_tsv_row_next(&t, p, avail, &r, &n), 0);
	assert_int_equal(n, strlen("1\t192.0.2.1\ta-rather-long-server-name.example"));
	assert_memory_equal(r.server_name, "a-rather-long-server-name.example", r.server_name_len);
	p += n + 1, avail -= n + 1;
	assert_int_equal(pq_zeek_tsv_row_next(&t, p, avail, &r, &n), 0);
	assert_int_equal(n, 7);
	assert_int_equal(r.resp.fam, 6);
	p += n + 1, avail -= n + 1;
	assert_int_equal(pq_zeek_tsv_row_next(&t, p, avail, &r, &n), PQ_EPARSE);
	assert_int_equal(r.bad, PQ_ZB_BINARY);
	assert_int_equal(n, strlen("3\t192.0.2.3\tx\x01y"));
	p += n + 1, avail -= n + 1;
	assert_int_equal(pq_zeek_tsv_row_next(&t, p, avail, &r, &n), 1); /* no newline yet */
	/* A control byte in a row with no newline after it: still "read more". */
	char cut[] = "5\t192.0.2.5\t\x02 and more than sixteen bytes";
	assert_int_equal(pq_zeek_tsv_row_next(&t, cut, strlen(cut), &r, &n), 1);
	/* Fields after the newline are not this row's. */
	char two[] = "6\t192.0.2.6\n7\t192.0.2.7\tz\n";
	assert_int_equal(pq_zeek_tsv_row_next(&t, two, strlen(two), &r, &n), PQ_EPARSE);
	assert_int_equal(r.bad, PQ_ZB_FIELDS);
	assert_int_equal(n, 11);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(columns_from_header),
		cmocka_unit_test(custom_separators),
		cmocka_unit_test(bad_rows),
		cmocka_unit_test(bad_headers),
		cmocka_unit_test(rows_in_a_buffer),
		cmocka_unit_test(many_fields),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
