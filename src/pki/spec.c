/* pq_chain_spec: defaults, checks and the canonical cache key. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pki/chain.h"
#include "pki/der.h"


void pq_chain_spec_init(pq_chain_spec *s)
{
	*s = (pq_chain_spec){0};
	s->root = s->inter = s->leaf = pq_alg_find("ml-dsa-65");
	s->intermediates = 1;
	s->mtc_tree_size = 0;
}

#define N(key) pq_name_of(s->names, key)

static int check_mtc(const pq_chain_spec *s, pq_diag *d)
{
	if (s->intermediates != 0)
		return pq_diag_set(d, PQ_EINVAL,
				   "%s: a Merkle Tree Certificate chain is the leaf alone; "
				   "%s must be 0 (got %d)",
				   N("mtc"), N("intermediates"), s->intermediates);
	if (s->pad_leaf_to || s->pad_chain_to)
		return pq_diag_set(d, PQ_EINVAL,
				   "%s: the size comes from the MTC formula; %s and %s cannot be "
				   "combined with it",
				   N("mtc"), N("pad_leaf_to"), N("pad_chain_to"));
	if (s->mtc_tree_size < 2 || s->mtc_tree_size > (UINT64_C(1) << 48))
		return pq_diag_set(d, PQ_EINVAL,
				   "%s: %" PRIu64 " entries is outside 2..2^48 (an "
				   "MTC log index is 48 bits)",
				   N("mtc_tree_size"), s->mtc_tree_size);
	return 0;
}

int pq_chain_spec_check(const pq_chain_spec *s, pq_diag *d)
{
	if (!s->root || !s->inter || !s->leaf)
		return pq_diag_set(d, PQ_EINVAL,
				   "chain spec: root, intermediate and leaf "
				   "algorithms are required");
	if (s->intermediates < 0 || s->intermediates > PQ_CHAIN_MAX_INT)
		return pq_diag_set(d, PQ_EINVAL, "%s: %d is outside 0..%d", N("intermediates"),
				   s->intermediates, PQ_CHAIN_MAX_INT);
	if (!s->leaf->tls_leaf)
		return pq_diag_set(
		    d, PQ_EUNSUPPORTED,
		    "%s %s: OpenSSL 3.5 has no TLS 1.3 signature code point for SLH-DSA, "
		    "so a server cannot use an SLH-DSA leaf key. Two ways work: (1) SLH-DSA "
		    "root/intermediates under an ML-DSA leaf, e.g. %s %s %s %s "
		    "%s ml-dsa-65; (2) a leaf of another algorithm padded to SLH-DSA's "
		    "size, e.g. %s ml-dsa-44 %s BYTES (a %s signature is %u "
		    "bytes)",
		    N("leaf"), s->leaf->name, N("root"), s->leaf->name, N("inter"), s->leaf->name,
		    N("leaf"), N("leaf"), N("pad_leaf_to"), s->leaf->name, s->leaf->sig_bytes);
	if (s->pad_leaf_to > PQ_CHAIN_PAD_MAX || s->pad_chain_to > PQ_CHAIN_PAD_MAX)
		return pq_diag_set(d, PQ_ERANGE,
				   "%s/%s: at most %u bytes (a TLS certificate entry's limit)",
				   N("pad_leaf_to"), N("pad_chain_to"), PQ_CHAIN_PAD_MAX);
	if (s->pad_leaf_to && s->pad_chain_to) {
		/* with trust anchor identifiers the chain sent is the leaf alone too */
		if (s->intermediates == 0 && s->pad_leaf_to != s->pad_chain_to)
			return pq_diag_set(d, PQ_EINVAL,
					   "%s %zu and %s %zu differ, but with %s 0 the chain "
					   "is the leaf alone",
					   N("pad_leaf_to"), s->pad_leaf_to, N("pad_chain_to"),
					   s->pad_chain_to, N("intermediates"));
		if (s->tai && s->pad_leaf_to != s->pad_chain_to)
			return pq_diag_set(d, PQ_EINVAL,
					   "%s %zu and %s %zu with %s: the chain sent is the leaf alone, so the "
					   "two sizes must be equal (or give one)",
					   N("pad_leaf_to"), s->pad_leaf_to, N("pad_chain_to"), s->pad_chain_to,
					   N("tai"));
		if (s->intermediates > 0 && !s->tai && s->pad_leaf_to >= s->pad_chain_to)
			return pq_diag_set(d, PQ_EINVAL,
					   "%s %zu leaves no room for %d intermediate(s) within "
					   "%s %zu",
					   N("pad_leaf_to"), s->pad_leaf_to, s->intermediates,
					   N("pad_chain_to"), s->pad_chain_to);
	}
	if (s->scts < 0 || s->scts > PQ_CHAIN_MAX_SCTS)
		return pq_diag_set(d, PQ_EINVAL, "%s: %d is outside 0..%d", N("scts"), s->scts, PQ_CHAIN_MAX_SCTS);
	if (s->scts && s->mtc != PQ_MTC_NONE)
		return pq_diag_set(d, PQ_EINVAL,
				   "%s %d: a Merkle Tree Certificate is its own transparency proof and "
				   "carries no SCTs; use %s 0 with %s",
				   N("scts"), s->scts, N("scts"), N("mtc"));
	if (s->scts) {
		const pq_alg *a = s->sct_alg ? s->sct_alg : pq_alg_find("ecdsa-p256");
		size_t sig = a->sig_bytes;
		int fit = (int)((0xffff - 2) / (2 + 47 + sig));
		if ((size_t)s->scts * (2 + 47 + sig) + 2 > 0xffff)
			return pq_diag_set(d, PQ_ERANGE,
					   "%s %d: %d SCTs with %zu-byte %s signatures exceed a "
					   "SignedCertificateTimestampList's 65,535 bytes; at most %d fit",
					   N("scts"), s->scts, s->scts, sig, a->name, fit);
	}
	if (s->ocsp && s->mtc != PQ_MTC_NONE)
		return pq_diag_set(d, PQ_EINVAL,
				   "%s: a Merkle Tree Certificate is not revoked by OCSP (its log and landmarks "
				   "are), so it gets no staple; accepted: %s with an X.509 chain (%s none)",
				   N("ocsp"), N("ocsp"), N("mtc"));
	if (s->tai && (s->mtc != PQ_MTC_NONE || s->intermediates == 0))
		return pq_diag_set(d, PQ_EINVAL,
				   "%s: trust anchor identifiers leave out the intermediates the client "
				   "holds, and %s; accepted: %s with %s 1..%d and no %s",
				   N("tai"), s->mtc != PQ_MTC_NONE ? "a Merkle Tree Certificate is the leaf alone"
								 : "this chain has none (intermediates 0)",
				   N("tai"), N("intermediates"), PQ_CHAIN_MAX_INT, N("mtc"));
	return s->mtc != PQ_MTC_NONE ? check_mtc(s, d) : 0;
}

