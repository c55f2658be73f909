/* Two runs side by side (pqtls report A.db B.db): the grid points both databases hold,
 * matched by host and point_key (or, where the runs differ wholesale in a dimension, such
 * as cc cubic in A and bbr in B, on every other dimension), each with both medians and their 95 % intervals (TTFB,
 * or the handshake where either asked no response) and the bootstrap difference B - A
 * (stats/boot.h, seeded by the report's seed); the grid points only one of them holds;
 * and whether the two are runs of one grid (the run table's spec_hash), or even of one
 * run (its run_uuid). Computed once here; tables.c and html.c only format it.
 *
 * Contract: pq_compare_build returns 0 with *out filled (free with pq_compare_free) or
 * PQ_ENOMEM with a message. *out points into both analyses and keeps the names given:
 * they must outlive it. */
#ifndef PQ_REPORT_COMPARE_H
#define PQ_REPORT_COMPARE_H

#include <stddef.h>

#include "core/err.h"
#include "exp/rdb.h"
#include "report/agg.h"
#include "stats/boot.h"

typedef struct pq_compare_point {
	const pq_agg_group *ga, *gb; /* NULL where that run does not hold the point */
	enum pq_agg_phase phase;     /* TTFB where both measured it, else the handshake */
	int has_diff;		     /* both have at least 2 values in the phase */
	pq_boot_result diff;	     /* B - A */
	/* The hosts' resolution: the larger of the two points' endpoint waits (wait_ms), ms,
	 * NaN when neither knows it. Two runs are measured at different moments, so a shift
	 * of each run's median by its own host's waits is not a difference of the network:
	 * a difference is measurable only when its interval excludes 0 and its near end is
	 * beyond this (within_waits otherwise, said beside the interval). */
	double waits_ms;
	int measurable, within_waits;
} pq_compare_point;

typedef struct pq_compare {
	const pq_agg *a, *b;
	const char *name_a, *name_b; /* the databases as the user named them */
	const char *spec_a, *spec_b; /* their spec names ("quick"; "" when not stored) */
	/* the points both hold (in A's order), then those only A holds, then only B's */
	pq_compare_point *p;
	size_t n, shared, only_a, only_b, measurable;
	int same_grid; /* 1: one grid hash, 0: different grids, -1: a database without one */
	int same_run;  /* the same run_uuid(s): a copy of one database */
	/* Dimensions set aside: each run holds one value of it, and not the same one ("cc:
	 * cubic in A, bbr in B"); points are then matched on every other dimension (and the
	 * arm's name where several match), not by point_key, so a cubic run meets a BBR run. */
	size_t aside[PQ_DIM_COUNT], naside;
	char aside_text[600]; /* a sentence naming them with their values; "" when none */
	char grid[400];	    /* a sentence: one grid, or which two */
	char summary[900];  /* a sentence: what is shared, what differs, the largest difference */
	const char *what;   /* "TTFB", "handshake" or "TTFB (or handshake)" */
} pq_compare;

int pq_compare_build(const pq_rdb *da, const pq_agg *a, const char *name_a, const pq_rdb *db, const pq_agg *b,
		     const char *name_b, pq_compare *out, pq_diag *d) PQ_MUST_USE;
void pq_compare_free(pq_compare *c);

/* The analysis a point is shown from: A's where A holds it, else B's. */
const pq_agg *pq_compare_agg_of(const pq_compare *c, const pq_compare_point *p);
const pq_agg_group *pq_compare_group_of(const pq_compare_point *p);
/* A point's label: its arm and each dimension in which that arm's points differ in
 * either run ("ml-dsa-65, RTT 70 ms"), so points of two grids read apart. */
void pq_compare_label(const pq_compare *c, const pq_compare_point *p, char *buf, size_t n);
/* A shared point's difference in words: pq_boot_verdict's, or, within the hosts' waits,
 * "within the hosts' waits: +0.79 [+0.29, +1.22] ms, the endpoints waited up to 0.60 ms". */
void pq_compare_verdict(const pq_compare_point *p, char *buf, size_t n);

#endif
