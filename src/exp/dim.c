/* The dimension table (exp/dim.h): each spec key's reading, its place in the cell key, its
 * stored column and how its effective value is found. */
#include "exp/dim.h"

#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "core/wire.h"
#include "exp/cellcfg.h"
#include "load/chromium.h"
#include "pki/chain.h"

/* Small bodies, one per entry: how a value lands in the point, its key fragment, and its
 * value in force. */
#define APPLY(fn, body) \
	static void fn(const pq_exp_val *v, pq_exp_point *p) { body; }
#define CANON(fn, fmt, ...) \
	static int fn(const pq_exp_point *p, char *b, size_t n) { return snprintf(b, n, fmt, __VA_ARGS__); }
#define EFF(fn, body)                                                                   \
	static void fn(const pq_exp_point *p, const pq_exp_eff *e, pq_dimval *o)        \
	{                                                                               \
		(void)p;                                                                \
		(void)e;                                                                \
		body;                                                                   \
	}

static void dv_int(pq_dimval *o, long long v)
{
	memset(o, 0, sizeof *o);
	o->kind = PQ_DV_INT;
	o->i = v;
}

static void dv_real(pq_dimval *o, double v)
{
	memset(o, 0, sizeof *o);
	o->kind = PQ_DV_REAL;
	o->f = v;
}

static void dv_text(pq_dimval *o, const char *s)
{
	memset(o, 0, sizeof *o);
	o->kind = PQ_DV_TEXT;
	snprintf(o->s, sizeof o->s, "%s", s);
}

static void dv_null(pq_dimval *o)
{
	memset(o, 0, sizeof *o);
}

/* The first entry of a colon-separated list, into buf. */
static const char *first_group(const char *list, char *buf, size_t n)
{
	snprintf(buf, n, "%.*s", (int)strcspn(list, ":"), list);
	return buf;
}

static const char *mtc_name(enum pq_mtc_mode m)
{
	return m == PQ_MTC_STANDALONE ? "standalone" : m == PQ_MTC_LANDMARK ? "landmark" : "none";
}

/* chain */
APPLY(ap_sig, p->leaf = p->inter = p->root = v->ptr)
APPLY(ap_leaf, p->leaf = v->ptr)
APPLY(ap_inter, p->inter = v->ptr)
APPLY(ap_root, p->root = v->ptr)
APPLY(ap_intermediates, p->intermediates = (int)v->i)
APPLY(ap_pad, p->pad_chain_to = v->ptr ? 0 : (uint64_t)v->i; p->pad_like = v->ptr)
APPLY(ap_mtc, p->mtc = v->i == 1 ? PQ_MTC_STANDALONE : v->i == 2 ? PQ_MTC_LANDMARK : PQ_MTC_NONE)
APPLY(ap_scts, p->scts = (int)v->i)
APPLY(ap_sct_alg, p->sct_alg = v->ptr)
APPLY(ap_tai, p->tai = (int)v->i)
APPLY(ap_ocsp, p->ocsp = (int)v->i)
APPLY(ap_comp, snprintf(p->cert_comp, sizeof p->cert_comp, "%s", v->s))
CANON(cn_leaf, "leaf=%s;", p->leaf->name)
CANON(cn_inter, "inter=%s;", p->inter->name)
CANON(cn_root, "root=%s;", p->root->name)
CANON(cn_intermediates, "intermediates=%d;", p->intermediates)
CANON(cn_pad, "pad=%llu;pad_like=%s;", (unsigned long long)p->pad_chain_to, p->pad_like ? p->pad_like->name : "")
CANON(cn_mtc, "mtc=%s;", mtc_name(p->mtc))
/* No SCTs and no SCT algorithm add nothing, so cells from before the SCTs were a
 * dimension keep their keys. */
static const char *sct_alg_name(const pq_exp_point *p)
{
	return p->sct_alg ? p->sct_alg->name : "ecdsa-p256";
}
CANON(cn_scts, "%s%.0d%s", p->scts ? "scts=" : "", p->scts, p->scts ? ";" : "")
CANON(cn_sct_alg, "%s%s%s", p->sct_alg ? "sct_alg=" : "", p->sct_alg ? p->sct_alg->name : "", p->sct_alg ? ";" : "")
/* No trust anchor identifiers add nothing: older cells keep their keys. */
CANON(cn_tai, "%s", p->tai ? "tai=yes;" : "")
CANON(cn_ocsp, "%s", p->ocsp ? "ocsp=yes;" : "")
CANON(cn_comp, "comp=%s;", p->cert_comp)
/* A remote server's chain is its own: recorded as such, never as the defaults. */
EFF(ef_leaf, if (p->remote) dv_text(o, "remote"); else dv_text(o, p->leaf->name))
EFF(ef_inter, if (p->remote) dv_text(o, "remote"); else dv_text(o, p->inter->name))
EFF(ef_root, if (p->remote) dv_text(o, "remote"); else dv_text(o, p->root->name))
EFF(ef_intermediates, if (p->remote) dv_null(o); else dv_int(o, p->intermediates))
EFF(ef_pad, if (p->remote) dv_null(o); else dv_int(o, e->pad_bytes > 0 ? e->pad_bytes : (long long)p->pad_chain_to))
EFF(ef_mtc, dv_text(o, p->remote ? "remote" : mtc_name(p->mtc)))
EFF(ef_comp, dv_text(o, p->cert_comp))
EFF(ef_scts, if (p->remote) dv_null(o); else dv_int(o, p->scts))
EFF(ef_sct_alg, if (p->remote) dv_text(o, "remote"); else dv_text(o, p->scts ? sct_alg_name(p) : "none"))
EFF(ef_tai, dv_text(o, p->remote ? "remote" : p->tai ? "yes" : "no"))
EFF(ef_ocsp, if (p->remote) dv_null(o); else dv_int(o, p->ocsp ? e->ocsp_bytes : 0))

