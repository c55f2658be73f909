/* pq_chain_inspect, pq_chain_account, pq_chain_annotate: sizes of an existing chain. */
#include <errno.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "pki/chain.h"
#include "pki/files.h"
#include "pki/ocsp.h"
#include "pki/pad.h"

static void describe(X509 *x, const char *role, pq_cert_info *c)
{
	*c = (pq_cert_info){0};
	snprintf(c->role, sizeof c->role, "%s", role);
	BIO *m = BIO_new(BIO_s_mem());
	if (m) {
		X509_NAME_print_ex(m, X509_get_subject_name(x), 0, XN_FLAG_RFC2253);
		int n = BIO_read(m, c->subject, (int)sizeof c->subject - 1);
		c->subject[n > 0 ? n : 0] = '\0';
		BIO_free(m);
	}
	unsigned pub = 0, sig = 0;
	int tls_ok = 0;
	EVP_PKEY *k = X509_get0_pubkey(x);
	if (k)
		pq_alg_describe_key(k, c->key_alg, sizeof c->key_alg, &pub, &sig, &tls_ok);
	else
		snprintf(c->key_alg, sizeof c->key_alg, "unknown");
	c->pub_bytes = pub;
	const ASN1_BIT_STRING *s = NULL;
	X509_get0_signature(&s, NULL, x);
	c->sig_bytes = s ? (size_t)s->length : 0;
	int nid = X509_get_signature_nid(x);
	snprintf(c->sig_alg, sizeof c->sig_alg, "%s", nid ? OBJ_nid2ln(nid) : "unknown");
	c->pad_bytes = pq_pad_bytes(x);
	c->der_bytes = pq_pad_der_len(x);
	unsigned char md[32];
	unsigned mdlen = 0;
	if (X509_digest(x, EVP_sha256(), md, &mdlen))
		for (unsigned i = 0; i < mdlen; i++)
			snprintf(c->sha256 + 2 * i, 3, "%02x", md[i]);
}

/* Reads every certificate in a PEM file. *n = 0 with PQ_EPARSE when there is none. */
static int read_pem(const char *path, X509 **out, size_t max, size_t *n, pq_diag *d)
{
	int rc = 0;
	*n = 0;
	BIO *in = BIO_new_file(path, "r");
	if (!in)
		return pq_diag_ossl(d, PQ_EIO, "%s: cannot open", path);
	for (;;) {
		ERR_clear_error();
		X509 *x = PEM_read_bio_X509(in, NULL, NULL, NULL);
		if (!x) {
			unsigned long e = pq_ossl_peek(1, NULL);
			if (ERR_GET_LIB(e) == ERR_LIB_PEM &&
			    ERR_GET_REASON(e) == PEM_R_NO_START_LINE && *n > 0) {
				ERR_clear_error();
				break;
			}
			rc = *n == 0
				 ? pq_diag_set(d, PQ_EPARSE,
					       "%s: not a PEM file of certificates (found no "
					       "'-----BEGIN CERTIFICATE-----' block that parses)",
					       path)
				 : pq_diag_ossl(d, PQ_EPARSE,
						"%s: certificate %zu is not valid PEM/DER", path,
						*n + 1);
			ERR_clear_error();
			break;
		}
		if (*n == max) {
			X509_free(x);
			rc =
			    pq_diag_set(d, PQ_ETOOBIG, "%s: more than %zu certificates", path, max);
			break;
		}
		out[(*n)++] = x;
	}
	BIO_free(in);
	return rc;
}

static int self_signed(X509 *x)
{
	return X509_check_issued(x, x) == X509_V_OK;
}

/* What the intermediates the client holds would have added: to the Certificate message
 * (each entry 3 + DER + 2 bytes) and to the first flight of the first group. */
static int account_held(pq_chain_info *info, size_t *der, pq_diag *d)
{
	info->held_der = info->held_cert_msg = info->held_flight_saved = 0;
	for (size_t i = 0; i < info->n_held && info->n + i < PQ_CHAIN_MAX_CERTS; i++) {
		der[info->n + i] = info->held[i].der_bytes;
		info->held_der += info->held[i].der_bytes;
		info->held_cert_msg += 3 + info->held[i].der_bytes + 2;
	}
	if (!info->n_held || !info->n_flight || info->n + info->n_held > PQ_CHAIN_MAX_CERTS)
		return 0;
	pq_chain_flight *f = &info->flight[0];
	pq_acct_in in = {.der = der,
			 .n = info->n + info->n_held,
			 .sig_bytes = info->cv_sig_bytes,
			 .server_share = f->group->server_share,
			 .cv_carry = info->cv_carry,
			 .staple = pq_ocsp_entry_bytes(info->ocsp_bytes)};
	pq_acct whole;
	int rc = pq_acct_flight(&in, &whole, d);
	if (!rc)
		info->held_flight_saved = whole.flight - f->acct.flight;
	return rc;
}

