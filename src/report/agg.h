/* The report's analysis, computed once: connections pooled per grid point over trials,
 * described with stats/ci.h, set against the flight model's prediction (model/),
 * compared with a baseline arm (stats/boot.h, seeded), the lines of time against chain
 * size with their measured steps (stats/step.h) and the model's cliffs, and the TTLB
 * slowdown series. The renderers (html.c, tables.c, studies.c) only format what is
 * here; none of them runs the model, a bootstrap or step detection.
 *
 * Contract: pq_agg_build returns 0 with *out filled (free with pq_agg_free) or a
 * negative error with a message. Times in the groups are in milliseconds; each
 * group's description is computed on the stored microseconds and then divided by
 * 1000, so its median and p95 are the SQL views' (src/exp/schema.sql) divided by 1000,
 * to the last bit. Each group's values v[p] are sorted ascending. */
#ifndef PQ_REPORT_AGG_H
#define PQ_REPORT_AGG_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "model/flight.h"
#include "model/loss.h"
#include "exp/rdb.h"
#include "report/findings.h"
#include "stats/boot.h"
#include "stats/ci.h"
#include "stats/step.h"

#define PQ_AGG_MAX_HOSTS 8
#define PQ_AGG_MAX_RTTS 32
#define PQ_AGG_MAX_ARMS 64
/* Resamples of every bootstrap difference the report shows (the key tables, the studies,
 * the clients side by side, two runs side by side), and the same number as the pages
 * say it in words (test_report checks that the two agree). */
#define PQ_AGG_BOOT_REPS 1000
/* A link's jitter (each direction's standard deviation) of this share of its RTT or more:
 * a cell's round trips are counted in the link's RTT, not tcp_info's min RTT, which is
 * then the luckiest sample (report/agg.c). */
#define PQ_AGG_JITTER_SHARE 0.05
#define PQ_AGG_BOOT_REPS_WORDS "1,000"

enum pq_agg_phase { PQ_AGG_HS, PQ_AGG_TTFB, PQ_AGG_TTLB, PQ_AGG_PHASES };
/* Chromium's parts of its first byte, per connection (exp/rdb.h): the network's part, its
 * certificate verification, its request's dispatch. */
enum pq_agg_br { PQ_AGG_BR_NET, PQ_AGG_BR_VERIFY, PQ_AGG_BR_DISPATCH, PQ_AGG_BR_PARTS };

