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

/* A list being printed: its names joined by sep, each in quotes when quote (JSON). */
struct name_list {
	const char *sep;
	int quote, first;
};

static void print_one(struct name_list *p, const char *name)
{
	printf("%s%s%s%s", p->first ? "" : p->sep, p->quote ? "\"" : "", name,
	       p->quote ? "\"" : "");
	p->first = 0;
}

static void print_groups(SSL_CTX *ctx, struct name_list *p)
{
	STACK_OF(OPENSSL_CSTRING) *names = sk_OPENSSL_CSTRING_new_null();
	if (names && SSL_CTX_get0_implemented_groups(ctx, 0, names) == 1) {
		for (int i = 0; i < sk_OPENSSL_CSTRING_num(names); i++)
			print_one(p, sk_OPENSSL_CSTRING_value(names, i));
	}
	sk_OPENSSL_CSTRING_free(names);
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

static void print_sigalgs(SSL_CTX *ctx, struct name_list *p)
{
	(void)ctx;
	char *s = SSL_get1_builtin_sigalgs(NULL);
	char *save = NULL;
	for (char *tok = s ? strtok_r(s, ":", &save) : NULL; tok; tok = strtok_r(NULL, ":", &save))
		print_one(p, tok);
	OPENSSL_free(s);
	OSSL_PROVIDER *prov = OSSL_PROVIDER_load(NULL, "default");
	if (prov) {
		OSSL_PROVIDER_get_capabilities(prov, "TLS-SIGALG", provider_sigalg, p);
		OSSL_PROVIDER_unload(prov);
	}
}

/* Certificate compression algorithms this build can use (RFC 8879). */
static void print_compression(SSL_CTX *ctx, struct name_list *p)
{
	static const struct {
		int id;
		const char *name;
	} algs[] = {{TLSEXT_comp_cert_zlib, "zlib"},
		    {TLSEXT_comp_cert_brotli, "brotli"},
		    {TLSEXT_comp_cert_zstd, "zstd"}};
	for (size_t i = 0; i < sizeof algs / sizeof algs[0]; i++) {
		int one = algs[i].id;
		if (SSL_CTX_set1_cert_comp_preference(ctx, &one, 1) == 1)
			print_one(p, algs[i].name);
	}
}

/* The lists the command prints, in order: the JSON key, the text label, the printer. */
static const struct version_list {
	const char *key, *label;
	void (*print)(SSL_CTX *ctx, struct name_list *p);
} version_lists[] = {
	{"groups", "TLS groups:", print_groups},
	{"signature_algorithms", "signature algorithms:", print_sigalgs},
	{"cert_compression", "certificate compression:", print_compression},
};

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
	if (o->json)
		printf("{\"pqtls\":\"%s\",\"openssl\":\"%s\"", PQTLS_VERSION, OpenSSL_version(OPENSSL_VERSION_STRING));
	else
		printf("pqtls %s\nOpenSSL %s (%s)\n", PQTLS_VERSION, OpenSSL_version(OPENSSL_VERSION_STRING),
		       OpenSSL_version(OPENSSL_DIR));
	for (size_t i = 0; i < sizeof version_lists / sizeof version_lists[0]; i++) {
		const struct version_list *l = &version_lists[i];
		struct name_list p = {o->json ? "," : " ", o->json, 1};
		if (o->json)
			printf(",\"%s\":[", l->key);
		else
			printf("%-25s", l->label);
		l->print(ctx, &p);
		printf(o->json ? "]" : "\n");
	}
	if (o->json)
		printf("}\n");
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
