/* pqtls certs: the certificate chain factory and size accounting (src/pki/). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/names.h"
#include "pki/chain.h"
#include "model/hello.h"
#include "pki/acct.h"
#include "pki/files.h"
#include "pki/manifest.h"

#define PATH "pqtls certs"

struct certs_opts {
	const char *sig, *root, *inter, *leaf, *out, *inspect, *cosigner, *sct_alg;
	long long intermediates, tree_size, scts;
	uint64_t pad_leaf_to, pad_chain_to;
	int mtc, force, json, list, tai, ocsp;
};

#define O(f) offsetof(struct certs_opts, f)
static const pq_opt certs_opts_table[] = {
    {"sig", 's', PQ_OPT_STR, O(sig), "ALG", "ml-dsa-65",
     "signature algorithm of every level (see --list)", NULL, 0, 0},
    {"root", 0, PQ_OPT_STR, O(root), "ALG", NULL, "root's algorithm (default: --sig)", NULL, 0, 0},
    {"intermediate", 0, PQ_OPT_STR, O(inter), "ALG", NULL,
     "intermediates' algorithm (default: --sig)", NULL, 0, 0},
    {"leaf", 0, PQ_OPT_STR, O(leaf), "ALG", NULL, "leaf's algorithm (default: --sig)", NULL, 0, 0},
    {"intermediates", 'n', PQ_OPT_INT, O(intermediates), "N", "1",
     "intermediates between root and leaf (0..4)", NULL, 0, 4},
    {"pad-leaf-to", 0, PQ_OPT_SIZE, O(pad_leaf_to), "BYTES", NULL,
     "pad the leaf to exactly this DER size", NULL, 0, 0},
    {"pad-chain-to", 0, PQ_OPT_SIZE, O(pad_chain_to), "BYTES", NULL,
     "pad so chain.pem (leaf + intermediates; with --tai the leaf) has exactly this many DER bytes", NULL, 0, 0},
    {"mtc", 0, PQ_OPT_CHOICE, O(mtc), NULL, "none",
     "Merkle Tree Certificate SIZE EMULATION (not an MTC implementation): leaf-only chain "
     "of the size the MTC draft implies",
     "none|standalone|landmark", 0, 0},
    {"mtc-tree-size", 0, PQ_OPT_INT, O(tree_size), "N", NULL,
     "MTC subtree entries (default 2500 standalone, 4400000 landmark)", NULL, 2, 281474976710656.0},
    {"mtc-cosigner", 0, PQ_OPT_STR, O(cosigner), "ALG", NULL,
     "algorithm of the standalone MTC's cosignature (default: the leaf's)", NULL, 0, 0},
    {"scts", 0, PQ_OPT_INT, O(scts), "N", "0",
     "SCTs embedded in the leaf (SIZE EMULATION: a pad extension of the SCT list's exact size)", NULL, 0, 8},
    {"sct-alg", 0, PQ_OPT_STR, O(sct_alg), "ALG", "ecdsa-p256",
     "the logs' signature algorithm, which sets each SCT's size (e.g. emu-mayo-2, ml-dsa-44)", NULL, 0, 0},
    {"tai", 0, PQ_OPT_FLAG, O(tai), NULL, NULL,
     "trust anchor identifiers: chain.pem is the leaf alone, the intermediates go to trust.pem "
     "(the client holds them: load it as the CA file); needs --intermediates 1..4",
     NULL, 0, 0},
    {"ocsp", 0, PQ_OPT_FLAG, O(ocsp), NULL, NULL,
     "an OCSP staple: the leaf's OCSP response signed by its issuer (ocsp.der; an emulated issuer's "
     "signature padded to its size), stapled by serve to clients that ask (bench --ocsp)",
     NULL, 0, 0},
    {"out", 'o', PQ_OPT_STR, O(out), "DIR", NULL,
     "write the chain to DIR (default: the chain cache, ${PQTLS_CACHE:-~/.cache/pqtls}/chains)",
     NULL, 0, 0},
    {"force", 'f', PQ_OPT_FLAG, O(force), NULL, NULL, "replace DIR when it holds a previous chain",
     NULL, 0, 0},
    {"inspect", 0, PQ_OPT_STR, O(inspect), "FILE", NULL,
     "print the accounting of an existing PEM chain (leaf first) or chain directory", NULL, 0, 0},
    {"json", 0, PQ_OPT_FLAG, O(json), NULL, NULL,
     "print manifest.json to stdout instead of "
     "the table",
     NULL, 0, 0},
    {"list", 0, PQ_OPT_FLAG, O(list), NULL, NULL, "list the signature algorithms and exit", NULL, 0,
     0},
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};
#undef O

static int list_algs(void)
{
	printf("%-20s %8s %8s  %s\n", "algorithm", "pubkey", "sig", "notes");
	for (size_t i = 0; i < pq_alg_count(); i++) {
		const pq_alg *a = pq_alg_at(i);
		printf("%-20s %8u %8u  %s\n", a->name, a->pub_bytes, a->sig_bytes,
		       a->base	      ? "composite SIZE EMULATION (OpenSSL 3.5 has none)"
		       : !a->tls_leaf ? "root/intermediate only (no TLS 1.3 code point)"
		       : a->family == PQ_ALG_ECDSA ? "signature size varies by 1-2 bytes"
						   : "");
	}
	return PQ_EXIT_OK;
}

/* The manifest, with the client's side added when there are rows (model/hello.h: the
 * chain factory runs no TLS, so the ClientHellos are measured here). NULL: out of memory. */
