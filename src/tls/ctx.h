/* The OpenSSL context factory: one pq_tls_config describes what a server or a client
 * offers (versions, groups, signature algorithms, TLS 1.3 cipher suites, tickets, certificate compression,
 * early data, key log, certificate size cap), and pq_tls_ctx_new turns it into an
 * SSL_CTX or says, naming the option, why it cannot.
 *
 * Contract: pq_tls_ctx_new returns 0 and a new SSL_CTX in *out, or a negative error with
 * a message in *d and *out untouched. Free the context with pq_tls_ctx_free (it also
 * closes the key log file). A context is safe to share between threads once made. */
#ifndef PQ_TLS_CTX_H
#define PQ_TLS_CTX_H

#include <openssl/ssl.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/names.h"

typedef enum pq_tls_role { PQ_TLS_SERVER, PQ_TLS_CLIENT } pq_tls_role;

/* Certificate compression algorithms in preference order; n = 0 means off. */
typedef struct pq_tls_comp {
	int algs[3];
	size_t n;
} pq_tls_comp;

typedef struct pq_tls_config {
	pq_tls_role role;
	int quic;                 /* carried by QUIC (tls/quic.h): OpenSSL's QUIC method, ALPN
				   * hq-interop; TLS 1.2 and 0-RTT refused */
	int quic_h3;              /* QUIC client: offer ALPN h3 (HTTP/3) instead */
	int version;              /* 13 (default when 0) or 12: the only version offered */
	const char *groups;       /* "X25519MLKEM768:X25519"; NULL = OpenSSL's default */
	const char *sigalgs;      /* "mldsa65:ecdsa_secp256r1_sha256"; NULL = default */
	const char *ciphersuites; /* TLS 1.3 suites, "TLS_AES_128_GCM_SHA256:..."; NULL = default */
	const char *cert_comp;    /* "off" (or NULL) or "zlib,brotli,zstd" in preference order */
	const char *keylog_path;  /* NSS key log file, appended; NULL = none */
	/* server */
	const char *certs_dir;    /* DIR with chain.pem (leaf first) and leaf.key */
	int tickets;              /* NewSessionTickets per handshake; 0 = no resumption */
	uint32_t max_early_data;  /* 0 = no 0-RTT */
	int emulated_sig;         /* serve a size-emulated chain (tls/sigpad.h); without it
				   * such a chain is refused, naming the scheme */
	/* client */
	const char *ca_file;      /* verify the server against these roots */
	int insecure;             /* do not verify (needs no ca_file) */
	int ocsp;                 /* ask for an OCSP staple and fail without one (tls/ocsp.h) */
	int sig_pad;              /* offer the signature pad extension a server with a
				   * size-emulated chain needs (tls/sigpad.h) */
	uint64_t max_cert_list;   /* biggest Certificate message accepted; 0 = OpenSSL's 100 KiB */
	/* What the caller calls these inputs in messages (keys: the field names above;
	 * "version", "certs_dir", ...); NULL: the field names themselves. */
	const pq_name *names;
} pq_tls_config;

/* The client's default cap on a received Certificate message: a handshake message can
 * be 2^24-1 bytes, and large SLH-DSA chains pass OpenSSL's 100 KiB default. */
#define PQ_TLS_MAX_CERT_LIST ((uint64_t)(1u << 24) - 1)

int pq_tls_ctx_new(const pq_tls_config *cfg, SSL_CTX **out, pq_diag *d) PQ_MUST_USE;
void pq_tls_ctx_free(SSL_CTX *ctx);

/* Parse "off" or a comma list of zlib, brotli, zstd into *out. `what` names the option. */
int pq_tls_comp_parse(const char *s, const char *what, pq_tls_comp *out, pq_diag *d) PQ_MUST_USE;

#endif
