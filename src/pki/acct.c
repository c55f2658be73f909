#include "pki/acct.h"

#include <strings.h>

#include "pki/alg.h"

static const pq_acct_group groups[] = {
    {"X25519", 32, 1},
    {"X25519MLKEM768", 1120, 1},
    {"SecP256r1MLKEM768", 1153, 1},
    {"MLKEM768", 1088, 1},
    {"secp256r1", 65, 0},
    {"secp384r1", 97, 0},
    {"SecP384r1MLKEM1024", 1665, 0},
    {"MLKEM512", 768, 0},
    {"MLKEM1024", 1568, 0},
};

#define NGROUPS (sizeof groups / sizeof groups[0])
#define U24_MAX 0xffffffu

size_t pq_acct_group_count(void)
{
	return NGROUPS;
}

const pq_acct_group *pq_acct_group_at(size_t i)
{
	return i < NGROUPS ? &groups[i] : NULL;
}

const pq_acct_group *pq_acct_group_find(const char *name)
{
	for (size_t i = 0; name && i < NGROUPS; i++)
		if (strcasecmp(groups[i].name, name) == 0)
			return &groups[i];
	return NULL;
}

size_t pq_acct_cert_msg(const size_t *der, size_t n)
{
	size_t len = 4 + 1 + 3;
	for (size_t i = 0; i < n; i++)
		len += 3 + der[i] + 2;
	return len;
}

size_t pq_acct_tls12_list(const size_t *der, size_t n)
{
	size_t len = 0;
	for (size_t i = 0; i < n; i++)
		len += 3 + der[i];
	return len;
}

static void emit(size_t *w, size_t max, size_t *nw, size_t len)
{
	if (*nw < max)
		w[(*nw)++] = len;
	else
		w[max - 1] += len;
}

/* OpenSSL's buffer_write (crypto/bio/bf_buff.c): a record that fits the free space is
 * kept; otherwise a non-empty buffer is topped up and written whole, a remainder of at
 * least a buffer's size goes out in one direct write, and a smaller one is kept. */
size_t pq_acct_buffer_writes(const size_t *rec, size_t n, size_t wbuf, size_t *w, size_t max)
{
	size_t nw = 0, buffered = 0;
	if (!max)
		return 0;
	for (size_t i = 0; i < n; i++) {
		size_t r = rec[i];
		if (wbuf - buffered > r) {
			buffered += r;
			continue;
		}
		if (buffered) {
			r -= wbuf - buffered;
			emit(w, max, &nw, wbuf);
			buffered = 0;
		}
		if (r >= wbuf)
			emit(w, max, &nw, r);
		else
			buffered = r;
	}
	if (buffered)
		emit(w, max, &nw, buffered);
	return nw;
}

size_t pq_acct_write_segments(const size_t *w, size_t n, size_t mss)
{
	size_t segs = 0;
	for (size_t i = 0; i < n; i++)
		segs += (w[i] + mss - 1) / mss;
	return segs;
}

/* The records of one handshake message, appended to rec[]: plaintext of at most
 * PQ_WIRE_TLS_RECORD_MAX bytes each, PQ_WIRE_TLS_RECORD_OVERHEAD bytes of framing each. */
static size_t add_records(size_t *rec, size_t n, size_t max, size_t len)
{
	do {
		size_t part = len < PQ_WIRE_TLS_RECORD_MAX ? len : PQ_WIRE_TLS_RECORD_MAX;
		if (n < max)
			rec[n++] = part + PQ_WIRE_TLS_RECORD_OVERHEAD;
		else
			rec[max - 1] += part + PQ_WIRE_TLS_RECORD_OVERHEAD;
		len -= part;
	} while (len);
	return n;
}

size_t pq_acct_server_hello(unsigned share)
{
	return PQ_WIRE_TLS_HS_HDR + 2 + 32 + 1 + 32 + 2 + 1 + 2 + 6 + 8 + (size_t)share;
}

size_t pq_acct_resumed_flight(unsigned share)
{
	return PQ_WIRE_TLS_RECORD_HDR + pq_acct_server_hello(share) + PQ_WIRE_TLS_PSK_EXT + PQ_WIRE_TLS_CCS +
	       pq_wire_records(PQ_ACCT_EE_EMPTY) + pq_wire_records(PQ_WIRE_TLS_HS_HDR + 48);
}

