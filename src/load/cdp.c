/* Chromium's DevTools pipe (load/cdp.h). */
#include "load/cdp.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MSG_MAX (4u << 20)

typedef struct cdp {
	const pq_cdp_cfg *c;
	char *buf; /* bytes read, not yet taken as messages */
	size_t len, cap;
	int id;		   /* the last request's */
	char session[128]; /* the tab's, after attaching */
	const char *url;   /* the navigation under way, for messages */
} cdp;

static int send_msg(cdp *x, const char *method, const char *params, pq_diag *d)
{
	char m[2048];
	int k = snprintf(m, sizeof m, "{\"id\":%d,%s%s%s\"method\":\"%s\",\"params\":%s}", ++x->id,
			 x->session[0] ? "\"sessionId\":\"" : "", x->session, x->session[0] ? "\"," : "", method,
			 params);
	if (k < 0 || (size_t)k + 1 > sizeof m)
		return pq_diag_set(d, PQ_ETOOBIG, "DevTools pipe: the %s request is over %zu bytes", method, sizeof m);
	for (size_t off = 0; off < (size_t)k + 1;) { /* the NUL ends the message */
		ssize_t w = write(x->c->wfd, m + off, (size_t)k + 1 - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return pq_diag_set(d, PQ_EIO, "DevTools pipe: the browser stopped reading (%s)",
					   w < 0 ? strerror(errno) : "closed");
		off += (size_t)w;
	}
	return 0;
}

/* The next whole message, parsed (the caller's to free), waiting up to the deadline. */
static int next_msg(cdp *x, cJSON **out, pq_diag *d)
{
	for (;;) {
		char *nul = x->len ? memchr(x->buf, '\0', x->len) : NULL;
		if (nul) {
			size_t k = (size_t)(nul - x->buf) + 1;
			*out = cJSON_ParseWithLength(x->buf, k - 1);
			memmove(x->buf, x->buf + k, x->len - k);
			x->len -= k;
			if (!*out)
				return pq_diag_set(d, PQ_EPROTO, "DevTools pipe: a message that is not JSON");
			return 0;
		}
		if (x->len + 65536 > x->cap) {
			if (x->cap >= MSG_MAX)
				return pq_diag_set(d, PQ_ETOOBIG, "DevTools pipe: a message over %u bytes", MSG_MAX);
			char *nb = realloc(x->buf, x->cap + 65536 * 2);
			if (!nb)
				return pq_diag_set(d, PQ_ENOMEM, "out of memory");
			x->buf = nb, x->cap += 65536 * 2;
		}
		/* what the browser has written is taken even at the deadline */
		int64_t left = x->c->deadline_ns - pq_clock_now(x->c->clock);
		struct pollfd p = {.fd = x->c->rfd, .events = POLLIN};
		int r = poll(&p, 1, left <= 0 ? 0 : left > 100 * PQ_NS_PER_MS ? 100 : (int)(left / PQ_NS_PER_MS) + 1);
		if (r < 0 && errno != EINTR)
			return pq_diag_set(d, -errno, "DevTools pipe: poll: %s", strerror(errno));
		if (r == 0 && left <= 0)
			return pq_diag_set(d, PQ_ETIMEOUT, "DevTools pipe: no answer by the deadline %s%s",
					   x->url ? "navigating to " : "opening its tab", x->url ? x->url : "");
		if (r <= 0)
			continue;
		ssize_t k = read(x->c->rfd, x->buf + x->len, x->cap - x->len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return pq_diag_set(d, PQ_EIO, "DevTools pipe: the browser closed it %s%s (it died)",
					   x->url ? "navigating to " : "opening its tab", x->url ? x->url : "");
		x->len += (size_t)k;
	}
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Waits for the reply to the last request (its result into *result, NULL: not wanted)
 * and, when event is not NULL, for that event of the tab; either may come first. */
static int await(cdp *x, const char *method, const char *event, cJSON **result, pq_diag *d)
{
	int replied = 0, fired = event == NULL, rc = 0;
	while (rc == 0 && !(replied && fired)) {
		cJSON *m = NULL;
		if ((rc = next_msg(x, &m, d)) < 0)
			break;
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
		const char *ev = str(m, "method"), *sid = str(m, "sessionId");
		if (cJSON_IsNumber(id) && id->valueint == x->id) {
			const cJSON *err = cJSON_GetObjectItemCaseSensitive(m, "error");
			replied = 1;
			if (err)
				rc = pq_diag_set(d, PQ_EPROTO, "DevTools pipe: the browser refused %s: %.200s", method,
						 str(err, "message") ? str(err, "message") : "no reason given");
			else if (result)
				*result = cJSON_DetachItemFromObjectCaseSensitive(m, "result");
		} else if (event && ev && strcmp(ev, event) == 0 && sid && strcmp(sid, x->session) == 0) {
			fired = 1;
		}
		cJSON_Delete(m);
	}
	return rc;
}

/* A command whose result's `key` (a string) is wanted in out. */
static int call_for(cdp *x, const char *method, const char *params, const char *key, char *out, size_t n,
		    pq_diag *d)
{
	cJSON *res = NULL;
	int rc = send_msg(x, method, params, d);
	if (rc == 0)
		rc = await(x, method, NULL, &res, d);
	const char *v = str(res, key);
	if (rc == 0 && (!v || strlen(v) >= n))
		rc = pq_diag_set(d, PQ_EPROTO, "DevTools pipe: %s answered without a usable %s", method, key);
	else if (rc == 0)
		snprintf(out, n, "%s", v);
	cJSON_Delete(res);
	return rc;
}

static int navigate(cdp *x, const char *url, pq_diag *d)
{
	char params[1200];
	cJSON *res = NULL;
	x->url = url;
	if ((size_t)snprintf(params, sizeof params, "{\"url\":\"%s\"}", url) >= sizeof params ||
	    strpbrk(url, "\"\\"))
		return pq_diag_set(d, PQ_EINVAL, "DevTools pipe: the URL '%.200s' cannot be sent", url);
	int rc = send_msg(x, "Page.navigate", params, d);
	if (rc == 0)
		rc = await(x, "Page.navigate", "Page.loadEventFired", &res, d);
	const char *why = str(res, "errorText");
	if (rc == 0 && why && why[0])
		rc = pq_diag_set(d, PQ_EPROTO, "the navigation to %.200s failed: %.100s", url, why);
	cJSON_Delete(res);
	return rc;
}

int pq_cdp_navigate(const pq_cdp_cfg *c, size_t *loaded, pq_diag *d)
{
	cdp x = {.c = c};
	char target[128], params[256];
	*loaded = 0;
	int rc = call_for(&x, "Target.createTarget", "{\"url\":\"about:blank\"}", "targetId", target, sizeof target, d);
	if (rc == 0) {
		snprintf(params, sizeof params, "{\"targetId\":\"%s\",\"flatten\":true}", target);
		rc = call_for(&x, "Target.attachToTarget", params, "sessionId", x.session, sizeof x.session, d);
	}
	if (rc == 0 && (rc = send_msg(&x, "Page.enable", "{}", d)) == 0)
		rc = await(&x, "Page.enable", NULL, NULL, d);
	for (size_t i = 0; rc == 0 && i < c->n; i++)
		if ((rc = navigate(&x, c->urls[i], d)) == 0)
			(*loaded)++;
	if (rc == 0) { /* the browser's own session: no sessionId */
		x.session[0] = '\0';
		(void)send_msg(&x, "Browser.close", "{}", d);
	}
	free(x.buf);
	return rc;
}
