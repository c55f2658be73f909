/* What a bench run amounts to: per-phase statistics over the successful connections,
 * errors by kind (with OpenSSL's or the system's words), what was negotiated, bytes on
 * the wire, and whether the server negotiated something other than what was asked.
 *
 * Contract: pq_load_summarize fills *s from the records (allocating; dispose with
 * pq_load_summary_dispose). Printing never fails the run. */
#ifndef PQ_LOAD_SUMMARY_H
#define PQ_LOAD_SUMMARY_H

#include <stdio.h>

#include "stats/sample.h"
#include "load/run.h"

#define PQ_SUM_MAX_ROWS 24

typedef struct pq_load_combo {
	char version[12], group[32], sigalg[32], cipher[40];
	int resumed;
	size_t count;
} pq_load_combo;

typedef struct pq_load_summary {
	size_t n, ok, resumed, resume_offered, hrr, early_accepted, cert_compressed;
	size_t err[PQ_LERR_COUNT];
	struct {
		enum pq_load_err kind;
		char detail[96];
		size_t count;
	} errs[PQ_SUM_MAX_ROWS];
	size_t nerrs;
	pq_load_combo combos[PQ_SUM_MAX_ROWS];
	size_t ncombos;
	pq_summary phase[PQ_PH_COUNT]; /* ns, successful connections only */
	pq_summary latency;            /* intended start -> end, ns */
	double latency_first_p50, latency_last_p50; /* first / last tenth by intended start */
	/* means over successful connections */
	double rx_handshake_bytes, tx_handshake_bytes, rx_cert_bytes, tls_rx, tls_tx, segs_rx, segs_tx;
	double rx_handshake_full, rx_handshake_resumed; /* server flight, full vs resumed */
	/* QUIC: means of the datagrams and bytes before the handshake was done, and of the
	 * client's first flight; connections whose server flight waited for validation */
	double quic_dgrams_rx, quic_dgrams_tx, quic_bytes_rx, quic_bytes_tx, quic_first_bytes,
		quic_first_dgrams;
	size_t quic, quic_amp_held, quic_retry;
	char want_group[32], want_sigalg[32];
	size_t group_mismatch, sigalg_mismatch;
	double wall_s, cpu_s, conns_per_s, cpu_us_per_conn;
	int open_loop, stopped_early;
} pq_load_summary;

/* A summary built record by record, in memory bounded however many records it sees
 * (pq_load_acc_bytes: under 2 MB): counts, sums, means, sd, min and max are exact;
 * the percentiles are exact while a series has at most PQ_LOAD_EXACT_MAX values, and
 * beyond that come from log-spaced buckets: each bucket value is within PQ_LOAD_REL_ERR
 * (relative) of the order statistic it stands for, so a percentile lies within that of
 * the closest-rank values the exact interpolation uses. The first/last-tenth latency
 * medians are exact up to PQ_LOAD_EXACT_MAX successful connections, beyond that from a
 * systematic sample (every 2^k-th in the order added) of at least half as many. The
 * summary of records added in one order equals pq_load_summarize over them in that
 * order. */
#define PQ_LOAD_EXACT_MAX 10000
#define PQ_LOAD_REL_ERR 0.001
typedef struct pq_load_acc pq_load_acc;
int pq_load_acc_new(pq_load_acc **a, const pq_load_config *cfg) PQ_MUST_USE;
int pq_load_acc_add(pq_load_acc *a, const pq_load_record *r) PQ_MUST_USE;
/* Fills *s (the run's times and flags from res; its records are not read). */
int pq_load_acc_finish(pq_load_acc *a, const pq_load_result *res, pq_load_summary *s) PQ_MUST_USE;
size_t pq_load_acc_bytes(const pq_load_acc *a);
void pq_load_acc_free(pq_load_acc *a);

/* groups/sigalgs: what was asked (the first entry is what must be negotiated), or NULL. */
int pq_load_summarize(const pq_load_result *res, const pq_load_config *cfg,
		      pq_load_summary *s) PQ_MUST_USE;

void pq_load_summary_print(const pq_load_summary *s, FILE *f);
void pq_load_summary_json(const pq_load_summary *s, FILE *f);

/* The first name of a group or sigalg list, normalised for comparison with what
 * OpenSSL reports ("?*X25519MLKEM768:x25519" -> "x25519mlkem768", "P-256" ->
 * "secp256r1", "ML-DSA-65" -> "mldsa65"). */
void pq_load_first_name(const char *list, char *out, size_t n);
/* Normalise a single name the same way. */
void pq_load_norm_name(const char *name, char *out, size_t n);

#endif