typedef struct pq_agg_group {
	const pq_rdb_cell *cell; /* the first of its cells: the parameters */
	int host, arm, rtt;	 /* indexes into the pq_agg lists */
	double *v[PQ_AGG_PHASES]; /* successful connections' times, ms */
	size_t n[PQ_AGG_PHASES];
	pq_ci_desc desc[PQ_AGG_PHASES]; /* valid when n >= 1 */
	/* Against the baseline: the first arm's group at the same host, RTT and response that
	 * differs from this one in the fewest dimensions (report/curve.h: the same chain size
	 * for a size sweep, the same loss for a loss sweep; a link setting such as initcwnd
	 * may be what the arms differ in). Bootstrap of the medians; has_vs[p] = 0 for the
	 * baseline itself or too few values. The key tables show diff_phase: TTFB, or the
	 * handshake where no response was asked. */
	pq_boot_result vs[PQ_AGG_PHASES];
	int has_vs[PQ_AGG_PHASES];
	enum pq_agg_base { PQ_AGG_BASE_SELF, PQ_AGG_BASE_NONE, PQ_AGG_BASE_OK } base; /* why has_vs is 0 */
	const struct pq_agg_group *base_g; /* the baseline's group (base == PQ_AGG_BASE_OK), else NULL */
	enum pq_agg_phase diff_phase;
	size_t failed, total, retrans;
	size_t marked; /* its cells measured on a link or host over budget (pq_agg_cell_marked) */
	/* The largest wait of its cells' endpoints for a CPU (client's plus server's, in the
	 * median connection: pq_agg_endpoint_wait_us), ms; NaN where no cell knows it. A
	 * median can be moved by that much by the host, not the network. */
	double wait_ms;
	size_t hrr; /* connections the server answered with a HelloRetryRequest */
	double min_rtt_ms; /* median of the connections' tcp_info min_rtt */
	/* Chromium's grid points (client = chromium; browser 0 and nbr 0 for pqtls's client):
	 * its successful connections' parts of the first byte (enum pq_agg_br), ms, each
	 * sorted, and the median of its ClientHellos' bytes on TCP (NaN: none stored), which
	 * its model takes in place of the one pqtls's client sends. */
	int browser;
	double *br[PQ_AGG_BR_PARTS];
	size_t nbr[PQ_AGG_BR_PARTS];
	double br_ch_bytes;
	int has_model;
	size_t model_ch; /* the ClientHello's bytes on TCP the model took (0: no model) */
	pq_model_out model;
	double rounds[PQ_AGG_PHASES]; /* measured: median time over min_rtt */
	char agree_why[256];	      /* "" when every phase agrees, else the reason */
	char agree_tag[24];	      /* the reason in two words, for narrow tables */
	int agrees;
	/* Under loss (report/agg_loss.c): the loss model's handshake percentiles for this
	 * cell's packets, link and loss beside the measured ones with their 95 % intervals;
	 * a percentile agrees within one round trip or inside the measured interval. `loss`
	 * adds the endpoints' delays as the family's loss-free cell measured them (its
	 * handshakes over the loss-free prediction; loss_delays of them, 0: no such cell, and
	 * then loss is loss_net); loss_net is the packets and Linux's timers alone. */
	int has_loss_in, has_loss;
	pq_model_loss_in loss_in;
	pq_model_loss_out loss, loss_net;
	size_t loss_delays;
	double loss_meas[3], loss_lo[3], loss_hi[3]; /* p25, median, p95, ms (lo/hi NaN: none) */
	int loss_agree[3];
	int loss_wide;	/* the measured p95's interval is wider than a round trip */
} pq_agg_group;

/* Per arm, RTT and unit of loss: the loss rate from which the median handshake pays its
 * first extra round trip, measured (the lowest loss cell whose median is half a round
 * trip or more over the loss-free cell's) and by the loss model, with its reason. */
typedef struct pq_agg_lossstep {
	int host, arm, rtt;
	const pq_agg_group *first; /* its loss-free (or lowest-loss) group */
	char unit[16];
	double measured_pct, model_pct; /* -1: not within the cells / up to 50 % */
	double model_rtts, base_rtts;
	/* the highest loss up to which (from the lowest) this arm's median stays within half
	 * a round trip of the first arm's at the same loss; -1: not at the lowest, or it is
	 * the first arm */
	double same_pct;
	char why[512];
} pq_agg_lossstep;

/* pqtls's client and Chromium at one grid point (report/clients.c): the two groups that
 * differ in `client` only, both medians' bootstrap difference (Chromium minus pqtls) of
 * the first byte, and of Chromium's network-only first byte against pqtls's whole one
 * (pqtls's client dispatches in microseconds: its first byte is the network's); the whole
 * difference split into Chromium's certificate verification and request dispatch
 * (medians) and the rest; the flight model beside both, each fed with its client's own
 * ClientHello. */
typedef struct pq_agg_pair {
	const struct pq_agg_group *pq, *br;
	int has_fb, has_net;
	pq_boot_result fb, net; /* Chromium minus pqtls, ms */
	double verify_ms, dispatch_ms, rest_ms; /* fb.diff = verify + dispatch + rest; NaN: not stored */
	double net_ms;	/* Chromium's network-only first byte, median, ms */
	double rtt_ms;	/* the round trip differences are said in: pqtls's median min RTT (else the link's) */
	double rounds_pq, rounds_net; /* measured first bytes over rtt_ms: pqtls's, Chromium's network-only */
	double net_rtts;	      /* net.diff over rtt_ms */
	int wan;		      /* a WAN grid point: RTT of 10 ms or more (below, CPU time ~ RTT) */
	int within;		      /* |net.diff| <= PQ_MODEL_AGREE_RTT round trips */
} pq_agg_pair;

