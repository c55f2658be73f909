/* How a load connection ends (load/conn_int.h): a failed TLS call read into an error and a
 * sentence (what closed, when, and the likely cause), and the record completed from the
 * handshake's accounting before the TLS object and the socket are freed. */
#include <errno.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "core/text.h"
#include "load/conn_int.h"
#include "load/h3.h"
#include "load/qconn.h"
#include "load/tcpinfo.h"
#include "tls/io.h"

void pq_load_conn_finish(pq_load_conn *c, enum pq_load_err err, const char *detail)
{
	pq_load_record *r = &c->rec;
	if (c->st == PQ_CS_DONE)
		return;
	if (r->err == PQ_LERR_NONE && err != PQ_LERR_NONE) {
		r->err = err;
		/* a long reason is cut at a word, with "...", never mid-word */
		pq_text_clip(detail ? detail : "", r->err_detail, sizeof r->err_detail);
	}
	if (err == PQ_LERR_NONE)
		pq_load_conn_mark(c, PQ_PH_END);
	const pq_tls_acct *a = &c->acct;
	memcpy(r->hs_bytes, a->hs_bytes, sizeof r->hs_bytes);
	r->tls_bytes[PQ_TX] = a->record_bytes[PQ_TX];
	r->tls_bytes[PQ_RX] = a->record_bytes[PQ_RX];
	r->hrr = (uint8_t)a->hrr;
	for (int k = 0; k < 2; k++) {
		r->ch_bytes[k] = a->ch_bytes[k];
		r->ch_segs[k] = pq_tls_acct_ch_segs(a, k);
	}
	r->cert_compressed = a->hs_count[PQ_RX][PQ_HS_COMPRESSED_CERTIFICATE] > 0;
	if (a->t_client_hello_ns)
		r->t[PQ_PH_CLIENT_HELLO] = a->t_client_hello_ns - c->start_abs_ns;
	if (a->t_server_hello_ns)
		r->t[PQ_PH_SERVER_HELLO] = a->t_server_hello_ns - c->start_abs_ns;
	if (c->p->quic) {
		pq_load_qconn_record(c);
		/* One CONNECTION_CLOSE, best effort; the server closes at its idle timeout
		 * if it is lost. */
		if (c->ssl && err == PQ_LERR_NONE)
			(void)SSL_shutdown_ex(c->ssl, SSL_SHUTDOWN_FLAG_RAPID, NULL, 0);
	} else if (c->fd >= 0) {
		(void)pq_tcpinfo_read(c->fd, r);
		if (c->ssl && err == PQ_LERR_NONE)
			SSL_shutdown(c->ssl); /* one try: close_notify, no waiting for the reply */
	}
	pq_load_h3_free(c); /* its stream objects before their connection */
	ERR_clear_error();
	SSL_free(c->ssl); /* before the socket under its BIO closes */
	c->ssl = NULL;
	if (c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
	c->st = PQ_CS_DONE;
	c->events = 0;
	c->tick_ns = INT64_MAX;
}

/* Act on a failed SSL call's status. Returns the events to wait for, or 0 when
 * finished. */
uint32_t pq_load_conn_fail_status(pq_load_conn *c, const pq_tls_status *st)
{
	if (st->io == PQ_TLS_IO_WANT_READ)
		return EPOLLIN;
	if (st->io == PQ_TLS_IO_WANT_WRITE) /* QUIC: flow control, lifted by what arrives */
		return c->p->quic ? EPOLLIN : EPOLLOUT;
	int in_hs = c->st == PQ_CS_HANDSHAKE || c->st == PQ_CS_EARLY;
	/* Where a close or reset came: before the ServerHello it is a server that would
	 * not talk at all (over its connection limit, or exiting), not a TLS failure. */
	const char *when = !c->acct.t_server_hello_ns ? "before its ServerHello (over its connection limit, or exiting?)"
			   : in_hs		      ? "during the handshake"
						      : "after the handshake";
	char detail[256] = ""; /* whole here; the record's copy is clipped at a word (finish) */
	long vr = SSL_get_verify_result(c->ssl);
	enum pq_load_err closed = PQ_LERR_NONE;
	if (c->p->quic && !(in_hs && vr != X509_V_OK))
		closed = pq_load_qconn_peer_close(c, in_hs, when, detail, sizeof detail);
	if (closed != PQ_LERR_NONE) {
		pq_load_conn_finish(c, closed, detail);
	} else if (in_hs && vr != X509_V_OK) {
		pq_load_conn_finish(c, PQ_LERR_VERIFY, X509_verify_cert_error_string(vr));
	} else if (c->acct.alert_rx >= 0) {
		snprintf(detail, sizeof detail, "%s", SSL_alert_desc_string_long(c->acct.alert_rx));
		pq_load_conn_finish(c, PQ_LERR_ALERT, detail);
	} else if (st->io == PQ_TLS_IO_TLS) {
		int why = st->why;
		const char *reason = *st->reason ? st->reason : "unknown";
		/* The two failures people meet most, with what usually causes them. */
		if (why == SSL_R_WRONG_VERSION_NUMBER || why == SSL_R_PACKET_LENGTH_TOO_LONG)
			snprintf(detail, sizeof detail, "%s (is it a TLS server?)", reason);
		else if (why == SSL_R_EXCESSIVE_MESSAGE_SIZE)
			snprintf(detail, sizeof detail, "%s (a certificate over %s?)", reason,
				 c->p->cap_name ? c->p->cap_name : "the size cap");
		else
			snprintf(detail, sizeof detail, "%s", reason);
		pq_load_conn_finish(c, PQ_LERR_PROTOCOL, detail);
	} else if (st->io == PQ_TLS_IO_CLOSED || st->io == PQ_TLS_IO_EOF || st->io == PQ_TLS_IO_RESET) {
		/* After the handshake: how far the response got (its head whole and the body cut
		 * is not "before the response"). */
		if (!in_hs && c->acct.t_server_hello_ns && c->head_done)
			snprintf(detail, sizeof detail, "after the response head, mid-body (%llu bytes in, %lld to go)",
				 (unsigned long long)c->rec.body_bytes, (long long)c->body_left);
		else if (!in_hs && c->acct.t_server_hello_ns && c->head_len)
			snprintf(detail, sizeof detail, "in the middle of the response head (%zu bytes in)", c->head_len);
		else
			snprintf(detail, sizeof detail, "%s",
				 in_hs || !c->acct.t_server_hello_ns || st->io == PQ_TLS_IO_RESET ? when
												   : "before the response");
		pq_load_conn_finish(c, st->io == PQ_TLS_IO_RESET ? PQ_LERR_RESET : PQ_LERR_CLOSED,
				    detail);
	} else if (st->sys_errno == ECONNREFUSED) {
		/* QUIC: an ICMP port unreachable on the connected UDP socket */
		pq_load_conn_finish(c, PQ_LERR_REFUSED, strerror(st->sys_errno));
	} else {
		pq_load_conn_finish(c, PQ_LERR_CONNECT, strerror(st->sys_errno));
	}
	return 0;
}

uint32_t pq_load_conn_ssl_fail(pq_load_conn *c, int r)
{
	pq_tls_status st;
	pq_tls_io_status(c->ssl, r, &st);
	return pq_load_conn_fail_status(c, &st);
}
