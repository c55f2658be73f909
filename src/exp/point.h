/* One grid point of an experiment: every parameter a cell is measured with (chain, key
 * exchange, session, link, load), its trial, and the keys derived from them.
 *
 * The canonical text (pq_exp_point_text) lists every parameter in a fixed order with
 * fixed formatting; the cell key is a hash of it, so the same point gets the same key on
 * any host, shard or order. The link key hashes the link parameters only: points with one
 * link key run on one emulated link. */
#ifndef PQ_EXP_POINT_H
#define PQ_EXP_POINT_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "net/linkcfg.h"
#include "pki/chain.h"

#define PQ_EXP_KEY_HEX 33 /* 16 bytes of SHA-256 as hex, NUL */

/* The id of each dimension of a point, in the order of the dimension table (exp/dim.c:
 * pq_dims[], one row per id: how it is read, keyed, stored and applied). A new dimension is
 * an id here, a field below, its row there, and where it applies (exp/cellcfg.c for the
 * endpoints, exp/chains.c for the chain, pq_exp_point_link for the link). */
enum pq_dim_id {
	PQ_D_NAME, PQ_D_TRIALS, PQ_D_SEED, PQ_D_SERVER, PQ_D_SERVERNAME, PQ_D_CA,
	PQ_D_SIG, PQ_D_LEAF, PQ_D_INTER, PQ_D_ROOT, PQ_D_INTERMEDIATES, PQ_D_PAD, PQ_D_MTC, PQ_D_SCTS, PQ_D_SCT_ALG, PQ_D_TAI, PQ_D_OCSP,
	PQ_D_COMP, PQ_D_GROUP, PQ_D_GROUPS, PQ_D_KEY_SHARE, PQ_D_SERVER_GROUPS, PQ_D_TICKETS, PQ_D_RESUME, PQ_D_EARLY, PQ_D_WARMUP,
	PQ_D_PROFILE, PQ_D_RTT, PQ_D_JITTER, PQ_D_LOSS, PQ_D_LOSS_C2S, PQ_D_LOSS_MODEL, PQ_D_BURST, PQ_D_LOSS_UNIT,
	PQ_D_RATE, PQ_D_RATE_C2S, PQ_D_QUEUE, PQ_D_MTU, PQ_D_INITCWND, PQ_D_CC, PQ_D_QDISC, PQ_D_PACING_SS,
	PQ_D_PACING_CA, PQ_D_QUICKACK, PQ_D_TSO, PQ_D_GSO, PQ_D_RWND,
	PQ_D_RESPONSE, PQ_D_CONNECTIONS, PQ_D_CONCURRENCY, PQ_D_OPEN_RATE, PQ_D_ARRIVALS, PQ_D_TIMEOUT,
	PQ_D_ONE_WRITE, PQ_D_TRANSPORT, PQ_D_CLIENT, PQ_D_BROWSER_STATE,
	PQ_DIM_COUNT
};

typedef struct pq_exp_point {
	char arm[64];
	/* chain */
	const pq_alg *leaf, *inter, *root;
	int intermediates;
	uint64_t pad_chain_to;        /* 0 = natural */
	const pq_alg *pad_like;       /* pad to the natural size of this algorithm's chain (same
				       * intermediates); NULL none. Resolved by exp/chains.h */
	enum pq_mtc_mode mtc;
	int scts;                     /* SCTs embedded in the leaf (a size emulation, pki/chain.h) */
	const pq_alg *sct_alg;        /* the logs' signature algorithm; NULL = ecdsa-p256 */
	int tai;                      /* trust anchor identifiers: the leaf alone is sent, the
				       * client holds the intermediates (pki/chain.h) */
	int ocsp;                     /* the leaf's OCSP response stapled; the client asks (pki/ocsp.h) */
	char cert_comp[64];           /* "off", "zlib", "brotli", "zstd" */
	/* key exchange and session */
	char group[64];               /* the group the cell is about: the one to be negotiated */
	char groups[64];              /* the client's offer, in order; "" = the group alone */
	char key_share[64];           /* the offered groups with a share; "" = the first offered */
	char server_groups[64];       /* the in-process server's groups; "" = as offered */
	int tickets;
	double resume;                /* 0..1 */
	int early_data;
	int flight_one_write;         /* server: the first flight in one write */
	int quic;                     /* transport: 0 TCP, 1 QUIC (tls/quic.h: hq-interop) */
	int quic_retry;               /* QUIC: the server sends a Retry first */
	int browser;                  /* client: 0 pqtls's own, 1 Chromium (load/chromium.h) */
	int browser_state;            /* Chromium's: enum pq_browser_state (cold, warm, resumed) */
	long long warmup;
	/* link */
	char profile[64];             /* "" none */
	unsigned link_given;          /* PQ_EXP_LG_* bits: fields that override the profile */
	int64_t rtt_ns, jitter_ns;
	double loss;                  /* 0..1 per direction (mean loss for gilbert) */
	int gilbert;
	double burst;                 /* gilbert mean burst length, packets */
	int loss_unit;                /* enum pq_loss_unit (net/stage.h) */
	uint64_t rate_bps;
	uint32_t queue_pkts, mtu, initcwnd;
	enum pq_cc cc;
	/* kernel TCP (net/ktcp.h): "" / -1 keep the kernel's own */
	char qdisc[32];
	int pacing_ss, pacing_ca;     /* %, -1 the kernel's */
	int quickack, tso, gso;       /* enum pq_ktcp_onoff */
	/* load */
	char path[64];                /* "/", "/bytes/N", "" = handshake only */
	long long response_bytes;     /* N of /bytes/N, else -1 */
	long long connections;
	int concurrency;
	double open_rate;             /* > 0: open loop, connections per second */
	int constant_arrivals;        /* open loop: on a fixed schedule, not Poisson */
	int64_t timeout_ns;           /* client per phase; 0 = derived from the link */
	int trial;                    /* 1-based */
	int remote;                   /* a remote server: chain, tickets and link are its own */
} pq_exp_point;

