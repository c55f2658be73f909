#include "exp/grid.h"

#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "core/units.h"
#include "net/stage.h"

static const pq_exp_list *eff(const pq_exp_spec *s, const pq_exp_section *arm, int k)
{
	if (arm && arm->key[k].given)
		return &arm->key[k];
	if (s->global.key[k].given)
		return &s->global.key[k];
	return NULL;
}

static int count_cells(const pq_exp_spec *s, int trials, size_t *out, pq_diag *d)
{
	size_t narms = s->narms ? s->narms : 1;
	unsigned long long total = 0;
	for (size_t a = 0; a < narms; a++) {
		unsigned long long n = (unsigned long long)trials;
		for (int k = 0; k < PQ_DIM_COUNT; k++) {
			const pq_exp_list *l = eff(s, s->narms ? s->arm[a] : NULL, k);
			if (l && !(pq_dims[k].flags & PQ_DIM_GLOBAL))
				n *= l->n;
			if (n > PQ_EXP_MAX_CELLS)
				break;
		}
		total += n;
		if (total > PQ_EXP_MAX_CELLS)
			return pq_diag_set(d, PQ_ETOOBIG,
					   "%s: the grid has more than %d cells (arms x dimensions x trials); every cell "
					   "starts a server and takes a second or more, so that is most of a day here: "
					   "split the study into several specs, or fewer values per dimension",
					   s->source[0] ? s->source : s->name, PQ_EXP_MAX_CELLS);
	}
	*out = (size_t)total;
	return 0;
}

static void globals(const pq_exp_spec *s, pq_exp_grid *g)
{
	const pq_exp_section *gl = &s->global;
	g->trials = gl->key[PQ_D_TRIALS].given ? (int)gl->key[PQ_D_TRIALS].v[0].i : 1;
	g->seed = gl->key[PQ_D_SEED].given ? (uint64_t)gl->key[PQ_D_SEED].v[0].i : 1;
	snprintf(g->server, sizeof g->server, "%s", gl->key[PQ_D_SERVER].given ? gl->key[PQ_D_SERVER].v[0].s : "");
	snprintf(g->servername, sizeof g->servername, "%s",
		 gl->key[PQ_D_SERVERNAME].given ? gl->key[PQ_D_SERVERNAME].v[0].s : "localhost");
	snprintf(g->ca, sizeof g->ca, "%s", gl->key[PQ_D_CA].given ? gl->key[PQ_D_CA].v[0].s : "");
}

/* A remote server fixes its chain, tickets and path: keys that would pretend to set
 * them are refused rather than recorded as if measured. */
static int check_remote(const pq_exp_spec *s, pq_diag *d)
{
	char can[400];
	size_t len = 0;
	can[0] = '\0';
	for (int i = 0; i < PQ_DIM_COUNT; i++)
		if (!(pq_dims[i].flags & (PQ_DIM_LOCAL | PQ_DIM_GLOBAL)) && len < sizeof can)
			len += (size_t)snprintf(can + len, sizeof can - len, "%s%s", len ? ", " : "", pq_dims[i].key);
	for (size_t a = 0; a <= s->narms; a++) {
		const pq_exp_section *sec = a ? s->arm[a - 1] : &s->global;
		for (int i = 0; i < PQ_DIM_COUNT; i++)
			if ((pq_dims[i].flags & PQ_DIM_LOCAL) && sec->key[i].given)
				return pq_diag_set(d, PQ_EINVAL,
						   "%s: a remote server (%s) fixes its chain, tickets and network path; "
						   "remove this key (what can vary: %s)",
						   sec->key[i].where, s->global.key[PQ_D_SERVER].v[0].s, can);
	}
	return 0;
}

/* Every combination of one arm's lists, trials innermost. */
/* What a QUIC cell cannot be (tls/quic.h), named with where the spec asked for it. */
static int check_quic(const pq_exp_point *p, const char *where, pq_diag *d)
{
	const char *bad = !p->quic		  ? NULL
			  : p->early_data	  ? "early-data yes (OpenSSL 3.5's QUIC has no 0-RTT)"
			  : p->flight_one_write ? "flight-one-write yes (a TCP write rule)"
						: NULL;
	if (bad)
		return pq_diag_set(d, PQ_EINVAL,
				   "%s: transport quic with %s; give those to TCP arms only", where, bad);
	return 0;
}

