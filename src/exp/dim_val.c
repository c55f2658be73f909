/* A dimension's stored value (exp/dim.h): what was in force for a cell besides its point
 * (pq_exp_eff, from its link or a remote server), and a stored value's comparison and
 * text as the report shows it. */
#include "exp/dim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void pq_exp_eff_from_link(pq_exp_eff *e, const pq_link_config *c)
{
	memset(e, 0, sizeof *e);
	const pq_dir_cfg *dc = &c->dir[PQ_DIR_S2C];
	e->rtt_ns = pq_link_config_rtt_ns(c);
	e->jitter_ns = dc->jitter_ns;
	e->gilbert = dc->loss.ge_p > 0;
	e->burst = e->gilbert && dc->loss.ge_r > 0 ? 1 / dc->loss.ge_r : 0;
	e->loss_unit = dc->loss.unit;
	for (int i = 0; i < 2; i++) {
		e->loss[i] = pq_loss_mean(&c->dir[i].loss);
		e->rate_bps[i] = c->dir[i].rate_bps;
	}
	e->queue_pkts = dc->queue_pkts;
	e->mtu = c->mtu;
	/* Linux's initial window when the route sets none (TCP_INIT_CWND, include/net/tcp.h). */
	e->initcwnd = c->initcwnd ? (int)c->initcwnd : PQ_WIRE_IW_DEFAULT;
	e->mss = -1;
}

void pq_exp_eff_remote(pq_exp_eff *e)
{
	memset(e, 0, sizeof *e);
	e->remote = 1;
	e->initcwnd = -1;
	e->mss = -1;
}

int pq_dimval_equal(const pq_dimval *a, const pq_dimval *b)
{
	if (a->kind != b->kind)
		return 0;
	switch (a->kind) {
	case PQ_DV_NULL:
		return 1;
	case PQ_DV_INT:
		return a->i == b->i;
	case PQ_DV_REAL:
		return a->f == b->f;
	case PQ_DV_TEXT:
		return strcmp(a->s, b->s) == 0;
	}
	return 0;
}

void pq_dimval_format(const pq_dim *k, const pq_dimval *v, char *buf, size_t n)
{
	switch (v->kind) {
	case PQ_DV_NULL:
		snprintf(buf, n, "-");
		break;
	case PQ_DV_INT:
		/* _us columns are shown in ms, the unit people read RTTs in */
		if (k->column && strstr(k->column, "_us") && strcmp(k->unit, "ms") == 0)
			snprintf(buf, n, "%g", (double)v->i / 1000);
		else
			snprintf(buf, n, "%lld", v->i);
		break;
	case PQ_DV_REAL:
		snprintf(buf, n, "%g", v->f);
		break;
	case PQ_DV_TEXT:
		snprintf(buf, n, "%s", v->s);
		break;
	}
}
