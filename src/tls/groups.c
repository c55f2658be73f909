#include "tls/groups.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define PREFIXES "*-?"

/* An element's name after OpenSSL's prefixes. */
static const char *skip_prefixes(const char *e, const char *end)
{
	while (e < end && strchr(PREFIXES, *e))
		e++;
	return e;
}

int pq_tls_groups_has(const char *list, const char *name, size_t len)
{
	for (const char *p = list; *p;) {
		size_t l = strcspn(p, ":/");
		const char *n = skip_prefixes(p, p + l);
		if ((size_t)(p + l - n) == len && strncasecmp(n, name, len) == 0)
			return 1;
		p += l;
		if (*p)
			p++;
	}
	return 0;
}

int pq_tls_groups_meet(const char *a, const char *b)
{
	for (const char *p = a; *p;) {
		size_t l = strcspn(p, ":/");
		const char *n = skip_prefixes(p, p + l);
		if (n < p + l && pq_tls_groups_has(b, n, (size_t)(p + l - n)))
			return 1;
		p += l;
		if (*p)
			p++;
	}
	return 0;
}

const char *pq_tls_groups_known(char *buf, size_t n)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_method());
	STACK_OF(OPENSSL_CSTRING) *names = sk_OPENSSL_CSTRING_new_null();
	size_t at = 0;
	if (n)
		buf[0] = '\0';
	if (ctx && names && SSL_CTX_get0_implemented_groups(ctx, 0, names) == 1)
		for (int i = 0; i < sk_OPENSSL_CSTRING_num(names) && at < n; i++)
			at += (size_t)snprintf(buf + at, n - at, "%s%s", i ? " " : "",
					       sk_OPENSSL_CSTRING_value(names, i));
	sk_OPENSSL_CSTRING_free(names);
	SSL_CTX_free(ctx);
	return buf;
}

/* What a list of this syntax looks like, for messages. */
static const char *form(const char *syntax)
{
	if (strchr(syntax, '/'))
		return "group names separated by ':' or '/' (X25519MLKEM768/X25519)";
	if (strchr(syntax, ':'))
		return "group names separated by ':' (X25519MLKEM768:X25519)";
	return "one group name (X25519MLKEM768)";
}

/* One element (len bytes at e) of `list`: its syntax, then OpenSSL's word on the name. */
static int check_one(SSL_CTX *ctx, const char *list, const char *e, size_t len, const char *syntax,
		     const char *what, pq_diag *d)
{
	int prefixes = strchr(syntax, '*') != NULL;
	char name[64], known[600];
	if (!len || strspn(e, " \t") >= len)
		return pq_diag_set(d, PQ_EINVAL, "%s: '%s' has an empty element; give %s", what,
				   list, form(syntax));
	if (!prefixes && strchr(PREFIXES, e[0]))
		return pq_diag_set(d, PQ_EINVAL,
				   "%s: '%.*s': OpenSSL's prefix '%c' is not taken here; give %s",
				   what, (int)len, e, e[0], form(syntax));
	if (!prefixes && len >= 7 && strncasecmp(e, "DEFAULT", 7) == 0)
		return pq_diag_set(d, PQ_EINVAL,
				   "%s: '%.*s' is OpenSSL's list of groups, not a group; give %s",
				   what, (int)len, e, form(syntax));
	snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), e);
	ERR_set_mark();
	int ok = len < sizeof name && SSL_CTX_set1_groups_list(ctx, name) == 1;
	ERR_pop_to_mark();
	if (ok)
		return 0;
	pq_tls_groups_known(known, sizeof known);
	if (len == strlen(list))
		return pq_diag_set(d, PQ_EINVAL,
				   "%s: '%s' is not a group this OpenSSL knows; known: %s", what,
				   list, known);
	return pq_diag_set(d, PQ_EINVAL,
			   "%s: '%.*s' in '%s' is not a group this OpenSSL knows; known: %s", what,
			   (int)len, e, list, known);
}

int pq_tls_groups_check(const char *list, const char *syntax, const char *what, pq_diag *d)
{
	if (!list[0])
		return pq_diag_set(d, PQ_EINVAL, "%s: an empty list; give %s", what, form(syntax));
	SSL_CTX *ctx = SSL_CTX_new(TLS_method());
	int rc = 0;
	if (!ctx)
		return pq_diag_ossl(d, PQ_ETLS, "%s: cannot make a TLS context to check the groups",
				    what);
	for (const char *p = list; rc == 0;) {
		size_t l = strcspn(p, ":/");
		if (p[l] && !strchr(syntax, p[l]))
			rc = pq_diag_set(d, PQ_EINVAL,
					 "%s: '%s': '%c' does not separate groups here; give %s",
					 what, list, p[l], form(syntax));
		else
			rc = check_one(ctx, list, p, l, syntax, what, d);
		if (!p[l])
			break;
		p += l + 1;
	}
	SSL_CTX_free(ctx);
	return rc;
}
