#include "exp/spec.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "net/profile.h"
#include "tls/groups.h"

void pq_exp_spec_init(pq_exp_spec *s)
{
	memset(s, 0, sizeof *s);
}

static void section_dispose(pq_exp_section *sec)
{
	for (int i = 0; i < PQ_DIM_COUNT; i++)
		free(sec->key[i].v);
	memset(sec, 0, sizeof *sec);
}

void pq_exp_spec_dispose(pq_exp_spec *s)
{
	section_dispose(&s->global);
	for (size_t i = 0; i < s->narms; i++) {
		section_dispose(s->arm[i]);
		free(s->arm[i]);
	}
	free(s->text);
	memset(s, 0, sizeof *s);
}

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_."

static char *trim(char *p)
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
	if (scalar(k, trim(tok), where, &a, d) < 0 || scalar(k, trim(dots + 2), where, &b, d) < 0)
		return PQ_EINVAL;
	if (b.i < a.i)
		return pq_diag_set(d, PQ_EINVAL, "%s: range '%s' needs A <= B", where, whole);
	if (range_step(k, trim(step + 6), where, whole, b.i - a.i, &s, d) < 0)
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
		if (pq_alg_lookup(trim(tok + 5), where, &a, d) < 0)
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
static int set_list(enum pq_dim_id ki, pq_exp_list *l, const char *value, const char *where, pq_diag *d)
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
	char *t = trim(copy);
	if (!*t) {
		rc = pq_diag_set(d, PQ_EINVAL, "%s: empty dimension; allowed: %s", where, pq_dim_allowed(k, buf, sizeof buf));
		goto out;
	}
	for (char *tok = t; tok;) {
		char *comma = strchr(tok, ',');
		if (comma)
			*comma = '\0';
		char *v = trim(tok);
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

static int append_text(pq_exp_spec *s, const char *t, pq_diag *d)
{
	size_t n = strlen(t);
	char *nt = realloc(s->text, s->text_len + n + 1);
	if (!nt)
		return pq_diag_set(d, PQ_ENOMEM, "out of memory");
	memcpy(nt + s->text_len, t, n + 1);
	s->text = nt;
	s->text_len += n;
	return 0;
}

static int arm_line(pq_exp_spec *s, char *line, const char *file, int lineno, pq_exp_section **cur,
		    pq_diag *d)
{
	size_t n = strlen(line);
	if (line[n - 1] != ']' || strncmp(line, "[arm ", 5) != 0)
		return pq_diag_set(d, PQ_EPARSE, "%s:%d: '%s': a section is '[arm LABEL]'", file, lineno, line);
	line[n - 1] = '\0';
	char *label = trim(line + 5);
	if (!*label || strlen(label) >= sizeof s->arm[0]->label)
		return pq_diag_set(d, PQ_EINVAL,
				   "%s:%d: an arm label is 1 to %zu bytes (this one is %zu; a character outside ASCII "
				   "takes 2 to 4)",
				   file, lineno, sizeof s->arm[0]->label - 1, strlen(label));
	for (size_t i = 0; i < s->narms; i++)
		if (strcmp(s->arm[i]->label, label) == 0)
			return pq_diag_set(d, PQ_EEXIST, "%s:%d: arm '%s' is already defined at %s", file, lineno,
					   label, s->arm[i]->where);
	if (s->narms >= PQ_EXP_MAX_ARMS)
		return pq_diag_set(d, PQ_ETOOBIG, "%s:%d: more than %d arms", file, lineno, PQ_EXP_MAX_ARMS);
	pq_exp_section *sec = calloc(1, sizeof *sec);
	if (!sec)
		return pq_diag_set(d, PQ_ENOMEM, "out of memory");
	snprintf(sec->label, sizeof sec->label, "%s", label);
	snprintf(sec->where, sizeof sec->where, "%s:%d", file, lineno);
	s->arm[s->narms++] = sec;
	*cur = sec;
	return 0;
}

static int key_line(pq_exp_spec *s, char *line, const char *file, int lineno, pq_exp_section *cur,
		    pq_diag *d)
{
	char *eq = strchr(line, '=');
	if (!eq)
		return pq_diag_set(d, PQ_EPARSE, "%s:%d: '%s': expected 'key = value', '[arm LABEL]' or a # comment",
				   file, lineno, line);
	*eq = '\0';
	char *name = trim(line), *value = trim(eq + 1);
	int k = pq_dim_find(name);
	char where[192];
	if (k < 0) {
		char list[800];
		size_t len = 0;
		for (int i = 0; i < PQ_DIM_COUNT; i++)
			if (!(pq_dims[i].flags & PQ_DIM_STORED))
				len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
							pq_dims[i].key);
		return pq_diag_set(d, PQ_EINVAL, "%s:%d: unknown key '%s'; allowed: %s", file, lineno, name, list);
	}
	snprintf(where, sizeof where, "%s:%d: %s", file, lineno, name);
	if (cur != &s->global && (pq_dims[k].flags & PQ_DIM_GLOBAL))
		return pq_diag_set(d, PQ_EINVAL, "%s: is global: put it before the first [arm]", where);
	if (cur->key[k].given)
		return pq_diag_set(d, PQ_EEXIST, "%s: duplicate key (first given at %s); give a list instead: '%s = A, B'",
				   where, cur->key[k].where, name);
	int rc = set_list((enum pq_dim_id)k, &cur->key[k], value, where, d);
	if (rc == 0 && k == PQ_D_NAME)
		snprintf(s->name, sizeof s->name, "%s", cur->key[k].v[0].s);
	return rc;
}

