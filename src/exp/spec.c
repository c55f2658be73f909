#include "exp/spec.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "exp/spec_int.h"

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
	char *label = pq_exp_spec_trim(line + 5);
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
	char *name = pq_exp_spec_trim(line), *value = pq_exp_spec_trim(eq + 1);
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
	int rc = pq_exp_spec_set_list((enum pq_dim_id)k, &cur->key[k], value, where, d);
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
		char *line = pq_exp_spec_trim(p);
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
	int rc = pq_exp_spec_set_list((enum pq_dim_id)k, &s->global.key[k], value, what, d);
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
