/* One probe of `pqtls check`: a real TLS 1.3 handshake with a server, whose first
 * ClientHello is written to the socket in the segments its shape asks for.
 *
 * OpenSSL writes into a memory BIO, so the probe holds the ClientHello's bytes before any
 * leave: it parses them (check/hello.h), cuts them (check/plan.h) and writes each segment
 * with TCP_NODELAY, waiting until the kernel has sent one before writing the next (so two
 * writes never share a segment). Everything after the first flight goes whole.
 *
 * Contract: pq_chk_probe_run fills *r and returns 0 whether the server passed or not
 * (r->passed, r->fail, r->detail say); it returns a negative error only when the probe
 * could not be made here (out of memory, a group this OpenSSL does not know), with a
 * message in *d. The whole probe, connect included, ends within cfg->timeout_ns plus the
 * delayed shape's pause. Times come from cfg->clock. */
#ifndef PQ_CHK_PROBE_H
#define PQ_CHK_PROBE_H

#include <openssl/ssl.h>
#include <stddef.h>
#include <stdint.h>

#include "check/plan.h"
#include "core/clock.h"
#include "core/err.h"
#include "net/addr.h"

typedef struct pq_chk_config {
	pq_addr target;
	const char *servername; /* SNI (and the name verified with a CA); NULL = none */
	SSL_CTX *ctx;           /* a TLS 1.3 client context */
	int64_t timeout_ns;     /* per probe */
	int64_t delay_ns;       /* the delayed shape's pause */
	const char *hrr_share;  /* the one share of the HRR probe's first ClientHello */
	pq_clock *clock;
} pq_chk_config;

typedef struct pq_chk_probe {
	pq_chk_shape shape;
	const char *group; /* the group under test, as OpenSSL names it */
} pq_chk_probe;

/* Why a probe failed. Unreachable ones (refused, connect timeout) say nothing about the
 * ClientHello: the caller stops there. */
#define PQ_CHK_FAIL_TABLE(X)                                                             \
	X(PQ_CHK_OK, "ok", "passed")                                                     \
	X(PQ_CHK_REFUSED, "refused", "connection refused")                               \
	X(PQ_CHK_CONNECT, "connect", "TCP connect failed")                               \
	X(PQ_CHK_CONNECT_TIMEOUT, "connect-timeout", "no TCP connection within the timeout") \
	X(PQ_CHK_TIMEOUT, "timeout", "no handshake within the timeout")                  \
	X(PQ_CHK_RESET, "reset", "the server reset the connection")                      \
	X(PQ_CHK_CLOSED, "closed", "the server closed the connection")                   \
	X(PQ_CHK_ALERT, "alert", "the server sent an alert")                             \
	X(PQ_CHK_TLS, "tls", "the handshake failed")                                     \
	X(PQ_CHK_GROUP, "group", "the server negotiated another group")                  \
	X(PQ_CHK_NO_HRR, "no-hrr", "the server sent no HelloRetryRequest")

typedef enum pq_chk_fail {
#define PQ_CHK_FAIL_ENUM(e, name, text) e,
	PQ_CHK_FAIL_TABLE(PQ_CHK_FAIL_ENUM)
#undef PQ_CHK_FAIL_ENUM
} pq_chk_fail;

const char *pq_chk_fail_name(pq_chk_fail f);
const char *pq_chk_fail_text(pq_chk_fail f);
/* refused, connect, connect-timeout: the server was not reached at all. */
int pq_chk_fail_unreachable(pq_chk_fail f);

typedef struct pq_chk_result {
	pq_chk_probe probe;
	char offered[96];           /* the groups list given to OpenSSL ('*' = sends a share) */
	int passed;
	pq_chk_fail fail;
	char detail[320];
	int completed;              /* the client finished its handshake */
	int hrr;                    /* the server sent a HelloRetryRequest */
	char group[32];             /* negotiated, "" when none */
	size_t ch_bytes[2];         /* ClientHello record bytes: first, and after an HRR */
	size_t ch_writes[2];        /* writes (segments shaped) of each */
	uint32_t ch_segs[2];        /* TCP data segments the kernel sent for each */
	uint64_t rx_bytes;          /* bytes received from the server */
	int64_t connect_ns;         /* connect(2) to established */
	int64_t handshake_ns;       /* first ClientHello byte to handshake done (or failure) */
} pq_chk_result;

/* Nothing there to check: not reached, or it took a whole ClientHello and said nothing at
 * all until the timeout (not a TLS server, or one that is not answering). */
int pq_chk_no_server(const pq_chk_result *r);

int pq_chk_probe_run(const pq_chk_config *cfg, const pq_chk_probe *p, pq_chk_result *r,
		       pq_diag *d) PQ_MUST_USE;

#endif
