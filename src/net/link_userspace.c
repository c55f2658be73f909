/* The userspace backend: a TUN device in each namespace and pqtls's own forwarder
 * (net/fwd.h) between them, with the link's stages; it can write a pcap. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "net/fwd.h"
#include "net/link_backend.h"
#include "net/ns.h"
#include "net/pcapw.h"
#include "net/tun.h"

/* Measured on the project's 2-core VM (docs/link.md): the forwarder's own path (TUN read
 * wake-up, write into the peer stack) costs about this much per direction beyond a plain
 * veth. Subtracted from each direction's delay so the configured RTT is what a ping sees. */
#define DEFAULT_COMP_NS (40 * PQ_NS_PER_US)

typedef struct userspace {
	int devstat[2]; /* /proc/net/dev inside each side */
	pq_tun_counters base[2];
	pq_fwd fwd;
	int fwd_on;
} userspace;

static int usable(pq_link *l, const pq_link_opts *o, pq_diag *d)
{
	(void)l, (void)o;
	if (access(PQ_TUN_DEV, R_OK | W_OK))
		return pq_diag_set(d, PQ_EPERM, "the userspace backend needs read-write access to %s (%s)",
				   PQ_TUN_DEV, strerror(errno));
	return 0;
}

static int up(pq_link *l, const pq_link_opts *o, pq_diag *d)
{
	int tun[2] = {-1, -1}, rc = 0;
	pq_pcapw *pcap = NULL;
	userspace *u = calloc(1, sizeof *u);
	if (!u)
		return pq_diag_set(d, PQ_ENOMEM, "out of memory");
	u->devstat[0] = u->devstat[1] = -1;
	l->be = u;
	for (int s = 0; s < 2 && !rc; s++)
		rc = pq_tun_open_in(l->nsfd[s], PQ_LINK_IFNAME, &tun[s], d);
	for (int s = 0; s < 2 && !rc; s++)
		rc = pq_link_configure_side(l, s, PQ_LINK_IFNAME, d);
	for (int s = 0; s < 2 && !rc; s++) {
		rc = pq_ns_open_file(l->nsfd[s], "/proc/thread-self/net/dev", O_RDONLY, &u->devstat[s], d);
		if (!rc)
			(void)pq_tun_counters_read(u->devstat[s], PQ_LINK_IFNAME, &u->base[s]);
	}
	if (!rc && o && o->pcap_path)
		rc = pq_pcapw_open(o->pcap_path, pq_name_of(l->cfg.names, "pcap"), &pcap, d);
	if (rc)
		goto out;
	int64_t comp = o && o->comp_ns >= 0 ? o->comp_ns : DEFAULT_COMP_NS;
	int64_t comp2[2] = {comp, comp};
	pq_fwd_tune tune = {.early_ns = o ? o->early_ns : -1,
			    .nice = o ? o->nice : PQ_FWD_DEFAULT_NICE,
			    .rt_prio = o ? o->rt_prio : PQ_FWD_DEFAULT_RT_PRIO,
			    .batch_ns = o ? o->batch_ns : PQ_FWD_DEFAULT_BATCH_NS,
			    .fault_late_ns = o ? o->fault_late_ns : 0,
			    .spin_pool = o ? o->spin_pool : NULL};
	rc = pq_fwd_start(&u->fwd, &l->cfg, comp2, tun[0], tun[1], pcap, &tune, d);
	if (!rc) {
		u->fwd_on = 1;
		if (u->fwd.sched_note[0] && o && o->log)
			fprintf(o->log, "pqtls link: %s\n", u->fwd.sched_note);
		tun[0] = tun[1] = -1; /* owned by the forwarder now */
		pcap = NULL;
	}
out:
	for (int s = 0; s < 2; s++)
		if (tun[s] >= 0)
			close(tun[s]);
	if (pcap) {
		pq_diag ignore;
		(void)pq_pcapw_close(pcap, &ignore);
	}
	return rc;
}

static void add_tun_drops(userspace *u, pq_link_stats *out)
{
	pq_tun_counters now[2];
	for (int s = 0; s < 2; s++)
		if (u->devstat[s] < 0 || pq_tun_counters_read(u->devstat[s], PQ_LINK_IFNAME, &now[s]))
			return;
	/* The client TUN's tx drops are uplink packets we never read; the server TUN's rx drops
	 * are uplink packets its stack refused after we wrote them; and the other way round. */
	out->dir[PQ_DIR_C2S].drop_unplanned += (now[0].tx_dropped - u->base[0].tx_dropped) +
					       (now[1].rx_dropped - u->base[1].rx_dropped);
	out->dir[PQ_DIR_S2C].drop_unplanned += (now[1].tx_dropped - u->base[1].tx_dropped) +
					       (now[0].rx_dropped - u->base[0].rx_dropped);
}

static int stats(pq_link *l, pq_link_stats *out)
{
	userspace *u = l->be;
	if (!u || !u->fwd_on)
		return PQ_ESTATE;
	pq_fwd_stats fs;
	pq_fwd_stats_get(&u->fwd, &fs);
	out->dir[0] = fs.dir[0];
	out->dir[1] = fs.dir[1];
	out->late = fs.late;
	out->fwd_wait_ns = pq_fwd_wait_ns(&u->fwd);
	add_tun_drops(u, out);
	return 0;
}

static int window(pq_link *l, pq_late_win *late, pq_link_stats *counts)
{
	userspace *u = l->be;
	pq_late_win_init(late);
	if (!u || !u->fwd_on)
		return PQ_ESTATE;
	pq_fwd_window_take(&u->fwd, late, counts->dir);
	counts->fwd_wait_ns = pq_fwd_wait_ns(&u->fwd);
	add_tun_drops(u, counts);
	return 0;
}

static int stop(pq_link *l, pq_link_stats *final, pq_diag *d)
{
	userspace *u = l->be;
	if (!u || !u->fwd_on)
		return 0;
	/* The TUN counters die with the devices: keep the drops they showed, and take the
	 * forwarder's own counters after it stopped, so packets released in between count. */
	uint64_t tun_drops[2];
	pq_fwd_stats fs;
	pq_fwd_stats_get(&u->fwd, &fs);
	for (int i = 0; i < 2; i++)
		tun_drops[i] = final->dir[i].drop_unplanned - fs.dir[i].drop_unplanned;
	int rc = pq_fwd_stop(&u->fwd, d);
	pq_fwd_stats_get(&u->fwd, &fs);
	for (int i = 0; i < 2; i++) {
		final->dir[i] = fs.dir[i];
		final->dir[i].drop_unplanned += tun_drops[i];
	}
	final->late = fs.late;
	pq_fwd_dispose(&u->fwd);
	u->fwd_on = 0;
	return rc;
}

static int pin(pq_link *l, const cpu_set_t *cpus, char *list, size_t n)
{
	userspace *u = l->be;
	return u && u->fwd_on ? pq_fwd_pin(&u->fwd, cpus, list, n) : PQ_ESTATE;
}

static void release(pq_link *l)
{
	userspace *u = l->be;
	if (!u)
		return;
	for (int s = 0; s < 2; s++)
		if (u->devstat[s] >= 0)
			close(u->devstat[s]);
	free(u);
	l->be = NULL;
}

const pq_link_ops pq_link_userspace = {
	.kind = PQ_BACKEND_USERSPACE,
	.usable = usable,
	.up = up,
	.stats = stats,
	.window = window,
	.pin = pin,
	.stop = stop,
	.release = release,
};
