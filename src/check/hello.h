/* Where things are in a ClientHello as it goes on the wire: the TLS record OpenSSL wrote
 * (record header, handshake header, body), the key_share entries and the SNI host name,
 * as byte offsets into the record. `pqtls check` cuts its segments at these offsets.
 *
 * Contract: pq_chk_hello_parse reads one TLS handshake record holding one whole
 * ClientHello (RFC 8446 4.1.2; what OpenSSL writes for any ClientHello below 16 KiB) and
 * returns 0 with *out filled, or PQ_EPARSE with a message naming the field that does not
 * fit (nothing is read past len). Offsets are from the first byte of the record. */
#ifndef PQ_CHK_HELLO_H
#define PQ_CHK_HELLO_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define PQ_CHK_MAX_SHARES 8

typedef struct pq_chk_share {
	uint16_t group; /* IANA code point: 0x11EC = X25519MLKEM768, 0x001D = X25519 */
	size_t off;     /* first byte of its key_exchange */
	size_t len;     /* key_exchange bytes */
} pq_chk_share;

typedef struct pq_chk_hello {
	size_t record_len;  /* 5-byte record header + fragment: what goes on the wire */
	size_t hs_len;      /* the ClientHello message, its 4-byte header included */
	size_t nshares;     /* key_share entries (capped at PQ_CHK_MAX_SHARES) */
	pq_chk_share shares[PQ_CHK_MAX_SHARES];
	size_t sni_off;     /* first byte of the host name; 0 when there is no SNI */
	size_t sni_len;
	size_t ext_off;     /* first byte of the extensions block's length */
} pq_chk_hello;

int pq_chk_hello_parse(const uint8_t *buf, size_t len, pq_chk_hello *out,
			 pq_diag *d) PQ_MUST_USE;

/* The share for `group`, or NULL when the ClientHello carries none. */
const pq_chk_share *pq_chk_hello_share(const pq_chk_hello *h, uint16_t group);

#endif
