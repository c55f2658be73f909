/* pq_chain_make: keys, certificates, exact padding, and the chain directory. */
#include <errno.h>
#include <fcntl.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pki/cert.h"
#include "pki/chain.h"
#include "pki/dir.h"
#include "pki/files.h"
#include "pki/manifest.h"
#include "pki/ocsp.h"
#include "pki/pad.h"

#define MAX_LEVELS (PQ_CHAIN_MAX_INT + 2)
#define VALID_DAYS 7300 /* 20 years: cached chains do not expire, UTCTime still applies */
#define N(key) pq_name_of(s->names, key) /* the caller's name for an input of spec s */

/* level 0 is the root, 1..k the intermediates (1 under the root), k + 1 the leaf. */
struct built {
	EVP_PKEY *key[MAX_LEVELS];
	X509 *cert[MAX_LEVELS];
	const pq_alg *alg[MAX_LEVELS];
	int n;
	size_t sct; /* the leaf's embedded SCT list (emulated by its size) */
};

static void built_dispose(struct built *b)
{
	for (int i = 0; i < MAX_LEVELS; i++) {
		EVP_PKEY_free(b->key[i]);
		X509_free(b->cert[i]);
	}
}

/* Bytes a composite emulation adds to level i: its classical key, and the classical
 * signature when its issuer is composite. */
static size_t emu_extra(const struct built *b, int i)
{
	const pq_alg *issuer = b->alg[i ? i - 1 : 0];
	return b->alg[i]->emu_pub_extra + issuer->emu_sig_extra + (i == b->n - 1 ? b->sct : 0);
}

static int make_level(struct built *b, int i, const pq_chain_spec *s, pq_diag *d)
{
	char cn[48];
	int leaf = i == b->n - 1;
	if (i == 0)
		snprintf(cn, sizeof cn, "%s", s->mtc ? "pqtls MTC emulation anchor" : "pqtls root");
	else if (leaf)
		snprintf(cn, sizeof cn, "localhost");
	else
		snprintf(cn, sizeof cn, "pqtls intermediate %d",
			 b->n - 1 - i); /* chain.pem order */
	int rc = pq_alg_keygen(b->alg[i], &b->key[i], d);
	if (rc)
		return rc;
	pq_cert_req r = {.cn = cn,
			 .ca = !leaf,
			 .key = b->key[i],
			 .issuer = i ? b->cert[i - 1] : NULL,
			 .issuer_key = i ? b->key[i - 1] : NULL,
			 .md = pq_alg_md(b->alg[i ? i - 1 : 0]),
			 .not_before = s->not_before ? s->not_before : (int64_t)time(NULL) - 3600,
			 .days = VALID_DAYS};
	return pq_cert_new(&r, &b->cert[i], d);
}

static int fit(struct built *b, int i, size_t target, const char *what, pq_diag *d)
{
	pq_pad_req r = {.key = b->key[i ? i - 1 : 0],
			.md = pq_alg_md(b->alg[i ? i - 1 : 0]),
			.target = target,
			.cn = i == b->n - 1 ? "localhost" : NULL,
			.what = what};
	return pq_pad_fit(b->cert[i], &r, d);
}

static size_t der(struct built *b, int i)
{
	return pq_pad_der_len(b->cert[i]);
}

/* Root and intermediates at their natural (or composite-emulated) sizes. */
static int make_cas(struct built *b, const pq_chain_spec *s, pq_diag *d)
{
	int rc = 0;
	for (int i = 0; i < b->n - 1 && !rc; i++) {
		char what[64];
		snprintf(what, sizeof what, "%s (composite emulation)",
			 i ? "intermediate" : "root");
		rc = make_level(b, i, s, d);
		if (!rc && emu_extra(b, i))
			rc = fit(b, i, der(b, i) + emu_extra(b, i), what, d);
	}
	return rc;
}

