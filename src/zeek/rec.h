/* One ssl.log row as `pqtls zeek` uses it, whatever the format it came from, and the
 * small field decoders both readers share (Zeek's \xNN escapes, addresses, times,
 * versions, booleans).
 *
 * Contract: string fields point into the caller's line buffer (decoded in place) and
 * live as long as that line. Tri-state fields are PQ_ZEEK_UNKNOWN when the log has no
 * such column or the value is unset, never silently false. */
#ifndef PQ_ZEEK_REC_H
#define PQ_ZEEK_REC_H

#include <stddef.h>
#include <stdint.h>

#define PQ_ZEEK_UNKNOWN (-1)

/* TLS/DTLS versions as Zeek names them ("TLSv13"); UNSET = no ServerHello seen. */
#define PQ_ZEEK_VERSIONS(X)                                                          \
	X(UNSET, "unset") X(SSLv2, "SSLv2") X(SSLv3, "SSLv3") X(TLSv10, "TLSv10")   \
	X(TLSv11, "TLSv11") X(TLSv12, "TLSv12") X(TLSv13, "TLSv13")                  \
	X(DTLSv10, "DTLSv10") X(DTLSv12, "DTLSv12") X(DTLSv13, "DTLSv13")           \
	X(OTHER, "other")

enum pq_zeek_ver {
#define PQ_ZEEK_VER_ENUM(id, name) PQ_ZV_##id,
	PQ_ZEEK_VERSIONS(PQ_ZEEK_VER_ENUM)
#undef PQ_ZEEK_VER_ENUM
	PQ_ZV_COUNT
};

typedef struct pq_zeek_addr {
	uint8_t fam; /* 4 or 6 */
	uint8_t b[16];
} pq_zeek_addr;

/* Why a row or line was skipped: counted per reason, reported with file and line. */
#define PQ_ZEEK_BAD_TABLE(X)                                                         \
	X(NOHEADER, "data line before any #fields header")                           \
	X(HEADER, "malformed header (its rows are skipped)")                         \
	X(FIELDS, "wrong number of fields for the header")                           \
	X(BINARY, "control bytes in a line (binary garbage)")                        \
	X(ESCAPE, "bad \\x escape")                                                  \
	X(ADDR, "id.resp_h is not an IP address")                                    \
	X(VALUE, "a value of the wrong type (bool, time)")                           \
	X(JSON, "JSON syntax error or not an object")                                \
	X(TRUNCATED, "truncated line (no newline at end of input)")                  \
	X(TOOLONG, "line longer than the limit")                                     \
	X(GZIP, "compressed stream damaged or cut short")                            \
	X(GZTAIL, "data after the gzip stream that is not gzip (not read)")

enum pq_zeek_bad {
	PQ_ZB_NONE,
#define PQ_ZEEK_BAD_ENUM(id, text) PQ_ZB_##id,
	PQ_ZEEK_BAD_TABLE(PQ_ZEEK_BAD_ENUM)
#undef PQ_ZEEK_BAD_ENUM
	PQ_ZB_COUNT
};

const char *pq_zeek_bad_text(int why);
const char *pq_zeek_bad_name(int why);

typedef struct pq_zeek_rec {
	int64_t ts;   /* seconds since the epoch; valid when has_ts */
	int has_ts;
	pq_zeek_addr resp;  /* id.resp_h */
	int version;        /* enum pq_zeek_ver */
	int resumed, established; /* 0, 1 or PQ_ZEEK_UNKNOWN */
	const char *server_name, *curve; /* NULL when absent or unset */
	size_t server_name_len, curve_len;
	const char *chain;   /* certificate ids as logged (still escaped), NULL when none */
	size_t chain_len;
	char chain_sep;      /* between the ids */
	int chain_escaped;   /* ids still carry Zeek's \xNN escapes (TSV) */
	int bad;             /* enum pq_zeek_bad when parsing failed */
	char bad_detail[96]; /* which column or value, for the report */
} pq_zeek_rec;

void pq_zeek_rec_clear(pq_zeek_rec *r);

/* Decodes Zeek's \xNN escapes (and "\\") in place; returns the new length, or -1 on a
 * backslash followed by anything else. */
long pq_zeek_unescape(char *s, size_t len);

/* Parses an IPv4 dotted quad or an IPv6 address; 0 on success, -1 otherwise. */
int pq_zeek_addr_parse(const char *s, size_t len, pq_zeek_addr *a);
/* Text form into buf (at least 46 bytes). */
void pq_zeek_addr_format(const pq_zeek_addr *a, char *buf, size_t size);

/* "1379288668.148196" (seconds, any fraction) or ISO-8601 "2008-07-09T16:13:30.0Z";
 * 0 and *secs on success, -1 when it is neither. */
int pq_zeek_time_parse(const char *s, size_t len, int64_t *secs);

/* Version name to enum pq_zeek_ver (unknown names are PQ_ZV_OTHER). */
int pq_zeek_version(const char *s, size_t len);
const char *pq_zeek_version_name(int v);

/* "T"/"F" (TSV) to 1/0; -1 for anything else. */
int pq_zeek_bool(const char *s, size_t len);

#endif
