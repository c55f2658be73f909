/* Chromium's NetLog into a connection record (load/netlog.h). */
#include "load/netlog.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/wire.h"
#include "tls/acct.h"

/* The event types read, by their NetLog names. */
#define NL_EVENTS(X)                                                            \
	X(E_TCP_CONNECT, "TCP_CONNECT")                                         \
	X(E_SSL_CONNECT, "SSL_CONNECT")                                         \
	X(E_HS_SENT, "SSL_HANDSHAKE_MESSAGE_SENT")                              \
	X(E_HS_RECV, "SSL_HANDSHAKE_MESSAGE_RECEIVED")                          \
	X(E_SENT, "SOCKET_BYTES_SENT")                                          \
	X(E_RECV, "SOCKET_BYTES_RECEIVED")                                      \
	X(E_VERIFY, "CERT_VERIFIER_REQUEST")                                    \
	X(E_START_JOB, "URL_REQUEST_START_JOB")                                 \
	X(E_SEND_REQ, "HTTP_TRANSACTION_SEND_REQUEST")                          \
	X(E_HEADERS, "HTTP_TRANSACTION_READ_RESPONSE_HEADERS")                  \
	X(E_TO_JOB, "HTTP_STREAM_REQUEST_BOUND_TO_JOB")                         \
	X(E_TO_SOCKET, "SOCKET_POOL_BOUND_TO_SOCKET")                           \
	X(E_ALIVE, "REQUEST_ALIVE")                                             \
	X(E_BODY, "URL_REQUEST_JOB_FILTERED_BYTES_READ")

enum nl_ev {
#define NL_ENUM(e, name) e,
	NL_EVENTS(NL_ENUM)
#undef NL_ENUM
	E_COUNT
};

static const char *const ev_names[E_COUNT] = {
#define NL_NAME(e, name) name,
	NL_EVENTS(NL_NAME)
#undef NL_NAME
};

enum { PH_NONE = 0, PH_BEGIN = 1, PH_END = 2 };

#define NL_OTHERS 256

typedef struct nlog {
	const cJSON *events, *net_errors;
	int ids[E_COUNT]; /* the log's number for each event type; -1 absent */
	const pq_netlog_target *t;
	double nav, job, sock;   /* source ids; -1 none */
	double last_to_target;   /* the last socket connected to the target */
	double mf, mf_end;       /* the last main-frame request seen and its end (ms; -1 not yet) */
	double since;            /* the end of the main-frame request before the navigation, ms */
	double nav_end;          /* the navigation's end, ms; -1 not logged */
	/* the jobs of other requests (a favicon's) and the sockets bound to them: not the
	 * navigation's connections (at most NL_OTHERS of each are told apart) */
	double other_jobs[NL_OTHERS], other_socks[NL_OTHERS];
	size_t njobs, nsocks;
	double t0;               /* the socket's TCP_CONNECT begin, ms */
	unsigned conns;
} nlog;

/* One event's fields. */
typedef struct nlev {
	int ev;      /* enum nl_ev, or -1 */
	int phase;
	double src, time;
	const cJSON *params;
} nlev;

