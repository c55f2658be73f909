/* The report's view of a cell's dimensions (report/agg.h): which ones the report
 * knows, how a value reads, which vary in a database, a grid point's label. */
#include "report/agg.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

const pq_agg_dim pq_agg_dims[] = {
    {"leaf", "leaf", 1, "chain_leaf"},
    {"intermediate", "intermediate", 1, "chain_intermediate"},
    {"intermediates", "intermediates", 0, "chain_intermediates"},
    {"pad-chain-to", "chain padded to", 0, "chain_pad_to_bytes"},
    {"mtc", "MTC", 1, "chain_mtc"},
    {"cert-compression", "compression", 1, "cert_comp"},
    {"group", "group", 1, "tls_group"},
    {"resume", "resumed", 0, "resume_pct"},
    {"early-data", "0-RTT", 0, "early_data"},
    {"profile", "profile", 1, "link_profile"},
    {"rtt", "RTT", 0, "rtt_us"},
    {"jitter", "jitter", 0, "jitter_us"},
    {"loss", "loss", 0, "loss_pct"},
    {"rate", "rate", 0, "rate_bps"},
    {"response", "response", 0, "response_bytes"},
};
const size_t pq_agg_ndims = sizeof pq_agg_dims / sizeof pq_agg_dims[0];

void pq_agg_dim_show(const pq_rdb_cell *c, size_t i, char *buf, size_t n)
{
	const char *key = pq_agg_dims[i].key;
	if (pq_agg_dims[i].text) {
		const char *t = pq_agg_dim_text(c, key);
		snprintf(buf, n, "%s", t && *t ? t : "-");
		return;
	}
	double v = pq_agg_dim_num(c, key);
	if (!isfinite(v))
		snprintf(buf, n, "-");
	else if (strcmp(key, "rtt") == 0 || strcmp(key, "jitter") == 0)
		snprintf(buf, n, "%g ms", v / 1e3);
	else if (strcmp(key, "loss") == 0 || strcmp(key, "resume") == 0)
		snprintf(buf, n, "%g %%", v);
	else if (strcmp(key, "rate") == 0)
		snprintf(buf, n, v > 0 ? "%g Mbit/s" : "unlimited", v / 1e6);
	else if (strcmp(key, "early-data") == 0)
		snprintf(buf, n, "%s", v ? "yes" : "no");
	else if (strcmp(key, "response") == 0 && v < 0)
		snprintf(buf, n, "none");
	else if ((strcmp(key, "response") == 0 || strcmp(key, "pad-chain-to") == 0) && v >= 1024 && fmod(v, 1024) == 0)
		snprintf(buf, n, "%g KiB", v / 1024);
	else if (strcmp(key, "pad-chain-to") == 0 && v <= 0)
		snprintf(buf, n, "natural");
	else
		snprintf(buf, n, "%g%s", v, strcmp(key, "response") == 0 || strcmp(key, "pad-chain-to") == 0 ? " B" : "");
}

void pq_agg_dim_raw(const pq_rdb_cell *c, size_t i, char *buf, size_t n)
{
	if (pq_agg_dims[i].text) {
		const char *t = pq_agg_dim_text(c, pq_agg_dims[i].key);
		snprintf(buf, n, "%s", t ? t : "");
	} else {
		double v = pq_agg_dim_num(c, pq_agg_dims[i].key);
		if (isfinite(v))
			snprintf(buf, n, "%.17g", v);
		else
			snprintf(buf, n, "%s", "");
	}
}

/* Whether dims[i] differs between any two cells of the database. */
static int varies(const pq_rdb *db, size_t i)
{
	char first[96], v[96];
	for (size_t k = 0; k < db->ncells; k++) {
		pq_agg_dim_show(&db->cells[k], i, k ? v : first, sizeof v);
		if (k && strcmp(v, first) != 0)
			return 1;
	}
	return 0;
}

void pq_agg_vary(const pq_rdb *db, pq_agg *a)
{
	for (size_t i = 0; i < pq_agg_ndims && a->nvary < sizeof a->vary / sizeof a->vary[0]; i++)
		if (varies(db, i))
			a->vary[a->nvary++] = i;
}

