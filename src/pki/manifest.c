#include "pki/manifest.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pki/files.h"
#include "pki/ocsp.h"

static const char *mtc_name(enum pq_mtc_mode m)
{
	return m == PQ_MTC_STANDALONE ? "standalone" : m == PQ_MTC_LANDMARK ? "landmark" : NULL;
}

static cJSON *spec_json(const pq_chain_spec *s, size_t proof, size_t sct_bytes)
{
	cJSON *o = cJSON_CreateObject();
	if (s->mtc) {
		cJSON_AddStringToObject(o, "mtc", mtc_name(s->mtc));
		cJSON_AddNumberToObject(o, "mtc_tree_size", (double)s->mtc_tree_size);
		cJSON_AddNumberToObject(o, "mtc_proof_hashes",
					pq_mtc_proof_hashes(s->mtc_tree_size));
		cJSON_AddNumberToObject(o, "mtc_proof_bytes", (double)proof);
		cJSON_AddStringToObject(o, "mtc_cosigner",
					s->mtc != PQ_MTC_STANDALONE ? "none"
					: s->mtc_cosigner	    ? s->mtc_cosigner->name
								    : s->leaf->name);
		cJSON_AddStringToObject(o, "leaf", s->leaf->name);
		return o;
	}
	cJSON_AddStringToObject(o, "root", s->root->name);
	cJSON_AddStringToObject(o, "intermediate", s->inter->name);
	cJSON_AddStringToObject(o, "leaf", s->leaf->name);
	cJSON_AddNumberToObject(o, "intermediates", s->intermediates);
	cJSON_AddNumberToObject(o, "pad_leaf_to", (double)s->pad_leaf_to);
	cJSON_AddNumberToObject(o, "pad_chain_to", (double)s->pad_chain_to);
	cJSON_AddNumberToObject(o, "scts", s->scts);
	cJSON_AddStringToObject(o, "sct_alg", s->scts ? (s->sct_alg ? s->sct_alg->name : "ecdsa-p256") : "none");
	cJSON_AddNumberToObject(o, "sct_extension_bytes", (double)sct_bytes);
	cJSON_AddBoolToObject(o, "tai", s->tai);
	cJSON_AddBoolToObject(o, "ocsp", s->ocsp);
	return o;
}

static cJSON *cert_json(const pq_cert_info *c, int in_chain)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "role", c->role);
	cJSON_AddBoolToObject(o, "in_chain", in_chain);
	cJSON_AddStringToObject(o, "subject", c->subject);
	cJSON_AddStringToObject(o, "key_alg", c->key_alg);
	cJSON_AddNumberToObject(o, "public_key_bytes", (double)c->pub_bytes);
	cJSON_AddStringToObject(o, "signature_alg", c->sig_alg);
	cJSON_AddNumberToObject(o, "signature_bytes", (double)c->sig_bytes);
	cJSON_AddNumberToObject(o, "pad_bytes", (double)c->pad_bytes);
	cJSON_AddNumberToObject(o, "emulated_bytes", (double)c->emu_bytes);
	cJSON_AddNumberToObject(o, "der_bytes", (double)c->der_bytes);
	cJSON_AddStringToObject(o, "sha256", c->sha256);
	return o;
}

static cJSON *tls13_json(const pq_chain_info *info)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "certificate_msg_bytes", (double)info->cert_msg);
	cJSON_AddBoolToObject(o, "leaf_usable_by_openssl_tls13", info->leaf_tls_ok);
	cJSON_AddNumberToObject(o, "leaf_signature_bytes", (double)info->cv_sig_bytes);
	cJSON_AddNumberToObject(o, "leaf_signature_bytes_on_wire", (double)info->cv_sig_wire);
	cJSON_AddNumberToObject(o, "signature_pad_bytes", (double)info->cv_carry);
	cJSON *fl = cJSON_AddArrayToObject(o, "flights");
	for (size_t i = 0; i < info->n_flight; i++) {
		const pq_chain_flight *f = &info->flight[i];
		cJSON *g = cJSON_CreateObject();
		cJSON_AddStringToObject(g, "group", f->group->name);
		cJSON_AddNumberToObject(g, "server_hello_bytes", (double)f->acct.server_hello);
		cJSON_AddNumberToObject(g, "encrypted_extensions_bytes", (double)f->acct.ee);
		cJSON_AddNumberToObject(g, "certificate_verify_bytes", (double)f->acct.cert_verify);
		cJSON_AddNumberToObject(g, "finished_bytes", (double)f->acct.finished);
		cJSON_AddNumberToObject(g, "flight_bytes", (double)f->acct.flight);
		cJSON *w = cJSON_AddArrayToObject(g, "server_writes_bytes");
		for (size_t k = 0; k < f->acct.n_writes; k++)
			cJSON_AddItemToArray(w, cJSON_CreateNumber((double)f->acct.writes[k]));
		cJSON_AddNumberToObject(g, "segments", (double)f->acct.segments);
		cJSON_AddNumberToObject(g, "segments_if_one_write", (double)f->acct.segments_flat);
		cJSON_AddBoolToObject(g, "fits_initial_window", f->acct.fits_iw);
		cJSON_AddNumberToObject(g, "slow_start_rounds", f->acct.rounds);
		cJSON_AddItemToArray(fl, g);
	}
	return o;
}