/* What a post-quantum chain costs a warm Chromium's CPU (report/clients_warm.c): a warm
 * browser's grid point (client chromium, browser-state warm) whose chain is not classical
 * beside the warm one with a classical chain (ECDSA, RSA or EdDSA at every level, no
 * padding, no MTC) at the same host and RTT that differs from it in the chain only; the
 * medians of their certificate verification and the bootstrap difference, PQ minus
 * classical, ms. has 0: too few verification times on either side. */
typedef struct pq_agg_warm {
	const struct pq_agg_group *pq, *cl;
	double pq_ms, cl_ms; /* medians; NaN: none stored */
	int has;
	pq_boot_result verify;
} pq_agg_warm;

/* Over the pairs: the WAN grid points with both first bytes, those within
 * PQ_MODEL_AGREE_RTT, and the size-sweep steps of the two clients' lines (pq_agg_line,
 * `browser` apart) at one host, arm and RTT: at the same chain sizes or not. */
typedef struct pq_agg_pairs_sum {
	size_t wan, within, lines_both, steps_same;
	double worst_rtts; /* the largest |net_rtts| at a WAN point; NaN: none */
	double verify_lo, verify_hi, dispatch_lo, dispatch_hi; /* Chromium's medians' range over the pairs, ms */
} pq_agg_pairs_sum;

#define PQ_AGG_LINE_PTS 512
/* A step is a jump of at least this many round trips between neighbouring sizes. */
#define PQ_AGG_STEP_RTT 0.5
#define PQ_AGG_LINE_STEPS 8

/* Time against chain size at one host and RTT: the groups of one arm that sweeps the
 * chain's size (arm >= 0), or the key arms' full handshakes that differ in their chain
 * only (arm = -1: one line per such family, report/curve.h; at least 3 sizes). */
typedef struct pq_agg_line {
	int host, rtt, arm;
	const pq_agg_group *fam; /* arm = -1: a point of the family; NULL otherwise */
	const pq_agg_group *first; /* its first point's group: the link's values for a label */
	int hs_only; /* no response asked: fb[] and mfb[] are the handshake's */
	int browser; /* Chromium's points: fb[] is its network-only first byte (its whole one beside, in fbw[]) */
	double fbw[PQ_AGG_LINE_PTS];
	int padded;  /* its chains were padded to sizes (pad-chain-to), as the paper's Figure 5 */
	size_t n;
	double x[PQ_AGG_LINE_PTS];			/* chain DER size, kB, ascending */
	double hs[PQ_AGG_LINE_PTS], fb[PQ_AGG_LINE_PTS]; /* measured medians, ms */
	double mfb[PQ_AGG_LINE_PTS];			/* the model's round trips x RTT, ms */
	pq_step steps[PQ_AGG_LINE_STEPS];		/* measured steps of at least PQ_AGG_STEP_RTT */
	size_t nsteps;					/* may exceed PQ_AGG_LINE_STEPS */
	/* The least handshake time beyond the model's round trips at any of its points (CPU
	 * time: signing, verifying, hashing; and what else the flight model does not have),
	 * ms; NaN where no point has a model. Where it is PQ_AGG_STEP_RTT of a round trip or
	 * more (cpu_bound, e.g. at 1 ms RTT), a jump that large may be CPU time rather than
	 * the chain's round trips: no step is claimed (nsteps = 0). */
	double cpu_ms;
	int cpu_bound;
	int has_cliff;
	double cliff_kb; /* the model's first cliff in the line's range */
	char cliff_label[96];
} pq_agg_line;

#define PQ_AGG_SLOW_PTS 32

/* TTLB slowdown (median ratio - 1, %, with the bootstrap interval) of one response-size
 * arm against the first such arm (base) on one host and link (profile), by response size. */
