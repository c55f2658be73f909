/* The spec key table and how each key's value lands in a grid point. */
#include "exp/spec_keys.h"

#include <stdio.h>
#include <string.h>

#include "net/linkcfg.h"

const pq_exp_keydef pq_exp_keydefs[PQ_K_COUNT] = {
	[PQ_K_NAME] = {"name", T_STR, 1, 0, 0, NULL, "spec file name", "the experiment's name (default output out/NAME/results.db)"},
	[PQ_K_TRIALS] = {"trials", T_INT, 1, 1, 1000, NULL, "1", "repetitions of every grid point, arms interleaved in a new random order each"},
	[PQ_K_SEED] = {"seed", T_INT, 1, 0, (long long)(~0ULL >> 1), NULL, "1", "arm order per trial, link loss and jitter"},
	[PQ_K_SERVER] = {"server", T_STR, 1, 0, 0, NULL, "in-process", "HOST:PORT of a remote server instead of a link and an in-process server (chain and tickets are then the remote's)"},
	[PQ_K_SERVERNAME] = {"servername", T_STR, 1, 0, 0, NULL, "localhost", "SNI and verified name"},
	[PQ_K_CA] = {"ca", T_STR, 1, 0, 0, NULL, "the chain's root", "remote server: PEM roots to verify it against ('insecure' = do not verify)"},
	[PQ_K_SIG] = {"sig", T_ALG, 0, 0, 0, NULL, "ml-dsa-65", "algorithm of every level of the chain (pqtls certs --sig)"},
	[PQ_K_LEAF] = {"leaf", T_ALG, 0, 0, 0, NULL, "sig", "leaf algorithm"},
	[PQ_K_INTER] = {"intermediate", T_ALG, 0, 0, 0, NULL, "sig", "intermediate CA algorithm"},
	[PQ_K_ROOT] = {"root", T_ALG, 0, 0, 0, NULL, "sig", "root CA algorithm"},
	[PQ_K_INTERMEDIATES] = {"intermediates", T_INT, 0, 0, PQ_CHAIN_MAX_INT, NULL, "1", "intermediate CAs in the chain"},
	[PQ_K_PAD] = {"pad-chain-to", T_SIZE, 0, 0, 0, NULL, "0 (natural)", "exact DER bytes of the chain sent (leaf + intermediates), or 'like ALG': the size of ALG's chain with as many intermediates"},
	[PQ_K_MTC] = {"mtc", T_CHOICE, 0, 0, 0, "none|standalone|landmark", "none", "Merkle Tree Certificate size emulation"},
	[PQ_K_COMP] = {"cert-compression", T_CHOICE, 0, 0, 0, "off|zlib|brotli|zstd", "off", "RFC 8879 certificate compression (server and client)"},
	[PQ_K_GROUP] = {"group", T_STR, 0, 0, 0, NULL, "X25519MLKEM768", "key-exchange group (OpenSSL name)"},
	[PQ_K_TICKETS] = {"tickets", T_INT, 0, 0, 16, NULL, "2", "session tickets per full handshake"},
	[PQ_K_RESUME] = {"resume", T_FRAC, 0, 0, 0, NULL, "0%", "share of measured connections offered a ticket"},
	[PQ_K_EARLY] = {"early-data", T_CHOICE, 0, 0, 0, "no|yes", "no", "resumed connections send the request as 0-RTT"},
	[PQ_K_WARMUP] = {"warmup", T_INT, 0, 0, 100000, NULL, "0", "connections before measuring (they provide tickets)"},
	[PQ_K_PROFILE] = {"profile", T_PROFILE, 0, 0, 0, NULL, "none", "named link profile (pqtls link profiles); rtt, jitter, loss, rate, queue given too override it"},
	[PQ_K_RTT] = {"rtt", T_DUR, 0, 0, 0, NULL, "0", "round-trip time (half each way)"},
	[PQ_K_JITTER] = {"jitter", T_DUR, 0, 0, 0, NULL, "0", "per-direction jitter (normal, may reorder)"},
	[PQ_K_LOSS] = {"loss", T_FRAC, 0, 0, 0, NULL, "0%", "per-direction packet loss (mean loss for gilbert)"},
	[PQ_K_LOSS_MODEL] = {"loss-model", T_CHOICE, 0, 0, 0, "bernoulli|gilbert", "bernoulli", "independent losses, or bursts (Gilbert-Elliott)"},
	[PQ_K_BURST] = {"burst", T_DOUBLE, 0, 1, 1000, NULL, "3", "gilbert: mean burst length in packets"},
	[PQ_K_RATE] = {"rate", T_RATE, 0, 0, 0, NULL, "0 (unlimited)", "per-direction rate limit"},
	[PQ_K_QUEUE] = {"queue", T_INT, 0, 0, 1000000, NULL, "0 (none)", "drop-tail queue in packets (with a rate)"},
	[PQ_K_MTU] = {"mtu", T_INT, 0, 576, 9000, NULL, "1500", "link MTU"},
	[PQ_K_INITCWND] = {"initcwnd", T_INT, 0, 0, 1000, NULL, "0 (kernel: 10)", "server route initial congestion window, segments"},
	[PQ_K_CC] = {"cc", T_CHOICE, 0, 0, 0, PQ_CC_CHOICES, "default", "congestion control of the server route"},
	[PQ_K_RESPONSE] = {"response", T_RESP, 0, 0, 0, NULL, "/", "what each connection asks: '/' (a short page), 'none' (handshake only) or a size (GET /bytes/N)"},
	[PQ_K_CONNECTIONS] = {"connections", T_INT, 0, 1, 1000000, NULL, "20", "measured connections per cell"},
	[PQ_K_CONCURRENCY] = {"concurrency", T_INT, 0, 1, 10000, NULL, "1", "closed loop: connections in flight"},
	[PQ_K_OPEN_RATE] = {"open-loop-rate", T_DOUBLE, 0, 0, 1e6, NULL, "0 (closed loop)", "open loop: Poisson arrivals per second"},
	[PQ_K_ONE_WRITE] = {"flight-one-write", T_CHOICE, 0, 0, 0, "no|yes", "no", "the server hands its first flight to TCP in one write (pqtls serve --flight-one-write)"},
	[PQ_K_TIMEOUT] = {"timeout", T_DUR, 0, 0, 0, NULL, "derived", "client per-phase timeout (default: from RTT and loss, see docs/sweep.md)"},
};

