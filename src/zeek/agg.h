/* The counts `pqtls zeek` keeps: per category (CDN, Cloud, Other, Unknown) the TLS
 * versions and the resumption outcomes in three scopes, per day and category the
 * trend, and maps of servers, server names and key-exchange groups. Every number is
 * an exact count, so aggregates of parts add up to the aggregate of the whole
 * (pq_zeek_agg_merge), which is what --partial and `zeek merge` rely on.
 *
 * Memory: bounded by the number of distinct servers (addresses), server names and
 * groups, whatever the number of rows; the days are bounded by the plausible window
 * below (about 38,000 days): a row whose ts lies outside it (a sensor with a broken
 * clock, garbage) is counted in ts_implausible and left out of the trend, so hostile
 * timestamps cannot grow the trend or the time to print it.
 *
 * Contract: pq_zeek_agg_add / _merge return 0 or PQ_ENOMEM. */
#ifndef PQ_ZEEK_AGG_H
#define PQ_ZEEK_AGG_H

#include <stdint.h>

#include "core/err.h"
#include "zeek/classify.h"
#include "zeek/map.h"
#include "zeek/rec.h"

enum pq_zeek_scope { PQ_ZS_ALL, PQ_ZS_TLS13, PQ_ZS_ESTABLISHED, PQ_ZS_N };
enum pq_zeek_res { PQ_ZR_YES, PQ_ZR_NO, PQ_ZR_UNKNOWN, PQ_ZR_N };

typedef struct pq_zeek_cnt {
	uint64_t rows;
	uint64_t ver[PQ_ZV_COUNT];
	uint64_t res[PQ_ZS_N][PQ_ZR_N]; /* rows with a version only */
	uint64_t method[PQ_ZM_N];       /* which method decided the category */
} pq_zeek_cnt;

typedef struct pq_zeek_day {
	uint64_t rows, tls13, res_yes, res_known; /* rows with a version */
} pq_zeek_day;

/* The plausible window for a row's ts, Unix seconds: from 1995-01-01 (no TLS log is
 * older: SSL 2.0 and Zeek's forerunner Bro appeared that year) to 2100-01-01. */
#define PQ_ZEEK_TS_MIN 788918400LL
#define PQ_ZEEK_TS_MAX 4102444800LL

/* 1 when ts (Unix seconds) lies in the plausible window. */
int pq_zeek_ts_plausible(int64_t ts);

typedef struct pq_zeek_server {
	pq_zeek_class cls;
	uint64_t rows, res_yes;
} pq_zeek_server;

#define PQ_ZEEK_SAMPLES 20

typedef struct pq_zeek_sample {
	char file[256];
	uint64_t line;
	uint32_t unit; /* while a run is under way: lines are relative to the unit */
	int why;
	char detail[96];
} pq_zeek_sample;

typedef struct pq_zeek_agg {
	pq_zeek_cnt cat[PQ_ZCAT_N];
	uint64_t bad[PQ_ZB_COUNT];
	uint64_t rows, no_ts, files, bytes, header_blocks;
	uint64_t ts_implausible; /* rows with a version whose ts is outside the window above */
	pq_zeek_map servers; /* pq_zeek_addr -> pq_zeek_server */
	pq_zeek_map names;   /* server_name -> uint64_t */
	pq_zeek_map groups;  /* curve -> uint64_t */
	pq_zeek_map days;    /* int64_t day since epoch -> pq_zeek_day[PQ_ZCAT_N] */
	int want_chains;     /* keep the certificate chains (zeek certs) */
	pq_zeek_map chains;  /* chain ids joined by '\n' -> connections (uint64_t) */
	pq_zeek_map inputs;  /* the logs counted, as "SIZE MTIME_NS REALPATH" -> uint64_t: what
			      * lets a merge refuse one log counted twice (a partial under two names) */
	uint64_t chains_bad; /* chains that could not be kept: an id with a bad escape, over 8 KiB */
	pq_zeek_sample samples[PQ_ZEEK_SAMPLES]; /* the first, by file and line */
	int nsamples;
	const pq_zeek_classifier *cls; /* NULL: every server Unknown */
} pq_zeek_agg;

void pq_zeek_agg_init(pq_zeek_agg *a, const pq_zeek_classifier *cls);
void pq_zeek_agg_dispose(pq_zeek_agg *a);
int pq_zeek_agg_add(pq_zeek_agg *a, const pq_zeek_rec *r) PQ_MUST_USE;
/* The same in two steps, for a reader that parses a batch of rows before it counts
 * them: pq_zeek_agg_prefetch when a row is parsed returns the hash of its server and
 * asks for that server's table slot; pq_zeek_agg_add_hashed counts it later, by when the
 * slot is in cache (a busy site's servers do not fit in cache, and a lookup per row
 * would otherwise wait for memory). */
uint64_t pq_zeek_agg_prefetch(const pq_zeek_agg *a, const pq_zeek_rec *r);
int pq_zeek_agg_add_hashed(pq_zeek_agg *a, const pq_zeek_rec *r, uint64_t hash) PQ_MUST_USE;
/* Notes that the log at path is counted here (its identity: size, mtime, real path). */
int pq_zeek_agg_input(pq_zeek_agg *a, const char *path) PQ_MUST_USE;
void pq_zeek_agg_bad(pq_zeek_agg *a, const char *file, uint32_t unit, uint64_t line, int why, const char *detail);
void pq_zeek_cnt_add(pq_zeek_cnt *into, const pq_zeek_cnt *from);
int pq_zeek_agg_merge(pq_zeek_agg *into, const pq_zeek_agg *from) PQ_MUST_USE;

/* Wilson score interval of k in n at 95 % (z = 1.96); [0, 0] when n is 0. */
void pq_zeek_wilson95(uint64_t k, uint64_t n, double *lo, double *hi);

/* The paper's Table III metrics: TLS 1.3 adoption among rows with a version, and
 * resumption among rows with a known outcome, in each scope. */
enum pq_zeek_metric { PQ_ZMT_TLS13, PQ_ZMT_RES_ALL, PQ_ZMT_RES_13, PQ_ZMT_RES_EST, PQ_ZMT_N };
extern const char *const pq_zeek_metric_name[PQ_ZMT_N];  /* "resumption_all" (JSON, CSV) */
extern const char *const pq_zeek_metric_label[PQ_ZMT_N]; /* "resumption, all" (tables) */
/* The metric's numerator and denominator in counts c. */
void pq_zeek_metric_kn(const pq_zeek_cnt *c, enum pq_zeek_metric m, uint64_t *k, uint64_t *n);

/* A rate with its interval: k of n, r = k / n (0 when n is 0), 95 % Wilson [lo, hi]. */
typedef struct pq_zeek_rate {
	uint64_t k, n;
	double r, lo, hi;
} pq_zeek_rate;
/* The counts of category cat (PQ_ZCAT_N: every category, Unknown included). */
void pq_zeek_cnt_of(const pq_zeek_agg *a, int cat, pq_zeek_cnt *out);
/* Metric m over category cat (as pq_zeek_cnt_of). */
void pq_zeek_rate_of(const pq_zeek_agg *a, int cat, enum pq_zeek_metric m, pq_zeek_rate *out);

#endif
