/* The one description of a grid point: a table with one row per spec key, and one per
 * stored value no spec key sets on its own (PQ_DIM_STORED) (pq_dims[], in the order of
 * enum pq_dim_id, exp/point.h). The spec reader (exp/spec.c), the sweep's options and --keys
 * (cli/sweep.c), the canonical cell and link key text (exp/point.c), the cell table's
 * dimension columns (the column table takes them in, exp/cols.c) and the views' (exp/colsql.c), their
 * binding (exp/store_cell.c) and the results reader (exp/rdb.c) all walk it, so a
 * dimension is its id and pq_exp_point field (exp/point.h), one entry here, and where it
 * applies (exp/cellcfg.c for the endpoints, exp/chains.c, the link).
 *
 * Every stored value is the EFFECTIVE one: what was in force for the cell, whatever set
 * it (a profile's RTT, the congestion control the kernel reports, the initial window of
 * the route), found by the entry's effective() from the point and a pq_exp_eff the runner
 * fills once per cell. What pqtls cannot know (a remote server's path) is NULL or
 * 'remote', never a default. */
#ifndef PQ_EXP_DIM_H
#define PQ_EXP_DIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "exp/point.h"
#include "net/linkcfg.h"

/* How a spec value is read. */
enum pq_dim_type {
	PQ_DT_STR, PQ_DT_INT, PQ_DT_SIZE, PQ_DT_DUR, PQ_DT_FRAC, PQ_DT_RATE, PQ_DT_DOUBLE, PQ_DT_CHOICE,
	PQ_DT_ALG, PQ_DT_RESP, PQ_DT_PROFILE,
	PQ_DT_GROUPS /* key-exchange groups OpenSSL knows (tls/groups.h); choices: the list syntax */
};

enum {
	PQ_DIM_GLOBAL = 1u << 0, /* once per spec, not a dimension (name, trials, seed, server...) */
	PQ_DIM_LINK = 1u << 1,   /* part of the link key: cells with one link key share a link */
	PQ_DIM_KERNEL = 1u << 2, /* a kernel TCP setting, stored as read back */
	PQ_DIM_LOCAL = 1u << 3,  /* fixed by a remote server: refused with --server / server = */
	/* A stored value in force that no spec key sets on its own: no option, no spec key,
	 * no part of the cell key (pq_dim_find does not find it); a column the reader and the
	 * views carry like any other (the client-to-server direction of an asymmetric link). */
	PQ_DIM_STORED = 1u << 4,
	/* A property of the certificate chain the server sends (its algorithms, intermediates,
	 * padding, MTC): a figure against the chain's size joins points that differ in these
	 * only (report/curve.h). */
	PQ_DIM_CHAIN = 1u << 5,
	/* How a dimension reaches the endpoints' configurations (exp/cellcfg.h builds them):
	 * the server's, the client's (the link's are PQ_DIM_LINK and PQ_DIM_KERNEL, the
	 * chain's files PQ_DIM_CHAIN). */
	PQ_DIM_SERVER = 1u << 6,
	PQ_DIM_CLIENT = 1u << 7,
};

/* One parsed spec value. */
typedef struct pq_exp_val {
	long long i;
	double f;
	const void *ptr;
	char s[64];
} pq_exp_val;

/* One stored value of a dimension, as written and as read back. */
enum pq_dimval_kind { PQ_DV_NULL, PQ_DV_INT, PQ_DV_REAL, PQ_DV_TEXT };
typedef struct pq_dimval {
	enum pq_dimval_kind kind;
	long long i;
	double f;
	char s[64];
} pq_dimval;

/* What was in force for one cell besides the point itself: the resolved link
 * configuration and what the kernel reports after setting. Filled once per cell by the
 * runner (pq_exp_eff_from_link, then the read-backs). */
typedef struct pq_exp_eff {
	int remote;                  /* a remote server: the path is not ours to know */
	int64_t rtt_ns, jitter_ns;   /* the link's, per the resolved config (jitter: server to client) */
	double loss[2];              /* mean loss per direction (enum pq_dir), 0..1 */
	int gilbert;                 /* server to client */
	double burst;                /* gilbert mean burst length, packets; 0 bernoulli */
	int loss_unit;               /* enum pq_loss_unit, server to client */
	uint64_t rate_bps[2];        /* per direction (enum pq_dir); 0 unlimited */
	uint32_t queue_pkts, mtu;
	int initcwnd;                /* segments in force; -1 unknown */
	char cc[32];                 /* congestion control read back from the kernel; "" unknown */
	int ktcp_known;              /* 1: ktcp holds the link's read-back (net/ktcp.h) */
	pq_ktcp_state ktcp;          /* qdisc, pacing ratios, quick-ACK, offloads as the kernel reported them */
	int mss;                     /* bytes in force (the connections' tcp_info); -1 unknown */
	long long pad_bytes;         /* > 0: the size 'pad-chain-to = like ALG' came to */
	long long ocsp_bytes;        /* the stapled OCSP response's DER bytes; 0 none */
	int64_t client_timeout_ns;   /* the per-phase timeout used */
} pq_exp_eff;

