/* A spec key's values (exp/spec_int.h): "v1, v2, ..." read against the key's entry in
 * the dimension table: scalars with units, ranges with a step, algorithms, names and
 * choices, each checked, none listed twice. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "exp/spec_int.h"
#include "net/profile.h"
#include "tls/groups.h"

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_."

char *pq_exp_spec_trim(char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	size_t n = strlen(p);
	while (n && isspace((unsigned char)p[n - 1]))
		p[--n] = '\0';
	return p;
}

static int push(pq_exp_list *l, const pq_exp_val *v, const char *where, pq_diag *d)
{
	if (l->n >= PQ_EXP_MAX_VALUES)
		return pq_diag_set(d, PQ_ETOOBIG, "%s: more than %d values in one dimension (a range with too small a step?)",
				   where, PQ_EXP_MAX_VALUES);
	pq_exp_val *nv = realloc(l->v, (l->n + 1) * sizeof *nv);
	if (!nv)
		return pq_diag_set(d, PQ_ENOMEM, "%s: out of memory", where);
	l->v = nv;
	l->v[l->n++] = *v;
	return 0;
}

/* One scalar of a numeric type into v->i (or v->f). */
static int scalar(const pq_dim *k, const char *tok, const char *where, pq_exp_val *v, pq_diag *d)
{
	uint64_t u;
	int64_t ns;
	switch (k->type) {
	case PQ_DT_INT:
		return pq_parse_int(tok, where, k->min, k->max, &v->i, d);
	case PQ_DT_SIZE:
		if (pq_parse_size(tok, where, &u, d) < 0)
			return PQ_EINVAL;
		if (k->max && u > (uint64_t)k->max)
			return pq_diag_set(d, PQ_ERANGE, "%s: '%s' is over the %lld bytes allowed; allowed: %s", where, tok,
					   k->max, pq_dim_allowed(k, (char[200]){0}, 200));
		v->i = (long long)u;
		return 0;
	case PQ_DT_DUR:
		if (pq_parse_duration(tok, where, &ns, d) < 0)
			return PQ_EINVAL;
		v->i = ns;
		return 0;
	default:
		return pq_diag_set(d, PQ_EINVAL, "%s: not a number", where);
	}
}

/* A range's step in the unit of its values but not bound by their limits (a step of 100
 * in 600..1500 is no MTU), and then judged as a step: above 0, at most the span (a range
 * A..A, as a generated spec may write, is its one value with any step above 0). */
static int range_step(const pq_dim *k, const char *tok, const char *where, const char *range, long long span,
		      long long *out, pq_diag *d)
{
	pq_dim unbounded = *k;
	pq_exp_val s = {0};
	char what[240], sp[32];
	snprintf(what, sizeof what, "%s: step", where);
	long long most = span ? span : LLONG_MAX;
	unbounded.min = 1; /* integers: 1 to the span, in the integer parser's words */
	unbounded.max = k->type == PQ_DT_INT ? most : 0; /* sizes: 0 is no limit */
	if (scalar(&unbounded, tok, what, &s, d) < 0)
		return PQ_EINVAL;
	if (s.i > 0 && s.i <= most) {
		*out = s.i;
		return 0;
	}
	if (k->type == PQ_DT_DUR)
		pq_fmt_duration(sp, sizeof sp, span);
	else
		snprintf(sp, sizeof sp, "%lld%s", span, k->type == PQ_DT_SIZE ? " bytes" : "");
	return pq_diag_set(d, PQ_ERANGE, "%s: step '%s' does not fit the range '%s': a step is above 0 and at most B - A (%s)",
			   where, tok, range, sp);
}

