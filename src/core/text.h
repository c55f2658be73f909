/* Text from outside (a database, a peer, a log) as messages show it: never a control
 * character, a bidirectional override or a byte that is not UTF-8 put raw on a terminal,
 * and never cut in the middle of a word or of an escape.
 *
 * The rule of what is escaped is here once: report/out.c's writers (terminal, HTML,
 * Markdown) and the readers' messages (exp/rdb.c, exp/merge.c) all use it. Control
 * characters (C0 with NUL, DEL, C1), the bidirectional formatting characters (U+061C,
 * U+200E-200F, U+202A-202E, U+2066-2069) and bytes that are not shortest-form UTF-8 are
 * written \x1b, \u202e, \xff; a backslash as \\, so no escape is mistaken for a byte. */
#ifndef PQ_CORE_TEXT_H
#define PQ_CORE_TEXT_H

#include <stddef.h>

/* The code point at s (UTF-8, at most 4 bytes; s holds at least `avail`) into *cp and its
 * length in bytes, or 0 for a byte that does not start a valid, shortest-form sequence. */
size_t pq_text_utf8_next(const unsigned char *s, size_t avail, unsigned *cp);

/* A control character or a bidirectional formatting character. */
int pq_text_deceptive(unsigned cp);

/* The `len` bytes at s (NULs included), escaped as above, into buf (n > 0): cut before
 * an escape or a character that would not fit whole, with "..." then. Returns buf. */
const char *pq_text_shown(const char *s, size_t len, char *buf, size_t n);

/* src into buf (n > 3): whole when it fits, else cut at the last space before the room
 * runs out (mid-word only when one word fills it) and "..." added. Returns buf. */
const char *pq_text_clip(const char *src, char *buf, size_t n);

#endif