int pq_chain_account(pq_chain_info *info, pq_diag *d)
{
	size_t der[PQ_CHAIN_MAX_CERTS];
	info->chain_der = 0;
	for (size_t i = 0; i < info->n; i++)
		info->chain_der += der[i] = info->cert[i].der_bytes;
	info->cert_msg = pq_acct_cert_msg(der, info->n) + info->cv_carry + pq_ocsp_entry_bytes(info->ocsp_bytes);
	info->tls12_list = pq_acct_tls12_list(der, info->n);
	info->tls12_body = info->tls12_list + 3;
	info->n_flight = 0;
	if (!info->cv_sig_bytes)
		return 0; /* the leaf cannot sign (e.g. ML-KEM): no flight to model */
	for (size_t g = 0; g < pq_acct_group_count(); g++) {
		const pq_acct_group *grp = pq_acct_group_at(g);
		if (!grp->common || info->n_flight == PQ_CHAIN_MAX_FLIGHTS)
			continue;
		pq_acct_in in = {.der = der,
				 .n = info->n,
				 .sig_bytes = info->cv_sig_bytes,
				 .server_share = grp->server_share,
				 .cv_carry = info->cv_carry,
				 .staple = pq_ocsp_entry_bytes(info->ocsp_bytes)};
		pq_chain_flight *f = &info->flight[info->n_flight++];
		f->group = grp;
		int rc = pq_acct_flight(&in, &f->acct, d);
		if (rc)
			return rc;
	}
	return account_held(info, der, d);
}

static int inspect_file(const char *path, pq_chain_info *info, int from_dir, pq_diag *d)
{
	X509 *x[PQ_CHAIN_MAX_CERTS] = {0};
	size_t n = 0;
	int rc = read_pem(path, x, PQ_CHAIN_MAX_CERTS, &n, d);
	for (size_t i = 0; !rc && i < n; i++) {
		char role[32];
		if (i == 0)
			snprintf(role, sizeof role, "leaf");
		else if (!from_dir && i == n - 1 && self_signed(x[i]))
			snprintf(role, sizeof role, "root (sent)");
		else
			snprintf(role, sizeof role, "intermediate %d", (int)i);
		describe(x[i], role, &info->cert[i]);
	}
	if (!rc) {
		info->n = n;
		unsigned pub = 0, sig = 0;
		char name[48];
		EVP_PKEY *k = X509_get0_pubkey(x[0]);
		if (k)
			pq_alg_describe_key(k, name, sizeof name, &pub, &sig, &info->leaf_tls_ok);
		info->cv_sig_bytes = info->cv_sig_wire = sig;
	}
	for (size_t i = 0; i < n; i++)
		X509_free(x[i]);
	return rc;
}

/* trust.pem (trust anchor identifiers): the certificates other than self-signed ones are
 * the intermediates the client holds, left out of chain.pem. No file: none. */
static int inspect_held(const char *dir, pq_chain_info *info, pq_diag *d)
{
	char path[4200];
	struct stat st;
	snprintf(path, sizeof path, "%s/" PQ_CHAIN_FILE_TRUST, dir);
	if (stat(path, &st) != 0)
		return 0;
	X509 *x[PQ_CHAIN_MAX_INT + 1] = {0};
	size_t n = 0;
	int rc = read_pem(path, x, PQ_CHAIN_MAX_INT + 1, &n, d);
	for (size_t i = 0; !rc && i < n; i++) {
		if (self_signed(x[i]))
			continue;
		if (info->n_held == PQ_CHAIN_MAX_INT) {
			rc = pq_diag_set(d, PQ_ETOOBIG, "%s: more than %d intermediates", path, PQ_CHAIN_MAX_INT);
			break;
		}
		char role[32];
		snprintf(role, sizeof role, "intermediate %zu", info->n + info->n_held);
		describe(x[i], role, &info->held[info->n_held++]);
	}
	for (size_t i = 0; i < n; i++)
		X509_free(x[i]);
	return rc;
}

static int inspect_root(const char *path, pq_chain_info *info, pq_diag *d)
{
	X509 *x = NULL;
	size_t n = 0;
	int rc = read_pem(path, &x, 1, &n, d);
	if (!rc) {
		describe(x, "root", &info->root);
		info->has_root = 1;
	}
	X509_free(x);
	return rc;
}

