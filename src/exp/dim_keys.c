/* What asks the dimension table (exp/dim.h): a spec key or a column found by name, the
 * values a key allows in words, the --keys listing, the columns' text for SQL, a value
 * applied to a point, a point's canonical text, and where a dimension applies. */
#include "exp/dim.h"

#include <stdio.h>
#include <string.h>

int pq_dim_find(const char *key)
{
	for (int i = 0; i < PQ_DIM_COUNT; i++)
		if (!(pq_dims[i].flags & PQ_DIM_STORED) && strcmp(pq_dims[i].key, key) == 0)
			return i;
	return -1;
}

int pq_dim_by_column(const char *column)
{
	for (int i = 0; i < PQ_DIM_COUNT; i++)
		if (pq_dims[i].column && strcmp(pq_dims[i].column, column) == 0)
			return i;
	return -1;
}

void pq_dim_print_keys(FILE *f)
{
	for (int i = 0; i < PQ_DIM_COUNT; i++)
		if (!(pq_dims[i].flags & PQ_DIM_STORED))
			fprintf(f, "  %-17s %s (default %s)%s\n", pq_dims[i].key, pq_dims[i].help, pq_dims[i].def,
				pq_dims[i].flags & PQ_DIM_GLOBAL ? "; global only" : "");
}

const char *pq_dim_allowed(const pq_dim *k, char *buf, size_t n)
{
	switch (k->type) {
	case PQ_DT_STR:
		return "a value";
	case PQ_DT_INT:
		snprintf(buf, n, "integers from %lld to %lld, a list 'A, B' or a range 'A..B step S'", k->min, k->max);
		return buf;
	case PQ_DT_SIZE:
		if (k->max) {
			snprintf(buf, n, "sizes up to %lld bytes, a list or a range '4KiB..80KiB step 2KiB'%s", k->max,
				 k == &pq_dims[PQ_D_PAD] ? " (also 'like ALG')" : "");
			return buf;
		}
		return "sizes (4KiB, 1500), a list or a range '4KiB..80KiB step 2KiB'";
	case PQ_DT_DUR:
		return "durations (70ms), a list or a range '0ms..200ms step 50ms'";
	case PQ_DT_FRAC:
		return "percentages (1%) or fractions (0.01), as a list";
	case PQ_DT_RATE:
		snprintf(buf, n, "rates from %lld kbit/s (20Mbit; 0 = unlimited), as a list", k->min / 1000);
		return buf;
	case PQ_DT_DOUBLE:
		snprintf(buf, n, "numbers from %lld to %lld, as a list", k->min, k->max);
		return buf;
	case PQ_DT_CHOICE:
		snprintf(buf, n, "one or more of %s", k->choices);
		return buf;
	case PQ_DT_ALG:
		return "algorithm names as pqtls certs takes them (ecdsa-p256, rsa-2048, ml-dsa-65, slh-dsa-sha2-128s, ...)";
	case PQ_DT_RESP:
		return "'/', 'none' or sizes (0, 1MiB), as a list";
	case PQ_DT_PROFILE:
		return "profile names (pqtls link profiles)";
	case PQ_DT_GROUPS:
		snprintf(buf, n, "%s this OpenSSL knows (pqtls version lists them), as a list",
			 !k->choices[0] ? "group names" : strchr(k->choices, '/') ? "lists of group names separated by ':' or '/'"
										 : "lists of group names separated by ':'");
		return buf;
	}
	return "?";
}

int pq_dim_columns_each(const char *tmpl, const char *const *taken, char *buf, size_t n)
{
	size_t len = 0;
	if (n)
		buf[0] = '\0';
	for (int i = 0; i < PQ_DIM_COUNT; i++) {
		const char *col = pq_dims[i].column;
		if (!col)
			continue;
		int asked = 0;
		for (const char *const *t = taken; t && *t && !asked; t++)
			asked = strcmp(*t, col) == 0;
		for (const char *p = tmpl; *p; p++) {
			int l = *p == '$'   ? snprintf(buf + len, n - len, "%s", col)
				: *p == '%' ? snprintf(buf + len, n - len, "%s%s", col, asked ? "_asked" : "")
					    : snprintf(buf + len, n - len, "%c", *p);
			if (l < 0 || (size_t)l >= n - len)
				return PQ_ETOOBIG;
			len += (size_t)l;
		}
	}
	return (int)len;
}

void pq_dim_apply(enum pq_dim_id k, const pq_exp_val *v, pq_exp_point *p)
{
	if (pq_dims[k].apply)
		pq_dims[k].apply(v, p);
}

int pq_dim_irrelevant(enum pq_dim_id k, const pq_exp_point *p)
{
	return k == PQ_D_SCT_ALG && p->scts == 0;
}

int pq_dim_applies(size_t k, const pq_dimval *dim)
{
	return !pq_dims[k].applies || pq_dims[k].applies(dim);
}

int pq_dim_drop_irrelevant(pq_exp_point *p)
{
	if (!pq_dim_irrelevant(PQ_D_SCT_ALG, p) || !p->sct_alg)
		return -1;
	p->sct_alg = NULL;
	return PQ_D_SCT_ALG;
}

int pq_dim_canon(const pq_exp_point *p, unsigned flags, char *buf, size_t n)
{
	size_t len = 0;
	if (n)
		buf[0] = '\0';
	for (int i = 0; i < PQ_DIM_COUNT; i++) {
		const pq_dim *k = &pq_dims[i];
		if (!k->canon || (k->flags & flags) != flags)
			continue;
		int l = k->canon(p, buf + len, n - len);
		if (l < 0 || (size_t)l >= n - len)
			return PQ_ETOOBIG;
		len += (size_t)l;
	}
	return (int)len;
}
