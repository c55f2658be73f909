/* Wire facts: the byte counts of IP, TCP and TLS 1.3 framing that the size accounting,
 * the flight model, the sweep, the link check and the report all need. Each fact is
 * written here once; everything else asks (README.md, "One fact in one place").
 *
 * Sources: RFC 791 and RFC 9293 (20-byte IPv4 and TCP headers), RFC 7323 (the 12 bytes
 * the timestamp option takes in every segment once negotiated, which Linux does by
 * default), RFC 8446 sections 5.1-5.2 (record header, inner content type, AEAD tag of
 * TLS_AES_*_GCM and ChaCha20-Poly1305, 2^14-byte plaintext limit) and D.4 (the
 * middlebox-compatibility ChangeCipherSpec record). */
#ifndef PQ_CORE_WIRE_H
#define PQ_CORE_WIRE_H

#include <stddef.h>

#include "core/err.h"

#define PQ_WIRE_IPV4_HDR 20
#define PQ_WIRE_UDP_HDR 8
#define PQ_WIRE_TCP_HDR 20
#define PQ_WIRE_TCP_TS_OPT 12
/* IPv4 + TCP + timestamps: the MSS is the MTU less this. */
#define PQ_WIRE_TCPIP_OVERHEAD (PQ_WIRE_IPV4_HDR + PQ_WIRE_TCP_HDR + PQ_WIRE_TCP_TS_OPT)
#define PQ_WIRE_MTU_DEFAULT 1500
#define PQ_WIRE_MSS_DEFAULT (PQ_WIRE_MTU_DEFAULT - PQ_WIRE_TCPIP_OVERHEAD) /* 1448 */
#define PQ_WIRE_IW_DEFAULT 10 /* Linux's initial congestion window, segments (RFC 6928) */
/* The two defaults as option tables and the dimension table write them: "1500", "10". */
#define PQ_WIRE_MTU_DEFAULT_STR PQ_STR(PQ_WIRE_MTU_DEFAULT)
#define PQ_WIRE_IW_DEFAULT_STR PQ_STR(PQ_WIRE_IW_DEFAULT)

/* QUIC (RFC 9000, 9002): a client pads its Initial datagrams to at least 1,200 bytes
 * (9000 14.1); before it has validated the client's address a server sends at most three
 * times the bytes it received (9000 8.1); the initial window is ten datagrams (9002 7.2). */
#define PQ_WIRE_QUIC_MIN_INITIAL 1200
#define PQ_WIRE_QUIC_AMP_FACTOR 3
#define PQ_WIRE_QUIC_IW 10

#define PQ_WIRE_TLS_RECORD_HDR 5 /* type, legacy version, length */
#define PQ_WIRE_TLS_HS_HDR 4	 /* handshake message type and 24-bit length */
#define PQ_WIRE_TLS_INNER_TYPE 1 /* TLSInnerPlaintext's content type byte */
#define PQ_WIRE_AEAD_TAG 16
/* What an encrypted TLS 1.3 record adds to its plaintext: 5 + 1 + 16 = 22 bytes. */
#define PQ_WIRE_TLS_RECORD_OVERHEAD (PQ_WIRE_TLS_RECORD_HDR + PQ_WIRE_TLS_INNER_TYPE + PQ_WIRE_AEAD_TAG)
#define PQ_WIRE_TLS_RECORD_MAX 16384
#define PQ_WIRE_TLS_CCS 6 /* the ChangeCipherSpec record: header + one byte */
/* ServerHello's pre_shared_key extension on resumption: type, length, selected_identity. */
#define PQ_WIRE_TLS_PSK_EXT 6

/* The MSS at `mtu` bytes (IPv4, TCP timestamps); 0 when the MTU is unknown (<= 0) or too
 * small to carry a byte, which callers read as "the default". */
size_t pq_wire_mss(long long mtu);

/* Bytes on TCP of a handshake message of `len` bytes (header included) sent in
 * encrypted TLS 1.3 records of at most PQ_WIRE_TLS_RECORD_MAX plaintext bytes; an empty
 * message still takes one record. */
size_t pq_wire_records(size_t len);

#endif