static double num(const cJSON *o, const char *key, double def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : def;
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void event(const nlog *L, const cJSON *e, nlev *out)
{
	double type = num(e, "type", -1);
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(e, "source");
	const char *time = str(e, "time");
	out->ev = -1;
	for (int i = 0; i < E_COUNT; i++)
		if (L->ids[i] >= 0 && (double)L->ids[i] == type)
			out->ev = i;
	out->phase = (int)num(e, "phase", PH_NONE);
	out->src = num(src, "id", -1);
	out->time = time ? strtod(time, NULL) : num(e, "time", -1);
	out->params = cJSON_GetObjectItemCaseSensitive(e, "params");
}

static double dep(const cJSON *params)
{
	return num(cJSON_GetObjectItemCaseSensitive(params, "source_dependency"), "id", -1);
}

static int main_frame(const nlev *v)
{
	const char *s = str(v->params, "request_type");
	return v->ev == E_START_JOB && v->phase == PH_BEGIN && s && strcmp(s, "main frame") == 0;
}

static int in(const double *ids, size_t n, double id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

/* Pass one: the navigation (the last main-frame request for the URL: a warm or resumed
 * browser navigated before it), its job and socket, the sockets connected to the target
 * and when the main-frame request before the navigation ended. */
static void find(nlog *L)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, L->events)
	{
		nlev v;
		event(L, e, &v);
		const char *s;
		if (main_frame(&v) && (s = str(v.params, "url")) && strcmp(s, L->t->url) == 0) {
			L->nav = v.src;
			L->job = L->sock = -1;
			L->since = L->mf_end;
			L->nav_end = -1;
		}
		if (main_frame(&v)) {
			L->mf = v.src;
			L->mf_end = -1;
		} else if (v.ev == E_ALIVE && v.phase == PH_END && v.src == L->mf) {
			L->mf_end = v.time;
			L->nav_end = v.src == L->nav ? v.time : L->nav_end;
		} else if (v.ev == E_TO_JOB && v.src == L->nav && L->nav >= 0) {
			L->job = dep(v.params);
		} else if (v.ev == E_TO_JOB && L->njobs < NL_OTHERS) {
			L->other_jobs[L->njobs++] = dep(v.params);
		} else if (v.ev == E_TCP_CONNECT && v.phase == PH_END && (s = str(v.params, "remote_address")) &&
			   strcmp(s, L->t->addr) == 0) {
			L->last_to_target = v.src;
		}
	}
	/* the job's socket: a speculative one was bound to the job before the job to the
	 * navigation */
	cJSON_ArrayForEach(e, L->events)
	{
		nlev v;
		event(L, e, &v);
		if (v.ev == E_TO_SOCKET && v.src == L->job && L->job >= 0)
			L->sock = dep(v.params);
		else if (v.ev == E_TO_SOCKET && L->nsocks < NL_OTHERS && in(L->other_jobs, L->njobs, v.src))
			L->other_socks[L->nsocks++] = dep(v.params);
	}
	/* the navigation's connections: those connected after the request before it, before
	 * its own end and not for another request (a favicon's) */
	cJSON_ArrayForEach(e, L->events)
	{
		nlev v;
		event(L, e, &v);
		const char *s;
		if (v.ev == E_TCP_CONNECT && v.phase == PH_END && v.time >= L->since &&
		    (L->nav_end < 0 || v.time <= L->nav_end) && (v.src == L->sock || !in(L->other_socks, L->nsocks, v.src)) &&
		    (s = str(v.params, "remote_address")) && strcmp(s, L->t->addr) == 0)
			L->conns++;
	}
}

static int64_t rel(const nlog *L, double ms)
{
	return (int64_t)((ms - L->t0) * 1e6);
}

/* The code point's OpenSSL name, or "0x%04x". */
static void codepoint(double cp, int group, char *buf, size_t n)
{
	static const struct {
		int cp;
		const char *name;
	} groups[] = {{0x001d, "x25519"},         {0x0017, "secp256r1"},     {0x0018, "secp384r1"},
		      {0x11ec, "X25519MLKEM768"}, {0x11eb, "SecP256r1MLKEM768"}, {0x11ed, "SecP384r1MLKEM1024"},
		      {0x0200, "MLKEM512"},       {0x0201, "MLKEM768"},      {0x0202, "MLKEM1024"}},
	  sigs[] = {{0x0403, "ecdsa_secp256r1_sha256"}, {0x0503, "ecdsa_secp384r1_sha384"},
		    {0x0804, "rsa_pss_rsae_sha256"},    {0x0805, "rsa_pss_rsae_sha384"},
		    {0x0807, "ed25519"},                {0x0904, "mldsa44"},
		    {0x0905, "mldsa65"},                {0x0906, "mldsa87"}};
	size_t k = group ? sizeof groups / sizeof groups[0] : sizeof sigs / sizeof sigs[0];
	for (size_t i = 0; i < k; i++)
		if ((group ? groups[i].cp : sigs[i].cp) == (int)cp) {
			snprintf(buf, n, "%s", group ? groups[i].name : sigs[i].name);
			return;
		}
	snprintf(buf, n, "0x%04x", (unsigned)cp & 0xffff);
}

/* A handshake message's length from its base64 bytes: the 4-byte header's 24-bit length
 * plus the header; 0 when the bytes are not there. */