static int make_mtc_leaf(struct built *b, const pq_chain_spec *s, pq_diag *d)
{
	int leaf = b->n - 1;
	int rc = make_level(b, leaf, s, d);
	if (rc)
		return rc;
	const pq_alg *cosigner = s->mtc_cosigner ? s->mtc_cosigner : s->leaf;
	size_t target = 0;
	if ((rc = pq_mtc_cert_size(b->cert[leaf], s->mtc, s->mtc_tree_size, cosigner->sig_bytes,
				   &target, d)))
		return rc;
	target += b->alg[leaf]->emu_pub_extra; /* the anchor is Ed25519, never composite */
	if (target < der(b, leaf))
		return pq_diag_set(d, PQ_ERANGE,
				   "%s %llu: the implied MTC (%zu bytes) is smaller "
				   "than the emulating leaf (%zu bytes); use a larger tree",
				   N("mtc_tree_size"), (unsigned long long)s->mtc_tree_size, target,
				   der(b, leaf));
	char what[96];
	snprintf(what, sizeof what, "%s (leaf)", N("mtc"));
	return fit(b, leaf, target, what, d);
}

/* The leaf, padded to its own target or to what the chain target leaves for it. When
 * that size cannot exist in DER, the leaf's issuer takes a few bytes more. */
static int make_leaf(struct built *b, const pq_chain_spec *s, pq_diag *d)
{
	int leaf = b->n - 1, issuer = leaf - 1;
	int rc = make_level(b, leaf, s, d);
	if (rc)
		return rc;
	size_t natural = der(b, leaf) + emu_extra(b, leaf), ints = 0;
	for (int i = 1; i < leaf && !s->tai; i++) /* with tai the chain sent is the leaf */
		ints += der(b, i);
	char what[96];
	if (s->pad_leaf_to) {
		snprintf(what, sizeof what, "%s %zu (leaf)", N("pad_leaf_to"), s->pad_leaf_to);
		if (s->pad_leaf_to < natural)
			return pq_diag_set(d, PQ_ERANGE,
					   "%s: below the leaf's natural size; the smallest is %zu "
					   "bytes",
					   what, natural);
		return fit(b, leaf, s->pad_leaf_to, what, d);
	}
	if (!s->pad_chain_to)
		return natural > der(b, leaf)
			   ? fit(b, leaf, natural, "leaf (composite emulation)", d)
			   : 0;
	if (s->pad_chain_to < natural + ints)
		return pq_diag_set(d, PQ_ERANGE,
				   "%s %zu: below the chain's natural size; the "
				   "smallest is %zu bytes (leaf %zu + intermediates %zu)",
				   N("pad_chain_to"), s->pad_chain_to, natural + ints, natural, ints);
	snprintf(what, sizeof what, "%s %zu (leaf)", N("pad_chain_to"), s->pad_chain_to);
	char iwhat[96];
	snprintf(iwhat, sizeof iwhat, "%s (intermediate)", N("pad_chain_to"));
	rc = fit(b, leaf, s->pad_chain_to - ints, what, d);
	for (size_t shift = 24; rc == PQ_ERANGE && issuer > 0 && !s->tai && shift <= 48; shift += 24) {
		size_t int_size = der(b, issuer) + shift;
		if (s->pad_chain_to - ints < natural + shift)
			break;
		pq_diag_clear(d);
		if ((rc = fit(b, issuer, int_size, iwhat, d)))
			return rc;
		rc = fit(b, leaf, s->pad_chain_to - (ints + shift), what, d);
		ints += shift;
	}
	return rc;
}

/* With both pad targets (leaf and chain), the leaf's issuer takes the difference. */
static int fit_issuer_for_both(struct built *b, const pq_chain_spec *s, pq_diag *d)
{
	int issuer = b->n - 2;
	size_t others = 0;
	for (int i = 1; i < issuer; i++)
		others += der(b, i);
	size_t want = s->pad_chain_to - s->pad_leaf_to;
	if (want < others + der(b, issuer))
		return pq_diag_set(d, PQ_ERANGE,
				   "%s %zu with %s %zu leaves %zu bytes for the intermediates, "
				   "which need at least %zu",
				   N("pad_chain_to"), s->pad_chain_to, N("pad_leaf_to"), s->pad_leaf_to,
				   want, others + der(b, issuer));
	char what[128];
	snprintf(what, sizeof what, "%s (intermediate, given %s)", N("pad_chain_to"),
		 N("pad_leaf_to"));
	return fit(b, issuer, want - others, what, d);
}

