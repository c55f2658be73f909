/* pqtls error codes and diagnostics.
 *
 * Contract: fallible functions return int, 0 on success and a negative value on
 * failure: either -errno from the system or one of the PQ_E* codes below. The one
 * message table is PQ_ERR_TABLE; pq_strerror() maps any such value to text.
 *
 * Functions that can fail for reasons a user should see also take a pq_diag*, into
 * which they write one sentence naming the input, what was wrong and what would be
 * accepted. pq_diag_set() returns the code it is given, so a failure reads as
 *     return pq_diag_set(d, PQ_EINVAL, "%s: '%s' is not a duration (e.g. 50ms)", what, s);
 * where `what` is the caller's name for the input (core/names.h).
 * A NULL pq_diag is allowed everywhere and simply discards the text. */
#ifndef PQ_CORE_ERR_H
#define PQ_CORE_ERR_H

#include <stdarg.h>
#include <stddef.h>

#define PQ_MUST_USE __attribute__((warn_unused_result))
/* A numeric constant as the text option tables and help write it: PQ_STR(PQ_X) "1500". */
#define PQ_STR_(x) #x
#define PQ_STR(x) PQ_STR_(x)
#define PQ_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* X-macro table: name, value, message. Values start well above any errno. */
#define PQ_ERR_TABLE(X)                                                              \
	X(PQ_EINVAL, 1000, "invalid argument")                                       \
	X(PQ_EUSAGE, 1001, "usage error")                                            \
	X(PQ_ERANGE, 1002, "value out of range")                                     \
	X(PQ_ENOMEM, 1003, "out of memory")                                          \
	X(PQ_ETOOBIG, 1004, "size limit exceeded")                                   \
	X(PQ_EPARSE, 1005, "malformed input")                                        \
	X(PQ_EUNSUPPORTED, 1006, "not supported")                                    \
	X(PQ_EEXIST, 1007, "already exists")                                         \
	X(PQ_EIO, 1008, "input/output error")                                        \
	X(PQ_ETLS, 1009, "TLS library error")                                        \
	X(PQ_ETIMEOUT, 1010, "timed out")                                            \
	X(PQ_EPROTO, 1011, "protocol error")                                         \
	X(PQ_EPERM, 1012, "insufficient privileges")                                 \
	X(PQ_ESTATE, 1013, "operation not valid in this state")                     \
	X(PQ_EVERIFY, 1014, "verification failed")                                   \
	X(PQ_EMISMATCH, 1015, "negotiated parameters differ from those requested")  \
	X(PQ_ECHILD, 1016, "child process failed")                                   \
	X(PQ_EINTERRUPTED, 1017, "interrupted by signal")

enum pq_err {
	PQ_OK = 0,
#define PQ_ERR_ENUM(name, val, msg) name = -(val),
	PQ_ERR_TABLE(PQ_ERR_ENUM)
#undef PQ_ERR_ENUM
};

typedef struct pq_diag {
	int code;
	char msg[768];
} pq_diag;

/* Text for any pqtls error value (negative PQ_E* or -errno); never NULL. */
const char *pq_strerror(int err);

/* Record a message (printf-style) and return err unchanged. d may be NULL. */
int pq_diag_set(pq_diag *d, int err, const char *fmt, ...) PQ_PRINTF(3, 4);
int pq_diag_vset(pq_diag *d, int err, const char *fmt, va_list ap) PQ_PRINTF(3, 0);

/* Like pq_diag_set, then appends the drained OpenSSL error queue ("...: reason; reason").
 * This is the one place where OpenSSL's error queue is read. */
int pq_diag_ossl(pq_diag *d, int err, const char *fmt, ...) PQ_PRINTF(3, 4);

/* Puts "PREFIX: " (printf-style) before the message already in d, and sets err: for a
 * caller that adds where the failing input came from. d may be NULL. */
int pq_diag_prefix(pq_diag *d, int err, const char *fmt, ...) PQ_PRINTF(3, 4);

/* The oldest (last = 0) or newest (last = 1) error in OpenSSL's error queue, left in
 * place for pq_diag_ossl: its packed code (0 when the queue is empty) and, when reason
 * is not NULL, its text (never NULL: "" when OpenSSL has none). Only this file and
 * pq_diag_ossl read the queue; tls/io.h classifies it for I/O. */
unsigned long pq_ossl_peek(int last, const char **reason);

/* Clear a diagnostic so it can be reused. */
void pq_diag_clear(pq_diag *d);

/* The diagnostic's message, or pq_strerror(code) when no message was set. */
const char *pq_diag_msg(const pq_diag *d);

#endif