enum {
	PQ_EXP_LG_RTT = 1u << 0,
	PQ_EXP_LG_JITTER = 1u << 1,
	PQ_EXP_LG_LOSS = 1u << 2,
	PQ_EXP_LG_RATE = 1u << 3,
	PQ_EXP_LG_QUEUE = 1u << 4,
};

/* A point's defaults, each stated once: pq_exp_point_init sets them and the dimension
 * table (exp/dim.c) shows them (PQ_STR for the numbers). Besides these: no link
 * impairment beyond RTT 0, MTU PQ_WIRE_MTU_DEFAULT, the kernel's TCP settings. */
#define PQ_EXP_DEF_SIG "ml-dsa-65"
#define PQ_EXP_DEF_INTERMEDIATES 1
#define PQ_EXP_DEF_CERT_COMP "off"
#define PQ_EXP_DEF_GROUP "X25519MLKEM768"
#define PQ_EXP_DEF_TICKETS 2
#define PQ_EXP_DEF_PATH "/"
#define PQ_EXP_DEF_CONNECTIONS 20
#define PQ_EXP_DEF_CONCURRENCY 1

void pq_exp_point_init(pq_exp_point *p);

/* The canonical "key=value;..." text of every parameter (trial included when
 * with_trial); returns the length or a negative error when buf is too small. */
int pq_exp_point_text(const pq_exp_point *p, int with_trial, char *buf, size_t n);
/* Canonical text of the link parameters only. */
int pq_exp_point_link_text(const pq_exp_point *p, char *buf, size_t n);

/* Hex of the first 16 bytes of SHA-256 over text. */
void pq_exp_hash_hex(const char *text, size_t len, char out[PQ_EXP_KEY_HEX]);
int pq_exp_point_cell_key(const pq_exp_point *p, char out[PQ_EXP_KEY_HEX]);
int pq_exp_point_key(const pq_exp_point *p, char out[PQ_EXP_KEY_HEX]); /* without the trial */
int pq_exp_point_link_key(const pq_exp_point *p, char out[PQ_EXP_KEY_HEX]);

/* The key exchange as the client and the server are configured with it: the groups
 * offered (groups, else the group alone), the shares ("" in key_share: the first
 * offered) and the server's list (server_groups, else the offered ones). */
const char *pq_exp_point_groups(const pq_exp_point *p);
const char *pq_exp_point_server_groups(const pq_exp_point *p);
/* The client's offer as one OpenSSL groups list ('*' marks a share, tls/hello.h): 0, or
 * PQ_EINVAL naming the key when a share is not offered, the group is not among the
 * groups offered, or the server's groups (server-groups) do not take the group (nothing
 * in common with the offer, or only other groups). */
int pq_exp_point_offer(const pq_exp_point *p, char *buf, size_t n, pq_diag *d) PQ_MUST_USE;

/* The chain spec of the point (pki/chain.h). */
void pq_exp_point_chain(const pq_exp_point *p, pq_chain_spec *s);
/* The link configuration of the point: profile first, then the fields given. Validated;
 * `what` names the input in the message. */
int pq_exp_point_link(const pq_exp_point *p, uint64_t seed, const char *what, pq_link_config *c,
		      pq_diag *d) PQ_MUST_USE;

/* The client's per-phase timeout on a link of RTT 0 without loss, seconds (bench's default). */
#define PQ_EXP_CLIENT_TIMEOUT_S 10

/* Client per-phase timeout: the one given, else long enough for TCP to retransmit a
 * lost SYN several times at this RTT and loss (10 s, growing with RTT and loss). The
 * server's handshake and idle timeouts are twice the client's plus four RTTs, so the
 * server never closes a handshake the client is still willing to finish. */
int64_t pq_exp_point_client_timeout(const pq_exp_point *p, const pq_link_config *c);
int64_t pq_exp_point_server_timeout(const pq_exp_point *p, const pq_link_config *c);

#endif
