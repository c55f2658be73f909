#include "tls/ctx.h"

#include "pki/chain.h"
#include "pki/files.h"
#include "tls/certcomp.h"
#include "tls/groups.h"
#include "tls/quic.h"
#include "tls/ocsp.h"
#include "tls/sigpad.h"

#include <errno.h>
#include <openssl/err.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int keylog_idx = -1;
static pthread_once_t keylog_once = PTHREAD_ONCE_INIT;

static void keylog_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl,
			void *argp)
{
	(void)parent, (void)ad, (void)idx, (void)argl, (void)argp;
	if (ptr)
		fclose(ptr);
}

static void keylog_init(void)
{
	keylog_idx = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, keylog_free);
}

/* stdio locks the FILE, so worker threads may log concurrently; flush per line so a
 * capture tool reading the file sees each secret as soon as it exists. */
static void keylog_cb(const SSL *ssl, const char *line)
{
	FILE *f = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), keylog_idx);
	if (f) {
		fprintf(f, "%s\n", line);
		fflush(f);
	}
}

int pq_tls_comp_parse(const char *s, const char *what, pq_tls_comp *out, pq_diag *d)
{
	static const struct {
		const char *name;
		int id;
	} names[] = {{"zlib", TLSEXT_comp_cert_zlib},
		     {"brotli", TLSEXT_comp_cert_brotli},
		     {"zstd", TLSEXT_comp_cert_zstd}};
	pq_tls_comp c = {.n = 0};
	if (!s || strcmp(s, "off") == 0) {
		*out = c;
		return 0;
	}
	const char *p = s;
	while (*p) {
		size_t len = strcspn(p, ",");
		size_t i;
		for (i = 0; i < 3; i++)
			if (strlen(names[i].name) == len && strncmp(names[i].name, p, len) == 0)
				break;
		if (i == 3 || c.n == 3)
			return pq_diag_set(d, PQ_EINVAL,
					   "%s: '%.*s' in '%s' is not a certificate compression "
					   "algorithm (off, or a list of zlib, brotli, zstd)",
					   what, (int)len, p, s);
		for (size_t j = 0; j < c.n; j++)
			if (c.algs[j] == names[i].id)
				return pq_diag_set(d, PQ_EINVAL, "%s: '%s' names %s twice", what,
						   s, names[i].name);
		c.algs[c.n++] = names[i].id;
		p += len;
		if (*p == ',' && *++p == '\0')
			return pq_diag_set(d, PQ_EINVAL, "%s: '%s' ends with a comma", what, s);
	}
	if (c.n == 0)
		return pq_diag_set(d, PQ_EINVAL, "%s: empty (use off, or zlib,brotli,zstd)", what);
	*out = c;
	return 0;
}

static const char *name(const pq_tls_config *cfg, const char *key)
{
	return pq_name_of(cfg->names, key);
}

static int set_versions(SSL_CTX *ctx, const pq_tls_config *cfg, pq_diag *d)
{
	int version = cfg->version;
	int v = version == 12 ? TLS1_2_VERSION : TLS1_3_VERSION;
	if (version != 0 && version != 12 && version != 13)
		return pq_diag_set(d, PQ_EINVAL, "%s: %d is not 1.2 or 1.3", name(cfg, "version"), version);
	if (!SSL_CTX_set_min_proto_version(ctx, v) || !SSL_CTX_set_max_proto_version(ctx, v))
		return pq_diag_ossl(d, PQ_ETLS, "cannot restrict the TLS version");
	return 0;
}

/* The TLS 1.3 suites this OpenSSL knows; named in the message for bad cipher suites. */
#define PQ_TLS13_SUITES                                                                    \
	"TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256, "   \
	"TLS_AES_128_CCM_SHA256, TLS_AES_128_CCM_8_SHA256"

/* OpenSSL skips names it does not know as long as one is valid, so a typo would quietly
 * narrow the offer: check that every name asked for made it into the context. */
