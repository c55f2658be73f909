/* Zeek's tab-separated log format, driven by its header: #separator (with \x escapes),
 * #set_separator, #empty_field, #unset_field, #fields, #types. Column positions come
 * from #fields, never assumed, so any Zeek version's ssl.log works (old
 * cert_chain_fuids/subject/issuer, new cert_chain_fps, with or without resumed,
 * established, ssl_history). A new header block (rotation, concatenated logs) replaces
 * the previous one.
 *
 * Contract: pq_zeek_tsv_header takes one line starting with '#'; pq_zeek_tsv_row one
 * data line (no newline), decoded in place into r. Both return 0, or PQ_EPARSE with
 * r->bad / t->bad saying why. Only the columns pqtls uses are decoded. */
#ifndef PQ_ZEEK_TSV_H
#define PQ_ZEEK_TSV_H

#include <stddef.h>

#include "core/err.h"
#include "zeek/rec.h"

/* The ssl.log columns pqtls reads (pq_zeek_tsv_init). */
enum pq_zeek_col {
	PQ_ZC_TS,
	PQ_ZC_RESP_H,
	PQ_ZC_VERSION,
	PQ_ZC_RESUMED,
	PQ_ZC_ESTABLISHED,
	PQ_ZC_SERVER_NAME,
	PQ_ZC_CURVE,
	PQ_ZC_CHAIN_FPS,   /* Zeek >= 6: certificate fingerprints */
	PQ_ZC_CHAIN_FUIDS, /* older: file ids of files.log / x509.log */
	PQ_ZC_N
};

#define PQ_ZEEK_TSV_MAXF 512
#define PQ_ZEEK_TSV_MAXCOLS 16

typedef struct pq_zeek_span {
	char *p; /* NULL: the log has no such column */
	size_t n;
} pq_zeek_span;

typedef struct pq_zeek_tsv {
	char sep, set_sep;
	char empty[32], unset[32];
	size_t empty_len, unset_len;
	int nfields;              /* 0 until a #fields line */
	int ntypes;               /* -1 until a #types line */
	const char *const *names; /* the columns wanted (ssl.log's by default) */
	int nnames, required;     /* required: index of the column a block must have, or -1 */
	int col[PQ_ZEEK_TSV_MAXCOLS]; /* column of each, -1 when the log has none */
	int bad;                  /* the current header block is unusable */
	char bad_detail[96];
	char sep_bad[96];         /* why the last #separator was unusable ("" = it was fine):
				   * the block's #fields cannot make it usable, only a new #separator */
	unsigned blocks;          /* header blocks seen (#fields lines) */
} pq_zeek_tsv;

void pq_zeek_tsv_init(pq_zeek_tsv *t);
/* For other logs (x509.log, files.log): the n (<= 16) columns wanted, required as above. */
void pq_zeek_tsv_init_cols(pq_zeek_tsv *t, const char *const *names, int n, int required);
/* Splits a data line into the wanted columns (out[i] for names[i]); returns the field
 * count, or PQ_EPARSE with *why set (no usable header, control byte, wrong count). */
int pq_zeek_tsv_split(const pq_zeek_tsv *t, char *line, size_t len, pq_zeek_span *out, int *why) PQ_MUST_USE;
/* A column's value decoded in place: 1 (with *out and *n), 0 when unset, empty or absent, -1 on a
 * bad escape. */
int pq_zeek_tsv_value(const pq_zeek_tsv *t, pq_zeek_span s, const char **out, size_t *n);
int pq_zeek_tsv_header(pq_zeek_tsv *t, char *line, size_t len) PQ_MUST_USE;
int pq_zeek_tsv_row(const pq_zeek_tsv *t, char *line, size_t len, pq_zeek_rec *r) PQ_MUST_USE;
/* The row at the start of buf[0..avail), ending at its newline, found in the same pass
 * as the fields: 0 or PQ_EPARSE as pq_zeek_tsv_row with the row's length (without the
 * newline) in *linelen, or 1 when buf holds no newline (a partial row: read more). */
int pq_zeek_tsv_row_next(const pq_zeek_tsv *t, char *buf, size_t avail, pq_zeek_rec *r, size_t *linelen) PQ_MUST_USE;

#endif
