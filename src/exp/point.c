#include "exp/point.h"

#include <math.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "core/units.h"
#include "core/wire.h"
#include "exp/dim.h"
#include "net/profile.h"
#include "tls/groups.h"
#include "tls/hello.h"

void pq_exp_point_init(pq_exp_point *p)
{
	memset(p, 0, sizeof *p);
	snprintf(p->arm, sizeof p->arm, "default");
	p->leaf = p->inter = p->root = pq_alg_find(PQ_EXP_DEF_SIG);
	p->intermediates = PQ_EXP_DEF_INTERMEDIATES;
	snprintf(p->cert_comp, sizeof p->cert_comp, "%s", PQ_EXP_DEF_CERT_COMP);
	snprintf(p->group, sizeof p->group, "%s", PQ_EXP_DEF_GROUP);
	p->tickets = PQ_EXP_DEF_TICKETS;
	p->mtu = PQ_WIRE_MTU_DEFAULT;
	snprintf(p->path, sizeof p->path, "%s", PQ_EXP_DEF_PATH);
	p->response_bytes = -1;
	p->connections = PQ_EXP_DEF_CONNECTIONS;
	p->concurrency = PQ_EXP_DEF_CONCURRENCY;
	p->trial = 1;
	p->pacing_ss = p->pacing_ca = -1;
	p->quickack = p->tso = p->gso = PQ_KTCP_KEEP;
}

const char *pq_exp_point_groups(const pq_exp_point *p)
{
	return p->groups[0] ? p->groups : p->group;
}

const char *pq_exp_point_server_groups(const pq_exp_point *p)
{
	return p->server_groups[0] ? p->server_groups : pq_exp_point_groups(p);
}

/* The in-process server's own list must take the group the cell expects negotiated:
 * with nothing in common with the offer every handshake fails, and without the group it
 * negotiates another one; both would be measured as failed cells. Names are compared as
 * given; an alias (P-256 for secp256r1) is put to OpenSSL in an in-memory handshake before
 * it is refused. */
static int server_takes(const pq_exp_point *p, const char *offered, pq_diag *d)
{
	pq_tls_hello h;
	if (!p->server_groups[0] || pq_tls_groups_has(p->server_groups, p->group, strlen(p->group)) ||
	    pq_tls_hello_measure(p->group, p->server_groups, &h, NULL) == 0)
		return 0;
	if (!pq_tls_groups_meet(offered, p->server_groups))
		return pq_diag_set(d, PQ_EINVAL,
				   "server-groups: %s has no group in common with the groups offered (%s): every "
				   "handshake would fail; give the server %s, the group the cell expects negotiated",
				   p->server_groups, offered, p->group);
	return pq_diag_set(d, PQ_EINVAL,
			   "server-groups: %s does not take %s, the group the cell expects negotiated (group), so "
			   "the handshake would negotiate another of the groups offered (%s): add %s to "
			   "server-groups, or set group to the one the server takes",
			   p->server_groups, p->group, offered, p->group);
}

int pq_exp_point_offer(const pq_exp_point *p, char *buf, size_t n, pq_diag *d)
{
	const char *g = pq_exp_point_groups(p);
	int rc = pq_tls_groups_offer(g, p->key_share[0] ? p->key_share : NULL,
				     p->key_share[0] ? "key-share" : "groups", buf, n, d);
	if (rc < 0)
		return rc;
	/* the group is one of the offered ones: "X25519MLKEM768" in "X25519MLKEM768:X25519" */
	if (!pq_tls_groups_has(g, p->group, strlen(p->group)))
		return pq_diag_set(d, PQ_EINVAL,
				   "group: %s is not among the groups offered (%s); the group is the one the "
				   "cell expects to be negotiated",
				   p->group, g);
	return server_takes(p, g, d);
}

int pq_exp_point_link_text(const pq_exp_point *p, char *buf, size_t n)
{
	return pq_dim_canon(p, PQ_DIM_LINK, buf, n);
}

/* "arm=A;" then every dimension's fragment in the table's order (exp/dim.c), then the
 * trial. */
int pq_exp_point_text(const pq_exp_point *p, int with_trial, char *buf, size_t n)
{
	int len = snprintf(buf, n, "arm=%s;remote=%d;", p->arm, p->remote);
	if (len < 0 || (size_t)len >= n)
		return PQ_ETOOBIG;
	int l2 = pq_dim_canon(p, 0, buf + len, n - (size_t)len);
	if (l2 < 0)
		return l2;
	len += l2;
	if (with_trial) {
		int l3 = snprintf(buf + len, n - (size_t)len, "trial=%d", p->trial);
		if (l3 < 0 || (size_t)l3 >= n - (size_t)len)
			return PQ_ETOOBIG;
		len += l3;
	}
	return len;
}