/* key exchange and session */
APPLY(ap_group, snprintf(p->group, sizeof p->group, "%s", v->s))
APPLY(ap_tickets, p->tickets = (int)v->i)
APPLY(ap_resume, p->resume = v->f)
APPLY(ap_early, p->early_data = (int)v->i)
APPLY(ap_warmup, p->warmup = v->i)
APPLY(ap_one_write, p->flight_one_write = (int)v->i)
CANON(cn_group, "group=%s;", p->group)
/* Empty (the defaults) adds nothing, so cells of specs without them keep their keys. */
APPLY(ap_groups, snprintf(p->groups, sizeof p->groups, "%s", v->s))
APPLY(ap_key_share, snprintf(p->key_share, sizeof p->key_share, "%s", v->s))
APPLY(ap_server_groups, snprintf(p->server_groups, sizeof p->server_groups, "%s", v->s))
CANON(cn_groups, "%s%s%s", p->groups[0] ? "groups=" : "", p->groups, p->groups[0] ? ";" : "")
CANON(cn_key_share, "%s%s%s", p->key_share[0] ? "key_share=" : "", p->key_share, p->key_share[0] ? ";" : "")
CANON(cn_server_groups, "%s%s%s", p->server_groups[0] ? "server_groups=" : "", p->server_groups,
      p->server_groups[0] ? ";" : "")
CANON(cn_tickets, "tickets=%d;", p->tickets)
CANON(cn_resume, "resume=%.6f;", p->resume)
CANON(cn_early, "early=%d;", p->early_data)
CANON(cn_warmup, "warmup=%lld;", p->warmup)
CANON(cn_one_write, "onewrite=%d;", p->flight_one_write)
EFF(ef_group, dv_text(o, p->group))
EFF(ef_groups, dv_text(o, pq_exp_point_groups(p)))
EFF(ef_key_share, char first[64];
    dv_text(o, p->key_share[0] ? p->key_share : first_group(pq_exp_point_groups(p), first, sizeof first)))
EFF(ef_server_groups, if (p->remote) dv_text(o, "remote"); else dv_text(o, pq_exp_point_server_groups(p)))
EFF(ef_tickets, if (p->remote) dv_null(o); else dv_int(o, p->tickets))
EFF(ef_resume, dv_real(o, p->resume * 100))
EFF(ef_early, dv_int(o, p->early_data))
EFF(ef_warmup, dv_int(o, pq_exp_cfg_warmup(p)))
EFF(ef_one_write, if (p->remote) dv_null(o); else dv_int(o, p->flight_one_write))
/* TCP cells keep the key text they had before the transport was a dimension, and a cell
 * row written without the column (a database made by hand) is a TCP one. */
static const char *transport_name(const pq_exp_point *p)
{
	return !p->quic ? "tcp" : p->quic_retry ? "quic-retry" : "quic";
}
APPLY(ap_transport, p->quic = v->i >= 1; p->quic_retry = v->i == 2)
CANON(cn_transport, "%s%s%s", p->quic ? "transport=" : "", p->quic ? transport_name(p) : "", p->quic ? ";" : "")
EFF(ef_transport, dv_text(o, transport_name(p)))
/* The measuring client; pqtls's cells keep the key text they had before it was one. */
APPLY(ap_client, p->browser = (int)v->i)
CANON(cn_client, "%s", p->browser ? "client=chromium;" : "")
/* The browser's own dimensions apply to Chromium's cells only. */
static int in_browser(const pq_dimval *dim)
{
	const pq_dimval *c = &dim[PQ_D_CLIENT];
	return !(c->kind == PQ_DV_TEXT && strcmp(c->s, "pqtls") == 0);
}
EFF(ef_client, dv_text(o, p->browser ? "chromium" : "pqtls"))
/* The browser's state (load/chromium.h); a cold one adds nothing to the key (cells from
 * before it was a dimension keep theirs), and pqtls's client has none (NULL). */
static const char *browser_state_name(int s)
{
	return s == PQ_BROWSER_WARM ? "warm" : s == PQ_BROWSER_RESUMED ? "resumed" : "cold";
}
APPLY(ap_browser_state, p->browser_state = (int)v->i)
CANON(cn_browser_state, "%s%s%s", p->browser_state ? "browser_state=" : "",
      p->browser_state ? browser_state_name(p->browser_state) : "", p->browser_state ? ";" : "")
EFF(ef_browser_state, if (p->browser) dv_text(o, browser_state_name(p->browser_state)); else dv_null(o))

/* link: the point's fields (profile, the ones given over it) make the key; the stored
 * value is the resolved link's (pq_exp_eff), so a profile's RTT is stored as its RTT. */
