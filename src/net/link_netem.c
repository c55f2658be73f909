/* The netem backend: a veth pair between the two namespaces with a netem qdisc on each
 * end's egress (net/netem.h builds the commands). Used when the kernel has sch_netem. */
#include <stdlib.h>

#include "core/buf.h"
#include "net/link_backend.h"
#include "net/netem.h"
#include "net/sh.h"

#define NETEM_DEV "pqv0"

static int usable(pq_link *l, const pq_link_opts *o, pq_diag *d)
{
	pq_diag why;
	pq_diag_clear(&why);
	const char *b = pq_name_of(l->cfg.names, "backend");
	if (!pq_netem_available(l->ns[0], &why))
		return pq_diag_set(d, PQ_EUNSUPPORTED,
				   "%s netem: this kernel cannot run netem (%s); use %s userspace", b,
				   pq_diag_msg(&why), b);
	if (o && o->pcap_path)
		return pq_diag_set(d, PQ_EUNSUPPORTED,
				   "%s needs the userspace backend (netem packets never pass through "
				   "pqtls); add %s userspace",
				   pq_name_of(l->cfg.names, "pcap"), b);
	if (l->cfg.tcp.qdisc[0])
		return pq_diag_set(d, PQ_EUNSUPPORTED,
				   "%s %s: the netem backend's root qdisc is netem itself; add %s userspace",
				   pq_name_of(l->cfg.names, "qdisc"), l->cfg.tcp.qdisc, b);
	return 0;
}

static int up(pq_link *l, const pq_link_opts *o, pq_diag *d)
{
	(void)o;
	pq_netem_cmd c;
	/* Build both qdisc commands first: refuse before changing anything. */
	pq_netem_cmd q[2];
	for (int s = 0; s < 2; s++) {
		int rc = pq_netem_qdisc_cmd(&q[s], l->ns[s], NETEM_DEV, &l->cfg.dir[s], l->cfg.mtu,
					    l->cfg.names, d);
		if (rc)
			return rc;
	}
	pq_netem_veth_cmd(&c, l->ns[0], l->ns[1], NETEM_DEV);
	int rc = pq_sh_run(c.argv, NULL, NULL, d);
	for (int s = 0; s < 2 && !rc; s++)
		rc = pq_link_configure_side(l, s, NETEM_DEV, d);
	for (int s = 0; s < 2 && !rc; s++)
		rc = pq_sh_run(q[s].argv, NULL, NULL, d);
	return rc;
}

static int stats(pq_link *l, pq_link_stats *out)
{
	for (int s = 0; s < 2; s++) {
		char *argv[] = {"tc", "-s", "-n", l->ns[s], "qdisc", "show", "dev", NETEM_DEV, NULL};
		pq_buf b;
		pq_buf_init(&b, 64 * 1024);
		pq_diag ignore;
		uint64_t bytes, pkts, dropped;
		if (!pq_sh_run(argv, NULL, &b, &ignore) &&
		    !pq_netem_parse_stats(pq_buf_str(&b), &bytes, &pkts, &dropped)) {
			out->dir[s].pkts_out = pkts;
			out->dir[s].bytes_out = bytes;
			/* netem counts its random loss and queue overflow together */
			out->dir[s].drop_loss = dropped;
		}
		pq_buf_dispose(&b);
	}
	return 0;
}

/* The qdiscs go with the namespaces: the last counts are the final ones. */
static int stop(pq_link *l, pq_link_stats *final, pq_diag *d)
{
	(void)l, (void)final, (void)d;
	return 0;
}

static void release(pq_link *l)
{
	(void)l;
}

const pq_link_ops pq_link_netem = {
	.kind = PQ_BACKEND_NETEM,
	.usable = usable,
	.up = up,
	.stats = stats,
	.stop = stop,
	.release = release,
};
