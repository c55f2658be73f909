#include "exp/chains.h"

#include <stdlib.h>
#include <string.h>

void pq_exp_chains_dispose(pq_exp_chains *cs)
{
	free(cs->c);
	memset(cs, 0, sizeof *cs);
}

const pq_exp_chain *pq_exp_chains_find(const pq_exp_chains *cs, const pq_exp_point *p)
{
	pq_chain_spec s;
	char key[512];
	pq_exp_point_chain(p, &s);
	pq_chain_spec_key(&s, key, sizeof key);
	for (size_t i = 0; i < cs->n; i++)
		if (strcmp(cs->c[i].key, key) == 0)
			return &cs->c[i];
	return NULL;
}

static int make_one(const pq_exp_cell *cell, const char *cache_root, FILE *log, pq_exp_chain *c,
		    pq_diag *d)
{
	pq_chain_spec s;
	pq_exp_point_chain(&cell->p, &s);
	int rc = pq_chain_spec_check(&s, d);
	if (rc == 0)
		rc = pq_chain_cached(&s, cache_root, &c->info, d);
	if (rc < 0) {
		const char *where = cell->p.pad_chain_to && cell->pad_where ? cell->pad_where : cell->arm_where;
		return pq_diag_prefix(d, rc, "%s: the chain of arm '%s' cannot be built", where, cell->p.arm);
	}
	c->cached = rc == 1;
	if (log && !c->cached) {
		char desc[256];
		pq_exp_chain_describe(c, desc, sizeof desc);
		fprintf(log, "  chain made: %s\n", desc);
	}
	return 0;
}

int pq_exp_chains_prepare(const pq_exp_grid *g, const char *cache_root, FILE *log, pq_exp_chains *out,
			  pq_diag *d)
{
	int rc = 0;
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < g->n && rc == 0; i++) {
		if (pq_exp_chains_find(out, &g->cells[i].p))
			continue;
		pq_exp_chain *nc = realloc(out->c, (out->n + 1) * sizeof *nc);
		if (!nc) {
			rc = pq_diag_set(d, PQ_ENOMEM, "out of memory");
			break;
		}
		out->c = nc;
		pq_exp_chain *c = &out->c[out->n];
		memset(c, 0, sizeof *c);
		pq_chain_spec s;
		pq_exp_point_chain(&g->cells[i].p, &s);
		pq_chain_spec_key(&s, c->key, sizeof c->key);
		rc = make_one(&g->cells[i], cache_root, log, c, d);
		if (rc == 0)
			out->n++;
	}
	if (rc < 0)
		pq_exp_chains_dispose(out);
	return rc;
}

void pq_exp_chain_describe(const pq_exp_chain *c, char *buf, size_t n)
{
	const pq_chain_info *i = &c->info;
	const pq_chain_spec *s = &i->spec;
	if (!i->has_spec) {
		snprintf(buf, n, "%zu certificates, %zu B", i->n, i->chain_der);
		return;
	}
	snprintf(buf, n, "%s leaf <- %d x %s <- %s root, %zu B%s%s", s->leaf->name, s->intermediates,
		 s->inter->name, s->root->name, i->chain_der, i->emulation[0] ? "; " : "", i->emulation);
}

void pq_exp_chain_flight(const pq_exp_chain *c, const char *group, long long *bytes, long long *segs)
{
	const pq_acct_group *gr = pq_acct_group_find(group);
	size_t der[PQ_CHAIN_MAX_CERTS];
	pq_acct a;
	*bytes = *segs = -1;
	if (!gr || !c->info.n)
		return;
	for (size_t k = 0; k < c->info.n; k++)
		der[k] = c->info.cert[k].der_bytes;
	pq_acct_in in = {.der = der, .n = c->info.n, .sig_bytes = c->info.cv_sig_bytes,
			 .server_share = gr->server_share};
	if (pq_acct_flight(&in, &a, NULL) == 0) {
		*bytes = (long long)a.flight;
		*segs = (long long)a.segments;
	}
}