APPLY(ap_profile, snprintf(p->profile, sizeof p->profile, "%s", v->s))
APPLY(ap_rtt, p->rtt_ns = v->i; p->link_given |= PQ_EXP_LG_RTT)
APPLY(ap_jitter, p->jitter_ns = v->i; p->link_given |= PQ_EXP_LG_JITTER)
APPLY(ap_loss, p->loss = v->f; p->link_given |= PQ_EXP_LG_LOSS)
APPLY(ap_loss_model, p->gilbert = v->i == 1; p->link_given |= PQ_EXP_LG_LOSS)
APPLY(ap_burst, p->burst = v->f)
APPLY(ap_loss_unit, p->loss_unit = (int)v->i)
APPLY(ap_rate, p->rate_bps = (uint64_t)v->i; p->link_given |= PQ_EXP_LG_RATE)
APPLY(ap_queue, p->queue_pkts = (uint32_t)v->i; p->link_given |= PQ_EXP_LG_QUEUE)
APPLY(ap_mtu, p->mtu = (uint32_t)v->i)
APPLY(ap_initcwnd, p->initcwnd = (uint32_t)v->i)
APPLY(ap_cc, p->cc = (enum pq_cc)v->i)
CANON(cn_profile, "profile=%s;given=%u;", p->profile, p->link_given)
CANON(cn_rtt, "rtt_ns=%lld;", (long long)p->rtt_ns)
CANON(cn_jitter, "jitter_ns=%lld;", (long long)p->jitter_ns)
CANON(cn_loss, "loss=%.6f;", p->loss)
CANON(cn_loss_model, "gilbert=%d;", p->gilbert)
CANON(cn_burst, "burst=%.3f;", p->burst)
/* Per segment (the default) adds nothing, so cells from before the unit keep their keys. */
static const char *loss_unit_name(int u)
{
	return u == PQ_LOSS_UNIT_BURST ? "burst" : "segment";
}
CANON(cn_loss_unit, "%s", p->loss_unit ? "loss_unit=burst;" : "")
CANON(cn_rate, "rate_bps=%llu;", (unsigned long long)p->rate_bps)
CANON(cn_queue, "queue_pkts=%u;", p->queue_pkts)
CANON(cn_mtu, "mtu=%u;", p->mtu)
CANON(cn_initcwnd, "initcwnd=%u;", p->initcwnd)
CANON(cn_cc, "cc=%s;", pq_cc_name(p->cc) ? pq_cc_name(p->cc) : "kernel")
EFF(ef_profile, dv_text(o, p->remote ? "remote" : p->profile))
EFF(ef_rtt, if (e->remote) dv_null(o); else dv_int(o, e->rtt_ns / 1000))
EFF(ef_jitter, if (e->remote) dv_null(o); else dv_int(o, e->jitter_ns / 1000))
EFF(ef_loss, if (e->remote) dv_null(o); else dv_real(o, e->loss[PQ_DIR_S2C] * 100))
EFF(ef_loss_c2s, if (e->remote) dv_null(o); else dv_real(o, e->loss[PQ_DIR_C2S] * 100))
EFF(ef_loss_model, dv_text(o, e->remote ? "remote" : e->gilbert ? "gilbert" : "bernoulli"))
EFF(ef_loss_unit, dv_text(o, e->remote ? "remote" : loss_unit_name(e->loss_unit)))
EFF(ef_burst, if (e->remote) dv_null(o); else dv_real(o, e->gilbert ? e->burst : 0))
EFF(ef_rate, if (e->remote) dv_null(o); else dv_int(o, (long long)e->rate_bps[PQ_DIR_S2C]))
EFF(ef_rate_c2s, if (e->remote) dv_null(o); else dv_int(o, (long long)e->rate_bps[PQ_DIR_C2S]))
EFF(ef_queue, if (e->remote) dv_null(o); else dv_int(o, e->queue_pkts))
EFF(ef_mtu, if (e->remote) dv_null(o); else dv_int(o, e->mtu))
EFF(ef_initcwnd, if (e->remote || e->initcwnd < 0) dv_null(o); else dv_int(o, e->initcwnd))
EFF(ef_cc, if (e->remote) dv_text(o, "remote"); else if (e->cc[0]) dv_text(o, e->cc); else dv_null(o))

/* kernel TCP (net/ktcp.h): the key fragment only when set, so cells that leave the kernel
 * alone keep their keys; the stored value is the kernel's, read back on the link. */