static uint32_t hs_len(const cJSON *params)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *s = str(params, "bytes");
	unsigned char h[6];
	if (!s || strlen(s) < 8)
		return 0;
	for (int i = 0; i < 8; i += 4) {
		uint32_t w = 0;
		for (int j = 0; j < 4; j++) {
			const char *p = strchr(b64, s[i + j]);
			if (!p || !s[i + j])
				return 0;
			w = w << 6 | (uint32_t)(p - b64);
		}
		h[i / 4 * 3] = (unsigned char)(w >> 16), h[i / 4 * 3 + 1] = (unsigned char)(w >> 8);
		h[i / 4 * 3 + 2] = (unsigned char)w;
	}
	return ((uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3]) + 4;
}

/* The net error's kind and its name ("ERR_CERT_AUTHORITY_INVALID") into the record. */
static void fail(const nlog *L, pq_load_record *r, double err, const char *where)
{
	const char *name = NULL;
	const cJSON *e;
	cJSON_ArrayForEach(e, L->net_errors) if (cJSON_IsNumber(e) && e->valuedouble == err) name = e->string;
	int code = (int)err;
	r->err = code <= -200 && code > -300   ? PQ_LERR_VERIFY
		 : code == -102                ? PQ_LERR_REFUSED
		 : code == -101                ? PQ_LERR_RESET
		 : code == -100                ? PQ_LERR_CLOSED
		 : code == -118                ? PQ_LERR_TIMEOUT_CONNECT
		 : code == -104 || code == -109 ? PQ_LERR_CONNECT
						: PQ_LERR_PROTOCOL;
	snprintf(r->err_detail, sizeof r->err_detail, "%s: net_error %d (%s)", where, code, name ? name : "unnamed");
}

/* The socket's own events: connection, handshake, network times. */
static void on_socket(nlog *L, const nlev *v, pq_load_record *r, int *verify_began, double *verify_t)
{
	double err;
	if (v->ev == E_TCP_CONNECT && v->phase == PH_BEGIN) {
		L->t0 = v->time;
		r->start_ns = 0;
	} else if (v->ev == E_TCP_CONNECT && v->phase == PH_END) {
		r->t[PQ_PH_CONNECT] = rel(L, v->time);
	} else if (v->ev == E_SENT && r->t[PQ_PH_CLIENT_HELLO] < 0 && r->t[PQ_PH_CONNECT] >= 0) {
		r->t[PQ_PH_CLIENT_HELLO] = rel(L, v->time);
		unsigned b = (unsigned)num(v->params, "byte_count", 0);
		r->ch_segs[0] = L->t->mss && b ? (b + L->t->mss - 1) / L->t->mss : 0;
	} else if (v->ev == E_HS_SENT || v->ev == E_HS_RECV) {
		int type = (int)num(v->params, "type", -1), rx = v->ev == E_HS_RECV;
		r->hs_bytes[rx ? PQ_RX : PQ_TX][pq_tls_hs_index(type)] += hs_len(v->params);
		if (!rx && type == 1 && !r->ch_bytes[0]) {
			r->ch_bytes[0] = hs_len(v->params);
		} else if (!rx && type == 1 && !r->ch_bytes[1]) {
			/* a second ClientHello: the server answered with a HelloRetryRequest (a
			 * ServerHello by type, RFC 8446 4.1.3) */
			r->hrr = 1;
			r->ch_bytes[1] = hs_len(v->params);
			unsigned tcp = r->ch_bytes[1] + PQ_WIRE_TLS_RECORD_HDR;
			r->ch_segs[1] = L->t->mss ? (tcp + L->t->mss - 1) / L->t->mss : 0;
		}
		if (rx && type == 2 && r->t[PQ_PH_SERVER_HELLO] < 0)
			r->t[PQ_PH_SERVER_HELLO] = rel(L, v->time);
	} else if (v->ev == E_RECV) {
		uint64_t b = (uint64_t)num(v->params, "byte_count", 0);
		r->tcp_bytes[PQ_RX] += b;
		if (r->t[PQ_PH_HANDSHAKE] < 0 && !*verify_began)
			r->br_flight_ns = rel(L, v->time);
		else if (r->br_req_net_ns >= 0 && r->br_ttfb_net_ns < 0)
			r->br_ttfb_net_ns = rel(L, v->time);
	} else if (v->ev == E_VERIFY && v->phase == PH_BEGIN && !*verify_began) {
		*verify_began = 1;
		*verify_t = v->time;
	} else if (v->ev == E_VERIFY && v->phase == PH_END && *verify_began && r->br_verify_ns < 0) {
		r->br_verify_ns = (int64_t)((v->time - *verify_t) * 1e6);
	} else if (v->ev == E_SSL_CONNECT && v->phase == PH_END) {
		if ((err = num(v->params, "net_error", 0)) < 0) {
			fail(L, r, err, "TLS handshake");
			return;
		}
		r->t[PQ_PH_HANDSHAKE] = rel(L, v->time);
		codepoint(num(v->params, "key_exchange_group", 0), 1, r->group, sizeof r->group);
		if (num(v->params, "peer_signature_algorithm", 0) > 0)
			codepoint(num(v->params, "peer_signature_algorithm", 0), 0, r->sigalg, sizeof r->sigalg);
		static const char *const suites[] = {"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
						     "TLS_CHACHA20_POLY1305_SHA256"};
		int cs = (int)num(v->params, "cipher_suite", 0) - 0x1301;
		snprintf(r->cipher, sizeof r->cipher, "%s", cs >= 0 && cs < 3 ? suites[cs] : "");
		const char *ver = str(v->params, "version");
		snprintf(r->version, sizeof r->version, "%s", ver ? ver : "");
		if (strncmp(r->version, "TLS ", 4) == 0) /* OpenSSL's spelling: TLSv1.3 */
			snprintf(r->version, sizeof r->version, "TLSv%s", ver + 4);
		const cJSON *res = cJSON_GetObjectItemCaseSensitive(v->params, "is_resumed");
		r->resumed = cJSON_IsTrue(res);
	} else if (v->ev == E_SENT && r->t[PQ_PH_HANDSHAKE] >= 0 && r->br_req_net_ns < 0) {
		r->br_req_net_ns = rel(L, v->time);
	} else if (v->ev == E_TCP_CONNECT && v->phase == PH_END && (err = num(v->params, "net_error", 0)) < 0) {
		fail(L, r, err, "TCP connect");
	}
	if (v->ev == E_SENT)
		r->tcp_bytes[PQ_TX] += (uint64_t)num(v->params, "byte_count", 0);
}