void pq_chain_spec_key(const pq_chain_spec *s, char *buf, size_t n)
{
	if (s->mtc != PQ_MTC_NONE)
		snprintf(buf, n, "pqtls-chain-v2 mtc=%s tree=%" PRIu64 " leaf=%s cosigner=%s",
			 s->mtc == PQ_MTC_STANDALONE ? "standalone" : "landmark", s->mtc_tree_size,
			 s->leaf->name, s->mtc_cosigner ? s->mtc_cosigner->name : s->leaf->name);
	else {
		int len = snprintf(buf, n,
				   "pqtls-chain-v2 root=%s intermediate=%s leaf=%s intermediates=%d "
				   "pad_leaf_to=%zu pad_chain_to=%zu",
				   s->root->name, s->inter->name, s->leaf->name, s->intermediates, s->pad_leaf_to,
				   s->pad_chain_to);
		/* scts only when asked for. v2: v1 keys once ended in a bare SCT count, so 8192
		 * with no SCTs read as 81920 and the cache could hand out the wrong chain; no v1
		 * entry is used again. */
		if (s->scts && len > 0 && (size_t)len < n)
			snprintf(buf + len, n - (size_t)len, " scts=%d sct_alg=%s", s->scts,
				 s->sct_alg ? s->sct_alg->name : "ecdsa-p256");
		len = (int)strlen(buf); /* tai only when asked for, like scts */
		if (s->tai && (size_t)len < n)
			snprintf(buf + len, n - (size_t)len, " tai=yes");
		len = (int)strlen(buf); /* ocsp the same way */
		if (s->ocsp && (size_t)len < n)
			snprintf(buf + len, n - (size_t)len, " ocsp=yes");
	}
}

size_t pq_chain_sct_ext_bytes(int n, size_t sig_bytes)
{
	if (n <= 0)
		return 0;
	size_t list = 2 + (size_t)n * (2 + 1 + 32 + 8 + 2 + 2 + 2 + sig_bytes);
	return pq_der_tlv(pq_der_tlv(10) + pq_der_tlv(pq_der_tlv(list))); /* OID is 10 bytes */
}