typedef struct pq_dim {
	const char *key;       /* spec key and `pqtls sweep --KEY` */
	enum pq_dim_type type;
	unsigned flags;        /* PQ_DIM_* */
	long long min, max;    /* PQ_DT_INT, PQ_DT_DOUBLE; PQ_DT_SIZE and PQ_DT_RATE when not 0
				* (a rate of 0, unlimited, is always allowed) */
	const char *choices;   /* PQ_DT_CHOICE, '|'-separated; the index is the value. PQ_DT_GROUPS: the
				* separators a list may use (tls/groups.h: "" one group, ":" a list) */
	const char *def;       /* default, as text (help) */
	const char *metavar;   /* in --help: "DURATIONS" */
	const char *help;
	const char *column;    /* the cell column of the effective value; NULL = not stored */
	const char *sql;       /* its SQL type and constraint ("INTEGER NOT NULL") */
	const char *label;     /* report heading ("RTT") */
	const char *unit;      /* how a stored value is shown ("ms"; "" as is) */
	void (*apply)(const pq_exp_val *v, pq_exp_point *p); /* NULL for PQ_DIM_GLOBAL */
	/* Its "k=v;" fragment of the canonical text; the length, or negative when n is short.
	 * NULL: not part of the cell key (global keys). */
	int (*canon)(const pq_exp_point *p, char *buf, size_t n);
	/* The value in force for a cell (column != NULL). */
	void (*effective)(const pq_exp_point *p, const pq_exp_eff *e, pq_dimval *out);
	/* NULL: it applies to every cell. Else whether it applies to a cell with these stored
	 * values (indexed by enum pq_dim_id): where it does not (pqtls's own client has no
	 * browser state) it is stored NULL, and the report shows "none" and leaves it out of
	 * what every cell shares; NULL where it applies is "not known" (an older database). */
	int (*applies)(const pq_dimval *dim);
} pq_dim;

extern const pq_dim pq_dims[PQ_DIM_COUNT];

/* Index of a spec key ("rtt"), or -1 (PQ_DIM_STORED entries are no spec keys). */
int pq_dim_find(const char *key);
/* The index of the dimension stored in `column`, or -1. */
int pq_dim_by_column(const char *column);
/* "durations (70ms), a list or a range ..." for messages; buf may hold the text. */
const char *pq_dim_allowed(const pq_dim *k, char *buf, size_t n);
/* One line per key: name, help, default (pqtls sweep --keys, docs). */
void pq_dim_print_keys(FILE *f);
/* Applies value v of dimension k to a point (global keys: nothing). */
void pq_dim_apply(enum pq_dim_id k, const pq_exp_val *v, pq_exp_point *p);
/* The one value a point's other values make irrelevant: the SCTs' algorithm without SCTs
 * (scts = 0) changes no chain. pq_dim_irrelevant says whether dimension k is so for p;
 * pq_dim_drop_irrelevant clears it (as if not given), so that such points share one key,
 * and returns the dimension cleared or -1. */
int pq_dim_irrelevant(enum pq_dim_id k, const pq_exp_point *p);
/* Whether dimension k applies to a cell with these stored values (its row's applies();
 * 1 without one). */
int pq_dim_applies(size_t k, const pq_dimval *dim);
int pq_dim_drop_irrelevant(pq_exp_point *p);

/* The canonical text of the dimensions with all of `flags` set (0: every non-global
 * one), in table order. Length, or PQ_ETOOBIG. */
int pq_dim_canon(const pq_exp_point *p, unsigned flags, char *buf, size_t n);
/* Every stored column through a template, in table order, for the views: each '$' of tmpl
 * is the column's name, each '%' its name in the view: the same, or "NAME_asked" when the
 * name is in `taken` (NULL-terminated, may be NULL: the columns of a table the view joins,
 * whose own NAME is what happened). "c.$ AS %, " gives "c.chain_leaf AS chain_leaf, ...".
 * Length, or PQ_ETOOBIG. */
int pq_dim_columns_each(const char *tmpl, const char *const *taken, char *buf, size_t n);

/* The resolved link configuration's values (profile and overrides) into e; the kernel's
 * read-backs (cc, initcwnd, mss) are the runner's. */
void pq_exp_eff_from_link(pq_exp_eff *e, const pq_link_config *c);
/* A remote server's cell: nothing of the path is known. */
void pq_exp_eff_remote(pq_exp_eff *e);

/* Equal stored values (same kind and value; text by bytes). */
int pq_dimval_equal(const pq_dimval *a, const pq_dimval *b);
/* The value as text for a table: "50" (unit ms for rtt_us), "remote", "-" for NULL. */
void pq_dimval_format(const pq_dim *k, const pq_dimval *v, char *buf, size_t n);

#endif
