#include "tls/qhello.h"

#include <limits.h>
#include <openssl/tls1.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "tls/quic.h"

/* OpenSSL's preferred TLS name of a group it implements (the one SSL_group_to_name
 * gives), matched case-insensitively (as OpenSSL reads a groups list), or NULL: also for
 * an alias such as P-256, which names the same group as secp256r1. */
static const char *implemented(STACK_OF(OPENSSL_CSTRING) * names, const char *name, size_t len)
{
	for (int i = 0; i < sk_OPENSSL_CSTRING_num(names); i++) {
		const char *n = sk_OPENSSL_CSTRING_value(names, i);
		if (strlen(n) == len && strncasecmp(n, name, len) == 0)
			return n;
	}
	return NULL;
}

/* One element of the list (len bytes at t): 1 when taken, 0 when the list cannot be
 * judged by name (a removal, DEFAULT, an alias, an unknown name even where OpenSSL would
 * skip it: conservative, since a group missed here would make a refusal foreseen that
 * OpenSSL does not make). */
static int add_group(pq_tls_qhello *q, STACK_OF(OPENSSL_CSTRING) * names, const char *t, size_t len)
{
	for (; len && (*t == '*' || *t == '?'); t++, len--)
		; /* a key share, or "ignore if unknown": the group is the same */
	const char *n = len && *t != '-' ? implemented(names, t, len) : NULL;
	if (!n || q->ngroups == PQ_TLS_QHELLO_MAX_GROUPS)
		return 0;
	snprintf(q->groups[q->ngroups++], sizeof q->groups[0], "%s", n);
	return 1;
}

void pq_tls_qhello_init(pq_tls_qhello *q, SSL_CTX *ctx, const char *groups)
{
	STACK_OF(OPENSSL_CSTRING) *names = groups ? sk_OPENSSL_CSTRING_new_null() : NULL;
	int ok = names && SSL_CTX_get0_implemented_groups(ctx, 0, names) == 1;
	q->ngroups = 0;
	/* Elements are separated by ':' within a tuple and '/' between tuples. */
	for (const char *t = groups; ok && *t;) {
		size_t len = strcspn(t, ":/");
		ok = add_group(q, names, t, len);
		t += len + (t[len] != '\0');
	}
	if (!ok || q->ngroups == 0)
		q->ngroups = -1;
	sk_OPENSSL_CSTRING_free(names);
}

/* A ClientHello extension's body after its two-byte length, or NULL when absent or
 * damaged. */
static const unsigned char *ext_list(SSL *s, unsigned type, size_t *len)
{
	const unsigned char *e;
	size_t n;
	if (!SSL_client_hello_get0_ext(s, type, &e, &n) || n < 2 ||
	    (size_t)(e[0] << 8 | e[1]) != n - 2)
		return NULL;
	*len = n - 2;
	return e + 2;
}

static int group_in_common(const pq_tls_qhello *q, SSL *s, const unsigned char *ids, size_t len)
{
	for (size_t i = 0; i + 1 < len; i += 2) {
		const char *name =
		    SSL_group_to_name(s, TLSEXT_nid_unknown | (ids[i] << 8 | ids[i + 1]));
		for (int k = 0; name && k < q->ngroups; k++)
			if (strcasecmp(name, q->groups[k]) == 0)
				return 1;
	}
	return 0;
}

const char *pq_tls_qhello_refusal(const pq_tls_qhello *q, SSL *s)
{
	size_t len;
	const unsigned char *list =
	    ext_list(s, TLSEXT_TYPE_application_layer_protocol_negotiation, &len);
	const unsigned char *sel;
	unsigned char sel_len;
	if (!list || len > UINT_MAX || !pq_tls_quic_alpn_pick(list, (unsigned)len, &sel, &sel_len))
		return "no ALPN in common";
	if (q->ngroups > 0 && (list = ext_list(s, TLSEXT_TYPE_supported_groups, &len)) &&
	    !group_in_common(q, s, list, len))
		return "no group in common";
	return NULL;
}