int pq_acct_flight(const pq_acct_in *in, pq_acct *out, pq_diag *d)
{
	if (in->n == 0)
		return pq_diag_set(d, PQ_ERANGE, "size accounting: the chain has no certificate");
	for (size_t i = 0; i < in->n; i++)
		if (in->der[i] > U24_MAX)
			return pq_diag_set(d, PQ_ERANGE,
					   "size accounting: certificate %zu is %zu bytes; TLS "
					   "carries at most %u",
					   i, in->der[i], U24_MAX);
	if (in->sig_bytes > 0xffff)
		return pq_diag_set(d, PQ_ERANGE,
				   "size accounting: a %zu-byte signature does not fit a "
				   "CertificateVerify (at most 65535)",
				   in->sig_bytes);
	if (in->cv_carry && (in->cv_carry < 4 || in->cv_carry > in->sig_bytes))
		return pq_diag_set(d, PQ_ERANGE,
				   "size accounting: %zu signature bytes carried in the leaf's "
				   "certificate extension; 0 or 4..%zu (an extension's header is 4)",
				   in->cv_carry, in->sig_bytes);
	pq_acct a = {0};
	a.cert_msg = pq_acct_cert_msg(in->der, in->n) + in->cv_carry + in->staple;
	if (a.cert_msg - 4 > U24_MAX)
		return pq_diag_set(d, PQ_ERANGE,
				   "size accounting: a %zu-byte Certificate message exceeds the "
				   "TLS limit of %u",
				   a.cert_msg, U24_MAX + 4);
	a.server_hello = pq_acct_server_hello(in->server_share);
	a.ee = in->ee_bytes ? in->ee_bytes : PQ_ACCT_EE_EMPTY;
	a.cert_verify = 4 + 2 + 2 + in->sig_bytes - in->cv_carry;
	a.finished = 4 + (in->finished_hash ? in->finished_hash : 48);
	a.flight = PQ_WIRE_TLS_RECORD_HDR + a.server_hello + PQ_WIRE_TLS_CCS + pq_wire_records(a.ee) +
		   pq_wire_records(a.cert_msg) + pq_wire_records(a.cert_verify) + pq_wire_records(a.finished);
	size_t mss = in->mss ? in->mss : PQ_ACCT_MSS;
	size_t iw = in->iw ? in->iw : PQ_ACCT_IW;
	size_t rec[4 * PQ_ACCT_MAX_WRITES], nrec = 0, max = sizeof rec / sizeof rec[0];
	rec[nrec++] = PQ_WIRE_TLS_RECORD_HDR + a.server_hello;
	rec[nrec++] = PQ_WIRE_TLS_CCS; /* ChangeCipherSpec, for middleboxes */
	nrec = add_records(rec, nrec, max, a.ee);
	nrec = add_records(rec, nrec, max, a.cert_msg);
	nrec = add_records(rec, nrec, max, a.cert_verify);
	nrec = add_records(rec, nrec, max, a.finished);
	a.n_writes = pq_acct_buffer_writes(rec, nrec, in->wbuf ? in->wbuf : PQ_ACCT_WBUF,
					   a.writes, PQ_ACCT_MAX_WRITES);
	a.segments = pq_acct_write_segments(a.writes, a.n_writes, mss);
	a.segments_flat = (a.flight + mss - 1) / mss;
	a.fits_iw = a.segments <= iw;
	a.rounds = 1;
	for (size_t cum = iw, cwnd = iw; cum < a.segments; a.rounds++) {
		cwnd *= 2;
		cum += cwnd;
	}
	*out = a;
	return 0;
}

int pq_acct_flight_named(const size_t *der, size_t n, const char *leaf_alg, const char *group,
			 pq_acct *out, pq_diag *d)
{
	const pq_alg *a = NULL;
	const pq_acct_group *g = pq_acct_group_find(group);
	int rc = pq_alg_lookup(leaf_alg, "leaf signature algorithm", &a, d);
	if (rc)
		return rc;
	if (!g)
		return pq_diag_set(d, PQ_EINVAL,
				   "TLS group '%s' is unknown to the size model; accepted: X25519, "
				   "X25519MLKEM768, SecP256r1MLKEM768, MLKEM768, secp256r1, "
				   "secp384r1, SecP384r1MLKEM1024, MLKEM512, MLKEM1024",
				   group ? group : "");
	pq_acct_in in = {
	    .der = der, .n = n, .sig_bytes = a->sig_bytes, .server_share = g->server_share};
	return pq_acct_flight(&in, out, d);
}