typedef struct pq_agg_slow {
	int host, arm, base;
	const pq_agg_group *first; /* a point's group: its link (link_key, RTT, profile) */
	size_t n;
	double kib[PQ_AGG_SLOW_PTS], pct[PQ_AGG_SLOW_PTS], lo[PQ_AGG_SLOW_PTS], hi[PQ_AGG_SLOW_PTS];
} pq_agg_slow;

#define PQ_AGG_CURVE_PTS 64

/* A curve across one dimension with every other one fixed (trials pooled): handshake
 * percentiles against loss at one RTT, or TTFB against RTT. */
typedef struct pq_agg_curve {
	enum pq_agg_curve_kind { PQ_AGG_VS_LOSS, PQ_AGG_VS_RTT } kind;
	int host;
	int rtt;		   /* VS_LOSS: the RTT's index; VS_RTT: -1 */
	const pq_agg_group *first; /* a point's group: the other dimensions' values */
	size_t n;
	double x[PQ_AGG_CURVE_PTS];    /* loss %, or RTT ms; ascending */
	double y[4][PQ_AGG_CURVE_PTS]; /* VS_LOSS: handshake p25, p50, p75, p95; VS_RTT: TTFB median, CI lo, hi */
} pq_agg_curve;

/* One study's question beside this database's answer (report/studies.c fills them). */
typedef struct pq_agg_study {
	char study[64];	    /* "paper Table VI (seeds/003)" */
	char question[200]; /* with the conditions: "TTFB at 50 ms RTT, ML-DSA-44 chain" */
	char theirs[400];   /* the published figure, quoted */
	char ours[1200];    /* this database's, with its interval */
	char verdict[800];  /* agrees, or by how much it differs and why as far as the lab can tell */
	int agrees;	    /* a pq_verdict (report/verdict.h): 1 agrees, 0 differs, -1 cannot be judged */
} pq_agg_study;

#define PQ_AGG_PIVOT_VALS 64
#define PQ_AGG_PIVOT_ROWS 64
/* At most this many columns in a pivot: wider, it is drawn transposed (its values as rows). */
#define PQ_AGG_PIVOT_COLS 7

/* Arms x one dimension that varies within them (RTT, loss, chain or response size), per
 * host: each row is an arm with the other dimensions of its grid points fixed, each column
 * one value of the dimension, each cell that grid point's group (NULL: none), like the
 * studies' own tables. transposed: more values than PQ_AGG_PIVOT_COLS, fewer rows: the
 * values are the rows. */
typedef struct pq_agg_pivot {
	int host;
	size_t dim; /* index into pq_dims */
	size_t nvals, nrows;
	char val[PQ_AGG_PIVOT_VALS][48];	 /* the dimension's values, ascending, as shown */
	char row[PQ_AGG_PIVOT_ROWS][200];	 /* the arm, and the row's other varying dimensions */
	int row_arm[PQ_AGG_PIVOT_ROWS];
	const struct pq_agg_group *g[PQ_AGG_PIVOT_ROWS][PQ_AGG_PIVOT_VALS];
	int transposed;
} pq_agg_pivot;
#define PQ_AGG_CAND_COLS 16

/* A column of the candidates table (report/cand.h): transport, initial window, RTT. */
typedef struct pq_agg_cand_col {
	int quic, initcwnd;
	long long rtt_us;
} pq_agg_cand_col;

