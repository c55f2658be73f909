/* The report's view of a cell's dimensions (report/agg.h): the descriptor table's
 * entries (exp/dim.h) as a reader sees them, which vary in a database, a grid point's
 * label, and the notes on what is pooled and what is the same everywhere. */
#include "report/agg.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* A dimension the report shows: stored in a cell column and not a spec-wide setting. */
static int shown(size_t i)
{
	return pq_dims[i].column && !(pq_dims[i].flags & PQ_DIM_GLOBAL);
}

const char *pq_agg_dim_text(const pq_rdb_cell *c, const char *key)
{
	int i = pq_dim_find(key);
	return i >= 0 && c->dim[i].kind == PQ_DV_TEXT ? c->dim[i].s : NULL;
}

int pq_agg_sent_intermediates(const pq_rdb_cell *c)
{
	const pq_dimval *t = &c->dim[PQ_D_TAI];
	return t->kind == PQ_DV_TEXT && strcmp(t->s, "yes") == 0 ? 0 : c->intermediates;
}

double pq_agg_dim_num(const pq_rdb_cell *c, const char *key)
{
	int i = pq_dim_find(key);
	if (i == PQ_D_RESPONSE) /* stored as the request's path; the reader has its size */
		return (double)c->response_bytes;
	if (i < 0)
		return NAN;
	return c->dim[i].kind == PQ_DV_INT ? (double)c->dim[i].i : c->dim[i].kind == PQ_DV_REAL ? c->dim[i].f : NAN;
}

static void bytes(char *buf, size_t n, double v)
{
	if (v >= 1024 && fmod(v, 1024) == 0)
		snprintf(buf, n, v >= 1048576 && fmod(v, 1048576) == 0 ? "%g MiB" : "%g KiB",
			 v >= 1048576 && fmod(v, 1048576) == 0 ? v / 1048576 : v / 1024);
	else
		snprintf(buf, n, "%g B", v);
}

/* The word a stored zero means, read from the dimension's default text ("0 (unlimited)":
 * "unlimited", "0 (closed loop)": "closed loop", "as loss": "as loss"); 0 when zero is a
 * plain number there (a loss of 0 %). */
static int zero_word(const pq_dim *k, char *buf, size_t n)
{
	const char *d = k->def ? k->def : "";
	size_t len = strlen(d);
	if (len > 4 && strncmp(d, "0 (", 3) == 0 && d[len - 1] == ')')
		snprintf(buf, n, "%.*s", (int)(len - 4), d + 3);
	else if (strncmp(d, "as ", 3) == 0)
		snprintf(buf, n, "%s", d);
	else
		return 0;
	return 1;
}

void pq_agg_dim_show(const pq_rdb_cell *c, size_t i, char *buf, size_t n)
{
	const pq_dim *k = &pq_dims[i];
	const pq_dimval *v = &c->dim[i];
	if (v->kind == PQ_DV_NULL) { /* a database from before the dimension, or a remote server's path */
		snprintf(buf, n, "%s", pq_dim_applies(i, c->dim) ? "not known" : "none"); /* ... or not applying */
		return;
	}
	if (i == PQ_D_RESPONSE) {
		if (c->response_bytes >= 0)
			bytes(buf, n, (double)c->response_bytes);
		else
			snprintf(buf, n, "%s", v->kind == PQ_DV_TEXT && v->s[0] && strcmp(v->s, "none") != 0 ? v->s : "none");
		return;
	}
	if (i == PQ_D_OCSP && v->kind == PQ_DV_INT) { /* stored: the staple's bytes */
		if (v->i > 0)
			bytes(buf, n, (double)v->i);
		else
			snprintf(buf, n, "none");
		return;
	}
	if (i == PQ_D_PAD && v->kind == PQ_DV_INT) {
		if (v->i > 0)
			bytes(buf, n, (double)v->i);
		else
			snprintf(buf, n, "natural");
		return;
	}
	if (i == PQ_D_RATE && v->kind == PQ_DV_INT) {
		if (v->i > 0)
			snprintf(buf, n, "%g Mbit/s", (double)v->i / 1e6);
		else
			snprintf(buf, n, "unlimited");
		return;
	}
	if ((i == PQ_D_EARLY || i == PQ_D_ONE_WRITE) && v->kind == PQ_DV_INT) {
		snprintf(buf, n, "%s", v->i ? "yes" : "no");
		return;
	}
	if (v->kind == PQ_DV_TEXT && !v->s[0]) {
		snprintf(buf, n, "none");
		return;
	}
	int zero = (v->kind == PQ_DV_INT && v->i == 0) || (v->kind == PQ_DV_REAL && v->f == 0);
	if (zero && zero_word(k, buf, n))
		return;
	if (zero && i == PQ_D_BURST) { /* Bernoulli loss: no bursts */
		snprintf(buf, n, "none");
		return;
	}
	/* a switch read back from the kernel (quick-ACK, TSO, GSO: 0 or 1) */
	if (k->type == PQ_DT_CHOICE && v->kind == PQ_DV_INT && k->choices && strstr(k->choices, "off|on")) {
		snprintf(buf, n, "%s", v->i ? "on" : "off");
		return;
	}
	char raw[96];
	pq_dimval_format(k, v, raw, sizeof raw);
	snprintf(buf, n, "%s%s%s", raw, k->unit && *k->unit && v->kind != PQ_DV_TEXT ? " " : "",
		 k->unit && v->kind != PQ_DV_TEXT ? k->unit : "");
}