static int set_ciphersuites(SSL_CTX *ctx, const char *list, const char *what, pq_diag *d)
{
	char name[64];
	if (list[0] == '\0' || SSL_CTX_set_ciphersuites(ctx, list) != 1)
		return pq_diag_ossl(d, PQ_EINVAL,
				    "%s: '%s' names no TLS 1.3 cipher suite (a colon-separated "
				    "list of " PQ_TLS13_SUITES ")",
				    what, list);
	STACK_OF(SSL_CIPHER) *have = SSL_CTX_get_ciphers(ctx);
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ":");
		int found = 0;
		if (len == 0 || len >= sizeof name)
			found = 0;
		else {
			memcpy(name, p, len);
			name[len] = '\0';
			for (int i = 0; i < sk_SSL_CIPHER_num(have) && !found; i++)
				found = !strcmp(SSL_CIPHER_standard_name(sk_SSL_CIPHER_value(have, i)), name);
		}
		if (!found)
			return pq_diag_set(d, PQ_EINVAL,
					   "%s: '%.*s' in '%s' is not a TLS 1.3 cipher suite "
					   "(a colon-separated list of " PQ_TLS13_SUITES ")",
					   what, (int)len, p, list);
		p += len;
		if (*p == ':')
			p++;
	}
	return 0;
}

static int set_algorithms(SSL_CTX *ctx, const pq_tls_config *cfg, pq_diag *d)
{
	int rc;
	if (cfg->ciphersuites && (rc = set_ciphersuites(ctx, cfg->ciphersuites, name(cfg, "ciphersuites"), d)) < 0)
		return rc;
	if (cfg->groups && (rc = pq_tls_groups_check(cfg->groups, PQ_TLS_GROUPS_OPENSSL, name(cfg, "groups"), d)) < 0)
		return rc;
	if (cfg->groups && SSL_CTX_set1_groups_list(ctx, cfg->groups) != 1)
		return pq_diag_ossl(d, PQ_EINVAL,
				    "%s: '%s' names a group this OpenSSL does not know "
				    "(e.g. X25519MLKEM768:X25519; `pqtls version` lists them)",
				    name(cfg, "groups"), cfg->groups);
	if (cfg->sigalgs && SSL_CTX_set1_sigalgs_list(ctx, cfg->sigalgs) != 1)
		return pq_diag_ossl(d, PQ_EINVAL,
				    "%s: '%s' names a signature algorithm this OpenSSL does "
				    "not know (e.g. mldsa65:ecdsa_secp256r1_sha256; `pqtls version` "
				    "lists them)",
				    name(cfg, "sigalgs"), cfg->sigalgs);
	return 0;
}

/* RFC 8879: off means neither sending nor accepting compressed certificates, so a run
 * measures exactly the chain it names. */
static int set_cert_comp(SSL_CTX *ctx, const pq_tls_config *cfg, pq_diag *d)
{
	pq_tls_comp c;
	int rc = pq_tls_comp_parse(cfg->cert_comp, name(cfg, "cert_comp"), &c, d);
	if (rc < 0)
		return rc;
	if (c.n == 0) {
		SSL_CTX_set_options(ctx, SSL_OP_NO_TX_CERTIFICATE_COMPRESSION |
						 SSL_OP_NO_RX_CERTIFICATE_COMPRESSION);
		return 0;
	}
	if (SSL_CTX_set1_cert_comp_preference(ctx, c.algs, c.n) != 1)
		return pq_diag_ossl(d, PQ_EUNSUPPORTED,
				    "%s: '%s' is not built into this OpenSSL "
				    "(`pqtls version` lists what is)",
				    name(cfg, "cert_comp"), cfg->cert_comp);
	return 0;
}

/* A size-emulated chain: served only when asked for, never compressed (a precompressed
 * Certificate message could not carry the pad). */