APPLY(ap_qdisc, snprintf(p->qdisc, sizeof p->qdisc, "%.31s", v->i ? v->s : ""))
APPLY(ap_pacing_ss, p->pacing_ss = (int)v->i)
APPLY(ap_pacing_ca, p->pacing_ca = (int)v->i)
APPLY(ap_quickack, p->quickack = (int)v->i - 1)
APPLY(ap_tso, p->tso = (int)v->i - 1)
APPLY(ap_gso, p->gso = (int)v->i - 1)
static int cn_none(char *b, size_t n)
{
	if (n)
		b[0] = '\0';
	return 0;
}
static int cn_opt(char *b, size_t n, const char *key, int v, int unset)
{
	return v == unset ? cn_none(b, n) : snprintf(b, n, "%s=%d;", key, v);
}
static int cn_qdisc(const pq_exp_point *p, char *b, size_t n)
{
	return p->qdisc[0] ? snprintf(b, n, "qdisc=%s;", p->qdisc) : cn_none(b, n);
}
static int cn_pacing_ss(const pq_exp_point *p, char *b, size_t n) { return cn_opt(b, n, "pacing_ss", p->pacing_ss, -1); }
static int cn_pacing_ca(const pq_exp_point *p, char *b, size_t n) { return cn_opt(b, n, "pacing_ca", p->pacing_ca, -1); }
static int cn_quickack(const pq_exp_point *p, char *b, size_t n) { return cn_opt(b, n, "quickack", p->quickack, PQ_KTCP_KEEP); }
static int cn_tso(const pq_exp_point *p, char *b, size_t n) { return cn_opt(b, n, "tso", p->tso, PQ_KTCP_KEEP); }
static int cn_gso(const pq_exp_point *p, char *b, size_t n) { return cn_opt(b, n, "gso", p->gso, PQ_KTCP_KEEP); }
#define KT(fn, field)                                                                   \
	EFF(fn, if (e->remote || !e->ktcp_known) dv_null(o); else dv_int(o, e->ktcp.field))
EFF(ef_qdisc, if (e->remote) dv_text(o, "remote"); else if (e->ktcp_known) dv_text(o, e->ktcp.qdisc); else dv_null(o))
KT(ef_pacing_ss, pacing_ss_ratio)
KT(ef_pacing_ca, pacing_ca_ratio)
KT(ef_quickack, quickack)
KT(ef_tso, tso[1])
KT(ef_gso, gso[1])
KT(ef_rwnd, client_rwnd)

/* load */
APPLY(ap_response, snprintf(p->path, sizeof p->path, "%s", v->s); p->response_bytes = v->i)
APPLY(ap_connections, p->connections = v->i)
APPLY(ap_concurrency, p->concurrency = (int)v->i)
APPLY(ap_open_rate, p->open_rate = v->f)
APPLY(ap_timeout, p->timeout_ns = v->i)
CANON(cn_response, "path=%s;", p->path)
CANON(cn_connections, "connections=%lld;", p->connections)
CANON(cn_concurrency, "concurrency=%d;", p->concurrency)
CANON(cn_open_rate, "open_rate=%.6f;", p->open_rate)
CANON(cn_timeout, "timeout_ns=%lld;", (long long)p->timeout_ns)
EFF(ef_response, dv_text(o, p->path))
EFF(ef_connections, dv_int(o, p->connections))
EFF(ef_concurrency, dv_int(o, p->concurrency))
EFF(ef_open_rate, dv_real(o, p->open_rate))
/* An open loop's arrival process; Poisson adds nothing to the key (cells from before it
 * was a dimension keep theirs), and a closed loop has none (NULL). */
APPLY(ap_arrivals, p->constant_arrivals = (int)v->i)
CANON(cn_arrivals, "%s", p->constant_arrivals ? "arrivals=constant;" : "")
EFF(ef_arrivals, if (p->open_rate > 0) dv_text(o, p->constant_arrivals ? "constant" : "poisson"); else dv_null(o))
static int open_loop(const pq_dimval *dim)
{
	return dim[PQ_D_OPEN_RATE].kind == PQ_DV_REAL && dim[PQ_D_OPEN_RATE].f > 0;
}
EFF(ef_timeout, dv_int(o, e->client_timeout_ns / 1000))

#define G PQ_DIM_GLOBAL
#define L PQ_DIM_LINK
#define K PQ_DIM_KERNEL
#define R PQ_DIM_LOCAL
#define S PQ_DIM_STORED
#define C PQ_DIM_CHAIN
#define SV PQ_DIM_SERVER
#define CL PQ_DIM_CLIENT
#define NONE NULL, NULL, NULL
/*    key               type          flags   min max  choices  default  metavar  help
 *    column  sql  label  unit  apply canon effective */
