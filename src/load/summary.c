#include "load/summary.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

void pq_load_norm_name(const char *name, char *out, size_t n)
{
	static const struct {
		const char *alias, *canon;
	} aliases[] = {{"p256", "secp256r1"}, {"p384", "secp384r1"}, {"p521", "secp521r1"}};
	size_t k = 0;
	for (const char *p = name; *p && k + 1 < n; p++)
		if (*p != '-' && *p != '_')
			out[k++] = (char)tolower((unsigned char)*p);
	out[k] = '\0';
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		if (strcmp(out, aliases[i].alias) == 0)
			snprintf(out, n, "%s", aliases[i].canon);
}

void pq_load_first_name(const char *list, char *out, size_t n)
{
	char first[64];
	out[0] = '\0';
	if (!list)
		return;
	while (*list == '?' || *list == '*' || *list == '-')
		list++;
	size_t len = strcspn(list, ":/,");
	if (len >= sizeof first)
		len = sizeof first - 1;
	memcpy(first, list, len);
	first[len] = '\0';
	pq_load_norm_name(first, out, n);
}

static void count_error(pq_load_summary *s, const pq_load_record *r)
{
	s->err[r->err]++;
	for (size_t i = 0; i < s->nerrs; i++)
		if (s->errs[i].kind == r->err && !strcmp(s->errs[i].detail, r->err_detail)) {
			s->errs[i].count++;
			return;
		}
	if (s->nerrs < PQ_SUM_MAX_ROWS) {
		s->errs[s->nerrs].kind = r->err;
		snprintf(s->errs[s->nerrs].detail, sizeof s->errs[0].detail, "%s", r->err_detail);
		s->errs[s->nerrs++].count = 1;
	}
}

static void count_combo(pq_load_summary *s, const pq_load_record *r)
{
	for (size_t i = 0; i < s->ncombos; i++)
		if (s->combos[i].resumed == r->resumed && !strcmp(s->combos[i].version, r->version) &&
		    !strcmp(s->combos[i].group, r->group) && !strcmp(s->combos[i].sigalg, r->sigalg) &&
		    !strcmp(s->combos[i].cipher, r->cipher)) {
			s->combos[i].count++;
			return;
		}
	if (s->ncombos < PQ_SUM_MAX_ROWS) {
		pq_load_combo *c = &s->combos[s->ncombos++];
		memcpy(c->version, r->version, sizeof c->version);
		memcpy(c->group, r->group, sizeof c->group);
		memcpy(c->sigalg, r->sigalg, sizeof c->sigalg);
		memcpy(c->cipher, r->cipher, sizeof c->cipher);
		c->resumed = r->resumed;
		c->count = 1;
	}
}

static uint32_t sum_hs(const pq_load_record *r, int dir)
{
	uint32_t t = 0;
	for (int i = 0; i < PQ_HS_COUNT; i++)
		t += r->hs_bytes[dir][i];
	return t;
}

/* One series of values: every value while there are at most PQ_LOAD_EXACT_MAX (the
 * summary then is pq_stats' exact one), after that counts in log-spaced buckets
 * (DDSketch's mapping: bucket i holds (g^(i-1), g^i], g = (1+a)/(1-a), and stands for
 * 2 g^i / (g+1), within a = PQ_LOAD_REL_ERR of every value in it). Count, mean, sd
 * (Welford), min and max stay exact. */
#define HIST_A PQ_LOAD_REL_ERR
#define HIST_MAX_BUCKET 17500 /* g^17500 ~ 1.5e15: 17 days in ns, petabytes in bytes */

typedef struct series {
	pq_stats exact;
	uint64_t *b; /* buckets, once past PQ_LOAD_EXACT_MAX */
	uint64_t zero; /* values below 1 (0 ns, 0 bytes) */
	size_t n;
	double mean, m2, min, max;
} series;

static double hist_lg(void)
{
	return log((1 + HIST_A) / (1 - HIST_A));
}

