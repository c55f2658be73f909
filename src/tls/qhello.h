/* A QUIC server's refusal of a ClientHello, foreseen before OpenSSL reads it.
 *
 * Why a server needs it: OpenSSL 3.5's QUIC server turns a TLS alert during the handshake
 * into a CONNECTION_CLOSE with the crypto error 0x100 + alert (ssl/quic/quic_channel.c,
 * ch_on_handshake_alert), but ch_start_terminating skips the closing state, and sends
 * nothing, when the connection "hasn't sent anything yet". A handshake refused on the
 * client's first flight (no group in common, no ALPN in common) fails in the same tick
 * that reads the ClientHello, before the engine has sent even an ACK: the client hears
 * nothing and waits out its timeout. A server that pauses such a ClientHello once (its
 * ClientHello callback returns SSL_CLIENT_HELLO_RETRY, which ssl/quic/quic_tls.c takes as
 * "call again later") lets the engine acknowledge the Initial first; resumed, OpenSSL
 * refuses it as before, and now the close leaves.
 *
 * What is foreseen, from the ClientHello's extensions against what the server speaks:
 * no ALPN it selects (hq-interop; none at all, which QUIC forbids), and no supported
 * group in common with the server's list. OpenSSL still decides. A refusal not foreseen
 * stays silent as before (no signature algorithm or cipher suite in common; a server
 * list OpenSSL's own preferred names cannot judge: its default, aliases such as P-256,
 * removals, DEFAULT, names it does not know), and a wrong foresight costs the client one
 * ACK before the answer, never the handshake.
 *
 * Contract: pq_tls_qhello_init reads the server's groups list (an OpenSSL list, NULL
 * for OpenSSL's default) once, against the groups ctx knows; it cannot fail (a list it
 * cannot judge only turns the group test off). pq_tls_qhello_refusal is called from a
 * ClientHello callback (SSL_CTX_set_client_hello_cb) with its SSL and returns a reason
 * ("no ALPN in common", "no group in common", ...) or NULL. */
#ifndef PQ_TLS_QHELLO_H
#define PQ_TLS_QHELLO_H

#include <openssl/ssl.h>

#define PQ_TLS_QHELLO_MAX_GROUPS 32

typedef struct pq_tls_qhello {
	int ngroups; /* -1: the group test is off (a list it cannot judge by OpenSSL's names) */
	char groups[PQ_TLS_QHELLO_MAX_GROUPS][32]; /* OpenSSL's TLS names of the server's groups */
} pq_tls_qhello;

void pq_tls_qhello_init(pq_tls_qhello *q, SSL_CTX *ctx, const char *groups);
const char *pq_tls_qhello_refusal(const pq_tls_qhello *q, SSL *s);

#endif