static char *manifest(const pq_chain_info *info, const pq_model_hello_row *rows)
{
	char *s = pq_manifest_json(info), *out = NULL;
	if (!s || !rows)
		return s;
	cJSON *m = cJSON_Parse(s), *h = m ? pq_model_hellos_json(rows) : NULL;
	free(s);
	if (h && cJSON_AddItemToObject(m, "client_hellos", h))
		out = cJSON_PrintUnformatted(m);
	else
		cJSON_Delete(h);
	cJSON_Delete(m);
	return out;
}

static int write_manifest(const char *dir, const char *json, pq_diag *d)
{
	char path[4200], tmp[4210];
	snprintf(path, sizeof path, "%s/" PQ_CHAIN_FILE_MANIFEST, dir);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int bad = !f || fprintf(f, "%s\n", json) < 0;
	if (f && fclose(f) != 0)
		bad = 1;
	if (bad || rename(tmp, path) < 0) {
		int e = errno;
		unlink(tmp);
		return pq_diag_set(d, -e, "cannot write %s: %s", path, strerror(e));
	}
	return 0;
}

/* The manifest on stdout (JSON or the table), and with the ClientHellos in --out's
 * manifest.json. A chain whose leaf cannot sign a handshake has no client side either. */
static int output(const struct certs_opts *o, const pq_chain_info *info)
{
	pq_diag d = {0};
	pq_model_hello_row rows[PQ_MODEL_HELLOS];
	const pq_model_hello_row *have = NULL;
	char *s = NULL;
	int ex = PQ_EXIT_OK;
	if (info->n_flight) {
		if (pq_model_hellos(PQ_ACCT_MSS, rows, &d) < 0)
			return pq_cli_fail(PATH, "%s", pq_diag_msg(&d));
		have = rows;
	}
	if ((o->json || (o->out && have)) && !(s = manifest(info, have)))
		return pq_cli_fail(PATH, "out of memory");
	if (o->out && have && write_manifest(o->out, s, &d) < 0) {
		ex = pq_cli_fail(PATH, "%s", pq_diag_msg(&d));
	} else if (o->json) {
		printf("%s\n", s);
	} else {
		pq_manifest_print(stdout, info);
		if (have) {
			printf("\n");
			pq_model_hellos_print(stdout, rows, PQ_ACCT_MSS);
		}
	}
	free(s);
	return ex;
}

static int alg_opt(const char *name, const char *what, const char *fallback, const pq_alg **out,
		   pq_diag *d)
{
	return pq_alg_lookup(name ? name : fallback, name ? what : "--sig", out, d);
}

static int make_spec(const struct certs_opts *o, pq_chain_spec *s, pq_diag *d)
{
	pq_chain_spec_init(s);
	s->names = pq_cli_chain_names;
	int rc;
	if ((rc = alg_opt(o->root, "--root", o->sig, &s->root, d)) ||
	    (rc = alg_opt(o->inter, "--intermediate", o->sig, &s->inter, d)) ||
	    (rc = alg_opt(o->leaf, "--leaf", o->sig, &s->leaf, d)) ||
	    (o->cosigner &&
	     (rc = pq_alg_lookup(o->cosigner, "--mtc-cosigner", &s->mtc_cosigner, d))) ||
	    (o->sct_alg && (rc = pq_alg_lookup(o->sct_alg, "--sct-alg", &s->sct_alg, d))))
		return rc;
	s->scts = (int)o->scts;
	s->tai = o->tai;
	s->ocsp = o->ocsp;
	s->intermediates = (int)o->intermediates;
	s->pad_leaf_to = (size_t)o->pad_leaf_to;
	s->pad_chain_to = (size_t)o->pad_chain_to;
	s->mtc = o->mtc == 1 ? PQ_MTC_STANDALONE : o->mtc == 2 ? PQ_MTC_LANDMARK : PQ_MTC_NONE;
	s->mtc_tree_size = o->tree_size		       ? (uint64_t)o->tree_size
			   : s->mtc == PQ_MTC_LANDMARK ? 4400000
						       : 2500;
	return pq_chain_spec_check(s, d);
}