/* A candidate: an arm whose groups vary only the link, one group per column (NULL: none). */
typedef struct pq_agg_cand {
	const char *arm;	/* the arm's label as run (both transports) */
	long long chain_bytes;	/* DER bytes the server sends */
	long long flight_bytes; /* the TCP first flight by the flight model */
	const pq_agg_group *g[PQ_AGG_CAND_COLS];
} pq_agg_cand;

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
	pq_agg_line *lines;
	size_t nlines;
	pq_agg_slow *slow;
	size_t nslow;
	size_t vary[PQ_DIM_COUNT]; /* indexes into pq_dims of the dimensions whose value varies */
	size_t nvary;
	/* a->vary split for the page's tables (pq_agg_split): what each arm fixes (the same in
	 * every grid point of each arm: leaf, group, key share... shown once per arm) and what
	 * varies within an arm (the key table's columns; the derived timeout and stored-only
	 * entries stay in key.csv and the terminal). */
	size_t arm_dims[PQ_DIM_COUNT], narm_dims;
	size_t point_dims[PQ_DIM_COUNT], npoint_dims;
	pq_agg_pivot *pivots; /* one per host where a dimension varies within the arms (report/pivot.h) */
	size_t npivots;
	/* What the key table pools or leaves out, and what is the same everywhere, in
	 * sentences every renderer prints above it. */
	char notes[6][1600];
	size_t nnotes;
	pq_agg_curve *curves;
	size_t ncurves;
	pq_agg_study *studies;
	size_t nstudies;
	pq_agg_lossstep *losssteps;
	size_t nlosssteps;
	size_t loss_cells, loss_agree_med, loss_agree_p95, loss_agree_both, loss_wide;
	size_t loss_clean, loss_clean_both; /* of them, within their fidelity budgets (marked 0) */
	pq_agg_pair *pairs; /* report/clients.h: one per grid point both clients measured */
	size_t npairs;
	pq_agg_pairs_sum pairs_sum;
	pq_agg_warm *warm; /* report/clients.h: one per warm browser's post-quantum grid point */
	size_t nwarm;
	pq_agg_cand *cands; /* report/cand.h; ncands 0 when the run is not that shape */
	size_t ncands;
	pq_agg_cand_col cand_cols[PQ_AGG_CAND_COLS];
	size_t ncand_cols;
	uint64_t seed; /* of every bootstrap */
	int any_hrr; /* some connection drew a HelloRetryRequest: the tables show how many */
	/* What the key tables' difference column compares: "TTFB", "handshake" (no cell asked
	 * for a response) or "TTFB (or handshake)". */
	const char *diff_what;
	/* Fidelity over every cell: how many had the link's own accounting / the host's steal,
	 * how many were over those budgets or on a link that missed its self-check. */
	struct pq_agg_fid {
		size_t link_known, link_over, host_known, host_over, check_missed, marked;
		double late_p99_max_us, steal_max_pct; /* NaN: none known */
		double wait_max_us; /* the largest endpoints' median wait (client + server) of a cell; NaN: none */
		size_t wait_over;   /* cells whose endpoints' wait was over its budget (exp/hostload.h) */
	} fid;
	pq_findings findings; /* what the page and the terminal open with (report/findings.h) */
} pq_agg;

/* Does key arms' line l's family differ in dimension d (an index into pq_dims) from another
 * key arms' line at its host and RTT? What a figure names to tell families apart. */
int pq_agg_line_family_differs(const pq_agg *a, const pq_agg_line *l, size_t d);

/* A cell marked as measured on an unfaithful link or host: its link over the lateness or
 * drop budget, its host over the steal budget, or its link's self-check missed. */
int pq_agg_cell_marked(const pq_rdb_cell *c);
/* A cell's endpoints' wait for a CPU as its host verdict judged it (exp/hostload.h), us;
 * NaN when not measured. */
double pq_agg_endpoint_wait_us(const pq_rdb_fidelity *f);
/* 1 when a cell's endpoints waited for a CPU over the host's budget for it (its RTT and
 * its median connection's time, exp/hostload.h); 0 within or not measured. */
int pq_agg_cell_wait_over(const pq_rdb_cell *c);

/* Leaves out of db every marked cell (pq_agg_cell_marked), says so in db->note (which the
 * key table's notes print, led by `what`, the caller's name for asking it), and returns how
 * many were left out; PQ_ERANGE (with *d naming the file and `what`) when no cell is left. */
int pq_agg_keep_clean(pq_rdb *db, const char *path, const char *what, pq_diag *d) PQ_MUST_USE;