/* The navigation's own events: request, response headers, body, its end. */
static void on_request(const nlog *L, const nlev *v, pq_load_record *r, double *alive_end)
{
	double err;
	if (v->ev == E_SEND_REQ && v->phase == PH_BEGIN && r->t[PQ_PH_REQUEST] < 0 && L->t0 >= 0) {
		r->t[PQ_PH_REQUEST] = rel(L, v->time);
	} else if (v->ev == E_HEADERS && r->t[PQ_PH_TTFB] < 0 && L->t0 >= 0) {
		r->t[PQ_PH_TTFB] = rel(L, v->time);
		const cJSON *h = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(v->params, "headers"), 0);
		const char *sp = cJSON_IsString(h) ? strchr(h->valuestring, ' ') : NULL;
		r->status = sp ? atoi(sp + 1) : 0;
	} else if (v->ev == E_BODY) {
		r->body_bytes += (uint64_t)num(v->params, "byte_count", 0);
	} else if (v->ev == E_START_JOB && v->phase == PH_END && (err = num(v->params, "net_error", 0)) < 0 &&
		   r->err == PQ_LERR_NONE) {
		fail(L, r, err, "navigation");
	} else if (v->ev == E_ALIVE && v->phase == PH_END) {
		*alive_end = v->time;
	}
}

/* Pass two: the socket's and the navigation's events into r. */
static void fill(nlog *L, pq_load_record *r)
{
	int verify_began = 0;
	double verify_t = 0, alive_end = -1, last_rx = -1;
	const cJSON *e;
	cJSON_ArrayForEach(e, L->events)
	{
		nlev v;
		event(L, e, &v);
		if (v.ev < 0)
			continue;
		if (v.src == L->sock) {
			on_socket(L, &v, r, &verify_began, &verify_t);
			if (v.ev == E_RECV && r->br_req_net_ns >= 0 && alive_end < 0)
				last_rx = v.time;
		} else if (v.src == L->nav) {
			on_request(L, &v, r, &alive_end);
		}
	}
	if (last_rx >= 0 && r->t[PQ_PH_TTFB] >= 0) {
		r->t[PQ_PH_TTLB] = r->t[PQ_PH_END] = rel(L, last_rx);
		r->requests = r->status > 0;
	}
	r->br_conns = L->conns;
	if (r->err == PQ_LERR_NONE && r->t[PQ_PH_TTFB] < 0) {
		r->err = r->t[PQ_PH_HANDSHAKE] < 0 ? PQ_LERR_TIMEOUT_HANDSHAKE : PQ_LERR_TIMEOUT_RESPONSE;
		snprintf(r->err_detail, sizeof r->err_detail, "the browser's log ends before the %s",
			 r->t[PQ_PH_HANDSHAKE] < 0 ? "handshake ended" : "response headers");
	}
}