int pq_exp_key_find(const char *name)
{
	for (int i = 0; i < PQ_K_COUNT; i++)
		if (strcmp(pq_exp_keydefs[i].name, name) == 0)
			return i;
	return -1;
}

const char *pq_exp_key_name(enum pq_exp_key k)
{
	return pq_exp_keydefs[k].name;
}

int pq_exp_key_global_only(enum pq_exp_key k)
{
	return pq_exp_keydefs[k].global_only;
}

void pq_exp_spec_keys(FILE *f)
{
	for (int i = 0; i < PQ_K_COUNT; i++)
		fprintf(f, "  %-17s %s (default %s)%s\n", pq_exp_keydefs[i].name, pq_exp_keydefs[i].help, pq_exp_keydefs[i].def,
			pq_exp_keydefs[i].global_only ? "; global only" : "");
}

const char *pq_exp_key_allowed(const pq_exp_keydef *k, char *buf, size_t n)
{
	switch (k->type) {
	case T_STR:
		return "a value";
	case T_INT:
		snprintf(buf, n, "integers from %lld to %lld, a list 'A, B' or a range 'A..B step S'", k->min, k->max);
		return buf;
	case T_SIZE:
		return "sizes (4KiB, 1500), a list or a range '4KiB..80KiB step 2KiB' (pad-chain-to also 'like ALG')";
	case T_DUR:
		return "durations (70ms), a list or a range '0ms..200ms step 50ms'";
	case T_FRAC:
		return "percentages (1%) or fractions (0.01), as a list";
	case T_RATE:
		return "rates (20Mbit, 0 = unlimited), as a list";
	case T_DOUBLE:
		snprintf(buf, n, "numbers from %lld to %lld, as a list", k->min, k->max);
		return buf;
	case T_CHOICE:
		snprintf(buf, n, "one or more of %s", k->choices);
		return buf;
	case T_ALG:
		return "algorithm names as pqtls certs takes them (ecdsa-p256, rsa-2048, ml-dsa-65, slh-dsa-sha2-128s, ...)";
	case T_RESP:
		return "'/', 'none' or sizes (0, 1MiB), as a list";
	case T_PROFILE:
		return "profile names (pqtls link profiles)";
	}
	return "?";
}


