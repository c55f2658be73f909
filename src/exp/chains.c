#include "exp/chains.h"
#include "core/wire.h"
#include "pki/ocsp.h"

#include <stdlib.h>
#include <string.h>

void pq_exp_chains_dispose(pq_exp_chains *cs)
{
	free(cs->c);
	memset(cs, 0, sizeof *cs);
}

static const pq_exp_chain *find_spec(const pq_exp_chains *cs, const pq_chain_spec *s)
{
	char key[512];
	pq_chain_spec_key(s, key, sizeof key);
	for (size_t i = 0; i < cs->n; i++)
		if (strcmp(cs->c[i].key, key) == 0)
			return &cs->c[i];
	return NULL;
}

/* The point whose natural chain a 'like ALG' pad copies: ALG at every level, the same
 * intermediates, no padding, no emulation. */
static void like_point(const pq_exp_point *p, pq_exp_point *ref)
{
	*ref = *p;
	ref->leaf = ref->inter = ref->root = p->pad_like;
	ref->pad_like = NULL;
	ref->pad_chain_to = 0;
	ref->mtc = PQ_MTC_NONE;
}

int pq_exp_chains_spec(const pq_exp_chains *cs, const pq_exp_point *p, pq_chain_spec *s)
{
	pq_exp_point_chain(p, s);
	if (!p->pad_like)
		return 0;
	pq_exp_point ref;
	pq_chain_spec rs;
	like_point(p, &ref);
	pq_exp_point_chain(&ref, &rs);
	const pq_exp_chain *r = find_spec(cs, &rs);
	if (!r)
		return PQ_ESTATE;
	s->pad_chain_to = r->info.chain_der;
	return 0;
}

const pq_exp_chain *pq_exp_chains_find(const pq_exp_chains *cs, const pq_exp_point *p)
{
	pq_chain_spec s;
	return pq_exp_chains_spec(cs, p, &s) < 0 ? NULL : find_spec(cs, &s);
}

static int make_one(const pq_exp_cell *cell, const pq_chain_spec *sp, const char *cache_root, FILE *log,
		    pq_exp_chain *c, pq_diag *d)
{
	pq_chain_spec s = *sp;
	int rc = pq_chain_spec_check(&s, d);
	if (rc == 0)
		rc = pq_chain_cached(&s, cache_root, &c->info, d);
	if (rc < 0) {
		const char *where = (cell->p.pad_chain_to || cell->p.pad_like) && cell->pad_where ? cell->pad_where
												 : cell->arm_where;
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

/* Adds the chain of spec s (cell: for messages) unless it is there. */
static int add(pq_exp_chains *out, const pq_exp_cell *cell, const pq_chain_spec *s, const char *cache_root,
	       FILE *log, pq_diag *d)
{
	if (find_spec(out, s))
		return 0;
	pq_exp_chain *nc = realloc(out->c, (out->n + 1) * sizeof *nc);
	if (!nc)
		return pq_diag_set(d, PQ_ENOMEM, "out of memory");
	out->c = nc;
	pq_exp_chain *c = &out->c[out->n];
	memset(c, 0, sizeof *c);
	pq_chain_spec_key(s, c->key, sizeof c->key);
	int rc = make_one(cell, s, cache_root, log, c, d);
	if (rc == 0)
		out->n++;
	return rc;
}

int pq_exp_chains_prepare(const pq_exp_grid *g, const char *cache_root, FILE *log, pq_exp_chains *out,
			  pq_diag *d)
{
	int rc = 0;
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < g->n && rc == 0; i++) {
		const pq_exp_cell *cell = &g->cells[i];
		pq_chain_spec s;
		if (cell->p.pad_like) {
			/* the chain whose size it copies comes first */
			pq_exp_point ref;
			like_point(&cell->p, &ref);
			pq_exp_point_chain(&ref, &s);
			if ((rc = add(out, cell, &s, cache_root, log, d)) < 0)
				break;
		}
		if (pq_exp_chains_spec(out, &cell->p, &s) < 0)
			rc = pq_diag_set(d, PQ_ESTATE, "%s: no reference chain for 'like'", cell->arm_where);
		else
			rc = add(out, cell, &s, cache_root, log, d);
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

void pq_exp_chain_flight(const pq_exp_chain *c, const char *group, unsigned mtu, long long *bytes,
			 long long *segs)
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
			 .server_share = gr->server_share, .mss = pq_wire_mss((long long)mtu),
			 .cv_carry = c->info.cv_carry, .staple = pq_ocsp_entry_bytes(c->info.ocsp_bytes)};
	if (pq_acct_flight(&in, &a, NULL) == 0) {
		*bytes = (long long)a.flight;
		*segs = (long long)a.segments;
	}
}