static void record_init(pq_load_record *r)
{
	memset(r, 0, sizeof *r);
	for (int p = 0; p < PQ_PH_COUNT; p++)
		r->t[p] = -1;
	r->browser = 1;
	r->br_flight_ns = r->br_verify_ns = r->br_req_net_ns = r->br_ttfb_net_ns = -1;
	r->wait_ns = -1;
}

/* A log cut short by a killed browser ends inside "events": closed after its last whole
 * event. The copy is the caller's to free; NULL when there is nothing to close. */
static char *close_cut(const char *buf, size_t len)
{
	const char *ev = strstr(buf, "\"events\"");
	if (!ev)
		return NULL;
	size_t end = len;
	while (end > (size_t)(ev - buf) && buf[end - 1] != '}')
		end--;
	char *c = malloc(end + 4);
	if (!c || end <= (size_t)(ev - buf)) {
		free(c);
		return NULL;
	}
	memcpy(c, buf, end);
	memcpy(c + end, "]}", 3);
	return c;
}

static void ids(nlog *L, const cJSON *types)
{
	for (int i = 0; i < E_COUNT; i++)
		L->ids[i] = (int)num(types, ev_names[i], -1);
}

int pq_netlog_read(const char *buf, size_t len, const pq_netlog_target *t, pq_load_record *r, char *version,
		   size_t vn, pq_diag *d)
{
	int rc = 0;
	char *fixed = NULL;
	cJSON *root = cJSON_ParseWithLength(buf, len);
	if (!root && (fixed = close_cut(buf, len)))
		root = cJSON_Parse(fixed);
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(root, "constants");
	nlog L = {.events = cJSON_GetObjectItemCaseSensitive(root, "events"),
		  .net_errors = cJSON_GetObjectItemCaseSensitive(c, "netError"),
		  .t = t, .nav = -1, .job = -1, .sock = -1, .last_to_target = -1, .t0 = -1,
		  .mf = -1, .mf_end = -1, .since = -1, .nav_end = -1};
	record_init(r);
	if (version && vn)
		snprintf(version, vn, "%s", "");
	if (!root) {
		rc = pq_diag_set(d, PQ_EPARSE, "the browser's NetLog is not JSON (%zu bytes)", len);
		goto out;
	}
	if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(c, "logEventTypes")) || !cJSON_IsArray(L.events)) {
		rc = pq_diag_set(d, PQ_EPARSE, "the browser's NetLog has no %s",
				 cJSON_IsArray(L.events) ? "constants.logEventTypes" : "events array");
		goto out;
	}
	const char *v = str(cJSON_GetObjectItemCaseSensitive(c, "clientInfo"), "version");
	if (version && vn && v)
		snprintf(version, vn, "%s", v);
	ids(&L, cJSON_GetObjectItemCaseSensitive(c, "logEventTypes"));
	find(&L);
	if (L.sock < 0)
		L.sock = L.last_to_target;
	if (L.nav < 0 && L.sock < 0) {
		r->err = PQ_LERR_CONNECT;
		snprintf(r->err_detail, sizeof r->err_detail, "the browser's log has no navigation to %.50s", t->url);
		goto out;
	}
	fill(&L, r);
	if (L.sock >= 0 && L.since >= 0 && L.t0 >= 0 && L.t0 < L.since && r->err == PQ_LERR_NONE) {
		r->err = PQ_LERR_PROTOCOL; /* no new connection: nothing of a handshake to measure */
		snprintf(r->err_detail, sizeof r->err_detail,
			 "the navigation reused a connection of the one before (the server kept it alive)");
	}
	if (L.sock < 0 && r->err == PQ_LERR_NONE) {
		r->err = PQ_LERR_CONNECT;
		snprintf(r->err_detail, sizeof r->err_detail, "the browser connected no socket to %.50s", t->addr);
	}
out:
	cJSON_Delete(root);
	free(fixed);
	return rc;
}
