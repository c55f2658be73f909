/* Named link conditions from the studies pqtls reproduces. A profile fills a whole
 * pq_link_config; command-line options given after it override single fields. */
#ifndef PQ_NET_PROFILE_H
#define PQ_NET_PROFILE_H

#include <stddef.h>

#include "core/err.h"
#include "net/linkcfg.h"

typedef struct pq_profile {
	const char *name;
	const char *source; /* where the numbers come from */
	int64_t rtt_ns;
	int64_t jitter_ns;  /* per direction, normal */
	double loss;        /* per direction, Bernoulli */
	uint64_t rate_bps;  /* both directions; 0 = unlimited */
	uint32_t queue_pkts;
	int reorder;        /* jitter lets packets overtake, as netem's did in the study the
			     * profile reproduces (pqtls's own default keeps order) */
	int64_t serve_handshake_timeout_ns; /* a server handshake timeout that lossy
					     * handshakes fit in (0: the default is enough) */
} pq_profile;

/* The table, terminated by an entry with name NULL. */
extern const pq_profile pq_profiles[];

/* Looks `name` up and fills *c (pq_link_config_init first). PQ_EINVAL with the list of
 * known names when there is no such profile; `what` names the input in that message. */
int pq_profile_apply(const char *name, const char *what, pq_link_config *c, pq_diag *d) PQ_MUST_USE;

#endif
