/* The AWS study (seeds/004) as a study (report/study.h): the TTLB slowdown of ML-DSA-65 +
 * X25519MLKEM768 over ECDSA + X25519 against the response size, per link profile. */
#include "report/study_rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Per link profile, the classical baseline and its PQ partner (at each response size the
 * baseline has), and what the study reported for that profile. */
#define AWS_PAIR(prof)                                                                                          \
	{.what = "classical", .leaf = "ecdsa-p256", .group = "X25519", .resumed = IS(0), .padded = IS(0), .profile = prof}, \
	    {.what = "PQ", .leaf = "ml-dsa-65", .group = "X25519MLKEM768", .resumed = IS(0), .padded = IS(0), .profile = prof}
static const want aws_wants[] = {AWS_PAIR("aws-fast"), AWS_PAIR("aws-lowbw"), AWS_PAIR("aws-lossy"),
				 AWS_PAIR("aws-jittery")};
static const char *const aws_theirs[] = {
    "TTLB increase stays below 5 % on a high-bandwidth, stable link",
    "TTFB +32 %, under 15 % of TTLB from 50 KiB, below 10 % at 200 KiB even when congestion control bites",
    "higher impact, but the TTLB degradation drops as the data grows",
    "higher impact, but the TTLB degradation drops as the data grows",
};
_Static_assert(sizeof aws_wants / sizeof aws_wants[0] == 2 * sizeof aws_theirs / sizeof aws_theirs[0],
	       "a pair of wants per profile");

/* aws-fast, where short responses differ: from which size on the slowdown stays under the
 * study's 5 %, and why, when the evidence says so: the model has the classical arm's first
 * byte wait for its first TLS record there (a second window after its small flight) and
 * its measured first byte comes at least 3/4 of a round trip later than at the smallest
 * size. */
static void fast_tail(pq_agg_study *s, const double *kib, const double *pct, const double *brounds,
		      const int *record, size_t n, double kmin)
{
	double last5 = -INFINITY, from = INFINITY, most = -INFINITY, small = NAN, rmin = INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (pct[i] >= 5) /* the largest size at 5 % or more */
			last5 = fmax(last5, kib[i]);
		if (kib[i] == kmin)
			small = brounds[i];
	}
	for (size_t i = 0; i < n; i++)
		if (kib[i] > last5)
			from = fmin(from, kib[i]);
	if (!isfinite(from))
		return;
	int why = isfinite(small);
	for (size_t i = 0; i < n; i++) {
		if (kib[i] < from)
			continue;
		most = fmax(most, pct[i]);
		why = why && record[i] && brounds[i] >= small + 0.75;
		rmin = fmin(rmin, brounds[i]);
	}
	cat(s->verdict, sizeof s->verdict, "; from %g KiB on at most %+.1f %%", from, most);
	if (why)
		cat(s->verdict, sizeof s->verdict,
		    ": there the classical arm's first byte waits a round trip too (%.1f round trips or more, against "
		    "%.1f at %g KiB): its first 16 KiB TLS record does not fit the window its small flight left",
		    rmin, small, kmin);
}

/* The slowdown the flight model predicts for q over b (their last bytes, each in its
 * cell's min RTT as measured), when it agrees with both: NAN otherwise. */
static double model_slowdown(const pq_agg_group *b, const pq_agg_group *q)
{
	if (!b->has_model || !q->has_model || !b->agrees || !q->agrees || !(b->model.ttlb_t > 0) ||
	    !(q->model.ttlb_t > 0) || !(b->min_rtt_ms > 0) || !(q->min_rtt_ms > 0))
		return NAN;
	return (q->model.ttlb_t * q->min_rtt_ms / (b->model.ttlb_t * b->min_rtt_ms) - 1) * 100;
}

/* aws-lowbw, where the slowdown stays over the study's figures: what the flight model,
 * which times each packet on the link's wire, predicts at the worst size from 50 KiB and
 * at 200 KiB, where it agrees with both arms. */
static void lowbw_model(pq_agg_study *s, const double *kib, const double *pct, const double *mpct, size_t n,
			double worst50)
{
	double at = NAN, m200 = NAN, k = NAN;
	for (size_t i = 0; i < n; i++) {
		if (kib[i] >= 50 && pct[i] == worst50)
			at = mpct[i], k = kib[i];
		if (kib[i] == 200)
			m200 = mpct[i];
	}
	if (!isfinite(at))
		return;
	cat(s->verdict, sizeof s->verdict, " (the flight model, which times each packet on the link's wire, predicts %+.1f %% "
	    "at %g KiB", at, k);
	if (isfinite(m200) && k != 200)
		cat(s->verdict, sizeof s->verdict, " and %+.1f %% at 200 KiB", m200);
	cat(s->verdict, sizeof s->verdict, ")");
}

