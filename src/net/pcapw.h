/* Writes the packets that crossed a link as a standard pcap file (LINKTYPE_RAW: each
 * record is a bare IPv4/IPv6 packet), readable by tshark and tcpdump. The file follows
 * core/wfile.h: written under a temporary name and renamed on close, so a crashed run
 * never leaves a file that looks complete; a device or FIFO (a pipe to tshark) is
 * written in place; a symbolic link stays a link. */
#ifndef PQ_NET_PCAPW_H
#define PQ_NET_PCAPW_H

#include <stdint.h>

#include "core/err.h"

typedef struct pq_pcapw pq_pcapw;

/* `what` names the file in messages (the caller's name for it). */
int pq_pcapw_open(const char *path, const char *what, pq_pcapw **out, pq_diag *d) PQ_MUST_USE;
/* t_ns is monotonic; it is shown as wall-clock time relative to when the file was opened. */
void pq_pcapw_write(pq_pcapw *w, int64_t t_ns, const uint8_t *data, uint32_t len);
uint64_t pq_pcapw_count(const pq_pcapw *w);
/* Flushes, closes and puts the file in place (core/wfile.h); NULL is ignored. */
int pq_pcapw_close(pq_pcapw *w, pq_diag *d);

#endif