static void hist_put(series *x, double v)
{
	if (v < 1) {
		x->zero++;
		return;
	}
	double i = ceil(log(v) / hist_lg());
	x->b[i < 0 ? 0 : i > HIST_MAX_BUCKET ? HIST_MAX_BUCKET : (size_t)i]++;
}

static int series_add(series *x, double v)
{
	x->n++;
	double delta = v - x->mean;
	x->mean += delta / (double)x->n;
	x->m2 += delta * (v - x->mean);
	x->min = x->n == 1 || v < x->min ? v : x->min;
	x->max = x->n == 1 || v > x->max ? v : x->max;
	if (x->b) {
		hist_put(x, v);
		return 0;
	}
	int rc = pq_stats_add(&x->exact, v);
	if (rc < 0 || x->exact.n <= PQ_LOAD_EXACT_MAX)
		return rc;
	x->b = calloc(HIST_MAX_BUCKET + 1, sizeof *x->b);
	if (!x->b)
		return PQ_ENOMEM;
	for (size_t i = 0; i < x->exact.n; i++)
		hist_put(x, x->exact.v[i]);
	pq_stats_dispose(&x->exact);
	return 0;
}

/* The value of order statistic k (0-based) from the buckets. */
static double hist_rank(const series *x, uint64_t k)
{
	uint64_t seen = x->zero;
	if (k < seen)
		return x->min;
	for (size_t i = 0; i <= HIST_MAX_BUCKET; i++) {
		seen += x->b[i];
		if (k < seen) {
			double g = (1 + HIST_A) / (1 - HIST_A);
			double v = 2 * exp((double)i * hist_lg()) / (g + 1);
			return v < x->min ? x->min : v > x->max ? x->max : v;
		}
	}
	return x->max;
}

/* pqtls's one percentile (stats/sample.h) on the buckets: its ranks, the buckets' values. */
static double hist_percentile(const series *x, unsigned permille)
{
	size_t lo;
	double frac, a;
	pq_stats_rank((size_t)x->n, permille, &lo, &frac);
	a = hist_rank(x, lo);
	return frac == 0 ? a : a + frac * (hist_rank(x, lo + 1) - a);
}

static void series_summary(series *x, pq_summary *o)
{
	if (!x->b) {
		pq_stats_summary(&x->exact, o);
		return;
	}
	o->n = x->n;
	o->mean = x->mean;
	o->sd = sqrt(x->m2 / (double)(x->n - 1));
	o->min = x->min;
	o->max = x->max;
	o->p50 = hist_percentile(x, PQ_STATS_MEDIAN);
	o->p90 = hist_percentile(x, 900);
	o->p99 = hist_percentile(x, 990);
	o->p999 = hist_percentile(x, 999);
}

static size_t series_bytes(const series *x)
{
	return x->exact.cap * sizeof(double) + (x->b ? (HIST_MAX_BUCKET + 1) * sizeof *x->b : 0);
}

static void series_dispose(series *x)
{
	pq_stats_dispose(&x->exact);
	free(x->b);
}

/* Successful connections' (intended start, latency), for the first/last tenth trend:
 * all of them up to PQ_LOAD_EXACT_MAX, then a systematic sample (every 2^k-th in
 * completion order) of PQ_LOAD_EXACT_MAX / 2 .. PQ_LOAD_EXACT_MAX. */
typedef struct trend_pt {
	int64_t intended;
	double latency;
} trend_pt;

struct pq_load_acc {
	pq_load_summary s;
	series ph[PQ_PH_COUNT], lat, full, resumed;
	trend_pt *pts;
	size_t npts;
	uint64_t stride, seen;
};