/* Trust anchor identifiers: what was left out of the flight because the client holds it. */
static cJSON *tai_json(const pq_chain_info *info)
{
	if (!info->n_held)
		return cJSON_CreateNull();
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "file", PQ_CHAIN_FILE_TRUST);
	cJSON_AddNumberToObject(o, "held_certificates", (double)info->n_held);
	cJSON_AddNumberToObject(o, "held_der_bytes", (double)info->held_der);
	cJSON_AddNumberToObject(o, "certificate_msg_bytes_saved", (double)info->held_cert_msg);
	if (info->n_flight) {
		cJSON_AddStringToObject(o, "flight_group", info->flight[0].group->name);
		cJSON_AddNumberToObject(o, "flight_bytes_saved", (double)info->held_flight_saved);
	}
	return o;
}

/* The OCSP staple: the response and what it adds to the leaf's CertificateEntry. */
static cJSON *ocsp_json(const pq_chain_info *info)
{
	if (!info->ocsp_bytes)
		return cJSON_CreateNull();
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "file", PQ_CHAIN_FILE_OCSP);
	cJSON_AddNumberToObject(o, "response_bytes", (double)info->ocsp_bytes);
	cJSON_AddNumberToObject(o, "certificate_entry_bytes", (double)pq_ocsp_entry_bytes(info->ocsp_bytes));
	cJSON_AddNumberToObject(o, "emulated_pad_bytes", (double)info->ocsp_pad);
	return o;
}

char *pq_manifest_json(const pq_chain_info *info)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "generator", "pqtls certs");
	if (info->dir[0])
		cJSON_AddStringToObject(o, "dir", info->dir);
	cJSON_AddStringToObject(o, "source", info->source);
	if (info->has_spec)
		cJSON_AddItemToObject(o, "spec", spec_json(&info->spec, info->mtc_proof_bytes, info->sct_bytes));
	if (info->emulation[0])
		cJSON_AddStringToObject(o, "emulation", info->emulation);
	else
		cJSON_AddNullToObject(o, "emulation");
	cJSON *certs = cJSON_AddArrayToObject(o, "certificates");
	for (size_t i = 0; i < info->n; i++)
		cJSON_AddItemToArray(certs, cert_json(&info->cert[i], 1));
	for (size_t i = 0; i < info->n_held; i++)
		cJSON_AddItemToArray(certs, cert_json(&info->held[i], 0));
	if (info->has_root)
		cJSON_AddItemToArray(certs, cert_json(&info->root, 0));
	cJSON_AddNumberToObject(o, "chain_der_bytes", (double)info->chain_der);
	cJSON_AddItemToObject(o, "trust_anchor_identifiers", tai_json(info));
	cJSON_AddItemToObject(o, "ocsp_staple", ocsp_json(info));
	cJSON *t12 = cJSON_AddObjectToObject(o, "tls12");
	cJSON_AddNumberToObject(t12, "certificate_list_len", (double)info->tls12_list);
	cJSON_AddNumberToObject(t12, "certificate_msg_body_len", (double)info->tls12_body);
	cJSON_AddItemToObject(o, "tls13", tls13_json(info));
	cJSON_AddNumberToObject(o, "mss", PQ_ACCT_MSS);
	cJSON_AddNumberToObject(o, "initial_window", PQ_ACCT_IW);
	cJSON_AddNumberToObject(o, "openssl_write_buffer", PQ_ACCT_WBUF);
	char *s = cJSON_Print(o);
	cJSON_Delete(o);
	return s;
}

int pq_manifest_write(const pq_chain_info *info, const char *dir, pq_diag *d)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/" PQ_CHAIN_FILE_MANIFEST, dir);
	char *s = pq_manifest_json(info);
	if (!s)
		return pq_diag_set(d, PQ_ENOMEM, "manifest.json: out of memory");
	FILE *f = fopen(path, "w");
	int rc = 0;
	if (!f || fprintf(f, "%s\n", s) < 0)
		rc = pq_diag_set(d, -errno, "cannot write %s: %s", path, strerror(errno));
	if (f && fclose(f) != 0 && !rc)
		rc = pq_diag_set(d, -errno, "cannot write %s: %s", path, strerror(errno));
	free(s);
	return rc;
}

