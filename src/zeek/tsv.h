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

enum pq_zeek_col {
	PQ_ZC_TS,
	PQ_ZC_RESP_H,
	PQ_ZC_VERSION,
	PQ_ZC_RESUMED,
	PQ_ZC_ESTABLISHED,
	PQ_ZC_SERVER_NAME,
	PQ_ZC_CURVE,
	PQ_ZC_N
};

#define PQ_ZEEK_TSV_MAXF 512

typedef struct pq_zeek_tsv {
	char sep, set_sep;
	char empty[32], unset[32];
	size_t empty_len, unset_len;
	int nfields;              /* 0 until a #fields line */
	int ntypes;               /* -1 until a #types line */
	int col[PQ_ZC_N];         /* column of each, -1 when the log has none */
	signed char slot[PQ_ZEEK_TSV_MAXF]; /* column -> enum pq_zeek_col, or -1 */
	int bad;                  /* the current header block is unusable */
	char bad_detail[96];
	unsigned blocks;          /* header blocks seen (#fields lines) */
} pq_zeek_tsv;

void pq_zeek_tsv_init(pq_zeek_tsv *t);
int pq_zeek_tsv_header(pq_zeek_tsv *t, char *line, size_t len) PQ_MUST_USE;
int pq_zeek_tsv_row(const pq_zeek_tsv *t, char *line, size_t len, pq_zeek_rec *r) PQ_MUST_USE;
/* The row at the start of buf[0..avail), ending at its newline, found in the same pass
 * as the fields: 0 or PQ_EPARSE as pq_zeek_tsv_row with the row's length (without the
 * newline) in *linelen, or 1 when buf holds no newline (a partial row: read more). */
int pq_zeek_tsv_row_next(const pq_zeek_tsv *t, char *buf, size_t avail, pq_zeek_rec *r, size_t *linelen) PQ_MUST_USE;

#endif