static int setup_sigpad(SSL_CTX *ctx, const pq_tls_config *cfg, int comp, pq_diag *d)
{
	size_t carry = 0;
	char alg[64];
	const char *certs = name(cfg, "certs_dir");
	int rc = pq_chain_sigpad_read(cfg->certs_dir, certs, &carry, alg, sizeof alg, d);
	if (rc < 0 || carry == 0)
		return rc;
	if (!cfg->emulated_sig)
		return pq_diag_set(d, PQ_EUNSUPPORTED,
				   "%s %s: the leaf is a size emulation of %s (an Ed25519 key padded to its "
				   "sizes), not a real signature of that scheme; serve it with %s (only "
				   "pqtls clients, which offer the signature pad extension, can connect)",
				   certs, cfg->certs_dir, alg, name(cfg, "emulated_sig"));
	if (comp)
		return pq_diag_set(d, PQ_EUNSUPPORTED,
				   "%s: a size-emulated chain (%s) cannot be compressed: the compressed "
				   "Certificate message would lose the signature pad; use %s off",
				   name(cfg, "cert_comp"), alg, name(cfg, "cert_comp"));
	return pq_tls_sigpad_server(ctx, carry, alg, d);
}

static int setup_server(SSL_CTX *ctx, const pq_tls_config *cfg, pq_diag *d)
{
	char chain[4096], key[4096];
	const char *certs = name(cfg, "certs_dir");
	if (!cfg->certs_dir)
		return pq_diag_set(d, PQ_EINVAL,
				   "%s: a directory with " PQ_CHAIN_FILE_CHAIN " and " PQ_CHAIN_FILE_KEY
				   " is needed",
				   certs);
	snprintf(chain, sizeof chain, "%s/" PQ_CHAIN_FILE_CHAIN, cfg->certs_dir);
	snprintf(key, sizeof key, "%s/" PQ_CHAIN_FILE_KEY, cfg->certs_dir);
	/* Suites given to a server are its preference, as web servers treat them. */
	if (cfg->ciphersuites)
		SSL_CTX_set_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE);
	for (const char *f = chain; f; f = f == chain ? key : NULL)
		if (access(f, R_OK) < 0)
			return pq_diag_set(d, -errno,
					   "%s: cannot read %s: %s (DIR needs " PQ_CHAIN_FILE_CHAIN
					   " and " PQ_CHAIN_FILE_KEY ", as pqtls certs writes them)",
					   certs, f, strerror(errno));
	if (SSL_CTX_use_certificate_chain_file(ctx, chain) != 1)
		return pq_diag_ossl(d, PQ_EINVAL,
				    "%s: cannot load %s (PEM, leaf first, then intermediates)",
				    certs, chain);
	if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1)
		return pq_diag_ossl(d, PQ_EINVAL, "%s: cannot load the private key %s", certs,
				    key);
	if (SSL_CTX_check_private_key(ctx) != 1)
		return pq_diag_ossl(d, PQ_EINVAL, "%s: %s does not match the leaf in %s", certs,
				    key, chain);
	if (cfg->tickets < 0 || cfg->tickets > 16)
		return pq_diag_set(d, PQ_ERANGE, "%s: %d is not in 0..16", name(cfg, "tickets"),
				   cfg->tickets);
	if (cfg->tickets == 0) {
		/* No tickets and no session cache: every handshake is a full one. */
		SSL_CTX_set_num_tickets(ctx, 0);
		SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
		SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	} else {
		SSL_CTX_set_num_tickets(ctx, (size_t)cfg->tickets);
	}
	if (cfg->max_early_data > 0) {
		if (cfg->tickets == 0)
			return pq_diag_set(d, PQ_EINVAL,
					   "%s needs tickets (%s 1 or more)", name(cfg, "max_early_data"),
					   name(cfg, "tickets"));
		SSL_CTX_set_max_early_data(ctx, cfg->max_early_data);
		SSL_CTX_set_recv_max_early_data(ctx, cfg->max_early_data);
	}
	/* Compress the chain once, here, instead of on every handshake. */
	pq_tls_comp c;
	int installed = 0, rc = pq_tls_comp_parse(cfg->cert_comp, name(cfg, "cert_comp"), &c, d);
	if (rc == 0)
		rc = setup_sigpad(ctx, cfg, c.n > 0, d);
	char ocsp[4096];
	snprintf(ocsp, sizeof ocsp, "%s/" PQ_CHAIN_FILE_OCSP, cfg->certs_dir);
	if (rc == 0 && access(ocsp, F_OK) == 0) /* the chain has a staple: served to who asks */
		rc = pq_tls_ocsp_server(ctx, ocsp, certs, d);
	if (rc == 0 && c.n)
		rc = pq_tls_certcomp_install(ctx, &c, name(cfg, "cert_comp"), &installed, d);
	return rc;
}