const pq_dim pq_dims[PQ_DIM_COUNT] = {
	[PQ_D_NAME] = {"name", PQ_DT_STR, G, 0, 0, NULL, "spec file name", "NAME",
		       "the experiment's name (default output out/NAME/results.db)", NULL, NULL, NULL, NULL, NONE},
	[PQ_D_TRIALS] = {"trials", PQ_DT_INT, G, 1, 1000, NULL, "1", "N",
			 "repetitions of every grid point, arms interleaved in a new random order each", NULL, NULL,
			 NULL, NULL, NONE},
	[PQ_D_SEED] = {"seed", PQ_DT_INT, G, 0, (long long)(~0ULL >> 1), NULL, "1", "N",
		       "arm order per trial, link loss and jitter", NULL, NULL, NULL, NULL, NONE},
	[PQ_D_SERVER] = {"server", PQ_DT_STR, G, 0, 0, NULL, "in-process", "HOST:PORT",
			 "HOST:PORT of a remote server instead of a link and an in-process server (chain and "
			 "tickets are then the remote's)", NULL, NULL, NULL, NULL, NONE},
	[PQ_D_SERVERNAME] = {"servername", PQ_DT_STR, G, 0, 0, NULL, "localhost", "NAME", "SNI and verified name",
			     NULL, NULL, NULL, NULL, NONE},
	[PQ_D_CA] = {"ca", PQ_DT_STR, G, 0, 0, NULL, "the chain's root", "FILE",
		     "remote server: PEM roots to verify it against ('insecure' = do not verify)", NULL, NULL, NULL,
		     NULL, NONE},
	[PQ_D_SIG] = {"sig", PQ_DT_ALG,  R | C, 0, 0, NULL, PQ_EXP_DEF_SIG, "ALGS",
		      "algorithm of every level of the chain, as pqtls certs makes it; stored as leaf, intermediate, root",
		      NULL, NULL, NULL, NULL, ap_sig, NULL, NULL},
	[PQ_D_LEAF] = {"leaf", PQ_DT_ALG,  R | C, 0, 0, NULL, "sig", "ALGS", "leaf algorithm", "chain_leaf",
		       "TEXT NOT NULL", "leaf", "", ap_leaf, cn_leaf, ef_leaf},
	[PQ_D_INTER] = {"intermediate", PQ_DT_ALG,  R | C, 0, 0, NULL, "sig", "ALGS", "intermediate CA algorithm",
			"chain_intermediate", "TEXT NOT NULL", "intermediate", "", ap_inter, cn_inter, ef_inter},
	[PQ_D_ROOT] = {"root", PQ_DT_ALG,  R | C, 0, 0, NULL, "sig", "ALGS", "root CA algorithm", "chain_root",
		       "TEXT NOT NULL", "root", "", ap_root, cn_root, ef_root},
	[PQ_D_INTERMEDIATES] = {"intermediates", PQ_DT_INT,  R | C, 0, PQ_CHAIN_MAX_INT, NULL, PQ_STR(PQ_EXP_DEF_INTERMEDIATES), "LIST",
				"intermediate CAs in the chain", "chain_intermediates", "INTEGER", "intermediates", "",
				ap_intermediates, cn_intermediates, ef_intermediates},
	[PQ_D_PAD] = {"pad-chain-to", PQ_DT_SIZE,  R | C, 0, PQ_CHAIN_PAD_MAX, NULL, "0 (natural)", "SIZES",
		      "exact DER bytes of the chain sent (leaf + intermediates), or 'like ALG': the size of ALG's "
		      "chain with as many intermediates (stored: the size padded to)",
		      "chain_pad_to_bytes", "INTEGER", "padded to", "B", ap_pad, cn_pad, ef_pad},
	[PQ_D_MTC] = {"mtc", PQ_DT_CHOICE,  R | C, 0, 0, "none|standalone|landmark", "none", "MODES",
		      "Merkle Tree Certificate size emulation", "chain_mtc", "TEXT NOT NULL", "MTC", "", ap_mtc, cn_mtc,
		      ef_mtc},
	[PQ_D_SCTS] = {"scts", PQ_DT_INT, R | C, 0, PQ_CHAIN_MAX_SCTS, NULL, "0", "LIST",
		       "SCTs embedded in the leaf, each the size of one signed with sct-alg (a size emulation, "
		       "docs/certs.md): 2 makes the typical chain's two keys and five signatures",
		       "chain_scts", "INTEGER", "SCTs", "", ap_scts, cn_scts, ef_scts},
	[PQ_D_SCT_ALG] = {"sct-alg", PQ_DT_ALG, R | C, 0, 0, NULL, "ecdsa-p256", "ALGS",
			  "the logs' signature algorithm for the SCTs (with scts; its signature size is what counts)",
			  "chain_sct_alg", "TEXT", "SCT alg", "", ap_sct_alg, cn_sct_alg, ef_sct_alg},
	[PQ_D_TAI] = {"tai", PQ_DT_CHOICE, R | C, 0, 0, "no|yes", "no", "no|yes",
		      "trust anchor identifiers: the server sends the leaf alone, the client's verify store "
		      "holds the intermediates (and the root); needs intermediates 1..4",
		      "chain_tai", "TEXT", "TAI", "", ap_tai, cn_tai, ef_tai},
	[PQ_D_OCSP] = {"ocsp", PQ_DT_CHOICE, R | C | CL, 0, 0, "no|yes", "no", "no|yes",
		       "an OCSP staple: the leaf's OCSP response signed by its issuer, stapled in its certificate "
		       "entry; the client asks and fails without it (stored: the response's bytes)",
		       "chain_ocsp_bytes", "INTEGER", "OCSP", "B", ap_ocsp, cn_ocsp, ef_ocsp},
	[PQ_D_COMP] = {"cert-compression", PQ_DT_CHOICE, SV | CL, 0, 0, "off|zlib|brotli|zstd", PQ_EXP_DEF_CERT_COMP, "ALGS",
		       "RFC 8879 certificate compression (server and client)", "cert_comp", "TEXT NOT NULL",
		       "compression", "", ap_comp, cn_comp, ef_comp},
	[PQ_D_GROUP] = {"group", PQ_DT_GROUPS, SV | CL, 0, 0, "", PQ_EXP_DEF_GROUP, "GROUPS",
			"key-exchange group (OpenSSL name): the one the cell expects negotiated", "tls_group", "TEXT NOT NULL", "group", "", ap_group,
			cn_group, ef_group},
	[PQ_D_GROUPS] = {"groups", PQ_DT_GROUPS, SV | CL, 0, 0, ":", "the group alone", "LISTS",
			 "groups the client offers, in order, colon-separated (X25519MLKEM768:X25519); "
			 "the group must be one of them", "client_groups", "TEXT NOT NULL", "groups offered", "",
			 ap_groups, cn_groups, ef_groups},
	[PQ_D_KEY_SHARE] = {"key-share", PQ_DT_GROUPS, CL, 0, 0, ":", "the first offered", "LISTS",
			    "the offered group(s) whose key share the first ClientHello carries "
			    "(X25519MLKEM768:X25519 for both); a share the server does not take costs a "
			    "HelloRetryRequest", "key_share", "TEXT NOT NULL", "key share", "", ap_key_share,
			    cn_key_share, ef_key_share},
	[PQ_D_SERVER_GROUPS] = {"server-groups", PQ_DT_GROUPS, R | SV, 0, 0, ":/", "as offered", "LISTS",
				"the in-process server's groups in its preference order, OpenSSL's syntax "
				"(X25519MLKEM768/X25519 insists on the hybrid even at the cost of an HRR; "
				"A:B takes either share)", "server_groups", "TEXT NOT NULL", "server groups", "",
				ap_server_groups, cn_server_groups, ef_server_groups},
	[PQ_D_TICKETS] = {"tickets", PQ_DT_INT, R | SV, 0, 16, NULL, PQ_STR(PQ_EXP_DEF_TICKETS), "LIST", "session tickets per full handshake",
			  "tickets", "INTEGER", "tickets", "", ap_tickets, cn_tickets, ef_tickets},
	[PQ_D_RESUME] = {"resume", PQ_DT_FRAC, CL, 0, 0, NULL, "0%", "FRACTIONS",
			 "share of measured connections offered a ticket", "resume_pct", "REAL NOT NULL", "resumed",
			 "%", ap_resume, cn_resume, ef_resume},
	[PQ_D_EARLY] = {"early-data", PQ_DT_CHOICE, SV | CL, 0, 0, "no|yes", "no", "no|yes",
			"resumed connections send the request as 0-RTT", "early_data", "INTEGER NOT NULL", "0-RTT",
			"", ap_early, cn_early, ef_early},
	[PQ_D_WARMUP] = {"warmup", PQ_DT_INT, CL, 0, 100000, NULL, "0", "LIST",
			 "connections before measuring (they provide tickets; none given with resume: the concurrency, "
			 "stored as in force)", "warmup_conns", "INTEGER NOT NULL",
			 "warm-up", "", ap_warmup, cn_warmup, ef_warmup},
	[PQ_D_PROFILE] = {"profile", PQ_DT_PROFILE, L | R, 0, 0, NULL, "none", "NAMES",
			  "named link profile (pqtls link profiles); rtt, jitter, loss, rate, queue given too "
			  "override it", "link_profile", "TEXT NOT NULL", "profile", "", ap_profile, cn_profile,
			  ef_profile},
	[PQ_D_RTT] = {"rtt", PQ_DT_DUR, L | R, 0, 0, NULL, "0", "DURATIONS",
		      "round-trip time (half each way), e.g. 10ms,50ms,100ms", "rtt_us", "INTEGER", "RTT", "ms",
		      ap_rtt, cn_rtt, ef_rtt},
	[PQ_D_JITTER] = {"jitter", PQ_DT_DUR, L | R, 0, 0, NULL, "0", "DURATIONS",
			 "per-direction jitter (normal, may reorder)", "jitter_us", "INTEGER", "jitter", "ms",
			 ap_jitter, cn_jitter, ef_jitter},
	[PQ_D_LOSS] = {"loss", PQ_DT_FRAC, L | R, 0, 0, NULL, "0%", "FRACTIONS",
		       "per-direction packet loss (mean loss for gilbert), e.g. 0%,1%,5% (stored: loss_pct the "
		       "server-to-client direction's, c2s_loss_pct the other's)", "loss_pct", "REAL", "loss", "%",
		       ap_loss, cn_loss, ef_loss},
	/* The other direction of the two above: the sweep's keys set both directions alike, a
	 * link configuration may not (net/linkcfg.h: each direction its own). */
	[PQ_D_LOSS_C2S] = {"loss-c2s", PQ_DT_FRAC, S | R, 0, 0, NULL, "as loss", "-",
			   "client-to-server loss in force (set by loss, with the other direction)", "c2s_loss_pct",
			   "REAL", "loss c2s", "%", NULL, NULL, ef_loss_c2s},
	[PQ_D_LOSS_MODEL] = {"loss-model", PQ_DT_CHOICE, L | R, 0, 0, "bernoulli|gilbert", "bernoulli", "MODELS",
			     "independent losses, or bursts (Gilbert-Elliott)", "loss_model", "TEXT NOT NULL",
			     "loss model", "", ap_loss_model, cn_loss_model, ef_loss_model},
	[PQ_D_BURST] = {"burst", PQ_DT_DOUBLE, L | R, 1, 1000, NULL, "3", "PACKETS",
			"gilbert: mean burst length in packets", "loss_burst_pkts", "REAL", "burst", "pkts", ap_burst,
			cn_burst, ef_burst},
	[PQ_D_LOSS_UNIT] = {"loss-unit", PQ_DT_CHOICE, L | R, 0, 0, PQ_LOSS_UNIT_CHOICES, "segment", "UNITS",
			    "what one loss decision covers: each segment alone, or a burst (the segments a "
			    "sender hands down together, as a qdisc sees a GSO super-packet; net/stage.h; "
			    "userspace backend only)", "loss_unit", "TEXT NOT NULL DEFAULT 'segment'", "loss unit", "",
			    ap_loss_unit, cn_loss_unit, ef_loss_unit},
	[PQ_D_RATE] = {"rate", PQ_DT_RATE, L | R, PQ_LINK_MIN_RATE_BPS, PQ_LINK_MAX_RATE_BPS, NULL, "0 (unlimited)",
		       "RATES",
		       "per-direction rate limit (stored: rate_bps the server-to-client direction's, c2s_rate_bps the "
		       "other's)",
		       "rate_bps", "INTEGER", "rate", "bit/s", ap_rate, cn_rate, ef_rate},
	[PQ_D_RATE_C2S] = {"rate-c2s", PQ_DT_RATE, S | R, 0, 0, NULL, "as rate", "-",
			   "client-to-server rate limit in force (set by rate, with the other direction)",
			   "c2s_rate_bps", "INTEGER", "rate c2s", "bit/s", NULL, NULL, ef_rate_c2s},
	[PQ_D_QUEUE] = {"queue", PQ_DT_INT, L | R, 0, 1000000, NULL, "0 (none)", "PACKETS",
			"drop-tail queue in packets (with a rate)", "queue_pkts", "INTEGER", "queue", "pkts", ap_queue,
			cn_queue, ef_queue},
	[PQ_D_MTU] = {"mtu", PQ_DT_INT, L | R, 576, 9000, NULL, PQ_WIRE_MTU_DEFAULT_STR, "BYTES", "link MTU", "mtu_bytes", "INTEGER",
		      "MTU", "B", ap_mtu, cn_mtu, ef_mtu},
	[PQ_D_INITCWND] = {"initcwnd", PQ_DT_INT, L | K | R, 0, 1000, NULL, "0 (kernel: " PQ_WIRE_IW_DEFAULT_STR ")", "SEGMENTS",
			   "server route initial congestion window, segments (stored: the window in force)",
			   "initcwnd_segs", "INTEGER", "initcwnd", "segs", ap_initcwnd, cn_initcwnd, ef_initcwnd},
	[PQ_D_CC] = {"cc", PQ_DT_CHOICE, L | K | R, 0, 0, PQ_CC_CHOICES, "default", "ALGS",
		     "congestion control of the server route; default = the namespace's (stored: what the kernel "
		     "reports)", "cc", "TEXT", "CC", "", ap_cc, cn_cc, ef_cc},
	[PQ_D_QDISC] = {"qdisc", PQ_DT_CHOICE, L | K | R, 0, 0, PQ_KTCP_QDISC_CHOICES, "kernel", "KINDS",
			"root qdisc of the server's link device, those the kernel has (fq paces cubic and reno; "
			"kernel = the device's own, pfifo_fast); stored: the one the kernel reports", "qdisc", "TEXT", "qdisc", "", ap_qdisc,
			cn_qdisc, ef_qdisc},
	[PQ_D_PACING_SS] = {"pacing-ss-ratio", PQ_DT_INT, L | K | R, 0, PQ_KTCP_RATIO_MAX, NULL, "the kernel's (200)",
			    "PERCENT", "net.ipv4.tcp_pacing_ss_ratio in the link's namespaces: a paced flow's rate in "
			    "slow start, % of cwnd/srtt (stored: as read back)", "pacing_ss_ratio", "INTEGER",
			    "pacing ss", "%", ap_pacing_ss, cn_pacing_ss, ef_pacing_ss},
	[PQ_D_PACING_CA] = {"pacing-ca-ratio", PQ_DT_INT, L | K | R, 0, PQ_KTCP_RATIO_MAX, NULL, "the kernel's (120)",
			    "PERCENT", "net.ipv4.tcp_pacing_ca_ratio: the same after slow start (stored: as read back)",
			    "pacing_ca_ratio", "INTEGER", "pacing ca", "%", ap_pacing_ca, cn_pacing_ca, ef_pacing_ca},
	[PQ_D_QUICKACK] = {"quickack", PQ_DT_CHOICE, L | K | R, 0, 0, "kernel|off|on", "kernel", "MODES",
			   "the client route's quickack: on ACKs every segment at once (stored: the route's metric, 0 "
			   "or 1)", "quickack", "INTEGER", "quick-ACK", "", ap_quickack, cn_quickack, ef_quickack},
	[PQ_D_TSO] = {"tso", PQ_DT_CHOICE, L | K | R, 0, 0, "kernel|off|on", "kernel", "MODES",
		      "TCP segmentation offload of the link's devices (stored: the server device's, 0 or 1)", "tso",
		      "INTEGER", "TSO", "", ap_tso, cn_tso, ef_tso},
	[PQ_D_GSO] = {"gso", PQ_DT_CHOICE, L | K | R, 0, 0, "kernel|off|on", "kernel", "MODES",
		      "generic segmentation offload of the link's devices (stored: the server device's, 0 or 1)", "gso",
		      "INTEGER", "GSO", "", ap_gso, cn_gso, ef_gso},
	[PQ_D_RWND] = {"client-rwnd", PQ_DT_INT, S | K | R, 0, 0, NULL, "the kernel's", "-",
		       "the client's initial receive window as the server saw it (tcp_info snd_wnd of a connection "
		       "across the link; Linux derives it from tcp_rmem in the client's namespace)",
		       "client_rwnd_bytes", "INTEGER", "client rwnd", "B", NULL, NULL, ef_rwnd},
	[PQ_D_RESPONSE] = {"response", PQ_DT_RESP, CL, 0, 0, NULL, PQ_EXP_DEF_PATH, "LIST",
			   "what each connection asks: '/' (a short page), 'none' (handshake only) or a size "
			   "(GET /bytes/N)", "request_path", "TEXT NOT NULL", "request", "", ap_response, cn_response,
			   ef_response},
	[PQ_D_CONNECTIONS] = {"connections", PQ_DT_INT, CL, 1, 1000000, NULL, PQ_STR(PQ_EXP_DEF_CONNECTIONS), "N",
			      "measured connections per cell (an option replaces every arm's)", "connections",
			      "INTEGER NOT NULL", "connections", "", ap_connections, cn_connections, ef_connections},
	[PQ_D_CONCURRENCY] = {"concurrency", PQ_DT_INT, CL, 1, 10000, NULL, PQ_STR(PQ_EXP_DEF_CONCURRENCY), "N",
			      "closed loop: connections in flight", "concurrency", "INTEGER NOT NULL", "concurrency", "",
			      ap_concurrency, cn_concurrency, ef_concurrency},
	[PQ_D_OPEN_RATE] = {"open-loop-rate", PQ_DT_DOUBLE, CL, 0, 1000000, NULL, "0 (closed loop)", "R/s",
			    "open loop: Poisson arrivals per second", "open_loop_rate_per_s", "REAL NOT NULL",
			    "open-loop rate", "/s", ap_open_rate, cn_open_rate, ef_open_rate},
	[PQ_D_ARRIVALS] = {"arrivals", PQ_DT_CHOICE, CL, 0, 0, "poisson|constant", "poisson", "poisson|constant",
			   "open loop: Poisson arrivals, or a constant schedule (as bench can); stored NULL "
			   "for a closed loop", "arrivals", "TEXT", "arrivals", "", ap_arrivals, cn_arrivals, ef_arrivals,
			   open_loop},
	[PQ_D_TIMEOUT] = {"timeout", PQ_DT_DUR, SV | CL, 0, 0, NULL, "derived", "DURATION",
			  "client per-phase timeout (default: from RTT and loss, see docs/sweep.md; stored: the one "
			  "used)", "client_timeout_us", "INTEGER NOT NULL", "timeout", "ms", ap_timeout, cn_timeout,
			  ef_timeout},
	[PQ_D_ONE_WRITE] = {"flight-one-write", PQ_DT_CHOICE, R | SV, 0, 0, "no|yes", "no", "no|yes",
			    "the server hands its first flight to TCP in one write, not in OpenSSL's 4 KiB pieces",
			    "flight_one_write", "INTEGER", "one write", "", ap_one_write, cn_one_write,
			    ef_one_write},
	[PQ_D_TRANSPORT] = {"transport", PQ_DT_CHOICE, SV | CL, 0, 0, "tcp|quic|quic-retry", "tcp", "tcp|quic|quic-retry",
			    "TCP, or QUIC over OpenSSL 3.5's QUIC stack (UDP, hq-interop request; no 0-RTT or "
			    "flight-one-write); quic-retry: QUIC whose server validates every client with a Retry "
			    "first; all share one link", "transport", "TEXT NOT NULL DEFAULT 'tcp'", "transport", "",
			    ap_transport, cn_transport, ef_transport},
	[PQ_D_CLIENT] = {"client", PQ_DT_CHOICE, CL, 0, 0, "pqtls|chromium", "pqtls", "pqtls|chromium",
			 "the measuring client: pqtls's own, or headless Chromium, one browser per connection (see "
			 "browser-state) read from its NetLog (TCP only; no resumption, early data, concurrency or "
			 "warm-up)",
			 "client", "TEXT NOT NULL DEFAULT 'pqtls'", "client", "", ap_client, cn_client, ef_client},
	[PQ_D_BROWSER_STATE] = {"browser-state", PQ_DT_CHOICE, SV | CL, 0, 0, PQ_BROWSER_STATES, "cold", PQ_BROWSER_STATES,
				"client chromium's browser when the measured navigation starts: cold (a fresh "
				"profile, its first navigation), warm (a navigation to another origin first: a new "
				"connection, a browser that has run a handshake) or resumed (the same origin twice "
				"in one profile, the server closing each connection: the second may resume); "
				"stored NULL for client pqtls",
				"browser_state", "TEXT", "browser state", "", ap_browser_state, cn_browser_state,
				ef_browser_state, in_browser},
};
#undef G
#undef L
#undef K
#undef R
#undef S
#undef C
#undef SV
#undef CL
#undef NONE
