#include "core/text.h"

#include <stdio.h>
#include <string.h>

size_t pq_text_utf8_next(const unsigned char *s, size_t avail, unsigned *cp)
{
	static const unsigned min[5] = {0, 0, 0x80, 0x800, 0x10000};
	size_t len = s[0] < 0x80	     ? 1
		     : (s[0] & 0xe0) == 0xc0 ? 2
		     : (s[0] & 0xf0) == 0xe0 ? 3
		     : (s[0] & 0xf8) == 0xf0 ? 4
					     : 0;
	if (!len || len > avail)
		return 0;
	unsigned c = len == 1 ? s[0] : s[0] & (0x7fu >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3fu);
	}
	if (c < min[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

int pq_text_deceptive(unsigned c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x61c || c == 0x200e || c == 0x200f ||
	       (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/* The escaped form of the character at s (len bytes left) into tmp; its bytes in *used. */
static const char *shown_one(const unsigned char *s, size_t len, char tmp[16], size_t *used)
{
	unsigned c = 0;
	size_t l = pq_text_utf8_next(s, len, &c);
	*used = l ? l : 1;
	if (!l)
		snprintf(tmp, 16, "\\x%02x", s[0]);
	else if (pq_text_deceptive(c))
		snprintf(tmp, 16, c < 0x80 ? "\\x%02x" : "\\u%04x", c);
	else if (c == '\\')
		return "\\\\";
	else
		snprintf(tmp, 16, "%.*s", (int)l, (const char *)s);
	return tmp;
}

/* Writes the escaped text into buf up to `room` bytes (not counting the NUL); returns the
 * bytes of s written whole. */
static size_t shown_upto(const unsigned char *s, size_t len, char *buf, size_t room, size_t *out)
{
	size_t i = 0, o = 0;
	while (i < len) {
		char tmp[16];
		size_t used;
		const char *rep = shown_one(s + i, len - i, tmp, &used);
		size_t rl = strlen(rep);
		if (o + rl > room)
			break;
		if (buf)
			memcpy(buf + o, rep, rl);
		o += rl;
		i += used;
	}
	*out = o;
	return i;
}

const char *pq_text_shown(const char *str, size_t len, char *buf, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t o;
	if (shown_upto(s, len, NULL, n - 1, &o) == len) { /* whole */
		shown_upto(s, len, buf, n - 1, &o);
		buf[o] = '\0';
		return buf;
	}
	/* cut before the first character that does not fit whole with "..." after it */
	shown_upto(s, len, buf, n > 4 ? n - 4 : 0, &o);
	snprintf(buf + o, n - o, "%s", n > 4 ? "..." : "");
	return buf;
}

const char *pq_text_clip(const char *src, char *buf, size_t n)
{
	size_t len = strlen(src);
	if (len < n) {
		memcpy(buf, src, len + 1);
		return buf;
	}
	size_t cut = n - 4; /* room for "..." and the NUL */
	while (cut > 0 && src[cut] != ' ')
		cut--;
	while (cut > 0 && strchr(" ,;:(", src[cut - 1]))
		cut--; /* no dangling separator before the dots */
	if (cut == 0)
		cut = n - 4; /* one word fills it: cut that word */
	memcpy(buf, src, cut);
	memcpy(buf + cut, "...", 4);
	return buf;
}
