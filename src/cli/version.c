/* pqtls version: what this build is and what its TLS library can do. */
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"

#ifndef PQTLS_VERSION
#define PQTLS_VERSION "0.0.0-dev"
#endif

struct version_opts {
	int json;
};

static const pq_opt version_opts_table[] = {
	{"json", 0, PQ_OPT_FLAG, offsetof(struct version_opts, json), NULL, NULL,
	 "print one JSON object instead of text", NULL, 0, 0},
	{NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

/* Prints the names in a STACK_OF(OPENSSL_CSTRING) joined by sep. */
static void print_groups(SSL_CTX *ctx, const char *sep, int quote)
{
	STACK_OF(OPENSSL_CSTRING) *names = sk_OPENSSL_CSTRING_new_null();
	if (names && SSL_CTX_get0_implemented_groups(ctx, 0, names) == 1) {
		for (int i = 0; i < sk_OPENSSL_CSTRING_num(names); i++)
			printf("%s%s%s%s", i ? sep : "", quote ? "\"" : "",
			       sk_OPENSSL_CSTRING_value(names, i), quote ? "\"" : "");
	}
	sk_OPENSSL_CSTRING_free(names);
}

struct sigalg_print {
	const char *sep;
	int quote, first;
};

static void print_one(struct sigalg_print *p, const char *name)
{
	printf("%s%s%s%s", p->first ? "" : p->sep, p->quote ? "\"" : "", name,
	       p->quote ? "\"" : "");
	p->first = 0;
}

/* Provider-defined TLS signature algorithms (ML-DSA in 3.5) are not in the built-in list. */
static int provider_sigalg(const OSSL_PARAM params[], void *arg)
{
	const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, OSSL_CAPABILITY_TLS_SIGALG_NAME);
	const char *name = NULL;
	if (p && OSSL_PARAM_get_utf8_string_ptr(p, &name) && name)
		print_one(arg, name);
	return 1;
}

static void print_sigalgs(const char *sep, int quote)
{
	struct sigalg_print p = {sep, quote, 1};
	char *s = SSL_get1_builtin_sigalgs(NULL);
	char *save = NULL;
	for (char *tok = s ? strtok_r(s, ":", &save) : NULL; tok; tok = strtok_r(NULL, ":", &save))
		print_one(&p, tok);
	OPENSSL_free(s);
	OSSL_PROVIDER *prov = OSSL_PROVIDER_load(NULL, "default");
	if (prov) {
		OSSL_PROVIDER_get_capabilities(prov, "TLS-SIGALG", provider_sigalg, &p);
		OSSL_PROVIDER_unload(prov);
	}
}

/* Certificate compression algorithms this build can use (RFC 8879). */
static void print_compression(SSL_CTX *ctx, const char *sep, int quote)
{
	static const struct {
		int id;
		const char *name;
	} algs[] = {{TLSEXT_comp_cert_zlib, "zlib"},
		    {TLSEXT_comp_cert_brotli, "brotli"},
		    {TLSEXT_comp_cert_zstd, "zstd"}};
	int first = 1;
	for (size_t i = 0; i < sizeof algs / sizeof algs[0]; i++) {
		int one = algs[i].id;
		if (SSL_CTX_set1_cert_comp_preference(ctx, &one, 1) == 1) {
			printf("%s%s%s%s", first ? "" : sep, quote ? "\"" : "", algs[i].name,
			       quote ? "\"" : "");
			first = 0;
		}
	}
}

static int version_run(const pq_cmd *cmd, void *optsp, pq_cli_args *args)
{
	(void)cmd;
	(void)args;
	struct version_opts *o = optsp;
	SSL_CTX *ctx = SSL_CTX_new(TLS_method());
	if (!ctx)
		return pq_cli_fail("pqtls version", "cannot create a TLS context");
	/* List what TLS 1.3 can use, not every legacy curve. */
	SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
	if (o->json) {
		printf("{\"pqtls\":\"%s\",\"openssl\":\"%s\",\"groups\":[", PQTLS_VERSION,
		       OpenSSL_version(OPENSSL_VERSION_STRING));
		print_groups(ctx, ",", 1);
		printf("],\"signature_algorithms\":[");
		print_sigalgs(",", 1);
		printf("],\"cert_compression\":[");
		print_compression(ctx, ",", 1);
		printf("]}\n");
	} else {
		printf("pqtls %s\n", PQTLS_VERSION);
		printf("OpenSSL %s (%s)\n", OpenSSL_version(OPENSSL_VERSION_STRING),
		       OpenSSL_version(OPENSSL_DIR));
		printf("TLS groups:              ");
		print_groups(ctx, " ", 0);
		printf("\nsignature algorithms:    ");
		print_sigalgs(" ", 0);
		printf("\ncertificate compression: ");
		print_compression(ctx, " ", 0);
		printf("\n");
	}
	SSL_CTX_free(ctx);
	return PQ_EXIT_OK;
}

const pq_cmd pq_cmd_version = {
	.name = "version",
	.summary = "print pqtls's version, the OpenSSL version and its PQ capabilities",
	.usage = "[--json]",
	.opts = version_opts_table,
	.opts_size = sizeof(struct version_opts),
	.run = version_run,
	.max_args = 0,
};
