/* The same handshake over QUIC (pqtls bench --quic and transport = quic measure it; the
 * report holds QUIC cells against this view): before the client's
 * address is validated a QUIC server may send at most 3 times the bytes it has received
 * (RFC 9000 section 8.1), and its initial window is 10 datagrams of 1,200 bytes (RFC
 * 9002 section 7.2, at the 1,200-byte minimum datagram size). The client pads its
 * Initial datagrams to 1,200 bytes. The per-packet overhead is an estimate (long header
 * with 8-byte connection IDs, a 2-byte packet number, a CRYPTO frame header and the
 * 16-byte AEAD tag: PQ_MODEL_QUIC_OVERHEAD bytes), so the result is a PREDICTION, and is
 * labelled as one wherever it is printed.
 *
 * OpenSSL's own bound on a large flight: its QUIC channel keeps each encryption level's
 * outgoing CRYPTO data in a send stream of PQ_MODEL_QUIC_CRYPTO_BUF bytes that it never
 * grows (OpenSSL 3.5, ssl/quic/quic_channel.c: INIT_CRYPTO_SEND_BUF_LEN, 16384, given to
 * ossl_quic_sstream_new; quic_sstream.c's append takes only what fits, and bytes leave
 * the buffer only when acknowledged). So at most that many bytes of the Handshake
 * level's messages are unacknowledged at once: one buffer per round trip, whatever the
 * window. A 135 kB UOV chain then takes about nine rounds where slow start alone would
 * take five (measured: docs/model.md, "QUIC"). */
#ifndef PQ_MODEL_QUIC_H
#define PQ_MODEL_QUIC_H

#include <stddef.h>

#include "core/wire.h"
#include "model/flight.h"
#include "pki/acct.h"

/* OpenSSL 3.5 sends every datagram at the Initials' minimum size */
#define PQ_MODEL_QUIC_DATAGRAM PQ_WIRE_QUIC_MIN_INITIAL
#define PQ_MODEL_QUIC_OVERHEAD 50
#define PQ_MODEL_QUIC_CRYPTO_BUF 16384

typedef struct pq_model_quic {
	size_t client_datagrams, client_bytes; /* the ClientHello's Initial datagrams */
	size_t limit;			       /* 3 x client_bytes */
	size_t cwnd_bytes;		       /* 10 x 1,200 */
	size_t server_datagrams, server_bytes; /* the server's handshake flight */
	size_t server_msgs, initial_msgs;      /* its messages; of them the Initial level's (ServerHello) */
	size_t first, next;		       /* bytes the first round may send, and the second */
	size_t crypto_buf;		       /* Handshake-level bytes unacknowledged at most (0: no bound) */
	unsigned crypto_rtts;		       /* of extra_rtts, the rounds crypto_buf adds */
	unsigned extra_rtts;		       /* round trips beyond the 1 the flight needs */
	unsigned retry_rtts;		       /* round trips a Retry costs first (pq_model_quic_retry) */
	unsigned hrr_rtts;		       /* the HelloRetryRequest's (pq_model_quic_hrr) */
	size_t client2_datagrams;	       /* the second ClientHello's, after the HRR */
} pq_model_quic;

/* client_hello: the ClientHello message; server_msgs: ServerHello + EncryptedExtensions +
 * Certificate + CertificateVerify + Finished messages (no TLS record framing: QUIC
 * carries handshake messages in CRYPTO frames). No CRYPTO buffer bound (crypto_buf 0):
 * pq_model_quic_crypto sets one. */
void pq_model_quic_flight(size_t client_hello, size_t server_msgs, pq_model_quic *out);

/* Bounds the Handshake level's unacknowledged bytes by `buf` (PQ_MODEL_QUIC_CRYPTO_BUF for
 * OpenSSL's server) and counts the rounds again; `initial_msgs` of the flight's messages
 * (the ServerHello) go at the Initial level, outside it. Call it after
 * pq_model_quic_flight; pq_model_quic_retry and _hrr keep it. */
void pq_model_quic_crypto(pq_model_quic *q, size_t initial_msgs, size_t buf);

/* The same flight behind a Retry (address validation up front): one round trip for the
 * Retry, then no amplification limit, only the window (slow start from 12,000 B). A
 * ClientHello of two or more Initial datagrams costs one round trip more: OpenSSL 3.5's
 * server acts on the first of the client's token-bearing Initials only, and the rest of
 * the ClientHello comes again after the server's acknowledgement shows it missing (seen in
 * a capture across a 100 ms link: X25519 behind a Retry 2.03 round trips, X25519MLKEM768
 * 3.04). */
void pq_model_quic_retry(pq_model_quic *q);

/* The same flight after a HelloRetryRequest (the client's first key share was not one the
 * server takes): the server's HRR in one Initial datagram (padded to 1,200 bytes, as every
 * datagram with an ack-eliciting Initial), the client's second ClientHello
 * (`client_hello2`, the message) in datagrams of its own, one round trip more. The 3x
 * budget then counts both ClientHellos' datagrams, less the HRR's. Behind a Retry (call
 * pq_model_quic_retry first) the address is validated already: only the round trip. Measured
 * with OpenSSL 3.5 at 50 ms (the key-share preset, transport = quic): a wrong guess takes
 * one round trip more than the right one, as over TCP. */
void pq_model_quic_hrr(pq_model_quic *q, size_t client_hello2);

/* The server's handshake messages of a flight by the rule (what QUIC's CRYPTO frames
 * carry): ServerHello, EncryptedExtensions, Certificate, CertificateVerify, Finished. */
size_t pq_model_quic_server_msgs(const pq_acct *a);

/* Round trips over QUIC, from the client's first Initial (there is no connect): the
 * handshake is done after 1 + q->retry_rtts + q->hrr_rtts + q->extra_rtts, the first response byte one
 * later. The
 * last byte is not predicted (ttlb 0): QUIC's window after the handshake is not
 * modelled. */
void pq_model_quic_rounds(const pq_model_quic *q, pq_model_out *out);

#endif