static void aws_row(rows *rs, const pq_study *st, size_t p)
{
	const pq_agg *a = rs->a;
	double kib[PQ_AGG_SLOW_PTS], pct[PQ_AGG_SLOW_PTS], brounds[PQ_AGG_SLOW_PTS], mpct[PQ_AGG_SLOW_PTS];
	int record[PQ_AGG_SLOW_PTS]; /* the model has the classical first byte wait for its first record */
	size_t n = 0;
	pq_agg_study *s = NULL;
	const want *wb = &st->wants[2 * p];
	for (size_t i = 0; i < a->n && n < PQ_AGG_SLOW_PTS; i++) {
		if (a->g[i].host != 0 || !pq_study_matches(a->g[i].cell, wb) || !a->g[i].n[PQ_AGG_TTLB] ||
		    !(pq_agg_dim_num(a->g[i].cell, "response") >= 0))
			continue;
		const pq_agg_group *b = &a->g[i], *q;
		want wq = st->wants[2 * p + 1];
		wq.resp = IS((long long)pq_agg_dim_num(b->cell, "response"));
		pq_boot_result r;
		if (!(q = pq_study_pick(a, &wq)) || !q->n[PQ_AGG_TTLB] || !pq_study_diff(a, b, q, PQ_AGG_TTLB, &r))
			continue;
		if (!s && !(s = pq_study_add(rs, st->name)))
			return;
		kib[n] = (double)(wq.resp - 1) / 1024;
		pct[n] = (r.ratio - 1) * 100;
		brounds[n] = b->rounds[PQ_AGG_TTFB];
		record[n] = b->has_model && b->model.first_record_rounds > 1;
		mpct[n] = model_slowdown(b, q);
		cat(s->ours, sizeof s->ours, "%s%g KiB %+.1f %% [%+.1f, %+.1f]", n ? "; " : "TTLB slowdown: ", kib[n], pct[n],
		    (r.ratio_lo - 1) * 100, (r.ratio_hi - 1) * 100);
		n++;
	}
	if (!s)
		return;
	snprintf(s->question, sizeof s->question, "TTLB slowdown of ML-DSA-65 + X25519MLKEM768 over ECDSA + X25519 against "
		 "the response size, profile %s", wb->profile);
	snprintf(s->theirs, sizeof s->theirs, "%s", aws_theirs[p]);
	/* points in the order found; the checks below take them by size */
	double small = NAN, large = NAN, at200 = NAN, worst50 = -INFINITY, worst = -INFINITY, kmin = INFINITY, kmax = -1;
	for (size_t i = 0; i < n; i++) {
		worst = fmax(worst, pct[i]);
		if (kib[i] >= 50)
			worst50 = fmax(worst50, pct[i]);
		if (kib[i] == 200)
			at200 = pct[i];
		if (kib[i] < kmin)
			kmin = kib[i], small = pct[i];
		if (kib[i] > kmax)
			kmax = kib[i], large = pct[i];
	}
	if (p == 0) {
		s->agrees = worst < 5;
		snprintf(s->verdict, sizeof s->verdict, s->agrees ? "agrees: at most %+.1f %% at every size" :
			 "differs: up to %+.1f %%, above 5 %%: the chain's first flight over the initial window costs a round "
			 "trip (35 ms) that a short transfer does not hide", worst);
		if (!s->agrees)
			fast_tail(s, kib, pct, brounds, record, n, kmin);
	} else if (p == 1) {
		s->agrees = (!isfinite(worst50) || worst50 < 15) && (!isfinite(at200) || at200 < 10) && isfinite(worst50);
		if (!isfinite(worst50))
			snprintf(s->verdict, sizeof s->verdict, "cannot be judged: no response of 50 KiB or more here");
		else if (s->agrees)
			snprintf(s->verdict, sizeof s->verdict, "agrees: at most %+.1f %% from 50 KiB (the study: under 15 %%)", worst50);
		else
		{
			snprintf(s->verdict, sizeof s->verdict, "differs: up to %+.1f %% from 50 KiB (the study: under 15 %%): at "
				 "1 Mbit/s the chain's extra bytes are transmission time, not only round trips", worst50);
			lowbw_model(s, kib, pct, mpct, n, worst50);
		}
		if (isfinite(at200))
			cat(s->verdict, sizeof s->verdict, "; %+.1f %% at 200 KiB (the study: under 10 %%)", at200);
		if (!isfinite(worst50))
			s->agrees = PQ_VERDICT_UNJUDGED;
	} else {
		s->agrees = n >= 2 && large < small;
		snprintf(s->verdict, sizeof s->verdict, s->agrees ? "agrees: the slowdown falls from %+.1f %% at %g KiB to %+.1f %% at %g KiB" :
			 "differs: the slowdown does not fall with size (%+.1f %% at %g KiB, %+.1f %% at %g KiB): loss or jitter "
			 "adds more variance than the handshake's bytes", small, kmin, large, kmax);
	}
}

static void aws_rows(rows *rs, const pq_study *st)
{
	for (size_t p = 0; p < st->nwants / 2; p++)
		aws_row(rs, st, p);
}

const pq_study pq_study_aws_ttlb = {
    .id = "aws-ttlb",
    .name = "AWS (seeds/004, abstract)",
    .source = "seeds/004: Kampanakis and Childs-Klein, the abstract's figures",
    .presets = "ttlb",
    .wants = aws_wants,
    .nwants = sizeof aws_wants / sizeof aws_wants[0],
    .rows = aws_rows,
};
