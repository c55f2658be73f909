#include "zeek/rec.h"

#include <arpa/inet.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

void pq_zeek_rec_clear(pq_zeek_rec *r)
{
	memset(r, 0, offsetof(pq_zeek_rec, bad_detail)); /* the detail is set with bad */
	r->bad_detail[0] = '\0';
	r->version = PQ_ZV_UNSET;
	r->resumed = r->established = PQ_ZEEK_UNKNOWN;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

long pq_zeek_unescape(char *s, size_t len)
{
	char *q = memchr(s, '\\', len);
	if (!q)
		return (long)len;
	size_t o = (size_t)(q - s);
	for (size_t i = o; i < len;) {
		if (s[i] != '\\') {
			s[o++] = s[i++];
			continue;
		}
		if (i + 1 < len && s[i + 1] == '\\') {
			s[o++] = '\\';
			i += 2;
			continue;
		}
		if (i + 3 >= len || s[i + 1] != 'x')
			return -1;
		int h = hexval(s[i + 2]), l = hexval(s[i + 3]);
		if (h < 0 || l < 0)
			return -1;
		s[o++] = (char)(h * 16 + l);
		i += 4;
	}
	return (long)o;
}

/* Dotted quad, strictly: four decimal parts 0-255, no signs, no spaces. */
static int parse_v4(const char *s, size_t len, uint8_t out[4])
{
	size_t i = 0;
	for (int part = 0; part < 4; part++) {
		unsigned v = 0;
		size_t start = i;
		for (; i < len && i - start < 4; i++) {
			unsigned d = (unsigned)(unsigned char)s[i] - '0'; /* one test for '0'..'9' */
			if (d > 9)
				break;
			v = v * 10 + d;
		}
		if (i == start || i - start > 3 || v > 255)
			return -1;
		out[part] = (uint8_t)v;
		if (part < 3 && (i >= len || s[i++] != '.'))
			return -1;
	}
	return i == len ? 0 : -1;
}

int pq_zeek_addr_parse(const char *s, size_t len, pq_zeek_addr *a)
{
	memset(a, 0, sizeof *a);
	a->fam = 4;
	if (!parse_v4(s, len, a->b))
		return 0;
	memset(a, 0, sizeof *a);
	if (!memchr(s, ':', len))
		return -1;
	char tmp[64];
	if (len >= sizeof tmp)
		return -1;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	if (inet_pton(AF_INET6, tmp, a->b) != 1)
		return -1;
	a->fam = 6;
	return 0;
}

void pq_zeek_addr_format(const pq_zeek_addr *a, char *buf, size_t size)
{
	if (!inet_ntop(a->fam == 4 ? AF_INET : AF_INET6, a->b, buf, (socklen_t)size))
		snprintf(buf, size, "?");
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static int digits(const char *s, size_t n, int *out)
{
	int v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

static int parse_iso(const char *s, size_t len, int64_t *secs)
{
	int y, mo, d, h, mi, se;
	if (len < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':')
		return -1;
	if (digits(s, 4, &y) || digits(s + 5, 2, &mo) || digits(s + 8, 2, &d) ||
	    digits(s + 11, 2, &h) || digits(s + 14, 2, &mi) || digits(s + 17, 2, &se))
		return -1;
	/* The day must exist in its month: 2023-02-30 is no date (not March 2). */
	static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] + (mo == 2 && leap) || h > 23 || mi > 59 || se > 60)
		return -1;
	size_t i = 19;
	if (s[i] == '.') {
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			;
	}
	if (i + 1 != len || s[i] != 'Z')
		return -1;
	*secs = days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + se;
	return 0;
}

int pq_zeek_time_parse(const char *s, size_t len, int64_t *secs)
{
	if (len >= 20 && s[4] == '-')
		return parse_iso(s, len, secs);
	size_t i = 0;
	int neg = len && s[0] == '-';
	i += (size_t)neg;
	int64_t v = 0;
	size_t start = i;
	for (; i < len; i++) {
		unsigned d = (unsigned)(unsigned char)s[i] - '0'; /* one test for '0'..'9' */
		if (d > 9)
			break;
		if (i - start >= 15)
			return -1;
		v = v * 10 + d;
	}
	if (i == start)
		return -1;
	if (i < len && s[i] == '.') {
		size_t f = ++i;
		while (i < len && (unsigned)(unsigned char)s[i] - '0' <= 9)
			i++;
		if (i == f)
			return -1;
		/* Floor for negative times with a fraction: -0.5 is in the day before 1970. */
		if (neg) {
			for (size_t k = f; k < i; k++)
				if (s[k] != '0') {
					v++;
					break;
				}
		}
	}
	if (i != len)
		return -1;
	*secs = neg ? -v : v;
	return 0;
}

static const char *const ver_names[] = {
#define PQ_ZEEK_VER_NAME(id, name) name,
	PQ_ZEEK_VERSIONS(PQ_ZEEK_VER_NAME)
#undef PQ_ZEEK_VER_NAME
};

/* Their lengths, so that a row's version is found without a strlen per name (and the
 * last byte is compared before memcmp is called: TLSv10 to TLSv13 differ only there). */
static const unsigned char ver_lens[] = {
#define PQ_ZEEK_VER_LEN(id, name) sizeof(name) - 1,
	PQ_ZEEK_VERSIONS(PQ_ZEEK_VER_LEN)
#undef PQ_ZEEK_VER_LEN
};

int pq_zeek_version(const char *s, size_t len)
{
	for (int v = PQ_ZV_SSLv2; v < PQ_ZV_OTHER; v++)
		if (ver_lens[v] == len && s[len - 1] == ver_names[v][len - 1] && !memcmp(ver_names[v], s, len))
			return v;
	return PQ_ZV_OTHER;
}

const char *pq_zeek_version_name(int v)
{
	return v >= 0 && v < PQ_ZV_COUNT ? ver_names[v] : "?";
}

int pq_zeek_bool(const char *s, size_t len)
{
	if (len == 1 && s[0] == 'T')
		return 1;
	if (len == 1 && s[0] == 'F')
		return 0;
	return -1;
}

static const char *const bad_text[] = {
	"ok",
#define PQ_ZEEK_BAD_TEXT(id, text) text,
	PQ_ZEEK_BAD_TABLE(PQ_ZEEK_BAD_TEXT)
#undef PQ_ZEEK_BAD_TEXT
};

static const char *const bad_name[] = {
	"none",
#define PQ_ZEEK_BAD_NAME(id, text) #id,
	PQ_ZEEK_BAD_TABLE(PQ_ZEEK_BAD_NAME)
#undef PQ_ZEEK_BAD_NAME
};

const char *pq_zeek_bad_text(int why)
{
	return why >= 0 && why < PQ_ZB_COUNT ? bad_text[why] : "?";
}

const char *pq_zeek_bad_name(int why)
{
	return why >= 0 && why < PQ_ZB_COUNT ? bad_name[why] : "?";
}