int pq_exp_spec_parse(pq_exp_spec *s, const char *file, const char *text, pq_diag *d)
{
	/* a UTF-8 byte order mark, as some editors write one: not part of the first key */
	if (strncmp(text, "\xef\xbb\xbf", 3) == 0)
		text += 3;
	char *copy = strdup(text);
	int rc = 0, lineno = 0;
	pq_exp_section *cur = &s->global;
	if (!copy)
		return pq_diag_set(d, PQ_ENOMEM, "out of memory");
	snprintf(s->source, sizeof s->source, "%s", file);
	if ((rc = append_text(s, text, d)) < 0)
		goto out;
	char *p = copy;
	while (p && *p) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		lineno++;
		char *hash = strstr(p, " #");
		if (hash)
			*hash = '\0';
		char *line = trim(p);
		if (*line && *line != '#')
			rc = *line == '[' ? arm_line(s, line, file, lineno, &cur, d)
					  : key_line(s, line, file, lineno, cur, d);
		if (rc < 0)
			goto out;
		p = nl ? nl + 1 : NULL;
	}
	if (!s->name[0]) {
		const char *base = strrchr(file, '/');
		snprintf(s->name, sizeof s->name, "%s", base ? base + 1 : file);
		char *dot = strrchr(s->name, '.');
		if (dot && dot != s->name)
			*dot = '\0';
	}
out:
	free(copy);
	return rc;
}

int pq_exp_spec_load(pq_exp_spec *s, const char *path, pq_diag *d)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return pq_diag_set(d, -errno, "%s: cannot read the spec: %s", path, strerror(errno));
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc = 0;
	for (;;) {
		if (cap - len < 4096) {
			if (cap > (1u << 20)) {
				rc = pq_diag_set(d, PQ_ETOOBIG, "%s: a spec is at most 1 MiB", path);
				goto out;
			}
			char *nb = realloc(buf, cap + 8192);
			if (!nb) {
				rc = pq_diag_set(d, PQ_ENOMEM, "out of memory");
				goto out;
			}
			buf = nb;
			cap += 8192;
		}
		size_t got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		rc = pq_diag_set(d, errno == EISDIR ? -EISDIR : PQ_EIO, "%s: cannot read the spec: %s%s", path,
				 strerror(errno), errno == EISDIR ? " (give a spec file)" : "");
		goto out;
	}
	buf[len] = '\0';
	if (strlen(buf) != len)
		rc = pq_diag_set(d, PQ_EPARSE, "%s: not a text file (NUL byte)", path);
	else
		rc = pq_exp_spec_parse(s, path, buf, d);
out:
	free(buf);
	fclose(f);
	return rc;
}