void pq_agg_point_label(const pq_agg *a, const pq_agg_group *g, const char *except, char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n, "%s", a->arms[g->arm]);
	for (size_t k = 0; k < a->nvary && len < n; k++) {
		size_t i = a->vary[k];
		if (except && strcmp(pq_agg_dims[i].key, except) == 0)
			continue;
		/* shown only when this arm's grid points differ in it */
		int arm_varies = 0;
		char mine[96], other[96];
		pq_agg_dim_show(g->cell, i, mine, sizeof mine);
		for (size_t j = 0; j < a->n && !arm_varies; j++)
			if (a->g[j].arm == g->arm) {
				pq_agg_dim_show(a->g[j].cell, i, other, sizeof other);
				arm_varies = strcmp(mine, other) != 0;
			}
		if (arm_varies)
			len += (size_t)snprintf(buf + len, n - len, ", %s %s", pq_agg_dims[i].label, mine);
	}
}

const char *pq_agg_dim_text(const pq_rdb_cell *c, const char *key)
{
	if (strcmp(key, "leaf") == 0)
		return c->leaf;
	if (strcmp(key, "group") == 0)
		return c->group;
	return NULL;
}

double pq_agg_dim_num(const pq_rdb_cell *c, const char *key)
{
	static const struct {
		const char *key;
		size_t off;
		int ll; /* long long, else int or double below */
	} f[] = {
	    {"rtt", offsetof(pq_rdb_cell, rtt_us), 1},
	    {"response", offsetof(pq_rdb_cell, response_bytes), 1},
	    {"pad-chain-to", offsetof(pq_rdb_cell, pad_to_bytes), 1},
	};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		if (strcmp(key, f[i].key) == 0)
			return (double)*(const long long *)((const char *)c + f[i].off);
	if (strcmp(key, "intermediates") == 0)
		return c->intermediates;
	if (strcmp(key, "resume") == 0)
		return c->resume_pct;
	if (strcmp(key, "loss") == 0)
		return c->loss_pct;
	if (strcmp(key, "jitter") == 0)
		return c->jitter_us;
	if (strcmp(key, "rate") == 0)
		return c->rate_bps;
	if (strcmp(key, "early-data") == 0)
		return c->early_data;
	return NAN;
}

void pq_agg_notes(const pq_rdb *db, pq_agg *a)
{
	size_t failed = 0, empty = 0, trials = 0;
	for (size_t i = 0; i < db->ncells; i++) {
		failed += strcmp(db->cells[i].status, "ok") != 0;
		trials = (size_t)db->cells[i].trial > trials ? (size_t)db->cells[i].trial : trials;
	}
	for (size_t i = 0; i < a->n; i++)
		empty += a->g[i].n[PQ_AGG_HS] == 0;
	char *t = a->notes[a->nnotes++];
	size_t n = sizeof a->notes[0];
	snprintf(t, n, "%zu cells (up to %zu trials each) pooled into %zu grid points, one row each (point_key; "
		 "a cell's connections all count, failed ones in n's failed share); no grid point is left out.",
		 db->ncells, trials, a->n);
	if (failed || empty) {
		t = a->notes[a->nnotes++];
		snprintf(t, n, "%zu cells did not complete (status other than ok); %zu grid points have no successful "
			 "connection and show no times.", failed, empty);
	}
	t = a->notes[a->nnotes++];
	snprintf(t, n, "The same in every cell:");
	size_t len = strlen(t), shown = 0;
	for (size_t i = 0; i < pq_agg_ndims && db->ncells && len < n; i++) {
		int v = 0;
		for (size_t k = 0; k < a->nvary; k++)
			v |= a->vary[k] == i;
		if (v)
			continue;
		char val[96];
		pq_agg_dim_show(&db->cells[0], i, val, sizeof val);
		len += (size_t)snprintf(t + len, n - len, "%s %s %s", shown++ ? "," : "", pq_agg_dims[i].label, val);
	}
	if (len < n)
		snprintf(t + len, n - len, "%s.", shown ? "" : " nothing");
}
