/* The rows of load/fields.h: every column of a connection record, once. Units are in the
 * names too; NULL (bench: -1 in CSV, null in JSON) means not reached or not measured. */
#include "load/fields.h"

#include "load/record.h"

/* X(name, sql, unit, range, since, fill, value over r, the record). */
#define HS(X, m, M)                                                                                            \
	X(rx_##m##_bytes, "INTEGER", "bytes", COUNT, 3, "received", pq_cv_int(r->hs_bytes[PQ_RX][PQ_HS_##M]))  \
	X(tx_##m##_bytes, "INTEGER", "bytes", COUNT, 3, "sent", pq_cv_int(r->hs_bytes[PQ_TX][PQ_HS_##M]))
#define QUIC(x) (r->quic ? pq_cv_int((long long)(x)) : pq_cv_null()) /* QUIC only: NULL over TCP */
#define BROWSER(x) (r->browser ? (x) : pq_cv_null())                 /* Chromium's only (load/netlog.h) */

#define FIELDS(X)                                                                                        \
	X(intended_us, "REAL NOT NULL", "us", ANY, 3, "when it was meant to start, from the cell's start",     \
	  pq_cv_real((double)r->intended_ns / 1e3))                                                                \
	X(start_us, "REAL NOT NULL", "us", ANY, 3, "when connect(2) was called", pq_cv_real((double)r->start_ns / 1e3)) \
	X(connect_us, "REAL", "us", DUR, 3, "start to TCP established", pq_cv_us(r->t[PQ_PH_CONNECT]))             \
	X(client_hello_us, "REAL", "us", DUR, 3, "start to ClientHello handed to the socket",                  \
	  pq_cv_us(r->t[PQ_PH_CLIENT_HELLO]))                                                                      \
	X(server_hello_us, "REAL", "us", DUR, 3, "start to ServerHello read", pq_cv_us(r->t[PQ_PH_SERVER_HELLO]))  \
	X(handshake_us, "REAL", "us", DUR, 3, "start to handshake done", pq_cv_us(r->t[PQ_PH_HANDSHAKE]))          \
	X(request_us, "REAL", "us", DUR, 3, "start to the request written", pq_cv_us(r->t[PQ_PH_REQUEST]))         \
	X(ttfb_us, "REAL", "us", DUR, 3, "start to the first response byte", pq_cv_us(r->t[PQ_PH_TTFB]))          \
	X(ttlb_us, "REAL", "us", DUR, 3, "start to the first response's last byte", pq_cv_us(r->t[PQ_PH_TTLB]))   \
	X(end_us, "REAL", "us", DUR, 3, "start to the last byte", pq_cv_us(r->t[PQ_PH_END]))                       \
	X(latency_us, "REAL", "us", ANY, 3, "intended start to the end", pq_cv_us(pq_load_latency_ns(r)))          \
	X(handshake_rtts, "REAL", "", ANY, 3, "handshake over min_rtt",                                        \
	  pq_load_handshake_rtts(r) >= 0 ? pq_cv_real(pq_load_handshake_rtts(r)) : pq_cv_null())                         \
	X(tls_version, "TEXT", "", ANY, 3, "negotiated", pq_cv_text(r->version))                                   \
	X(tls_group, "TEXT", "", ANY, 3, "negotiated key-exchange group", pq_cv_text(r->group))                    \
	X(sigalg, "TEXT", "", ANY, 3, "the server's signature algorithm", pq_cv_text(r->sigalg))                   \
	X(cipher, "TEXT", "", ANY, 3, "negotiated", pq_cv_text(r->cipher))                                         \
	X(resume_offered, "INTEGER NOT NULL", "", ANY, 3, "a ticket was offered", pq_cv_int(r->resume_offered))    \
	X(resumed, "INTEGER NOT NULL", "", COUNT, 3, "the session was resumed", pq_cv_int(r->resumed))             \
	X(hrr, "INTEGER NOT NULL", "", ANY, 3, "the server answered with a HelloRetryRequest", pq_cv_int(r->hrr))  \
	X(ch1_bytes, "INTEGER NOT NULL", "bytes", ANY, 3, "the ClientHello (message, 4-byte header included)", \
	  pq_cv_int(r->ch_bytes[0]))                                                                               \
	X(ch1_segs, "INTEGER NOT NULL", "segs", ANY, 3, "TCP data segments of its flight (0: unknown)",        \
	  pq_cv_int(r->ch_segs[0]))                                                                                \
	X(ch2_bytes, "INTEGER NOT NULL", "bytes", ANY, 3, "the one after a HelloRetryRequest (0: none)",       \
	  pq_cv_int(r->ch_bytes[1]))                                                                               \
	X(ch2_segs, "INTEGER NOT NULL", "segs", ANY, 3, "its segments", pq_cv_int(r->ch_segs[1]))                  \
	X(early_sent, "INTEGER NOT NULL", "", COUNT, 3, "0-RTT data sent", pq_cv_int(r->early_sent))               \
	X(early_accepted, "INTEGER NOT NULL", "", ANY, 3, "0-RTT data accepted", pq_cv_int(r->early_accepted))     \
	X(cert_compressed, "INTEGER NOT NULL", "", ANY, 3, "the certificate came compressed",                  \
	  pq_cv_int(r->cert_compressed))                                                                           \
	HS(X, client_hello, CLIENT_HELLO) HS(X, server_hello, SERVER_HELLO)                                    \
	HS(X, new_session_ticket, NEW_SESSION_TICKET) HS(X, end_of_early_data, END_OF_EARLY_DATA)              \
	HS(X, encrypted_extensions, ENCRYPTED_EXTENSIONS) HS(X, certificate, CERTIFICATE)                      \
	HS(X, compressed_certificate, COMPRESSED_CERTIFICATE) HS(X, server_key_exchange, SERVER_KEY_EXCHANGE)  \
	HS(X, certificate_request, CERTIFICATE_REQUEST) HS(X, server_hello_done, SERVER_HELLO_DONE)            \
	HS(X, certificate_verify, CERTIFICATE_VERIFY) HS(X, client_key_exchange, CLIENT_KEY_EXCHANGE)          \
	HS(X, finished, FINISHED) HS(X, other, OTHER)                                                          \
	X(tls_tx_bytes, "INTEGER NOT NULL", "bytes", ANY, 3, "TLS record bytes sent", pq_cv_int((long long)r->tls_bytes[PQ_TX])) \
	X(tls_rx_bytes, "INTEGER NOT NULL", "bytes", ANY, 3, "received", pq_cv_int((long long)r->tls_bytes[PQ_RX])) \
	X(tcp_tx_bytes, "INTEGER NOT NULL", "bytes", ANY, 3, "tcp_info bytes_sent", pq_cv_int((long long)r->tcp_bytes[PQ_TX])) \
	X(tcp_rx_bytes, "INTEGER NOT NULL", "bytes", ANY, 3, "tcp_info bytes_received",                        \
	  pq_cv_int((long long)r->tcp_bytes[PQ_RX]))                                                               \
	X(tcp_tx_segs, "INTEGER NOT NULL", "segs", ANY, 3, "tcp_info segs_out", pq_cv_int(r->tcp_segs[PQ_TX]))     \
	X(tcp_rx_segs, "INTEGER NOT NULL", "segs", ANY, 3, "tcp_info segs_in", pq_cv_int(r->tcp_segs[PQ_RX]))      \
	X(srtt_us, "INTEGER NOT NULL", "us", ANY, 3, "tcp_info", pq_cv_int(r->srtt_us))                            \
	X(rttvar_us, "INTEGER NOT NULL", "us", ANY, 3, "tcp_info", pq_cv_int(r->rttvar_us))                        \
	X(min_rtt_us, "INTEGER NOT NULL", "us", DUR, 3, "tcp_info", pq_cv_int(r->min_rtt_us))                      \
	X(retrans_segs, "INTEGER NOT NULL", "segs", COUNT, 3, "tcp_info's retransmitted segments", pq_cv_int(r->retrans)) \
	X(cwnd_segs, "INTEGER NOT NULL", "segs", ANY, 3, "tcp_info's congestion window", pq_cv_int(r->cwnd))       \
	X(mss_bytes, "INTEGER NOT NULL", "bytes", ANY, 3, "tcp_info", pq_cv_int(r->mss))                           \
	X(requests, "INTEGER NOT NULL", "", ANY, 3, "complete responses", pq_cv_int(r->requests))                  \
	X(http_status, "INTEGER NOT NULL", "", ANY, 3, "the last response's status, 0 none", pq_cv_int(r->status)) \
	X(body_bytes, "INTEGER NOT NULL", "bytes", ANY, 3, "response body bytes", pq_cv_int((long long)r->body_bytes)) \
	X(quic_tx_dgrams, "INTEGER", "", ANY, 3, "QUIC datagrams sent before the handshake was done",          \
	  QUIC(r->quic_dgrams[PQ_TX]))                                                                         \
	X(quic_rx_dgrams, "INTEGER", "", ANY, 3, "received", QUIC(r->quic_dgrams[PQ_RX]))                      \
	X(quic_tx_bytes, "INTEGER", "bytes", ANY, 3, "QUIC bytes sent", QUIC(r->quic_bytes[PQ_TX]))            \
	X(quic_rx_bytes, "INTEGER", "bytes", ANY, 3, "received", QUIC(r->quic_bytes[PQ_RX]))                   \
	X(quic_first_dgrams, "INTEGER", "", ANY, 3, "the client's first flight, datagrams", QUIC(r->quic_first_dgrams)) \
	X(quic_first_bytes, "INTEGER", "bytes", ANY, 3, "its bytes", QUIC(r->quic_first_bytes))                \
	X(quic_retry, "INTEGER", "", ANY, 3, "a Retry came", QUIC(r->quic_retry))                              \
	X(quic_amp_held, "INTEGER", "", ANY, 3, "the server's flight passed 3x the first flight",              \
	  QUIC(r->quic_amp_held))                                                                              \
	X(client_wait_us, "REAL", "us", ANY, 4, "the client thread's wait for a CPU (run_delay); NULL unknown", \
	  pq_cv_us(r->wait_ns))                                                                                    \
	X(browser_flight_us, "REAL", "us", ANY, 4, "Chromium: the server's first flight received, network only", \
	  BROWSER(pq_cv_us(r->br_flight_ns)))                                                                      \
	X(browser_verify_us, "REAL", "us", ANY, 4, "Chromium: its certificate verification's length",          \
	  BROWSER(pq_cv_us(r->br_verify_ns)))                                                                      \
	X(browser_request_net_us, "REAL", "us", ANY, 4, "Chromium: the request's bytes sent",                  \
	  BROWSER(pq_cv_us(r->br_req_net_ns)))                                                                     \
	X(browser_ttfb_net_us, "REAL", "us", ANY, 4, "Chromium: the first response bytes received",            \
	  BROWSER(pq_cv_us(r->br_ttfb_net_ns)))                                                                    \
	X(browser_conns, "INTEGER", "", ANY, 4, "Chromium: sockets it connected for the navigation",           \
	  BROWSER(pq_cv_int(r->br_conns)))                                                                         \
	X(error_kind, "TEXT NOT NULL", "", ANY, 3, "ok or the failure's short name", pq_cv_str(pq_load_err_short(r->err))) \
	X(error_detail, "TEXT", "", ANY, 3, "the failure in words",                                            \
	  r->err == PQ_LERR_NONE ? pq_cv_null() : pq_cv_str(r->err_detail))

#define FIELD_GET(...) PQ_COL_GETTER(conn_, pq_load_record, r, , __VA_ARGS__)
FIELDS(FIELD_GET)

#define FIELD_ROW(...) PQ_COL_ROW(conn_, __VA_ARGS__)
const pq_col pq_load_fields[] = {FIELDS(FIELD_ROW)};
const size_t pq_load_nfields = sizeof pq_load_fields / sizeof pq_load_fields[0];