static int setup_client(SSL_CTX *ctx, const pq_tls_config *cfg, pq_diag *d)
{
	if (cfg->insecure) {
		SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
	} else {
		if (!cfg->ca_file)
			return pq_diag_set(d, PQ_EINVAL,
					   "no trust anchor: give %s FILE (e.g. DIR/" PQ_CHAIN_FILE_ROOT
					   ") or %s to skip verification",
					   name(cfg, "ca_file"), name(cfg, "insecure"));
		if (SSL_CTX_load_verify_locations(ctx, cfg->ca_file, NULL) != 1)
			return pq_diag_ossl(d, PQ_EINVAL, "%s: cannot load roots from %s",
					    name(cfg, "ca_file"), cfg->ca_file);
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	}
	if (cfg->max_cert_list)
		SSL_CTX_set_max_cert_list(ctx, (long)cfg->max_cert_list);
	int rc = cfg->sig_pad ? pq_tls_sigpad_client(ctx, d) : 0;
	if (rc == 0 && cfg->ocsp)
		rc = pq_tls_ocsp_client(ctx, d);
	if (rc < 0)
		return rc;
	/* Tickets reach the client through the new-session callback (set by the caller). */
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
	return 0;
}

int pq_tls_ctx_new(const pq_tls_config *cfg, SSL_CTX **out, pq_diag *d)
{
	int server = cfg->role == PQ_TLS_SERVER, rc = 0;
	if (cfg->quic && (rc = pq_tls_quic_check(cfg, d)) < 0)
		return rc;
	SSL_CTX *ctx = SSL_CTX_new(cfg->quic		 ? pq_tls_quic_method(cfg->role)
				   : server ? TLS_server_method()
					    : TLS_client_method());
	if (!ctx)
		return pq_diag_ossl(d, PQ_ETLS, "cannot create a TLS context");
	if ((rc = set_versions(ctx, cfg, d)) < 0 ||
	    (rc = set_algorithms(ctx, cfg, d)) < 0 || (rc = set_cert_comp(ctx, cfg, d)) < 0)
		goto out;
	rc = server ? setup_server(ctx, cfg, d) : setup_client(ctx, cfg, d);
	if (rc < 0 || (cfg->quic && (rc = pq_tls_quic_setup(ctx, cfg, d)) < 0))
		goto out;
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	if (cfg->keylog_path) {
		pthread_once(&keylog_once, keylog_init);
		FILE *f = fopen(cfg->keylog_path, "a");
		if (!f) {
			rc = pq_diag_set(d, -errno, "%s: cannot open %s: %s", name(cfg, "keylog_path"),
					 cfg->keylog_path, strerror(errno));
			goto out;
		}
		SSL_CTX_set_ex_data(ctx, keylog_idx, f);
		SSL_CTX_set_keylog_callback(ctx, keylog_cb);
	}
out:
	if (rc < 0)
		SSL_CTX_free(ctx);
	else
		*out = ctx;
	return rc;
}

void pq_tls_ctx_free(SSL_CTX *ctx)
{
	SSL_CTX_free(ctx);
}
