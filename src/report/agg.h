/* The report's analysis: connections pooled per (host, arm, link, response size) over
 * trials, described with stats/ci.h, set against the flight model's prediction
 * (model/), and compared with a baseline arm (stats/boot.h).
 *
 * Contract: pq_agg_build returns 0 with *out filled (free with pq_agg_free) or a
 * negative error with a message. Times in the groups are in milliseconds. */
#ifndef PQ_REPORT_AGG_H
#define PQ_REPORT_AGG_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "model/flight.h"
#include "exp/rdb.h"
#include "stats/boot.h"
#include "stats/ci.h"

#define PQ_AGG_MAX_HOSTS 8
#define PQ_AGG_MAX_RTTS 32
#define PQ_AGG_MAX_ARMS 64

enum pq_agg_phase { PQ_AGG_HS, PQ_AGG_TTFB, PQ_AGG_TTLB, PQ_AGG_PHASES };

typedef struct pq_agg_group {
	const pq_rdb_cell *cell; /* the first of its cells: the parameters */
	int host, arm, rtt;	 /* indexes into the pq_agg lists */
	double *v[PQ_AGG_PHASES]; /* successful connections' times, ms */
	size_t n[PQ_AGG_PHASES];
	pq_ci_desc desc[PQ_AGG_PHASES]; /* valid when n >= 1 */
	size_t failed, total, retrans;
	size_t hrr; /* connections the server answered with a HelloRetryRequest */
	double min_rtt_ms; /* median of the connections' tcp_info min_rtt */
	int has_model;
	pq_model_out model;
	double rounds[PQ_AGG_PHASES]; /* measured: median time over min_rtt */
	char agree_why[256];	      /* "" when every phase agrees, else the reason */
	char agree_tag[24];	      /* the reason in two words, for narrow tables */
	int agrees;
} pq_agg_group;

typedef struct pq_agg {
	pq_agg_group *g;
	size_t n;
	char hosts[PQ_AGG_MAX_HOSTS][96];
	size_t nhosts;
	long long rtts[PQ_AGG_MAX_RTTS]; /* sorted */
	size_t nrtts;
	char arms[PQ_AGG_MAX_ARMS][96]; /* in the database's order; arms[0] is the baseline */
	size_t narms;
	/* What an arm varies across its groups: nothing but the link (a key-table row per
	 * RTT), the chain's size (a size sweep), or the response size (a TTLB sweep). */
	enum pq_agg_kind { PQ_AGG_KEY, PQ_AGG_SIZE, PQ_AGG_RESP } kind[PQ_AGG_MAX_ARMS];
	int any_hrr; /* some connection drew a HelloRetryRequest: the tables show how many */
	/* Fidelity over every cell: how many had the link's own accounting / the host's steal,
	 * how many were over those budgets or on a link that missed its self-check. */
	struct pq_agg_fid {
		size_t link_known, link_over, host_known, host_over, check_missed, marked;
		double late_p99_max_us, steal_max_pct; /* NaN: none known */
	} fid;
} pq_agg;

/* A cell marked as measured on an unfaithful link or host: its link over the lateness or
 * drop budget, its host over the steal budget, or its link's self-check missed. */
int pq_agg_cell_marked(const pq_rdb_cell *c);

int pq_agg_build(const pq_rdb *db, pq_agg *out, pq_diag *d) PQ_MUST_USE;
void pq_agg_free(pq_agg *a);

/* The group of (host, arm, rtt) with response size `resp` (-2: any), or NULL. */
const pq_agg_group *pq_agg_find(const pq_agg *a, int host, int arm, int rtt, long long resp);

/* The bootstrap of phase p between the baseline's group and g at the same host, link
 * and response; PQ_EINVAL when either side has too few values. */
int pq_agg_vs_base(const pq_agg *a, const pq_agg_group *g, enum pq_agg_phase p, uint64_t seed,
		   pq_boot_result *out, pq_diag *d) PQ_MUST_USE;

extern const char *const pq_agg_phase_name[PQ_AGG_PHASES];

#endif