void pq_agg_response_show(const pq_rdb_cell *c, char *buf, size_t n)
{
	if (c->response_bytes >= 0)
		snprintf(buf, n, "%lld", c->response_bytes);
	else if (c->dim[PQ_D_RESPONSE].kind == PQ_DV_TEXT && strcmp(c->dim[PQ_D_RESPONSE].s, "/") == 0)
		snprintf(buf, n, "/ (a short page)");
	else
		snprintf(buf, n, "none (handshake only)");
}

void pq_agg_dim_raw(const pq_rdb_cell *c, size_t i, char *buf, size_t n)
{
	const pq_dimval *v = &c->dim[i];
	switch (v->kind) {
	case PQ_DV_NULL:
		snprintf(buf, n, "%s", "");
		break;
	case PQ_DV_INT:
		snprintf(buf, n, "%lld", v->i);
		break;
	case PQ_DV_REAL:
		snprintf(buf, n, "%.17g", v->f);
		break;
	case PQ_DV_TEXT:
		snprintf(buf, n, "%s", v->s);
		break;
	}
}

/* Whether pq_dims[i] differs between any two cells of the database. */
static int varies(const pq_rdb *db, size_t i)
{
	for (size_t k = 1; k < db->ncells; k++)
		if (!pq_dimval_equal(&db->cells[k].dim[i], &db->cells[0].dim[i]))
			return 1;
	return 0;
}

void pq_agg_vary(const pq_rdb *db, pq_agg *a)
{
	for (size_t i = 0; i < PQ_DIM_COUNT; i++)
		if (shown(i) && varies(db, i))
			a->vary[a->nvary++] = i;
}

/* Whether every arm holds one value of pq_dims[i] in all its grid points. */
static int fixed_by_arm(const pq_agg *a, size_t i)
{
	for (size_t j = 0; j < a->n; j++)
		for (size_t k = 0; k < j; k++)
			if (a->g[j].arm == a->g[k].arm && !pq_dimval_equal(&a->g[j].cell->dim[i], &a->g[k].cell->dim[i]))
				return 0;
	return 1;
}

void pq_agg_split(pq_agg *a)
{
	a->narm_dims = a->npoint_dims = 0;
	for (size_t k = 0; k < a->nvary; k++) {
		size_t i = a->vary[k];
		if (fixed_by_arm(a, i))
			a->arm_dims[a->narm_dims++] = i;
		else if (i != PQ_D_TIMEOUT && !(pq_dims[i].flags & PQ_DIM_STORED))
			a->point_dims[a->npoint_dims++] = i;
	}
}

void pq_agg_point_label(const pq_agg *a, const pq_agg_group *g, const char *except, char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n, "%s", a->arms[g->arm]);
	for (size_t k = 0; k < a->nvary && len < n; k++) {
		size_t i = a->vary[k];
		/* the timeout is derived; a stored-only entry follows the key that sets it; one that
		 * does not apply here is left out (the browser's state, too, when the line is about
		 * the client) */
		int client = except && strcmp(except, pq_dims[PQ_D_CLIENT].key) == 0;
		if ((except && strcmp(pq_dims[i].key, except) == 0) || i == PQ_D_TIMEOUT ||
		    (pq_dims[i].flags & PQ_DIM_STORED) ||
		    (g->cell->dim[i].kind == PQ_DV_NULL && !pq_dim_applies(i, g->cell->dim)) ||
		    (i == PQ_D_BROWSER_STATE && client))
			continue;
		/* shown only when this arm's grid points differ in it */
		int arm_varies = 0;
		for (size_t j = 0; j < a->n && !arm_varies; j++)
			arm_varies = a->g[j].arm == g->arm && !pq_dimval_equal(&a->g[j].cell->dim[i], &g->cell->dim[i]);
		if (arm_varies) {
			char mine[96];
			pq_agg_dim_show(g->cell, i, mine, sizeof mine);
			len += (size_t)snprintf(buf + len, n - len, ", %s %s", pq_dims[i].label, mine);
		}
	}
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
	size_t n = sizeof a->notes[0];
	snprintf(a->notes[a->nnotes++], n,
		 "%zu cells (up to %zu trials each) pooled into %zu grid points, one row each (point_key; a cell's "
		 "connections all count, failed ones in n's failed share); no grid point is left out.",
		 db->ncells, trials, a->n);
	if (failed || empty)
		snprintf(a->notes[a->nnotes++], n,
			 "%zu cell%s did not complete (status other than ok); %zu grid point%s no successful "
			 "connection and show%s no times.", failed, failed == 1 ? "" : "s", empty,
			 empty == 1 ? " has" : "s have", empty == 1 ? "s" : "");
	if (db->note[0])
		snprintf(a->notes[a->nnotes++], n, "%s", db->note);
	char *t = a->notes[a->nnotes++];
	size_t len = (size_t)snprintf(t, n, "The same in every cell:"), count = 0;
	for (size_t i = 0; i < PQ_DIM_COUNT && db->ncells && len < n; i++) {
		int v = 0;
		for (size_t k = 0; k < a->nvary; k++)
			v |= a->vary[k] == i;
		/* one that does not apply (pq_dim_applies) is not "the same" */
		if (v || !shown(i) || (db->cells[0].dim[i].kind == PQ_DV_NULL && !pq_dim_applies(i, db->cells[0].dim)))
			continue;
		char val[96];
		pq_agg_dim_show(&db->cells[0], i, val, sizeof val);
		len += (size_t)snprintf(t + len, n - len, "%s %s %s", count++ ? "," : "", pq_dims[i].label, val);
	}
	if (len < n)
		snprintf(t + len, n - len, "%s.", count ? "" : " nothing");
}
