#include "check/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <openssl/err.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/tcpsegs.h"
#include "tls/acct.h"
#include "tls/io.h"

static const struct {
	const char *name, *text;
} fails[] = {
#define PQ_CHK_FAIL_ROW(e, name, text) [e] = {name, text},
	PQ_CHK_FAIL_TABLE(PQ_CHK_FAIL_ROW)
#undef PQ_CHK_FAIL_ROW
};

const char *pq_chk_fail_name(pq_chk_fail f)
{
	return (unsigned)f < sizeof fails / sizeof fails[0] ? fails[f].name : "?";
}

const char *pq_chk_fail_text(pq_chk_fail f)
{
	return (unsigned)f < sizeof fails / sizeof fails[0] ? fails[f].text : "?";
}

int pq_chk_fail_unreachable(pq_chk_fail f)
{
	return f == PQ_CHK_REFUSED || f == PQ_CHK_CONNECT || f == PQ_CHK_CONNECT_TIMEOUT;
}

int pq_chk_no_server(const pq_chk_result *r)
{
	return pq_chk_fail_unreachable(r->fail) ||
	       (r->fail == PQ_CHK_TIMEOUT && r->rx_bytes == 0 && r->probe.shape == PQ_CHK_WHOLE &&
		r->ch_writes[0] == 1);
}

/* How often the sender looks whether the kernel has sent a segment yet: well under a
 * loopback round trip, so the byte-per-segment probe stays fast. */
#define UNSENT_POLL_NS (20 * PQ_NS_PER_US)

typedef struct run {
	const pq_chk_config *cfg;
	pq_chk_result *r;
	int fd;
	SSL *ssl;
	BIO *rbio, *wbio; /* owned by ssl */
	pq_tls_acct acct;
	int64_t deadline_ns;
	unsigned char *flight;
	size_t flight_len, flight_cap;
} run;

static int64_t now(const run *x)
{
	return pq_clock_now(x->cfg->clock);
}

static void failed(run *x, pq_chk_fail f, const char *fmt, ...) PQ_PRINTF(3, 4);
static void failed(run *x, pq_chk_fail f, const char *fmt, ...)
{
	if (x->r->fail != PQ_CHK_OK)
		return; /* the first cause is the one to report */
	x->r->fail = f;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->r->detail, sizeof x->r->detail, fmt, ap);
	va_end(ap);
}

static int remaining_ms(const run *x)
{
	int64_t left = x->deadline_ns - now(x);
	if (left <= 0)
		return 0;
	return (int)((left + PQ_NS_PER_MS - 1) / PQ_NS_PER_MS);
}