/* dir/name into path (PQ_BUILD_PATH bytes); a directory too long for it is refused
 * rather than written somewhere else. */
#define PQ_BUILD_PATH 4200
static int file_path(char *path, const char *dir, const char *name, pq_diag *d)
{
	int n = snprintf(path, PQ_BUILD_PATH, "%s/%s", dir, name);
	if (n < 0 || n >= PQ_BUILD_PATH)
		return pq_diag_set(d, PQ_ETOOBIG, "%s/%s: the path is longer than %d bytes", dir, name,
				   PQ_BUILD_PATH - 1);
	return 0;
}

static int write_pem(const char *dir, const char *name, struct built *b, int from, int to, int key,
		     pq_diag *d)
{
	char path[PQ_BUILD_PATH];
	int prc = file_path(path, dir, name, d);
	if (prc < 0)
		return prc;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, key ? 0600 : 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return pq_diag_set(d, -errno, "cannot write %s: %s", path, strerror(errno));
	}
	int ok = 1;
	if (key)
		ok = PEM_write_PrivateKey(f, b->key[from], NULL, NULL, 0, NULL, NULL);
	/* from > to walks down: chain.pem lists the leaf, then its issuer, up to the root's
	 * child. */
	for (int i = from; !key && ok && (from <= to ? i <= to : i >= to); i += from <= to ? 1 : -1)
		ok = PEM_write_X509(f, b->cert[i]);
	/* a write the system refused (a full disk) says why; else OpenSSL's reason */
	errno = 0;
	int werr = fflush(f) != 0 || ferror(f) ? (errno ? errno : EIO) : 0;
	if (fclose(f) != 0 && !werr)
		werr = errno ? errno : EIO;
	if (werr)
		return pq_diag_set(d, -werr, "cannot write %s: %s", path, strerror(werr));
	if (!ok)
		return pq_diag_ossl(d, PQ_EIO, "cannot write %s", path);
	return 0;
}

/* With trust anchor identifiers chain.pem is the leaf alone and trust.pem holds what the
 * client already has: the intermediates (the leaf's issuer first), then the root. */
static int write_dir(struct built *b, const pq_chain_spec *s, const char *dir, pq_diag *d)
{
	int leaf = b->n - 1, rc;
	int last = s->tai || leaf <= 1 ? leaf : 1;
	if ((rc = write_pem(dir, PQ_CHAIN_FILE_ROOT, b, 0, 0, 0, d)) ||
	    (rc = write_pem(dir, PQ_CHAIN_FILE_CHAIN, b, leaf, last, 0, d)) ||
	    (rc = write_pem(dir, PQ_CHAIN_FILE_KEY, b, leaf, leaf, 1, d)) ||
	    (s->tai && (rc = write_pem(dir, PQ_CHAIN_FILE_TRUST, b, leaf - 1, 0, 0, d))))
		return rc;
	return 0;
}

/* The leaf's OCSP response, signed by its issuer (an emulated issuer's signature padded to
 * its size), as PQ_CHAIN_FILE_OCSP. */