/* The dimensions are the descriptor table's (exp/dim.h, pq_dims[]): the report walks it
 * for every dimension stored in a cell column; a->vary lists those whose stored value
 * differs between cells. */

/* A cell's value of pq_dims[i] as a reader sees it: "70 ms", "1 %", "200 KiB", "ml-dsa-65". */
void pq_agg_dim_show(const pq_rdb_cell *c, size_t i, char *buf, size_t n);

/* A cell's response in a column of bytes: its size ("65536"), or in words where it has
 * none ("/ (a short page)", "none (handshake only)"): never the stored -1. */
void pq_agg_response_show(const pq_rdb_cell *c, char *buf, size_t n);

/* The stored value of pq_dims[i] as key.csv writes it (the column's own unit; "" for NULL). */
void pq_agg_dim_raw(const pq_rdb_cell *c, size_t i, char *buf, size_t n);

/* Fills a->vary from the database's cells (pq_agg_build calls it). */
void pq_agg_vary(const pq_rdb *db, pq_agg *a);
/* Fills a->arm_dims and a->point_dims from a->vary once the groups are built. */
void pq_agg_split(pq_agg *a);
/* Fills a->notes once the groups are built (pq_agg_build calls it). */
void pq_agg_notes(const pq_rdb *db, pq_agg *a);

/* A grid point's label: its arm, and each varying dimension but `except` (a key, or
 * NULL) that the arm alone does not fix, as "key value": never cut. */
void pq_agg_point_label(const pq_agg *a, const pq_agg_group *g, const char *except, char *buf, size_t n);

/* A cell's stored (effective) value of the dimension with spec key `key` ("rtt", "leaf",
 * "intermediate", "intermediates", "mtc", "cert-compression", "group", "resume",
 * "early-data", "profile", "loss", "jitter", "rate", "response", "pad-chain-to"): as text
 * (NULL when the database does not hold it) and as a number (NaN when it is not a number
 * or not held). The one place the report reads a cell's dimension by name. */
const char *pq_agg_dim_text(const pq_rdb_cell *c, const char *key);
double pq_agg_dim_num(const pq_rdb_cell *c, const char *key);
/* The intermediates the cell's server sent: none with trust anchor identifiers (the
 * client holds them), else the chain's. What the flight model sends, wherever it is run. */
int pq_agg_sent_intermediates(const pq_rdb_cell *c);

int pq_agg_build(const pq_rdb *db, uint64_t seed, pq_agg *out, pq_diag *d) PQ_MUST_USE;
void pq_agg_free(pq_agg *a);

/* The flight model beside each group (report/agg_model.c): a cache of its inputs across
 * groups (NULL when out of memory), a group's prediction, and its verdict of agreement
 * with the reason when it differs; pq_agg_build calls them per group. */
typedef struct pq_agg_models pq_agg_models;
pq_agg_models *pq_agg_models_new(void);
void pq_agg_models_free(pq_agg_models *m);
void pq_agg_predict(pq_agg_group *g, pq_agg_models *m);
void pq_agg_judge(pq_agg_group *g);

/* The size lines with their steps and cliffs, and the TTLB slowdown series
 * (report/agg_lines.c); pq_agg_build calls them once every group is judged and has its
 * difference to the baseline. 0, or PQ_ENOMEM. */
int pq_agg_lines_build(pq_agg *a) PQ_MUST_USE;
int pq_agg_slow_build(pq_agg *a) PQ_MUST_USE;

/* The loss model for every group with loss (each with its family's loss-free delays), the
 * per-arm first extra round trip and the agreement counts over all groups; pq_agg_build
 * calls it once every group is predicted. */
int pq_agg_loss_build(pq_agg *a) PQ_MUST_USE;

/* The group of (host, arm, rtt) with response size `resp` (-2: any), or NULL. */
const pq_agg_group *pq_agg_find(const pq_agg *a, int host, int arm, int rtt, long long resp);


extern const char *const pq_agg_phase_name[PQ_AGG_PHASES];

#endif