/* The values of key k in force for an arm: its own, else the global ones; NULL: the default. */
static const pq_exp_list *in_force(const pq_exp_spec *s, const pq_exp_section *arm, int k)
{
	return arm->key[k].given ? &arm->key[k] : s->global.key[k].given ? &s->global.key[k] : NULL;
}

/* Key k changes nothing for the arm whichever of its values: sct-alg where every scts
 * value is 0 (pq_dim_irrelevant). */
static int irrelevant_for(const pq_exp_spec *s, const pq_exp_section *arm, int k)
{
	const pq_exp_list *scts = in_force(s, arm, PQ_D_SCTS);
	pq_exp_point p;
	pq_exp_point_init(&p);
	for (size_t i = 0; scts && i < scts->n; i++) {
		pq_dim_apply(PQ_D_SCTS, &scts->v[i], &p);
		if (!pq_dim_irrelevant((enum pq_dim_id)k, &p))
			return 0;
	}
	return pq_dim_irrelevant((enum pq_dim_id)k, &p);
}

/* Two arms that measure the same thing: every key's values equal, labels aside, but for
 * a key irrelevant to both. */
static int same_arm(const pq_exp_spec *s, const pq_exp_section *a, const pq_exp_section *b)
{
	for (int k = 0; k < PQ_DIM_COUNT; k++) {
		const pq_exp_list *x = &a->key[k], *y = &b->key[k];
		if (irrelevant_for(s, a, k) && irrelevant_for(s, b, k))
			continue;
		if (x->n != y->n || (x->n && memcmp(x->v, y->v, x->n * sizeof *x->v) != 0))
			return 0;
	}
	return 1;
}

/* Arms a command-line key made alike (ttfb-size's "ml-dsa-44 padded bbr" once --cc cubic
 * replaces its cc) are measured once, under the first one's label: otherwise a run would
 * measure every point twice and label half of them with what they no longer are. The
 * spec's text says which arm went, and s->merged for the sweep's log. */
static int merge_alike(pq_exp_spec *s, const char *what, pq_diag *d)
{
	int rc = 0;
	for (size_t b = 1; b < s->narms && rc == 0; b++)
		for (size_t a = 0; a < b; a++) {
			if (!same_arm(s, s->arm[a], s->arm[b]))
				continue;
			char line[256];
			snprintf(line, sizeof line, "# %s made arm '%s' the same as arm '%s': measured once, as '%s'\n", what,
				 s->arm[b]->label, s->arm[a]->label, s->arm[a]->label);
			size_t len = strlen(s->merged);
			if (len + 1 < sizeof s->merged)
				snprintf(s->merged + len, sizeof s->merged - len, "%s'%s' (as '%s')", len ? ", " : "",
					 s->arm[b]->label, s->arm[a]->label);
			section_dispose(s->arm[b]);
			free(s->arm[b]);
			memmove(&s->arm[b], &s->arm[b + 1], (s->narms - b - 1) * sizeof s->arm[0]);
			s->narms--;
			b--;
			rc = append_text(s, line, d);
			break;
		}
	return rc;
}

int pq_exp_spec_set(pq_exp_spec *s, const char *key, const char *value, const char *what, pq_diag *d)
{
	int k = pq_dim_find(key);
	if (k < 0)
		return pq_diag_set(d, PQ_EINVAL, "%s: unknown key '%s'", what, key);
	int rc = set_list((enum pq_dim_id)k, &s->global.key[k], value, what, d);
	if (rc < 0)
		return rc;
	for (size_t a = 0; a < s->narms; a++) {
		pq_exp_list *l = &s->arm[a]->key[k];
		free(l->v);
		memset(l, 0, sizeof *l);
	}
	if (k == PQ_D_NAME)
		snprintf(s->name, sizeof s->name, "%s", s->global.key[k].v[0].s);
	char line[512];
	snprintf(line, sizeof line, "%s%s = %s   # %s\n",
		 s->text_len && s->text[s->text_len - 1] != '\n' ? "\n" : "", key, value, what);
	rc = append_text(s, line, d);
	return rc < 0 ? rc : merge_alike(s, what, d);
}