static int write_ocsp(struct built *b, const pq_chain_spec *s, const char *dir, pq_diag *d)
{
	if (!s->ocsp)
		return 0;
	int leaf = b->n - 1, issuer = leaf - 1;
	unsigned char *der = NULL;
	size_t len = 0;
	int64_t now = s->not_before ? s->not_before : (int64_t)time(NULL) - 3600;
	int rc = pq_ocsp_make(b->cert[leaf], b->cert[issuer], b->key[issuer], b->alg[issuer],
			      b->alg[issuer]->emu_sig_extra, now, &der, &len, d);
	if (rc)
		return rc;
	char path[PQ_BUILD_PATH];
	if ((rc = file_path(path, dir, PQ_CHAIN_FILE_OCSP, d)) < 0) {
		OPENSSL_free(der);
		return rc;
	}
	FILE *f = fopen(path, "wb");
	int bad = !f || fwrite(der, 1, len, f) != len;
	if (f && fclose(f) != 0)
		bad = 1;
	OPENSSL_free(der);
	return bad ? pq_diag_set(d, PQ_EIO, "cannot write %s", path) : 0;
}

/* A size-emulated leaf: what the server carries beyond the real CertificateVerify. */
static int write_sigpad(const pq_chain_info *info, const pq_chain_spec *s, const char *dir, pq_diag *d)
{
	if (!info->cv_carry)
		return 0;
	char path[PQ_BUILD_PATH];
	int rc = file_path(path, dir, PQ_CHAIN_FILE_SIGPAD, d);
	if (rc < 0)
		return rc;
	FILE *f = fopen(path, "w");
	if (!f)
		return pq_diag_set(d, -errno, "cannot write %s: %s", path, strerror(errno));
	int bad = fprintf(f, "%zu %s\n", info->cv_carry, s->leaf->name) < 0;
	bad |= fclose(f) != 0;
	return bad ? pq_diag_set(d, PQ_EIO, "cannot write %s", path) : 0;
}

static int build(struct built *b, const pq_chain_spec *s, pq_diag *d)
{
	b->n = s->mtc ? 2 : s->intermediates + 2;
	for (int i = 0; i < b->n; i++)
		b->alg[i] = i == b->n - 1 ? s->leaf : i == 0 ? s->root : s->inter;
	if (s->mtc)
		b->alg[0] = pq_alg_find("ed25519");
	b->sct = pq_chain_sct_ext_bytes(s->scts, (s->sct_alg ? s->sct_alg : pq_alg_find("ecdsa-p256"))->sig_bytes);
	int rc = make_cas(b, s, d);
	if (!rc && s->pad_leaf_to && s->pad_chain_to && s->intermediates > 0 && !s->tai)
		rc = fit_issuer_for_both(b, s, d);
	if (!rc)
		rc = s->mtc ? make_mtc_leaf(b, s, d) : make_leaf(b, s, d);
	return rc;
}

int pq_chain_make(const pq_chain_spec *s, const char *outdir, int force, pq_chain_info *info,
		  pq_diag *d)
{
	struct built b = {0};
	pq_chain_info local;
	char tmp[PQ_BUILD_PATH] = "";
	if (!info)
		info = &local;
	*info = (pq_chain_info){0};
	int rc = pq_chain_spec_check(s, d);
	if (!rc)
		rc = pq_pki_dir_check(outdir, force, s->names, d);
	if (!rc)
		rc = build(&b, s, d);
	if (!rc)
		rc = pq_pki_dir_tmp(outdir, s->names, tmp, sizeof tmp, d);
	if (rc)
		goto out;
	if ((rc = write_dir(&b, s, tmp, d)) || (rc = write_ocsp(&b, s, tmp, d)) ||
	    (rc = pq_chain_inspect(tmp, info, d)))
		goto out;
	snprintf(info->dir, sizeof info->dir, "%s", outdir);
	snprintf(info->source, sizeof info->source, "%s/" PQ_CHAIN_FILE_CHAIN, outdir);
	if ((rc = pq_chain_annotate(info, s, d)) || (rc = pq_manifest_write(info, tmp, d)) ||
	    (rc = write_sigpad(info, s, tmp, d)) ||
	    (rc = pq_pki_dir_commit(tmp, outdir, force, s->names, d)))
		goto out;
	tmp[0] = '\0';
out:
	pq_pki_dir_remove(tmp);
	built_dispose(&b);
	return rc;
}