/* What a Chromium cell cannot be (load/chromium.h), named with where the spec asked. */
static int check_browser(const pq_exp_point *p, const char *where, pq_diag *d)
{
	if (!p->browser && p->browser_state)
		return pq_diag_set(d, PQ_EINVAL,
				   "%s: browser-state %s with client pqtls; it is the browser's (give it to client "
				   "chromium arms, or browser-state cold)",
				   where, p->browser_state == 1 ? "warm" : "resumed");
	if (p->browser && p->browser_state == 2 && p->tickets < 1)
		return pq_diag_set(d, PQ_EINVAL,
				   "%s: browser-state resumed with tickets 0: the server issues no ticket to resume "
				   "with (give tickets 1 or more)",
				   where);
	const char *bad = !p->browser	      ? NULL
			  : p->remote	      ? "a remote server (the browser runs in the link's client namespace)"
			  : p->quic	      ? "transport quic (the browser speaks HTTP/3, not the hq-interop QUIC pqtls serves)"
			  : p->early_data     ? "early-data yes"
			  : p->resume > 0     ? "resumption (each connection is a cold browser)"
			  : p->concurrency > 1 ? "concurrency over 1"
			  : p->open_rate > 0  ? "an open-loop rate"
			  : p->warmup > 0     ? "warm-up connections"
			  : !p->path[0]	      ? "a handshake-only path (the browser navigates)"
					      : NULL;
	if (bad)
		return pq_diag_set(d, PQ_EINVAL, "%s: client chromium with %s; give those to client pqtls arms only",
				   where, bad);
	return 0;
}

/* Gilbert-Elliott bursts of mean length B (always lost) between lossless stretches reach
 * a mean loss L only while the good state's exit p = L / (B (1 - L)) is a probability:
 * L at most B / (B + 1), 75 % for bursts of 3. Named with the line of the loss key (else
 * of loss-model), before a link with a probability of 'inf%' is asked for. */
static int check_burst_loss(const pq_exp_point *p, const pq_exp_list *loss, const pq_exp_list *model,
			    pq_diag *d)
{
	double b = p->burst >= 1 ? p->burst : 1, most = pq_loss_gilbert_most(p->burst);
	if (!p->gilbert || p->loss <= most)
		return 0;
	const char *where = loss ? loss->where : model ? model->where : "loss";
	return pq_diag_set(d, PQ_ERANGE,
			   "%s: %g%% with loss-model gilbert and bursts of %g packets: such bursts make a mean loss "
			   "of at most %.4g%% (B/(B+1)); allowed: 0%% to %.4g%%, or a longer burst",
			   where, p->loss * 100, b, most * 100, most * 100);
}

/* The point of the lists' current values (l[k]->v[idx[k]]), every dimension but those
 * skip marks (NULL: none) at its default; remote as the grid says. */
static void point_at(const pq_exp_list *const *l, const size_t *idx, const int *skip, int remote, pq_exp_point *p)
{
	pq_exp_point_init(p);
	p->burst = 3;
	for (int k = 0; k < PQ_DIM_COUNT; k++)
		if (l[k] && !(skip && skip[k]))
			pq_dim_apply((enum pq_dim_id)k, &l[k]->v[idx[k]], p);
	p->remote = remote;
}