int pq_load_acc_new(pq_load_acc **out, const pq_load_config *cfg)
{
	pq_load_acc *a = calloc(1, sizeof *a);
	*out = a;
	if (!a || !(a->pts = malloc((PQ_LOAD_EXACT_MAX + 1) * sizeof *a->pts))) {
		free(a);
		*out = NULL;
		return PQ_ENOMEM;
	}
	a->stride = 1;
	pq_load_first_name(cfg->tls.groups, a->s.want_group, sizeof a->s.want_group);
	pq_load_first_name(cfg->tls.sigalgs, a->s.want_sigalg, sizeof a->s.want_sigalg);
	a->s.open_loop = cfg->rate > 0;
	return 0;
}

static void trend_add(pq_load_acc *a, int64_t intended, double latency)
{
	if (a->seen++ % a->stride)
		return;
	a->pts[a->npts++] = (trend_pt){intended, latency};
	if (a->npts <= PQ_LOAD_EXACT_MAX)
		return;
	size_t k = 0;
	for (size_t i = 0; i < a->npts; i += 2)
		a->pts[k++] = a->pts[i];
	a->npts = k;
	a->stride *= 2;
	a->seen = 1; /* the last one was kept (PQ_LOAD_EXACT_MAX is even): the next is
		      * one new stride after it */
}

int pq_load_acc_add(pq_load_acc *a, const pq_load_record *r)
{
	pq_load_summary *s = &a->s;
	int rc = 0;
	s->n++;
	s->resume_offered += r->resume_offered;
	if (r->err != PQ_LERR_NONE) {
		count_error(s, r);
		return 0;
	}
	s->ok++;
	s->resumed += r->resumed;
	s->hrr += r->hrr;
	s->early_accepted += r->early_accepted;
	s->cert_compressed += r->cert_compressed;
	count_combo(s, r);
	char got[32];
	pq_load_norm_name(r->group, got, sizeof got);
	if (s->want_group[0] && strcmp(got, s->want_group) != 0)
		s->group_mismatch++;
	pq_load_norm_name(r->sigalg, got, sizeof got);
	if (s->want_sigalg[0] && !r->resumed && strcmp(got, s->want_sigalg) != 0)
		s->sigalg_mismatch++;
	for (int p = 0; p < PQ_PH_COUNT && rc == 0; p++)
		if (r->t[p] >= 0)
			rc = series_add(&a->ph[p], (double)r->t[p]);
	if (rc == 0)
		rc = series_add(&a->lat, (double)pq_load_latency_ns(r));
	if (rc == 0)
		rc = series_add(r->resumed ? &a->resumed : &a->full, sum_hs(r, PQ_RX));
	trend_add(a, r->intended_ns, (double)pq_load_latency_ns(r));
	s->rx_handshake_bytes += sum_hs(r, PQ_RX);
	s->tx_handshake_bytes += sum_hs(r, PQ_TX);
	s->rx_cert_bytes += r->hs_bytes[PQ_RX][PQ_HS_CERTIFICATE] +
			    r->hs_bytes[PQ_RX][PQ_HS_COMPRESSED_CERTIFICATE];
	s->tls_rx += (double)r->tls_bytes[PQ_RX];
	s->tls_tx += (double)r->tls_bytes[PQ_TX];
	s->segs_rx += r->tcp_segs[PQ_RX];
	s->segs_tx += r->tcp_segs[PQ_TX];
	if (r->quic) {
		s->quic++;
		s->quic_amp_held += r->quic_amp_held;
		s->quic_retry += r->quic_retry;
		s->quic_dgrams_rx += r->quic_dgrams[PQ_RX];
		s->quic_dgrams_tx += r->quic_dgrams[PQ_TX];
		s->quic_bytes_rx += (double)r->quic_bytes[PQ_RX];
		s->quic_bytes_tx += (double)r->quic_bytes[PQ_TX];
		s->quic_first_bytes += r->quic_first_bytes;
		s->quic_first_dgrams += r->quic_first_dgrams;
	}
	return rc;
}