static void cert_line(FILE *f, const pq_cert_info *c)
{
	fprintf(f, "%-16s %-28s %8zu  %-24s %8zu %8zu %9zu\n", c->role, c->key_alg, c->pub_bytes,
		c->sig_alg, c->sig_bytes, c->pad_bytes, c->der_bytes);
}

void pq_manifest_print(FILE *f, const pq_chain_info *info)
{
	fprintf(f, "chain: %s\n", info->dir[0] ? info->dir : info->source);
	if (info->emulation[0])
		fprintf(f, "note:  %s\n", info->emulation);
	fprintf(f, "\n%-16s %-28s %8s  %-24s %8s %8s %9s\n", "certificate", "key", "pubkey",
		"signed with", "sig", "pad", "DER");
	for (size_t i = 0; i < info->n; i++)
		cert_line(f, &info->cert[i]);
	if (info->has_root || info->n_held) {
		fprintf(f, "(not sent%s)\n", info->n_held ? ": the client holds them, " PQ_CHAIN_FILE_TRUST : "");
		for (size_t i = 0; i < info->n_held; i++)
			cert_line(f, &info->held[i]);
	}
	if (info->has_root)
		cert_line(f, &info->root);
	fprintf(f, "\nchain.pem DER bytes:       %zu (%zu certificates)\n", info->chain_der,
		info->n);
	if (info->n_held) {
		fprintf(f, "trust anchor identifiers:  %zu intermediate%s left out (%zu DER bytes; the client holds "
			   "%s: " PQ_CHAIN_FILE_TRUST ")\n",
			info->n_held, info->n_held == 1 ? "" : "s", info->held_der, info->n_held == 1 ? "it" : "them");
		fprintf(f, "                           Certificate message -%zu bytes", info->held_cert_msg);
		if (info->n_flight)
			fprintf(f, ", first flight -%zu bytes (%s)", info->held_flight_saved,
				info->flight[0].group->name);
		fputc('\n', f);
	}
	fprintf(f, "TLS 1.3 Certificate msg:   %zu bytes", info->cert_msg);
	if (info->cv_carry)
		fprintf(f, " (with the %zu-byte signature pad in the leaf's entry)", info->cv_carry);
	if (info->ocsp_bytes)
		fprintf(f, "%s(with the %zu-byte OCSP staple: a %zu-byte response%s)", info->cv_carry ? "\n                           " : " ",
			pq_ocsp_entry_bytes(info->ocsp_bytes), info->ocsp_bytes,
			info->ocsp_pad ? ", its signature padded to the emulated issuer's" : "");
	fputc('\n', f);
	fprintf(f, "TLS 1.2 certificate_list:  %zu bytes (Certificate body %zu)\n",
		info->tls12_list, info->tls12_body);
	if (!info->n_flight) {
		fprintf(f, "no server flight: the leaf key cannot sign a CertificateVerify\n");
		return;
	}
	if (info->cv_carry)
		fprintf(f, "CertificateVerify:         %zu bytes (%zu-byte Ed25519 signature) + %zu-byte pad = "
			   "the %zu-byte emulated signature's\n",
			info->flight[0].acct.cert_verify, info->cv_sig_wire, info->cv_carry, info->cv_sig_bytes);
	else
		fprintf(f, "CertificateVerify:         %zu bytes (%zu-byte signature%s)\n",
			info->flight[0].acct.cert_verify, info->cv_sig_bytes,
			info->cv_sig_wire != info->cv_sig_bytes ? ", emulated" : "");
	if (!info->leaf_tls_ok)
		fprintf(f, "warning: OpenSSL 3.5 cannot use this leaf key in TLS 1.3\n");
	fprintf(f, "\nserver first flight (TCP payload, MSS %d, initial window %d segments; OpenSSL\n"
		   "writes it in pieces through a %d-byte buffer, each piece ending in its own segment):\n",
		PQ_ACCT_MSS, PQ_ACCT_IW, PQ_ACCT_WBUF);
	fprintf(f, "%-20s %8s %8s %8s  %-10s %s\n", "group", "SH", "bytes", "segments", "fits IW10",
		"writes");
	for (size_t i = 0; i < info->n_flight; i++) {
		const pq_chain_flight *fl = &info->flight[i];
		char fits[32] = "yes";
		if (!fl->acct.fits_iw)
			snprintf(fits, sizeof fits, "no, +%u RTT", fl->acct.rounds - 1);
		char writes[160] = "";
		for (size_t k = 0, o = 0; k < fl->acct.n_writes && o < sizeof writes; k++)
			o += (size_t)snprintf(writes + o, sizeof writes - o, "%s%zu", k ? " + " : "",
					      fl->acct.writes[k]);
		fprintf(f, "%-20s %8zu %8zu %8zu  %-10s %s\n", fl->group->name, fl->acct.server_hello,
			fl->acct.flight, fl->acct.segments, fits, writes);
	}
}