void pq_exp_key_apply(enum pq_exp_key k, const pq_exp_val *v, pq_exp_point *p)
{
	switch (k) {
	case PQ_K_SIG:
		p->leaf = p->inter = p->root = v->ptr;
		break;
	case PQ_K_LEAF:
		p->leaf = v->ptr;
		break;
	case PQ_K_INTER:
		p->inter = v->ptr;
		break;
	case PQ_K_ROOT:
		p->root = v->ptr;
		break;
	case PQ_K_INTERMEDIATES:
		p->intermediates = (int)v->i;
		break;
	case PQ_K_PAD:
		p->pad_chain_to = v->ptr ? 0 : (uint64_t)v->i;
		p->pad_like = v->ptr;
		break;
	case PQ_K_MTC:
		p->mtc = v->i == 1 ? PQ_MTC_STANDALONE : v->i == 2 ? PQ_MTC_LANDMARK : PQ_MTC_NONE;
		break;
	case PQ_K_COMP:
		snprintf(p->cert_comp, sizeof p->cert_comp, "%s", v->s);
		break;
	case PQ_K_GROUP:
		snprintf(p->group, sizeof p->group, "%s", v->s);
		break;
	case PQ_K_TICKETS:
		p->tickets = (int)v->i;
		break;
	case PQ_K_RESUME:
		p->resume = v->f;
		break;
	case PQ_K_EARLY:
		p->early_data = (int)v->i;
		break;
	case PQ_K_ONE_WRITE:
		p->flight_one_write = (int)v->i;
		break;
	case PQ_K_WARMUP:
		p->warmup = v->i;
		break;
	case PQ_K_PROFILE:
		snprintf(p->profile, sizeof p->profile, "%s", v->s);
		break;
	case PQ_K_RTT:
		p->rtt_ns = v->i;
		p->link_given |= PQ_EXP_LG_RTT;
		break;
	case PQ_K_JITTER:
		p->jitter_ns = v->i;
		p->link_given |= PQ_EXP_LG_JITTER;
		break;
	case PQ_K_LOSS:
		p->loss = v->f;
		p->link_given |= PQ_EXP_LG_LOSS;
		break;
	case PQ_K_LOSS_MODEL:
		p->gilbert = v->i == 1;
		p->link_given |= PQ_EXP_LG_LOSS;
		break;
	case PQ_K_BURST:
		p->burst = v->f;
		break;
	case PQ_K_RATE:
		p->rate_bps = (uint64_t)v->i;
		p->link_given |= PQ_EXP_LG_RATE;
		break;
	case PQ_K_QUEUE:
		p->queue_pkts = (uint32_t)v->i;
		p->link_given |= PQ_EXP_LG_QUEUE;
		break;
	case PQ_K_MTU:
		p->mtu = (uint32_t)v->i;
		break;
	case PQ_K_INITCWND:
		p->initcwnd = (uint32_t)v->i;
		break;
	case PQ_K_CC:
		p->cc = (enum pq_cc)v->i;
		break;
	case PQ_K_RESPONSE:
		snprintf(p->path, sizeof p->path, "%s", v->s);
		p->response_bytes = v->i;
		break;
	case PQ_K_CONNECTIONS:
		p->connections = v->i;
		break;
	case PQ_K_CONCURRENCY:
		p->concurrency = (int)v->i;
		break;
	case PQ_K_OPEN_RATE:
		p->open_rate = v->f;
		break;
	case PQ_K_TIMEOUT:
		p->timeout_ns = v->i;
		break;
	default:
		break; /* global-only keys are read from the spec, not the point */
	}
}