size_t pq_load_acc_bytes(const pq_load_acc *a)
{
	size_t t = sizeof *a + (PQ_LOAD_EXACT_MAX + 1) * sizeof *a->pts;
	for (int p = 0; p < PQ_PH_COUNT; p++)
		t += series_bytes(&a->ph[p]);
	return t + series_bytes(&a->lat) + series_bytes(&a->full) + series_bytes(&a->resumed);
}

static int cmp_intended(const void *x, const void *y)
{
	const trend_pt *p = x, *q = y;
	return (p->intended > q->intended) - (p->intended < q->intended);
}

/* Median latency of the first and the last tenth of successful connections by intended
 * start: an overloaded server shows as a later tenth that waits longer. */
static int latency_trend(pq_load_acc *a)
{
	pq_load_summary *s = &a->s;
	size_t n = a->npts, tenth = n / 10;
	int rc = 0;
	qsort(a->pts, n, sizeof *a->pts, cmp_intended);
	pq_stats x, y;
	pq_stats_init(&x);
	pq_stats_init(&y);
	for (size_t i = 0; i < tenth && rc == 0; i++) {
		rc = pq_stats_add(&x, a->pts[i].latency);
		if (rc == 0)
			rc = pq_stats_add(&y, a->pts[n - 1 - i].latency);
	}
	s->latency_first_p50 = tenth ? pq_stats_percentile(&x, 50) : NAN;
	s->latency_last_p50 = tenth ? pq_stats_percentile(&y, 50) : NAN;
	pq_stats_dispose(&x);
	pq_stats_dispose(&y);
	return rc;
}

int pq_load_acc_finish(pq_load_acc *a, const pq_load_result *res, pq_load_summary *out)
{
	pq_load_summary *s = &a->s;
	if (s->ok) {
		double k = (double)s->ok;
		s->rx_handshake_bytes /= k, s->tx_handshake_bytes /= k, s->rx_cert_bytes /= k;
		s->tls_rx /= k, s->tls_tx /= k, s->segs_rx /= k, s->segs_tx /= k;
	}
	if (s->quic) {
		double q = (double)s->quic;
		s->quic_dgrams_rx /= q, s->quic_dgrams_tx /= q, s->quic_bytes_rx /= q;
		s->quic_bytes_tx /= q, s->quic_first_bytes /= q, s->quic_first_dgrams /= q;
	}
	for (int p = 0; p < PQ_PH_COUNT; p++)
		series_summary(&a->ph[p], &s->phase[p]);
	series_summary(&a->lat, &s->latency);
	pq_summary fs, rs;
	series_summary(&a->full, &fs);
	series_summary(&a->resumed, &rs);
	s->rx_handshake_full = fs.mean;
	s->rx_handshake_resumed = rs.mean;
	int rc = latency_trend(a);
	s->wall_s = (double)res->wall_ns / 1e9;
	s->cpu_s = (double)res->cpu_ns / 1e9;
	s->conns_per_s = s->wall_s > 0 ? (double)s->ok / s->wall_s : 0;
	s->cpu_us_per_conn = s->ok ? (double)res->cpu_ns / 1e3 / (double)s->ok : NAN;
	s->stopped_early = res->stopped_early;
	*out = *s;
	return rc;
}

void pq_load_acc_free(pq_load_acc *a)
{
	if (!a)
		return;
	for (int p = 0; p < PQ_PH_COUNT; p++)
		series_dispose(&a->ph[p]);
	series_dispose(&a->lat);
	series_dispose(&a->full);
	series_dispose(&a->resumed);
	free(a->pts);
	free(a);
}

int pq_load_summarize(const pq_load_result *res, const pq_load_config *cfg, pq_load_summary *s)
{
	pq_load_acc *a;
	int rc = pq_load_acc_new(&a, cfg);
	memset(s, 0, sizeof *s);
	for (size_t i = 0; i < res->n && rc == 0; i++)
		rc = pq_load_acc_add(a, &res->recs[i]);
	if (rc == 0)
		rc = pq_load_acc_finish(a, res, s);
	pq_load_acc_free(a);
	return rc;
}
