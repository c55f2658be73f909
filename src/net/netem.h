/* The netem backend: a veth pair between the two namespaces with a netem qdisc on each
 * end's egress (tc-netem(8)). Used when the kernel has sch_netem; the choice is made at
 * run time by trying it inside the link's own namespace.
 *
 * The command builders are pure (no system calls) so tests can check the exact command
 * lines on a kernel without netem. */
#ifndef PQ_NET_NETEM_H
#define PQ_NET_NETEM_H

#include <stdint.h>

#include "core/err.h"
#include "net/linkcfg.h"

#define PQ_NETEM_MAX_ARGS 48

typedef struct pq_netem_cmd {
	char *argv[PQ_NETEM_MAX_ARGS]; /* NULL-terminated; points into buf */
	char buf[1024];
	int argc;
	size_t used;
} pq_netem_cmd;

/* "tc -n NS qdisc replace dev DEV root netem limit .. delay .. [jitter] loss .. rate .." for
 * one direction's egress. PQ_EUNSUPPORTED (with a message naming the inputs by `names`,
 * keys "reorder" and "backend") for what netem cannot do: jitter that must keep packet
 * order. */
int pq_netem_qdisc_cmd(pq_netem_cmd *c, const char *ns, const char *dev, const pq_dir_cfg *dc,
		       uint32_t mtu, const pq_name *names, pq_diag *d) PQ_MUST_USE;

/* "ip -n NS_C link add DEV type veth peer name DEV netns NS_S". */
void pq_netem_veth_cmd(pq_netem_cmd *c, const char *ns_c, const char *ns_s, const char *dev);

/* Is sch_netem usable? Tries a netem qdisc on `lo` inside namespace `ns` (one of ours)
 * and removes it, once per process: the answer is the kernel's, so later calls give the
 * first one's (and its why) without starting `tc` again, which a sweep otherwise did for
 * every cell (a process start is about 10 ms of CPU here, beside cells being measured:
 * bench/waits.sh). 1 yes, 0 no (why in *d). */
int pq_netem_available(const char *ns, pq_diag *d);

/* "Sent B bytes P pkt (dropped D" of `tc -s qdisc show` output, for the stats line. */
int pq_netem_parse_stats(const char *text, uint64_t *bytes, uint64_t *pkts, uint64_t *dropped);

#endif
