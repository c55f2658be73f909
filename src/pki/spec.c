/* pq_chain_spec: defaults, checks and the canonical cache key. */
#include <inttypes.h>
#include <stdio.h>

#include "pki/chain.h"

#define TLS_CERT_MAX 0xffffffu /* cert_data<1..2^24-1> */

void pq_chain_spec_init(pq_chain_spec *s)
{
	*s = (pq_chain_spec){0};
	s->root = s->inter = s->leaf = pq_alg_find("ml-dsa-65");
	s->intermediates = 1;
	s->mtc_tree_size = 0;
}

static int check_mtc(const pq_chain_spec *s, pq_diag *d)
{
	if (s->intermediates != 0)
		return pq_diag_set(d, PQ_EINVAL,
				   "--mtc: a Merkle Tree Certificate chain is the leaf alone; "
				   "--intermediates must be 0 (got %d)",
				   s->intermediates);
	if (s->pad_leaf_to || s->pad_chain_to)
		return pq_diag_set(d, PQ_EINVAL,
				   "--mtc: the size comes from the MTC formula; --pad-leaf-to and "
				   "--pad-chain-to cannot be combined with it");
	if (s->mtc_tree_size < 2 || s->mtc_tree_size > (UINT64_C(1) << 48))
		return pq_diag_set(d, PQ_EINVAL,
				   "--mtc-tree-size: %" PRIu64 " entries is outside 2..2^48 (an "
				   "MTC log index is 48 bits)",
				   s->mtc_tree_size);
	return 0;
}

int pq_chain_spec_check(const pq_chain_spec *s, pq_diag *d)
{
	if (!s->root || !s->inter || !s->leaf)
		return pq_diag_set(d, PQ_EINVAL,
				   "chain spec: root, intermediate and leaf "
				   "algorithms are required");
	if (s->intermediates < 0 || s->intermediates > PQ_CHAIN_MAX_INT)
		return pq_diag_set(d, PQ_EINVAL, "--intermediates: %d is outside 0..%d",
				   s->intermediates, PQ_CHAIN_MAX_INT);
	if (!s->leaf->tls_leaf)
		return pq_diag_set(
		    d, PQ_EUNSUPPORTED,
		    "--leaf %s: OpenSSL 3.5 has no TLS 1.3 signature code point for SLH-DSA, "
		    "so a server cannot use an SLH-DSA leaf key. Two ways work: (1) SLH-DSA "
		    "root/intermediates under an ML-DSA leaf, e.g. --root %s --intermediate %s "
		    "--leaf ml-dsa-65; (2) a leaf of another algorithm padded to SLH-DSA's "
		    "size, e.g. --leaf ml-dsa-44 --pad-leaf-to BYTES (a %s signature is %u "
		    "bytes)",
		    s->leaf->name, s->leaf->name, s->leaf->name, s->leaf->name, s->leaf->sig_bytes);
	if (s->pad_leaf_to > TLS_CERT_MAX || s->pad_chain_to > TLS_CERT_MAX)
		return pq_diag_set(d, PQ_ERANGE,
				   "--pad-leaf-to/--pad-chain-to: at most %u bytes (a TLS "
				   "certificate entry's limit)",
				   TLS_CERT_MAX);
	if (s->pad_leaf_to && s->pad_chain_to) {
		if (s->intermediates == 0 && s->pad_leaf_to != s->pad_chain_to)
			return pq_diag_set(d, PQ_EINVAL,
					   "--pad-leaf-to %zu and --pad-chain-to %zu differ, but "
					   "with --intermediates 0 the chain is the leaf alone",
					   s->pad_leaf_to, s->pad_chain_to);
		if (s->intermediates > 0 && s->pad_leaf_to >= s->pad_chain_to)
			return pq_diag_set(d, PQ_EINVAL,
					   "--pad-leaf-to %zu leaves no room for %d "
					   "intermediate(s) within --pad-chain-to %zu",
					   s->pad_leaf_to, s->intermediates, s->pad_chain_to);
	}
	return s->mtc != PQ_MTC_NONE ? check_mtc(s, d) : 0;
}

void pq_chain_spec_key(const pq_chain_spec *s, char *buf, size_t n)
{
	if (s->mtc != PQ_MTC_NONE)
		snprintf(buf, n, "pqtls-chain-v1 mtc=%s tree=%" PRIu64 " leaf=%s cosigner=%s",
			 s->mtc == PQ_MTC_STANDALONE ? "standalone" : "landmark", s->mtc_tree_size,
			 s->leaf->name, s->mtc_cosigner ? s->mtc_cosigner->name : s->leaf->name);
	else
		snprintf(buf, n,
			 "pqtls-chain-v1 root=%s intermediate=%s leaf=%s intermediates=%d "
			 "pad_leaf_to=%zu pad_chain_to=%zu",
			 s->root->name, s->inter->name, s->leaf->name, s->intermediates,
			 s->pad_leaf_to, s->pad_chain_to);
}
