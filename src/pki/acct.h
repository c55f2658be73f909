/* Size accounting: what a chain costs on the wire in a TLS 1.3 server's first flight.
 *
 * Pure arithmetic (no OpenSSL calls). The model (RFC 8446 sections 4.1.3, 4.3-4.4, 5.2; checked
 * against the flights measured in pq-facts.md section 6, see tests/unit/test_pki_acct.c):
 *   ServerHello  = 4 + 2 + 32 + 1 + sid + 2 + 1 + 2 + 6 (supported_versions)
 *                  + 8 + server key share                      (sid = 32, echoed)
 *   Certificate  = 4 + 1 (empty context) + 3 + sum(3 + DER + 2 (no cert extensions))
 *   CertVerify   = 4 + 2 (scheme) + 2 + signature
 *   Finished     = 4 + hash length (48 for TLS_AES_256_GCM_SHA384)
 *   EncryptedExtensions = 6 when empty (plus 4 + 2 + 2 x groups when the server lists
 *                  its groups because the negotiated one is not its first choice)
 * Flight on TCP = ServerHello record (5 + SH) + ChangeCipherSpec (6) + for each of
 * EE, Certificate, CertificateVerify, Finished its own encrypted record(s) of at most
 * 16384 plaintext bytes, each costing 22 bytes (5 header + 1 type + 16 AEAD tag).
 * Writes: OpenSSL does not give the socket the flight at once. During a handshake it
 * puts a buffering BIO (BIO_f_buffer, PQ_ACCT_WBUF bytes) in front of the socket and
 * writes each record into it: a record that overflows the buffer fills it, the full
 * buffer goes out as one write, and a remainder of at least a buffer's size is written
 * directly; the rest is flushed at the end of the flight. So a 15,705-byte ML-DSA-65
 * flight is three writes (4,096 + 8,196 + 3,413), and as TCP_NODELAY sends each write's
 * tail as its own short segment, it takes 3 + 6 + 3 = 12 segments, not
 * ceil(15,705 / 1,448) = 11. test_model checks this rule against the writes of real
 * in-memory handshakes (tls/flight.h), and the cliffs it implies against measurement.
 * Segments = sum over writes of ceil(write / MSS); fits when segments <= the initial
 * window. Rounds: the flights of data it takes in slow start without loss (cwnd doubling
 * from IW: 10, 30, 70, 150 segments cumulative), so rounds - 1 is the extra round trips
 * the chain costs (model/ refines this with the kernel's cwnd rules). */
#ifndef PQ_PKI_ACCT_H
#define PQ_PKI_ACCT_H

#include <stddef.h>

#include "core/err.h"
#include "core/wire.h"

#define PQ_ACCT_MSS PQ_WIRE_MSS_DEFAULT
#define PQ_ACCT_IW PQ_WIRE_IW_DEFAULT
#define PQ_ACCT_EE_EMPTY 6
/* OpenSSL's handshake write buffer (BIO_f_buffer's default size; see above). */
#define PQ_ACCT_WBUF 4096
#define PQ_ACCT_MAX_WRITES 64

typedef struct pq_acct_group {
	const char *name;      /* OpenSSL's group name: "X25519MLKEM768" */
	unsigned server_share; /* bytes of the server's key_exchange */
	int common;	       /* one of the groups `pqtls certs` tabulates */
} pq_acct_group;

size_t pq_acct_group_count(void);
const pq_acct_group *pq_acct_group_at(size_t i);
/* Case-insensitive; NULL when unknown. */
const pq_acct_group *pq_acct_group_find(const char *name);

/* TLS 1.3 Certificate message (with its 4-byte header) for DER sizes der[0..n-1]. */
size_t pq_acct_cert_msg(const size_t *der, size_t n);
/* TLS 1.2 certificate_list length (sum(3 + DER)) and Certificate body (list + 3). */
size_t pq_acct_tls12_list(const size_t *der, size_t n);
/* The writes a BIO_f_buffer of `wbuf` bytes makes of records rec[0..n-1] written in
 * order and flushed at the end (SIZE_MAX: one write of everything). Fills w[] (at most
 * max entries; the last absorbs the rest) and returns how many. */
size_t pq_acct_buffer_writes(const size_t *rec, size_t n, size_t wbuf, size_t *w, size_t max);
/* TCP segments of writes w[0..n-1], each write's tail its own segment. */
size_t pq_acct_write_segments(const size_t *w, size_t n, size_t mss);
/* ServerHello message bytes for a server key share of `share` bytes. */
size_t pq_acct_server_hello(unsigned share);
/* The server's first flight of a resumed (PSK) TLS 1.3 handshake for a key share of
 * `share` bytes: ServerHello with the pre_shared_key extension, ChangeCipherSpec,
 * EncryptedExtensions (empty) and Finished (SHA-384), each in its record; no
 * certificate. One write, far below OpenSSL's buffer. */
size_t pq_acct_resumed_flight(unsigned share);

typedef struct pq_acct_in {
	const size_t *der; /* chain as the server sends it: leaf first */
	size_t n;
	size_t sig_bytes; /* CertificateVerify signature */
	unsigned server_share;
	size_t ee_bytes;      /* EncryptedExtensions message; 0 means PQ_ACCT_EE_EMPTY */
	size_t finished_hash; /* 0 means 48 (SHA-384) */
	size_t mss;	      /* 0 means PQ_ACCT_MSS */
	size_t iw;	      /* 0 means PQ_ACCT_IW */
	size_t wbuf;	      /* 0 means PQ_ACCT_WBUF; SIZE_MAX: the flight in one write */
	/* Of sig_bytes, the bytes a size-emulated signature has beyond the real one it
	 * stands on: they travel as an extension of the leaf's CertificateEntry (4 bytes of
	 * header + carry - 4 of pad, tls/sigpad.h), so the Certificate message is that much
	 * longer and the CertificateVerify that much shorter. 0, or 4..sig_bytes. */
	size_t cv_carry;
	/* An OCSP staple: the bytes of the leaf entry's status_request extension
	 * (pq_ocsp_entry_bytes, pki/ocsp.h), in the Certificate message; 0 none. */
	size_t staple;
} pq_acct_in;

typedef struct pq_acct {
	size_t server_hello, ee, cert_msg, cert_verify, finished; /* messages */
	size_t flight;	 /* TCP payload bytes of the server's first flight */
	size_t writes[PQ_ACCT_MAX_WRITES]; /* what the server hands the socket, in order */
	size_t n_writes;
	size_t segments;      /* sum over writes of ceil(write / MSS) */
	size_t segments_flat; /* ceil(flight / MSS): the flight as if written at once */
	int fits_iw;
	unsigned rounds; /* slow-start rounds to deliver the flight (1 when it fits) */
} pq_acct;

/* Fills *out. PQ_ERANGE when the chain is empty or a size exceeds what TLS can carry
 * (certificate 2^24 - 1, whole message 2^24 - 1, signature 2^16 - 1). */
int pq_acct_flight(const pq_acct_in *in, pq_acct *out, pq_diag *d) PQ_MUST_USE;

/* The same by names: leaf signature algorithm as in pki/alg.h ("ml-dsa-65"; a composite
 * counts its classical signature too) and TLS group ("X25519MLKEM768"); default EE,
 * Finished, MSS and window. PQ_EINVAL names the unknown algorithm or group. */
int pq_acct_flight_named(const size_t *der, size_t n, const char *leaf_alg, const char *group,
			 pq_acct *out, pq_diag *d) PQ_MUST_USE;

#endif