static int expand_arm(const pq_exp_spec *s, size_t a, pq_exp_grid *g, pq_diag *d)
{
	const pq_exp_section *arm = s->narms ? s->arm[a] : NULL;
	const pq_exp_list *l[PQ_DIM_COUNT];
	size_t idx[PQ_DIM_COUNT] = {0};
	int by_arm[PQ_DIM_COUNT] = {0}; /* set by some arm: not part of the grid point across arms */
	for (int k = 0; k < PQ_DIM_COUNT; k++) {
		l[k] = (pq_dims[k].flags & PQ_DIM_GLOBAL) ? NULL : eff(s, arm, k);
		for (size_t b = 0; b < s->narms; b++)
			by_arm[k] |= s->arm[b]->key[k].given;
	}
	for (;;) {
		pq_exp_point base;
		point_at(l, idx, NULL, g->server[0] != 0, &base);
		/* A value the others make irrelevant (sct-alg with scts = 0): its first value
		 * stands for all, so the grid does not measure one chain twice. */
		int drop = pq_dim_drop_irrelevant(&base);
		if (drop >= 0 && idx[drop] > 0)
			goto next;
		/* Without [arm] sections the arm is named by its chain and group. */
		if (arm)
			snprintf(base.arm, sizeof base.arm, "%s", arm->label);
		else
			snprintf(base.arm, sizeof base.arm, "%.24s %.38s", base.remote ? "remote" : base.leaf->name,
				 base.group);
		pq_link_config lc;
		int rc = check_burst_loss(&base, l[PQ_D_LOSS], l[PQ_D_LOSS_MODEL], d);
		if (rc == 0)
			rc = pq_exp_point_link(&base, g->seed, arm ? arm->where : s->source, &lc, d);
		char offer[160];
		if (rc == 0 && (rc = pq_exp_point_offer(&base, offer, sizeof offer, d)) < 0)
			pq_diag_prefix(d, rc, "%s", arm ? arm->where : s->source);
		if (rc == 0)
			rc = check_quic(&base, arm ? arm->where : s->source, d);
		if (rc == 0)
			rc = check_browser(&base, arm ? arm->where : s->source, d);
		if (rc < 0)
			return rc;
		pq_exp_point across; /* the point without what any arm sets, nor the arm's name */
		point_at(l, idx, by_arm, base.remote, &across);
		across.arm[0] = '\0';
		for (int t = 1; t <= g->trials; t++) {
			pq_exp_cell *c = &g->cells[g->n];
			memset(c, 0, sizeof *c);
			c->p = base;
			c->p.trial = t;
			c->index = g->n++;
			c->arm = a;
			c->pad_where = l[PQ_D_PAD] ? l[PQ_D_PAD]->where : NULL;
			c->arm_where = arm ? arm->where : s->source;
			if (pq_exp_point_cell_key(&c->p, c->key) < 0 || pq_exp_point_link_key(&c->p, c->link_key) < 0 ||
			    pq_exp_point_key(&c->p, c->point_key) < 0 || pq_exp_point_key(&across, c->across_key) < 0)
				return pq_diag_set(d, PQ_ETOOBIG, "%s: parameters too long", c->arm_where);
		}
	next:;
		int k;
		for (k = PQ_DIM_COUNT - 1; k >= 0; k--) {
			if (!l[k])
				continue;
			if (++idx[k] < l[k]->n)
				break;
			idx[k] = 0;
		}
		if (k < 0)
			return 0;
	}
}

static void assign_groups(pq_exp_grid *g)
{
	g->ngroups = 0;
	for (size_t i = 0; i < g->n; i++) {
		pq_exp_cell *c = &g->cells[i];
		size_t j = 0;
		for (; j < i; j++)
			if (g->cells[j].p.trial == c->p.trial && strcmp(g->cells[j].link_key, c->link_key) == 0)
				break;
		c->group = j < i ? g->cells[j].group : g->ngroups++;
	}
}

static void grid_hash(pq_exp_grid *g)
{
	EVP_MD_CTX *m = EVP_MD_CTX_new();
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	char seed[64];
	snprintf(seed, sizeof seed, "seed=%llu;server=", (unsigned long long)g->seed);
	if (m && EVP_DigestInit_ex(m, EVP_sha256(), NULL)) {
		EVP_DigestUpdate(m, seed, strlen(seed));
		EVP_DigestUpdate(m, g->server, strlen(g->server));
		for (size_t i = 0; i < g->n; i++)
			EVP_DigestUpdate(m, g->cells[i].key, strlen(g->cells[i].key));
		EVP_DigestFinal_ex(m, md, &n);
	}
	EVP_MD_CTX_free(m);
	for (unsigned i = 0; i < 32; i++)
		snprintf(g->hash + 2 * i, 3, "%02x", i < n ? md[i] : 0);
}

