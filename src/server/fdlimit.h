/* Open-file limit for servers and load generators: every connection is a descriptor,
 * and many systems start processes with a soft limit of 1024.
 *
 * Contract: pq_fdlimit_raise lifts the soft RLIMIT_NOFILE towards `need` (never above
 * the hard limit, never lowering it) and returns the soft limit now in force. */
#ifndef PQ_SERVER_FDLIMIT_H
#define PQ_SERVER_FDLIMIT_H

#include <stdint.h>

uint64_t pq_fdlimit_raise(uint64_t need);

#endif
