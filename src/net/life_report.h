/* A held link's failure report: DIR/NAME.down, left by the link's holder when taking the
 * link down failed, taken by whoever took the link down (net/life.h; DIR is PQ_LIFE_DIR
 * there, a directory of the caller's in tests).
 *
 * DIR is pqtls's own: made 0700 when absent, and used only while it is a directory (not
 * a symbolic link) owned by this user that no one else can write. The report is written
 * under a temporary name made with O_CREAT|O_EXCL (mkstemp: never through anything
 * planted) and renamed into place; it is read with O_NOFOLLOW|O_NONBLOCK and taken only
 * when it is a regular file. Anything else found there (a symbolic link, a FIFO) is named
 * and refused, without reading, following or waiting on it. */
#ifndef PQ_NET_LIFE_REPORT_H
#define PQ_NET_LIFE_REPORT_H

#include "core/err.h"

/* Puts msg in place as NAME's report (whole or not at all). 0, or an error in d. */
int pq_life_report_put(const char *dir, const char *name, const char *msg, pq_diag *d) PQ_MUST_USE;

/* NAME's report, taken (removed), as d's message "link NAME is down, but its last step
 * failed: MSG" with PQ_EIO; 0 when there is none. PQ_EIO too, with a message naming the
 * file and what it is, when something other than a report is there (left in place). */
int pq_life_report_take(const char *dir, const char *name, pq_diag *d) PQ_MUST_USE;

#endif