int pq_exp_grid_expand(const pq_exp_spec *s, pq_exp_grid *g, pq_diag *d)
{
	size_t total = 0;
	memset(g, 0, sizeof *g);
	globals(s, g);
	int rc = count_cells(s, g->trials, &total, d);
	if (rc == 0 && g->server[0])
		rc = check_remote(s, d);
	if (rc < 0)
		return rc;
	g->cells = calloc(total ? total : 1, sizeof *g->cells);
	if (!g->cells)
		return pq_diag_set(d, PQ_ENOMEM, "out of memory for %zu cells", total);
	for (size_t a = 0; a < (s->narms ? s->narms : 1) && rc == 0; a++)
		rc = expand_arm(s, a, g, d);
	if (rc == 0) {
		assign_groups(g);
		grid_hash(g);
		for (size_t i = 0; i < g->n && rc == 0; i++)
			for (size_t j = i + 1; j < g->n && rc == 0; j++)
				if (strcmp(g->cells[i].key, g->cells[j].key) == 0)
					rc = pq_diag_set(d, PQ_EINVAL,
							 "%s and %s: two cells with the same parameters (arm '%s'): "
							 "give every arm its own label",
							 g->cells[i].arm_where, g->cells[j].arm_where, g->cells[i].p.arm);
	}
	if (rc < 0)
		pq_exp_grid_dispose(g);
	return rc;
}

void pq_exp_grid_dispose(pq_exp_grid *g)
{
	free(g->cells);
	memset(g, 0, sizeof *g);
}

void pq_exp_grid_shard(pq_exp_grid *g, unsigned index, unsigned count)
{
	size_t k = 0;
	for (size_t i = 0; i < g->n; i++)
		if (g->cells[i].group % count == index - 1)
			g->cells[k++] = g->cells[i];
	g->n = k;
}

int pq_exp_shard_parse(const char *s, const char *what, unsigned *index, unsigned *count, pq_diag *d)
{
	unsigned i, n;
	char extra;
	if (!s || sscanf(s, "%u/%u%c", &i, &n, &extra) != 2 || n < 1 || n > 10000 || i < 1 || i > n)
		return pq_diag_set(d, PQ_EINVAL, "%s: '%s' is not a shard; use I/N with 1 <= I <= N <= 10000 (e.g. 2/3)",
				   what, s ? s : "");
	*index = i;
	*count = n;
	return 0;
}

static int cmp_run(const void *a, const void *b)
{
	const pq_exp_cell *x = a, *y = b;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

void pq_exp_grid_order(pq_exp_grid *g)
{
	/* Groups are numbered in first-appearance order of (link, trial); renumber so that a
	 * link's trials are consecutive (one link up per link condition). */
	size_t *first_link = calloc(g->n ? g->n : 1, sizeof *first_link);
	if (!first_link)
		return;
	for (size_t i = 0; i < g->n; i++) {
		size_t j = 0;
		while (j < i && strcmp(g->cells[j].link_key, g->cells[i].link_key) != 0)
			j++;
		first_link[i] = j < i ? first_link[j] : i;
	}
	for (size_t i = 0; i < g->n; i++)
		g->cells[i].group = first_link[i] * 100000 + (size_t)g->cells[i].p.trial;
	free(first_link);
	qsort(g->cells, g->n, sizeof *g->cells, cmp_run);
	for (size_t s = 0; s < g->n;) {
		size_t e = s;
		while (e < g->n && g->cells[e].group == g->cells[s].group)
			e++;
		pq_rng r;
		pq_rng_seed(&r, g->seed ^ (0x9e3779b97f4a7c15ull * (g->cells[s].group + 1)) ^
					strtoull(g->cells[s].link_key + 16, NULL, 16));
		for (size_t i = e - 1; i > s; i--) {
			size_t j = s + (size_t)(pq_rng_u64(&r) % (i - s + 1));
			pq_exp_cell t = g->cells[i];
			g->cells[i] = g->cells[j];
			g->cells[j] = t;
		}
		s = e;
	}
}
