/* manifest.json and the table `pqtls certs` prints: one description of a chain, as
 * JSON for programs and as text for people. */
#ifndef PQ_PKI_MANIFEST_H
#define PQ_PKI_MANIFEST_H

#include <stdio.h>

#include "core/err.h"
#include "pki/chain.h"

/* The manifest as a JSON string (caller frees with free()), NULL when out of memory.
 * Fields: "spec" (when made here), "emulation" (null or a note), "certificates" (chain
 * order, then the root with "in_chain": false): role, subject, key_alg,
 * public_key_bytes, signature_alg, signature_bytes, pad_bytes, emulated_bytes,
 * der_bytes, sha256; "chain_der_bytes"; "tls12": certificate_list_len,
 * certificate_msg_body_len; "tls13": certificate_msg_bytes, certificate_verify_bytes,
 * leaf_signature_bytes, flights (group, server_hello_bytes, flight_bytes,
 * server_writes_bytes (the writes OpenSSL hands the socket), segments (per write),
 * segments_if_one_write, fits_initial_window); "mss", "initial_window",
 * "openssl_write_buffer". */
char *pq_manifest_json(const pq_chain_info *info);

/* Writes <dir>/manifest.json. */
int pq_manifest_write(const pq_chain_info *info, const char *dir, pq_diag *d) PQ_MUST_USE;

/* The human table: one line per certificate, then the TLS sizes per group. */
void pq_manifest_print(FILE *f, const pq_chain_info *info);

#endif
