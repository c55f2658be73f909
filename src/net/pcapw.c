#include "net/pcapw.h"

#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/wfile.h"

struct pq_pcapw {
	pcap_t *pc;
	pcap_dumper_t *dump; /* its own stream on a copy of out's descriptor */
	pq_wfile out;	     /* the file, by the one rule of core/wfile.h */
	const char *what;    /* the caller's name for the file, for messages */
	int64_t mono0, real0;
	uint64_t count;
	int err; /* errno of the first failed write; nothing more is written after it */
};

/* The capture is not kept on any failure: its temporary is removed and PATH left as it was. */
static int lost(const pq_pcapw *w, int e, pq_diag *d)
{
	e = e ? e : EIO;
	return pq_diag_set(d, -e, "%s: cannot write %s: %s (the capture is not kept)", w->what,
			   w->out.path, strerror(e));
}

/* libpcap writes through a stream of its own (pcap_dump_close and a failed
 * pcap_dump_fopen close it), on a copy of the descriptor core/wfile opened. */
static int dump_open(pq_pcapw *w, pq_diag *d)
{
	int fd = fcntl(fileno(w->out.f), F_DUPFD_CLOEXEC, 0);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return lost(w, e, d);
	}
	w->dump = pcap_dump_fopen(w->pc, f);
	if (!w->dump)
		return pq_diag_set(d, PQ_EIO, "%s: cannot write '%s': %s", w->what, w->out.path,
				   pcap_geterr(w->pc));
	return 0;
}

int pq_pcapw_open(const char *path, const char *what, pq_pcapw **out, pq_diag *d)
{
	int rc = 0;
	pq_pcapw *w = calloc(1, sizeof *w);
	if (!w)
		return pq_diag_set(d, PQ_ENOMEM, "out of memory");
	w->what = what;
	w->pc = pcap_open_dead(DLT_RAW, 65535);
	if (!w->pc) {
		rc = pq_diag_set(d, PQ_EIO, "%s: libpcap could not start a raw-IP capture", what);
		goto out;
	}
	if ((rc = pq_wfile_open(&w->out, path, what, d)) || (rc = dump_open(w, d)))
		goto out;
	/* The header reaches the disk now: a disk already full is refused before the link runs. */
	errno = 0;
	if (pcap_dump_flush(w->dump)) {
		rc = lost(w, errno, d);
		goto out;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	w->real0 = ts.tv_sec * PQ_NS_PER_S + ts.tv_nsec;
	w->mono0 = pq_mono_ns();
out:
	if (rc) {
		if (w->dump)
			pcap_dump_close(w->dump);
		pq_wfile_abort(&w->out);
		if (w->pc)
			pcap_close(w->pc);
		free(w);
		w = NULL;
	}
	*out = w;
	return rc;
}

void pq_pcapw_write(pq_pcapw *w, int64_t t_ns, const uint8_t *data, uint32_t len)
{
	if (w->err)
		return;
	int64_t t = w->real0 + (t_ns - w->mono0);
	struct pcap_pkthdr h;
	h.ts.tv_sec = (time_t)(t / PQ_NS_PER_S);
	h.ts.tv_usec = (suseconds_t)((t % PQ_NS_PER_S) / 1000);
	h.caplen = h.len = len;
	errno = 0;
	pcap_dump((u_char *)w->dump, &h, data);
	/* The stream's error flag is set by the write(2) that failed, whose errno is still ours
	 * (errno is per thread): remember it, and make no more writes into a full disk. */
	if (ferror(pcap_dump_file(w->dump)))
		w->err = errno ? errno : EIO;
	else
		w->count++;
}

uint64_t pq_pcapw_count(const pq_pcapw *w)
{
	return w ? w->count : 0;
}

int pq_pcapw_close(pq_pcapw *w, pq_diag *d)
{
	if (!w)
		return 0;
	int rc = 0;
	FILE *f = pcap_dump_file(w->dump);
	errno = 0;
	if (w->err)
		rc = lost(w, w->err, d);
	else if (pcap_dump_flush(w->dump) || ferror(f))
		rc = lost(w, errno, d);
	/* Flushed above: the close that follows has nothing left to write; the wfile then
	 * syncs and puts the file in place (or only closes a device or FIFO). */
	pcap_dump_close(w->dump);
	pcap_close(w->pc);
	if (rc)
		pq_wfile_abort(&w->out);
	else
		rc = pq_wfile_close(&w->out, d);
	free(w);
	return rc;
}