static void pause_ns(int64_t ns)
{
	struct timespec ts = {.tv_sec = ns / PQ_NS_PER_S, .tv_nsec = ns % PQ_NS_PER_S};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Returns 1 when connected, 0 when the probe failed (r says why). */
static int connect_tcp(run *x)
{
	const pq_addr *a = &x->cfg->target;
	int64_t t0 = now(x);
	x->fd = socket(a->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (x->fd < 0) {
		failed(x, PQ_CHK_CONNECT, "socket: %s", strerror(errno));
		return 0;
	}
	int e = pq_addr_nodelay(x->fd);
	if (e < 0) {
		failed(x, PQ_CHK_CONNECT, "TCP_NODELAY: %s", strerror(-e));
		return 0;
	}
	if (connect(x->fd, (const struct sockaddr *)&a->sa, a->len) < 0 && errno != EINPROGRESS) {
		e = errno;
	} else {
		struct pollfd p = {.fd = x->fd, .events = POLLOUT};
		int n = poll(&p, 1, remaining_ms(x));
		socklen_t len = sizeof e;
		if (n == 0) {
			failed(x, PQ_CHK_CONNECT_TIMEOUT, "no TCP connection within %.1f s",
			       (double)x->cfg->timeout_ns / 1e9);
			return 0;
		}
		e = 0;
		if (n < 0)
			e = errno;
		else if (getsockopt(x->fd, SOL_SOCKET, SO_ERROR, &e, &len) < 0)
			e = errno;
	}
	if (e) {
		failed(x, e == ECONNREFUSED ? PQ_CHK_REFUSED : PQ_CHK_CONNECT, "%s",
		       e == ECONNREFUSED ? "connection refused (is anything listening on that port?)"
					 : strerror(e));
		return 0;
	}
	x->r->connect_ns = now(x) - t0;
	return 1;
}

static int make_ssl(run *x, pq_diag *d)
{
	x->ssl = SSL_new(x->cfg->ctx);
	x->rbio = BIO_new(BIO_s_mem());
	x->wbio = BIO_new(BIO_s_mem());
	if (!x->ssl || !x->rbio || !x->wbio) {
		BIO_free(x->rbio);
		BIO_free(x->wbio);
		x->rbio = x->wbio = NULL;
		return pq_diag_ossl(d, PQ_ENOMEM, "cannot create a TLS connection");
	}
	SSL_set_bio(x->ssl, x->rbio, x->wbio);
	if (SSL_set1_groups_list(x->ssl, x->r->offered) != 1)
		return pq_diag_ossl(d, PQ_EINVAL,
				    "groups '%s': a group this OpenSSL does not know "
				    "(`pqtls version` lists them)",
				    x->r->offered);
	const char *sni = x->cfg->servername;
	if (sni && (SSL_set_tlsext_host_name(x->ssl, sni) != 1 || SSL_set1_host(x->ssl, sni) != 1))
		return pq_diag_ossl(d, PQ_EINVAL, "server name '%s' cannot be sent", sni);
	pq_tls_acct_init(&x->acct, x->cfg->clock);
	pq_tls_acct_attach(x->ssl, &x->acct);
	SSL_set_connect_state(x->ssl);
	return 0;
}

/* Everything OpenSSL has written since the last call, into x->flight. */
static int take_flight(run *x)
{
	size_t n = BIO_ctrl_pending(x->wbio);
	x->flight_len = 0;
	if (n > x->flight_cap) {
		unsigned char *p = realloc(x->flight, n);
		if (!p)
			return PQ_ENOMEM;
		x->flight = p;
		x->flight_cap = n;
	}
	if (n && BIO_read(x->wbio, x->flight, (int)n) != (int)n)
		return PQ_EIO;
	x->flight_len = n;
	return 0;
}

/* Returns 0, -errno of the socket, or PQ_ETIMEOUT. */
static int write_all(run *x, const unsigned char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(x->fd, buf, len, MSG_NOSIGNAL);
		if (n > 0) {
			buf += n, len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		struct pollfd p = {.fd = x->fd, .events = POLLOUT};
		int ms = remaining_ms(x);
		if (ms == 0 || poll(&p, 1, ms) == 0)
			return PQ_ETIMEOUT;
	}
	return 0;
}

/* Until the kernel has sent everything written (not acknowledged: sent), so the next
 * write starts a segment of its own. */
static int wait_sent(run *x)
{
	for (;;) {
		int unsent = 0;
		if (ioctl(x->fd, SIOCOUTQNSD, &unsent) < 0)
			return -errno;
		if (unsent == 0)
			return 0;
		if (now(x) >= x->deadline_ns)
			return PQ_ETIMEOUT;
		pause_ns(UNSENT_POLL_NS);
	}
}

static void write_failed(run *x, int e, size_t done, size_t len)
{
	if (e == PQ_ETIMEOUT)
		failed(x, PQ_CHK_TIMEOUT, "the ClientHello could not be sent within the timeout "
					    "(%zu of %zu bytes sent)", done, len);
	else
		failed(x, e == -ECONNRESET || e == -EPIPE ? PQ_CHK_RESET : PQ_CHK_CLOSED,
		       "the server dropped the connection during the ClientHello (%zu of %zu bytes "
		       "written): %s", done, len, strerror(-e));
}

/* The first ClientHello, cut as the plan says. Returns 1 when sent, 0 when the probe
 * failed. */
static int send_hello(run *x, const pq_chk_plan *plan)
{
	size_t len = x->flight_len, start = 0;
	uint32_t segs0 = pq_tcp_segs_sent_once(x->fd);
	for (size_t i = 0; i <= plan->ncuts; i++) {
		size_t end = i < plan->ncuts ? plan->cuts[i] : len;
		int e;
		if (i > 0 && plan->delay_ns > 0)
			pause_ns(plan->delay_ns);
		if ((e = write_all(x, x->flight + start, end - start)) < 0 || (e = wait_sent(x)) < 0) {
			write_failed(x, e, start, len);
			return 0;
		}
		start = end;
	}
	x->r->ch_writes[0] = plan->ncuts + 1;
	x->r->ch_segs[0] = pq_tcp_segs_sent_once(x->fd) - segs0;
	return 1;
}

/* The handshake bytes of a flight: a ClientHello after an HRR comes with a
 * ChangeCipherSpec record (middlebox compatibility) that is not part of it. */
static size_t handshake_record_bytes(const unsigned char *p, size_t len)
{
	size_t sum = 0;
	while (len >= 5) {
		size_t rec = 5 + ((size_t)p[3] << 8 | p[4]);
		if (rec > len)
			rec = len;
		if (p[0] == 22)
			sum += rec;
		p += rec, len -= rec;
	}
	return sum;
}

/* Writes what OpenSSL queued; the second ClientHello is counted. Returns 1 or 0. */
static int flush(run *x)
{
	if (take_flight(x) < 0) {
		failed(x, PQ_CHK_TLS, "out of memory for a flight");
		return 0;
	}
	if (!x->flight_len)
		return 1;
	int second = x->acct.hrr && x->r->ch_bytes[1] == 0;
	uint32_t segs0 = second ? pq_tcp_segs_sent_once(x->fd) : 0;
	int e = write_all(x, x->flight, x->flight_len);
	if (e == 0 && second)
		e = wait_sent(x);
	if (e < 0) {
		if (e == PQ_ETIMEOUT)
			failed(x, PQ_CHK_TIMEOUT, "could not send within the timeout");
		else
			failed(x, e == -ECONNRESET || e == -EPIPE ? PQ_CHK_RESET : PQ_CHK_CLOSED,
			       "the server dropped the connection: %s", strerror(-e));
		return 0;
	}
	if (second) {
		x->r->ch_bytes[1] = handshake_record_bytes(x->flight, x->flight_len);
		x->r->ch_writes[1] = 1;
		x->r->ch_segs[1] = pq_tcp_segs_sent_once(x->fd) - segs0;
	}
	return 1;
}

static void tls_failed(run *x, const pq_tls_status *st)
{
	if (x->acct.alert_rx >= 0) {
		failed(x, PQ_CHK_ALERT, "alert %d (%s) from the server", x->acct.alert_rx,
		       SSL_alert_desc_string_long(x->acct.alert_rx));
		return;
	}
	pq_diag d;
	pq_diag_clear(&d);
	(void)pq_diag_ossl(&d, PQ_ETLS, "%s", st->io == PQ_TLS_IO_TLS ? "TLS" : pq_tls_io_name(st->io));
	failed(x, PQ_CHK_TLS, "%s", pq_diag_msg(&d));
}

/* Read, feed OpenSSL, write its answers, until the handshake is done. Returns 1 or 0. */
static int pump(run *x)
{
	unsigned char buf[16384];
	for (;;) {
		int r = SSL_do_handshake(x->ssl);
		if (!flush(x))
			return 0;
		if (r == 1)
			return 1;
		pq_tls_status st;
		if (pq_tls_io_status(x->ssl, r, &st) != PQ_TLS_IO_WANT_READ) {
			tls_failed(x, &st);
			return 0;
		}
		struct pollfd p = {.fd = x->fd, .events = POLLIN};
		int ms = remaining_ms(x);
		if (ms == 0 || poll(&p, 1, ms) == 0) {
			failed(x, PQ_CHK_TIMEOUT, "no handshake within %.1f s (%llu bytes received)",
			       (double)x->cfg->timeout_ns / 1e9, (unsigned long long)x->r->rx_bytes);
			return 0;
		}
		ssize_t n = recv(x->fd, buf, sizeof buf, 0);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : 0;
			/* An alert that came before the close is the better reason. */
			if (x->acct.alert_rx >= 0)
				tls_failed(x, &st);
			else if (e == ECONNRESET)
				failed(x, PQ_CHK_RESET, "the server reset the connection after %llu bytes",
				       (unsigned long long)x->r->rx_bytes);
			else
				failed(x, PQ_CHK_CLOSED, "the server closed the connection %s%s%s",
				       x->r->rx_bytes ? "mid-handshake" : "without answering the ClientHello",
				       e ? ": " : "", e ? strerror(e) : "");
			return 0;
		}
		x->r->rx_bytes += (uint64_t)n;
		if (BIO_write(x->rbio, buf, (int)n) != (int)n) {
			failed(x, PQ_CHK_TLS, "out of memory for received bytes");
			return 0;
		}
	}
}

static void judge(run *x)
{
	pq_chk_result *r = x->r;
	r->hrr = x->acct.hrr;
	if (!r->completed)
		return;
	/* OpenSSL names classical groups in lower case ("x25519"): the same group as asked is
	 * shown as the user spelled it. */
	const char *g = SSL_get0_group_name(x->ssl);
	if (g && strcasecmp(g, r->probe.group) == 0)
		g = r->probe.group;
	snprintf(r->group, sizeof r->group, "%s", g ? g : "");
	if (strcasecmp(r->group, r->probe.group) != 0)
		failed(x, PQ_CHK_GROUP, "negotiated %s, not %s", r->group[0] ? r->group : "no group",
		       r->probe.group);
	else if (r->probe.shape == PQ_CHK_HRR && !r->hrr)
		failed(x, PQ_CHK_NO_HRR, "the server took the %s share without asking again",
		       x->cfg->hrr_share);
	r->passed = r->fail == PQ_CHK_OK;
}

static int probe(run *x, pq_diag *d)
{
	pq_chk_hello h;
	pq_chk_plan plan = {0};
	int rc = make_ssl(x, d);
	if (rc < 0)
		return rc;
	/* The first ClientHello exists before the connection: a key share or SNI that the
	 * shape needs and the ClientHello lacks is this side's error, not the server's. */
	if (SSL_do_handshake(x->ssl) == 1 || (rc = take_flight(x)) < 0)
		return pq_diag_set(d, rc < 0 ? rc : PQ_ESTATE, "no ClientHello from OpenSSL");
	if ((rc = pq_chk_hello_parse(x->flight, x->flight_len, &h, d)) < 0 ||
	    (rc = pq_chk_plan_make(x->r->probe.shape, &h, h.nshares ? h.shares[0].group : 0,
				     x->cfg->delay_ns, &plan, d)) < 0)
		return rc;
	x->r->ch_bytes[0] = h.record_len;
	x->deadline_ns = now(x) + x->cfg->timeout_ns;
	if (connect_tcp(x)) {
		int64_t t0 = now(x);
		x->deadline_ns += plan.delay_ns * (int64_t)plan.ncuts;
		x->r->completed = send_hello(x, &plan) && pump(x);
		x->r->handshake_ns = now(x) - t0;
		judge(x);
		if (x->r->completed) {
			SSL_shutdown(x->ssl); /* close_notify, not waiting for the server's */
			(void)flush(x);
		}
	}
	pq_chk_plan_dispose(&plan);
	return 0;
}

int pq_chk_probe_run(const pq_chk_config *cfg, const pq_chk_probe *p, pq_chk_result *r,
		       pq_diag *d)
{
	run x = {.cfg = cfg, .r = r, .fd = -1};
	memset(r, 0, sizeof *r);
	r->probe = *p;
	if (p->shape == PQ_CHK_HRR)
		snprintf(r->offered, sizeof r->offered, "%s:*%s", p->group, cfg->hrr_share);
	else
		snprintf(r->offered, sizeof r->offered, "%s", p->group);
	int rc = probe(&x, d);
	if (x.fd >= 0)
		close(x.fd);
	SSL_free(x.ssl);
	free(x.flight);
	ERR_clear_error();
	return rc;
}