void pq_exp_hash_hex(const char *text, size_t len, char out[PQ_EXP_KEY_HEX])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	if (!EVP_Digest(text, len, md, &mdlen, EVP_sha256(), NULL))
		memset(md, 0, sizeof md);
	for (int i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

static int hashed(const pq_exp_point *p, int with_trial, char out[PQ_EXP_KEY_HEX])
{
	char buf[2048];
	int len = pq_exp_point_text(p, with_trial, buf, sizeof buf);
	if (len < 0)
		return len;
	pq_exp_hash_hex(buf, (size_t)len, out);
	return 0;
}

int pq_exp_point_cell_key(const pq_exp_point *p, char out[PQ_EXP_KEY_HEX])
{
	return hashed(p, 1, out);
}

int pq_exp_point_key(const pq_exp_point *p, char out[PQ_EXP_KEY_HEX])
{
	return hashed(p, 0, out);
}

int pq_exp_point_link_key(const pq_exp_point *p, char out[PQ_EXP_KEY_HEX])
{
	char buf[1024];
	int len = pq_exp_point_link_text(p, buf, sizeof buf);
	if (len < 0)
		return len;
	pq_exp_hash_hex(buf, (size_t)len, out);
	return 0;
}

/* The chain factory's inputs under their spec keys, for its messages. */
static const pq_name chain_names[] = {
	{"root", "root"},
	{"inter", "intermediate"},
	{"leaf", "leaf"},
	{"intermediates", "intermediates"},
	{"pad_chain_to", "pad-chain-to"},
	{"mtc", "mtc"},
	{"scts", "scts"},
	{"sct_alg", "sct-alg"},
	{"tai", "tai yes"},
	{"ocsp", "ocsp yes"},
	{NULL, NULL},
};

void pq_exp_point_chain(const pq_exp_point *p, pq_chain_spec *s)
{
	pq_chain_spec_init(s);
	s->names = chain_names;
	s->leaf = p->leaf;
	s->inter = p->inter;
	s->root = p->root;
	s->intermediates = p->intermediates;
	s->pad_chain_to = (size_t)p->pad_chain_to;
	s->mtc = p->mtc;
	s->scts = p->scts;
	s->sct_alg = p->sct_alg;
	s->tai = p->tai;
	s->ocsp = p->ocsp;
	if (p->mtc != PQ_MTC_NONE)
		s->mtc_tree_size = 1u << 20; /* the paper's batch of about a million entries */
}

/* The link's inputs under their spec keys, for its messages. */
static const pq_name link_names[] = {
	{"loss", "loss"}, {"burst_loss", "loss-model"}, {"loss_unit", "loss-unit"}, {"rate", "rate"}, {"mtu", "mtu"},
	{"initcwnd", "initcwnd"}, {"backend", "backend"}, {"reorder", "jitter"}, {"profile", "profile"},
	{NULL, NULL},
};

static void set_loss(const pq_exp_point *p, pq_loss_cfg *l)
{
	memset(l, 0, sizeof *l);
	l->unit = p->loss_unit;
	if (!p->gilbert || p->loss <= 0)
		l->p = p->loss;
	else
		pq_loss_gilbert(l, p->loss, p->burst);
}

int pq_exp_point_link(const pq_exp_point *p, uint64_t seed, const char *what, pq_link_config *c,
		      pq_diag *d)
{
	pq_link_config_init(c);
	if (p->profile[0]) {
		int rc = pq_profile_apply(p->profile, "profile", c, d);
		if (rc < 0)
			return pq_diag_prefix(d, rc, "%s", what);
	}
	for (int i = 0; i < 2; i++) {
		pq_dir_cfg *dc = &c->dir[i];
		if (!p->profile[0] || (p->link_given & PQ_EXP_LG_RTT))
			dc->delay_ns = p->rtt_ns / 2;
		if (!p->profile[0] || (p->link_given & PQ_EXP_LG_JITTER)) {
			dc->jitter_ns = p->jitter_ns;
			dc->reorder = p->jitter_ns > 0;
		}
		if (!p->profile[0] || (p->link_given & PQ_EXP_LG_LOSS))
			set_loss(p, &dc->loss);
		if (!p->profile[0] || (p->link_given & PQ_EXP_LG_RATE))
			dc->rate_bps = p->rate_bps;
		if (!p->profile[0] || (p->link_given & PQ_EXP_LG_QUEUE))
			dc->queue_pkts = p->queue_pkts;
	}
	c->names = link_names;
	c->mtu = p->mtu;
	c->initcwnd = p->initcwnd;
	c->cc = p->cc;
	snprintf(c->tcp.qdisc, sizeof c->tcp.qdisc, "%s", p->qdisc);
	c->tcp.pacing_ss_ratio = p->pacing_ss;
	c->tcp.pacing_ca_ratio = p->pacing_ca;
	c->tcp.quickack = p->quickack;
	c->tcp.tso = p->tso;
	c->tcp.gso = p->gso;
	c->seed = seed;
	int rc = pq_link_config_validate(c, d);
	if (rc < 0)
		return pq_diag_prefix(d, rc, "%s", what);
	return 0;
}

int64_t pq_exp_point_client_timeout(const pq_exp_point *p, const pq_link_config *c)
{
	if (p->timeout_ns > 0)
		return p->timeout_ns;
	int64_t rtt = pq_link_config_rtt_ns(c);
	double loss = pq_loss_mean(&c->dir[0].loss);
	/* Linux backs a lost SYN off 1, 2, 4, 8 s; with loss, a handshake may need several
	 * such retries, so the budget grows with loss. */
	int64_t t = PQ_EXP_CLIENT_TIMEOUT_S * PQ_NS_PER_S + 40 * rtt;
	if (loss > 0)
		t += (int64_t)(loss * 200.0 * PQ_NS_PER_S);
	return t;
}

int64_t pq_exp_point_server_timeout(const pq_exp_point *p, const pq_link_config *c)
{
	return 2 * pq_exp_point_client_timeout(p, c) + 4 * pq_link_config_rtt_ns(c);
}