static int range(const pq_dim *k, pq_exp_list *l, char *tok, const char *where, pq_diag *d)
{
	char *dots = strstr(tok, "..");
	char *step = strstr(tok, " step ");
	char whole[128];
	snprintf(whole, sizeof whole, "%s", tok);
	if (k->type != PQ_DT_INT && k->type != PQ_DT_SIZE && k->type != PQ_DT_DUR)
		return pq_diag_set(d, PQ_EINVAL, "%s: '%s': this key takes no range; allowed: %s", where, tok,
				   pq_dim_allowed(k, (char[160]){0}, 160));
	if (!step)
		return pq_diag_set(d, PQ_EINVAL, "%s: range '%s' needs a step: 'A..B step S'", where, tok);
	*dots = '\0';
	*step = '\0';
	pq_exp_val a = {0}, b = {0};
	long long s = 0;
	if (scalar(k, pq_exp_spec_trim(tok), where, &a, d) < 0 ||
	    scalar(k, pq_exp_spec_trim(dots + 2), where, &b, d) < 0)
		return PQ_EINVAL;
	if (b.i < a.i)
		return pq_diag_set(d, PQ_EINVAL, "%s: range '%s' needs A <= B", where, whole);
	if (range_step(k, pq_exp_spec_trim(step + 6), where, whole, b.i - a.i, &s, d) < 0)
		return PQ_EINVAL;
	if ((b.i - a.i) / s >= PQ_EXP_MAX_VALUES)
		return pq_diag_set(d, PQ_ETOOBIG, "%s: the range has %lld values; at most %d per dimension", where,
				   (b.i - a.i) / s + 1, PQ_EXP_MAX_VALUES);
	for (long long x = a.i; x <= b.i; x += s) {
		pq_exp_val v = {.i = x};
		int rc = push(l, &v, where, d);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int one_value(const pq_dim *k, pq_exp_list *l, char *tok, const char *where, pq_diag *d)
{
	pq_exp_val v = {0};
	char buf[200];
	/* "A..B": a range, or for the keys that take no range that message; but in a name, a
	 * path or a response ".." is part of the value (judged as such below) */
	if (strstr(tok, "..") && k->type != PQ_DT_STR && k->type != PQ_DT_RESP)
		return range(k, l, tok, where, d);
	if (k == &pq_dims[PQ_D_PAD] && strncmp(tok, "like ", 5) == 0) {
		const pq_alg *a;
		if (pq_alg_lookup(pq_exp_spec_trim(tok + 5), where, &a, d) < 0)
			return PQ_EINVAL;
		v.ptr = a;
		return push(l, &v, where, d);
	}
	int rc;
	switch (k->type) {
	case PQ_DT_STR:
	case PQ_DT_GROUPS:
		if (strlen(tok) >= sizeof v.s || strpbrk(tok, " \t\"'"))
			return pq_diag_set(d, PQ_EINVAL, "%s: '%s' must be one word of fewer than %zu bytes", where,
					   tok, sizeof v.s);
		/* the name is a directory (out/NAME/results.db): one plain file name */
		if (k == &pq_dims[PQ_D_NAME] && (tok[0] == '.' || tok[strspn(tok, NAME_CHARS)]))
			return pq_diag_set(d, PQ_EINVAL,
					   "%s: '%s' is not a name; a name is letters, digits, '-', '_' and '.' (not "
					   "first): it names the directory out/NAME",
					   where, tok);
		/* a misspelt group is refused here, not measured as failed handshakes */
		if (k->type == PQ_DT_GROUPS && (rc = pq_tls_groups_check(tok, k->choices, where, d)) < 0)
			return rc;
		snprintf(v.s, sizeof v.s, "%s", tok);
		break;
	case PQ_DT_INT:
	case PQ_DT_SIZE:
	case PQ_DT_DUR:
		if (scalar(k, tok, where, &v, d) < 0)
			return PQ_EINVAL;
		break;
	case PQ_DT_FRAC:
		if (pq_parse_fraction(tok, where, &v.f, d) < 0)
			return PQ_EINVAL;
		break;
	case PQ_DT_RATE: {
		uint64_t r;
		if (pq_parse_rate(tok, where, &r, d) < 0)
			return PQ_EINVAL;
		if (r && ((k->min && r < (uint64_t)k->min) || (k->max && r > (uint64_t)k->max)))
			return pq_diag_set(d, PQ_ERANGE, "%s: '%s' is out of range; allowed: %s", where, tok,
					   pq_dim_allowed(k, buf, sizeof buf));
		v.i = (long long)r;
		break;
	}
	case PQ_DT_DOUBLE:
		if (pq_parse_double(tok, where, (double)k->min, (double)k->max, &v.f, d) < 0)
			return PQ_EINVAL;
		break;
	case PQ_DT_CHOICE: {
		long long idx = 0;
		const char *c = k->choices;
		size_t tl = strlen(tok);
		for (;;) {
			const char *bar = strchr(c, '|');
			size_t cl = bar ? (size_t)(bar - c) : strlen(c);
			if (cl == tl && strncmp(c, tok, tl) == 0)
				break;
			if (!bar)
				return pq_diag_set(d, PQ_EINVAL, "%s: '%s' is not allowed; allowed: %s", where, tok,
						   pq_dim_allowed(k, buf, sizeof buf));
			c = bar + 1;
			idx++;
		}
		v.i = idx;
		snprintf(v.s, sizeof v.s, "%s", tok);
		break;
	}
	case PQ_DT_ALG: {
		const pq_alg *a;
		if (pq_alg_lookup(tok, where, &a, d) < 0)
			return PQ_EINVAL;
		v.ptr = a;
		break;
	}
	case PQ_DT_RESP:
		if (strcmp(tok, "/") == 0 || strcmp(tok, "none") == 0) {
			snprintf(v.s, sizeof v.s, "%s", strcmp(tok, "/") == 0 ? "/" : "");
			v.i = -1;
		} else {
			uint64_t u;
			if (pq_parse_size(tok, where, &u, d) < 0 || u > 64ull << 20)
				return pq_diag_set(d, PQ_EINVAL, "%s: '%s' is not allowed; allowed: %s (sizes up to 64MiB)",
						   where, tok, pq_dim_allowed(k, buf, sizeof buf));
			v.i = (long long)u;
			snprintf(v.s, sizeof v.s, "/bytes/%llu", (unsigned long long)u);
		}
		break;
	case PQ_DT_PROFILE: {
		pq_link_config c;
		if (pq_profile_apply(tok, where, &c, d) < 0)
			return PQ_EINVAL;
		snprintf(v.s, sizeof v.s, "%s", tok);
		break;
	}
	}
	return push(l, &v, where, d);
}

/* The values token `tok` added to l (from index `first` on) against those before it: a
 * value listed twice would make two cells of one point, refused as such here rather
 * than later as two arms with one label. */
static int no_repeats(const pq_exp_list *l, size_t first, const char *tok, const char *where, pq_diag *d)
{
	for (size_t i = first; i < l->n; i++)
		for (size_t j = 0; j < i; j++)
			if (memcmp(&l->v[i], &l->v[j], sizeof l->v[i]) == 0)
				return pq_diag_set(d, PQ_EEXIST, strstr(tok, "..") ? "%s: '%s' repeats a value listed before it"
										  : "%s: '%s' is listed twice",
						   where, tok);
	return 0;
}

/* Parses "v1, v2, ..." into l (replacing what it held). */
int pq_exp_spec_set_list(enum pq_dim_id ki, pq_exp_list *l, const char *value, const char *where,
			 pq_diag *d)
{
	const pq_dim *k = &pq_dims[ki];
	char *copy = strdup(value);
	int rc = 0;
	if (!copy)
		return pq_diag_set(d, PQ_ENOMEM, "%s: out of memory", where);
	free(l->v);
	l->v = NULL;
	l->n = 0;
	l->given = 1;
	snprintf(l->where, sizeof l->where, "%s", where);
	char buf[200];
	char *t = pq_exp_spec_trim(copy);
	if (!*t) {
		rc = pq_diag_set(d, PQ_EINVAL, "%s: empty dimension; allowed: %s", where, pq_dim_allowed(k, buf, sizeof buf));
		goto out;
	}
	for (char *tok = t; tok;) {
		char *comma = strchr(tok, ',');
		if (comma)
			*comma = '\0';
		char *v = pq_exp_spec_trim(tok);
		if (!*v) {
			rc = pq_diag_set(d, PQ_EINVAL, "%s: empty value in the list; allowed: %s", where,
					 pq_dim_allowed(k, buf, sizeof buf));
			goto out;
		}
		size_t first = l->n;
		char shown[128]; /* the token as given: a range is cut up while read */
		snprintf(shown, sizeof shown, "%s", v);
		if ((rc = one_value(k, l, v, where, d)) < 0 || (rc = no_repeats(l, first, shown, where, d)) < 0)
			goto out;
		tok = comma ? comma + 1 : NULL;
	}
	if ((k->flags & PQ_DIM_GLOBAL) && l->n > 1)
		rc = pq_diag_set(d, PQ_EINVAL, "%s: takes one value, not a list", where);
out:
	free(copy);
	return rc;
}