static int certs_run(const pq_cmd *cmd, void *optsp, pq_cli_args *args)
{
	struct certs_opts *o = optsp;
	pq_diag d = {0};
	pq_chain_info *info = calloc(1, sizeof *info);
	int ex = PQ_EXIT_OK;
	if (!info)
		return pq_cli_fail(PATH, "out of memory");
	/* Values that would silently mean something else: refused, saying what to do. */
	if (o->out && !o->out[0]) {
		ex = pq_cli_usage_error(PATH, "--out: the directory name is empty; give a path such as out/mldsa65");
		goto out;
	}
	if ((pq_cli_given(cmd, args, "pad-chain-to") && o->pad_chain_to == 0) ||
	    (pq_cli_given(cmd, args, "pad-leaf-to") && o->pad_leaf_to == 0)) {
		ex = pq_cli_usage_error(PATH, "--%s: 0 bytes is not a size to pad to; leave the option "
					      "out for no padding",
					pq_cli_given(cmd, args, "pad-chain-to") && o->pad_chain_to == 0 ? "pad-chain-to"
												   : "pad-leaf-to");
		goto out;
	}
	if (o->list) {
		ex = list_algs();
		goto out;
	}
	if (o->inspect) {
		if (o->out) {
			ex = pq_cli_usage_error(PATH, "--inspect reads a chain; it cannot be "
						      "combined with --out");
			goto out;
		}
		ex = pq_chain_inspect(o->inspect, info, &d)
			 ? pq_cli_fail(PATH, "--inspect %s", pq_diag_msg(&d))
			 : output(o, info);
		goto out;
	}
	pq_chain_spec spec;
	if (o->mtc && (o->root || o->inter)) {
		ex = pq_cli_usage_error(PATH, "--mtc: the chain is the leaf alone under an Ed25519 "
					      "stand-in anchor; --root and --intermediate do not "
					      "apply (use --sig or --leaf)");
		goto out;
	}
	if (o->cosigner && o->mtc != 1) { /* 1: standalone */
		ex = pq_cli_usage_error(PATH, "--mtc-cosigner needs --mtc standalone");
		goto out;
	}
	/* An MTC chain is the leaf alone; only an explicit --intermediates contradicts it. */
	if (o->mtc && !pq_cli_given(cmd, args, "intermediates"))
		o->intermediates = 0;
	if (make_spec(o, &spec, &d)) {
		ex = pq_cli_usage_error(PATH, "%s", pq_diag_msg(&d));
		goto out;
	}
	if (pq_cli_progress_enabled())
		fprintf(stderr,
			"%s: generating keys and signing (SLH-DSA 's' sets take seconds)...\n",
			PATH);
	char cache[4096];
	if (!o->out && pq_cli_cache_root(cache, sizeof cache) < 0) {
		ex = pq_cli_fail(PATH, "chain cache: neither PQTLS_CACHE nor HOME is set (or give --out)");
		goto out;
	}
	int rc = o->out ? pq_chain_make(&spec, o->out, o->force, info, &d)
			: pq_chain_cached(&spec, cache, info, &d);
	if (rc < 0)
		ex = pq_cli_fail(PATH, "%s", pq_diag_msg(&d));
	else
		ex = output(o, info);
out:
	free(info);
	return ex;
}

const pq_cmd pq_cmd_certs = {
    .name = "certs",
    .summary = "make certificate chains of any PQ/classical algorithm and size; size accounting",
    .usage = "[options]   |   --inspect FILE.pem",
    .description =
	"Writes root.pem, chain.pem (leaf then intermediates: what a server sends), leaf.key\n"
	"and manifest.json, and prints each certificate's algorithm, key, signature, padding\n"
	"and DER size, the TLS 1.3 Certificate message, and the server's first flight in\n"
	"bytes and TCP segments (MSS 1448) per key-exchange group, with whether it fits an\n"
	"initial window of 10 segments. Without --out, chains are cached by their parameters\n"
	"under ${PQTLS_CACHE:-~/.cache/pqtls}/chains/ and reused as-is.\n"
	"\n"
	"Padding is a non-critical extension (OID 1.3.6.1.4.1.55555.1.1) of random bytes;\n"
	"sizes are exact to the byte. Composite algorithms (p256-ml-dsa-44, ...) and --mtc are\n"
	"SIZE EMULATIONS: OpenSSL 3.5 has neither composite certificates nor MTC. An SLH-DSA\n"
	"leaf is refused (no TLS 1.3 code point); use SLH-DSA CAs under an ML-DSA leaf.\n"
	"\n"
	"Examples:\n"
	"  pqtls certs --sig ml-dsa-65 --intermediates 1 --pad-chain-to 20000 --out DIR\n"
	"  pqtls certs --root slh-dsa-sha2-128s --intermediate slh-dsa-sha2-128s --leaf ml-dsa-44\n"
	"  pqtls certs --leaf ml-dsa-44 --mtc landmark --mtc-tree-size 4400000 --json\n"
	"  pqtls certs --inspect web-chain.pem\n",
    .opts = certs_opts_table,
    .opts_size = sizeof(struct certs_opts),
    .run = certs_run,
    .max_args = 0,
};
