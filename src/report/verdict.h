/* Verdicts, decided here once: a study's published figure against this database's
 * (agrees / differs / cannot be judged), how two 95 % intervals lie (apart or
 * overlapping), whether a figure lies inside an interval, the phase a grid point is
 * judged in against the flight model, a loss cell against the loss model, and which of
 * Chromium's grid points are judged against pqtls's client. The renderers (HTML, text, CSV, findings) and the
 * studies (report's and zeek's) ask these functions and only format what they return.
 *
 * Whether one phase agrees with the model (within PQ_MODEL_AGREE_RTT round trips) is the
 * model's own rule, pq_model_agrees (model/flight.h); a grid point's agreement over all
 * its phases and its reason are pq_agg_judge's (report/agg_model.c), stored in the group.
 *
 * Contract: pure functions of their arguments; NaN never agrees, is never inside, and
 * leaves two intervals overlapping (not told apart). */
#ifndef PQ_REPORT_VERDICT_H
#define PQ_REPORT_VERDICT_H

/* Only declared: zeek's studies ask the interval rules without the report's aggregate. */
struct pq_agg_group;
struct pq_agg_pair;

/* A study row's verdict; the values are those of the rows' `agrees` fields. */
typedef enum pq_verdict {
	PQ_VERDICT_UNJUDGED = -1, /* cannot be judged */
	PQ_VERDICT_DIFFERS = 0,
	PQ_VERDICT_AGREES = 1,
} pq_verdict;

/* "cannot be judged", "differs", "agrees"; anything else reads as "cannot be judged". */
const char *pq_verdict_word(int v);

/* How interval a = [alo, ahi] lies against b = [blo, bhi]. */
typedef enum pq_verdict_order {
	PQ_VERDICT_BELOW = -1,	/* ahi < blo */
	PQ_VERDICT_OVERLAP = 0, /* neither: not told apart (also when a bound is NaN) */
	PQ_VERDICT_ABOVE = 1,	/* alo > bhi */
} pq_verdict_order;

pq_verdict_order pq_verdict_order_of(double alo, double ahi, double blo, double bhi);

/* x in [lo, hi], both edges included; 0 when any of them is NaN. */
int pq_verdict_inside(double x, double lo, double hi);

/* A grid point against the flight model in the one phase it is judged in: the first byte
 * where it was measured, else the handshake. `judged` is 0 without a model or without a
 * measurement in that phase; `agrees` is pq_agg_judge's verdict over all phases. */
typedef struct pq_verdict_model {
	int judged;
	int phase;	  /* PQ_AGG_TTFB or PQ_AGG_HS (report/agg.h) */
	double predicted; /* the model's round trips in that phase */
	double measured;  /* the measured ones (median over min RTT) */
	int agrees;
} pq_verdict_model;

pq_verdict_model pq_verdict_model_of(const struct pq_agg_group *g);

/* One handshake percentile of a loss cell against the loss model: it agrees when the
 * model's is within one round trip of the measured one (edge included) or inside the
 * measured 95 % interval [lo, hi] (NaN: none); a NaN figure never agrees. */
int pq_verdict_loss_pct(double model_ms, double measured_ms, double lo, double hi, double rtt_ms);

/* A loss cell over its percentiles (g->loss_agree, median and p95; the p25 is shown, not
 * judged): it agrees when both agree, else the median's difference is named first. */
typedef enum pq_verdict_loss {
	PQ_VERDICT_LOSS_AGREES = 0,
	PQ_VERDICT_LOSS_MEDIAN, /* the median differs */
	PQ_VERDICT_LOSS_P95,	/* the median agrees, the p95 differs */
} pq_verdict_loss;

pq_verdict_loss pq_verdict_loss_of(const struct pq_agg_group *g);

/* Whether Chromium's network-only first byte is judged against pqtls's client's at a
 * pair's grid point: a WAN grid point (below, CPU time ~ RTT) with the difference
 * measured. Its verdict is p->within (pq_model_agrees: within the model's tolerance). */
int pq_verdict_pair_judged(const struct pq_agg_pair *p);

#endif