int pq_chain_sigpad_read(const char *dir, const char *what, size_t *carry, char *alg, size_t alg_len,
		       pq_diag *d)
{
	char path[4200], name[64] = "";
	unsigned long n = 0;
	*carry = 0;
	snprintf(alg, alg_len, "%s", "");
	snprintf(path, sizeof path, "%s/" PQ_CHAIN_FILE_SIGPAD, dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? 0 : pq_diag_set(d, -errno, "%s: cannot read %s: %s", what, path, strerror(errno));
	int ok = fscanf(f, "%lu %63s", &n, name) == 2;
	fclose(f);
	if (!ok || n < 4 || n > 0xffffu + 4)
		return pq_diag_set(d, PQ_EPARSE,
				   "%s: %s is not '<bytes> <algorithm>' with 4..%u bytes (pqtls certs writes it "
				   "for a size-emulated leaf)",
				   what, path, 0xffffu + 4);
	*carry = n;
	snprintf(alg, alg_len, "%s", name);
	return 0;
}

int pq_chain_inspect(const char *path, pq_chain_info *info, pq_diag *d)
{
	struct stat st;
	*info = (pq_chain_info){0};
	if (stat(path, &st) != 0)
		return pq_diag_set(d, PQ_EIO, "%s: no such file or directory", path);
	int rc;
	if (S_ISDIR(st.st_mode)) {
		snprintf(info->dir, sizeof info->dir, "%s", path);
		snprintf(info->source, sizeof info->source, "%s/" PQ_CHAIN_FILE_CHAIN, path);
		char root[sizeof info->source];
		snprintf(root, sizeof root, "%s/" PQ_CHAIN_FILE_ROOT, path);
		rc = inspect_file(info->source, info, 1, d);
		if (!rc && stat(root, &st) == 0)
			rc = inspect_root(root, info, d);
		if (!rc)
			rc = inspect_held(path, info, d);
		char ocsp[sizeof info->source];
		snprintf(ocsp, sizeof ocsp, "%s/" PQ_CHAIN_FILE_OCSP, path);
		if (!rc && stat(ocsp, &st) == 0)
			info->ocsp_bytes = (size_t)st.st_size;
		char alg[64];
		if (!rc && !(rc = pq_chain_sigpad_read(path, path, &info->cv_carry, alg, sizeof alg, d)))
		{
			info->cv_sig_bytes += info->cv_carry; /* a size-emulated leaf's signature */
			if (info->cv_carry)
				snprintf(info->emulation, sizeof info->emulation,
					 "the leaf is a SIZE EMULATION of %s (" PQ_CHAIN_FILE_SIGPAD "): an Ed25519 key "
					 "padded to its sizes, its signature's extra %zu bytes carried in the leaf's "
					 "certificate entry extension",
					 alg, info->cv_carry);
		}
	} else {
		snprintf(info->source, sizeof info->source, "%s", path);
		rc = inspect_file(path, info, 0, d);
	}
	return rc ? rc : pq_chain_account(info, d);
}

static void emulate_cert(pq_cert_info *c, const pq_alg *key, const pq_alg *issuer)
{
	if (key->base) {
		snprintf(c->key_alg, sizeof c->key_alg, "%s (emulated)", key->name);
		c->pub_bytes += key->emu_pub_extra;
		c->emu_bytes += key->emu_pub_extra;
	}
	if (issuer->base) {
		c->sig_bytes += issuer->emu_sig_extra;
		c->emu_bytes += issuer->emu_sig_extra;
	}
}

/* Which levels are size emulations, on what key, and where the signature's extra bytes go. */
static void size_emu_note(pq_chain_info *info, const pq_chain_spec *s)
{
	const pq_alg *lv[3] = {s->leaf, s->inter, s->root};
	char names[160] = "";
	size_t len = 0;
	for (int i = 0; i < 3 && len < sizeof names; i++)
		if (pq_alg_is_size_emu(lv[i]) && !strstr(names, lv[i]->name))
			len += (size_t)snprintf(names + len, sizeof names - len, "%s%s",
						len ? ", " : "", lv[i]->name);
	snprintf(info->emulation, sizeof info->emulation,
		 "%s: SIZE EMULATION, not a real signature (OpenSSL 3.5 has none): Ed25519 keys "
		 "and signatures padded to the scheme's public-key and signature sizes%s; CPU "
		 "time is Ed25519's",
		 names,
		 pq_alg_is_size_emu(s->leaf)
		     ? ", the CertificateVerify's extra bytes carried in the leaf's certificate "
		       "entry extension"
		     : "");
}

int pq_chain_annotate(pq_chain_info *info, const pq_chain_spec *s, pq_diag *d)
{
	info->has_spec = 1;
	info->spec = *s;
	size_t k = info->n + info->n_held - 1; /* intermediates, sent or held */
	info->emulation[0] = '\0';
	if (s->mtc) {
		const pq_alg *cos = s->mtc_cosigner ? s->mtc_cosigner : s->leaf;
		info->mtc_proof_bytes =
		    pq_mtc_proof_bytes(s->mtc, s->mtc_tree_size, cos->sig_bytes);
		emulate_cert(&info->cert[0], s->leaf, pq_alg_find("ed25519"));
		snprintf(info->cert[0].sig_alg, sizeof info->cert[0].sig_alg,
			 "mtcProof (emulated)");
		snprintf(info->root.role, sizeof info->root.role, "MTC anchor");
		snprintf(
		    info->emulation, sizeof info->emulation,
		    "Merkle Tree Certificate SIZE EMULATION, not an MTC implementation: the "
		    "leaf is signed by an Ed25519 stand-in anchor (root.pem) and padded to the "
		    "DER size of a %s MTC for a subtree of %llu entries (inclusion proof 32 x "
		    "%u bytes%s%s%s)",
		    s->mtc == PQ_MTC_STANDALONE ? "standalone" : "landmark-relative",
		    (unsigned long long)s->mtc_tree_size, pq_mtc_proof_hashes(s->mtc_tree_size),
		    s->mtc == PQ_MTC_STANDALONE ? ", one " : "",
		    s->mtc == PQ_MTC_STANDALONE ? cos->name : "",
		    s->mtc == PQ_MTC_STANDALONE ? " cosignature" : "");
		info->cert[0].sig_bytes = info->mtc_proof_bytes;
	} else {
		for (size_t j = 0; j < info->n; j++)
			emulate_cert(&info->cert[j], j ? s->inter : s->leaf,
				     j == k ? s->root : s->inter);
		for (size_t j = info->n; j <= k; j++)
			emulate_cert(&info->held[j - info->n], s->inter, j == k ? s->root : s->inter);
		if (info->has_root)
			emulate_cert(&info->root, s->root, s->root);
		const pq_alg *comp = s->leaf->base    ? s->leaf
				     : s->inter->base ? s->inter
				     : s->root->base  ? s->root
						      : NULL;
		if (comp && pq_alg_is_size_emu(comp))
			size_emu_note(info, s);
		else if (comp)
			snprintf(info->emulation, sizeof info->emulation,
				 "composite %s is a SIZE EMULATION: OpenSSL 3.5 has no composite "
				 "certificates, so the key is %s and the classical key and "
				 "signature bytes are added as padding%s",
				 comp->name, comp->base->name,
				 s->leaf->base ? "; on the wire CertificateVerify carries only the "
						 "ML-DSA signature"
					       : "");
	}
	info->sct_bytes = pq_chain_sct_ext_bytes(s->scts, (s->sct_alg ? s->sct_alg : pq_alg_find("ecdsa-p256"))->sig_bytes);
	info->cert[0].emu_bytes += info->sct_bytes;
	if (info->sct_bytes) {
		size_t len = strlen(info->emulation);
		snprintf(info->emulation + len, sizeof info->emulation - len,
			 "%s%d embedded SCTs (%s signatures) are a SIZE EMULATION: a pad extension of "
			 "their list's %zu bytes in the leaf",
			 len ? "; " : "", s->scts, s->sct_alg ? s->sct_alg->name : "ecdsa-p256", info->sct_bytes);
	}
	const pq_alg *issuer = s->intermediates > 0 ? s->inter : s->root;
	info->ocsp_pad = info->ocsp_bytes ? issuer->emu_sig_extra : 0;
	if (info->ocsp_pad) {
		size_t len = strlen(info->emulation);
		snprintf(info->emulation + len, sizeof info->emulation - len,
			 "%sthe OCSP response is signed with the issuer's real key and padded by %zu bytes to the "
			 "size of a %s signature (a SIZE EMULATION of its signature)",
			 len ? "; " : "", info->ocsp_pad, issuer->name);
	}
	if (s->leaf->base) {
		info->cv_sig_bytes = s->leaf->sig_bytes;
		info->cv_sig_wire = s->leaf->base->sig_bytes;
	}
	info->cv_carry = pq_alg_is_size_emu(s->leaf) ? info->cv_sig_bytes - info->cv_sig_wire : 0;
	return pq_chain_account(info, d);
}
