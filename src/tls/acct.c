#include "tls/acct.h"

#include "core/tcpsegs.h"

#include <stdio.h>
#include <string.h>

/* RFC 8446 4.1.3: a ServerHello with this random is a HelloRetryRequest. */
static const unsigned char hrr_random[32] = {
	0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
	0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C};

static const struct {
	int type;
	const char *name;
} hs_types[PQ_HS_COUNT] = {
	[PQ_HS_CLIENT_HELLO] = {1, "client_hello"},
	[PQ_HS_SERVER_HELLO] = {2, "server_hello"},
	[PQ_HS_NEW_SESSION_TICKET] = {4, "new_session_ticket"},
	[PQ_HS_END_OF_EARLY_DATA] = {5, "end_of_early_data"},
	[PQ_HS_ENCRYPTED_EXTENSIONS] = {8, "encrypted_extensions"},
	[PQ_HS_CERTIFICATE] = {11, "certificate"},
	[PQ_HS_COMPRESSED_CERTIFICATE] = {25, "compressed_certificate"},
	[PQ_HS_SERVER_KEY_EXCHANGE] = {12, "server_key_exchange"},
	[PQ_HS_CERTIFICATE_REQUEST] = {13, "certificate_request"},
	[PQ_HS_SERVER_HELLO_DONE] = {14, "server_hello_done"},
	[PQ_HS_CERTIFICATE_VERIFY] = {15, "certificate_verify"},
	[PQ_HS_CLIENT_KEY_EXCHANGE] = {16, "client_key_exchange"},
	[PQ_HS_FINISHED] = {20, "finished"},
	[PQ_HS_OTHER] = {-1, "other"},
};

enum pq_hs pq_tls_hs_index(int type)
{
	for (int i = 0; i < PQ_HS_OTHER; i++)
		if (hs_types[i].type == type)
			return (enum pq_hs)i;
	return PQ_HS_OTHER;
}

const char *pq_tls_hs_name(enum pq_hs i)
{
	return i < PQ_HS_COUNT ? hs_types[i].name : "?";
}

void pq_tls_acct_init(pq_tls_acct *a, pq_clock *clock)
{
	memset(a, 0, sizeof *a);
	a->clock = clock;
	a->alert_rx = a->alert_tx = -1;
	a->fd = -1;
}

void pq_tls_acct_watch_fd(pq_tls_acct *a, int fd)
{
	a->fd = fd;
}

void pq_tls_acct_names(SSL *ssl, char *group, size_t group_n, char *sigalg, size_t sigalg_n)
{
	const char *g = SSL_get0_group_name(ssl), *sig = NULL;
	snprintf(group, group_n, "%s", g ? g : "");
	if (SSL_get0_peer_signature_name(ssl, &sig) != 1 || !sig)
		sig = "";
	snprintf(sigalg, sigalg_n, "%s", sig);
}

uint32_t pq_tls_acct_ch_segs(const pq_tls_acct *a, int which)
{
	if (which == 0)
		return a->n_sh >= 1 ? a->segs_at_sh[0] : 0;
	return a->hrr && a->n_sh >= 2 ? a->segs_at_sh[1] - a->segs_at_sh[0] : 0;
}

void pq_tls_acct_msg(pq_tls_acct *a, int write_p, int content_type, const unsigned char *buf,
		     size_t len, int is_server)
{
	int dir = write_p ? PQ_TX : PQ_RX;
	switch (content_type) {
	case SSL3_RT_HEADER:
		if (len >= 5) {
			a->records[dir]++;
			a->record_bytes[dir] += 5u + ((unsigned)buf[3] << 8 | buf[4]);
		}
		break;
	case SSL3_RT_HANDSHAKE: {
		if (len < 4)
			break;
		enum pq_hs i = pq_tls_hs_index(buf[0]);
		a->hs_bytes[dir][i] += (uint32_t)len;
		a->hs_count[dir][i]++;
		int64_t now = pq_clock_now(a->clock);
		if (i == PQ_HS_CLIENT_HELLO && !a->t_client_hello_ns && dir == (is_server ? PQ_RX : PQ_TX))
			a->t_client_hello_ns = now;
		if (i == PQ_HS_CLIENT_HELLO && dir == PQ_TX && a->hs_count[dir][i] <= 2)
			a->ch_bytes[a->hs_count[dir][i] - 1] = (uint32_t)len;
		if (i == PQ_HS_SERVER_HELLO) {
			/* type(1) length(3) legacy_version(2) random(32) */
			if (len >= 38 && memcmp(buf + 6, hrr_random, 32) == 0)
				a->hrr = 1;
			else
				a->t_server_hello_ns = now;
		}
		if (i == PQ_HS_FINISHED && dir == PQ_RX)
			a->t_peer_finished_ns = now;
		break;
	}
	case SSL3_RT_ALERT:
		/* close_notify (0) ends every clean connection; it is not an error. */
		if (len >= 2 && buf[1] != SSL_AD_CLOSE_NOTIFY) {
			if (dir == PQ_RX) {
				a->alert_rx = buf[1];
				a->alert_rx_fatal = buf[0] == SSL3_AL_FATAL;
			} else {
				a->alert_tx = buf[1];
			}
		}
		break;
	default:
		break;
	}
}

static void msg_cb(int write_p, int version, int content_type, const void *buf, size_t len,
		   SSL *ssl, void *arg)
{
	(void)version;
	pq_tls_acct *a = arg;
	/* The ServerHello (or HRR) answers the whole ClientHello before it: what the kernel
	 * has sent by now is that ClientHello's flight (read before the client writes more). */
	if (!write_p && content_type == SSL3_RT_HANDSHAKE && len >= 1 &&
	    ((const unsigned char *)buf)[0] == 2 && a->fd >= 0 && a->n_sh < 2)
		a->segs_at_sh[a->n_sh++] = pq_tcp_data_segs_out(a->fd);
	pq_tls_acct_msg(a, write_p, content_type, buf, len, SSL_is_server(ssl));
}

void pq_tls_acct_attach(SSL *ssl, pq_tls_acct *a)
{
	SSL_set_msg_callback(ssl, msg_cb);
	SSL_set_msg_callback_arg(ssl, a);
}
