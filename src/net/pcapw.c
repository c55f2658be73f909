#include "net/pcapw.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"

struct pq_pcapw {
	pcap_t *pc;
	pcap_dumper_t *dump;
	char *path, *tmp;
	const char *what; /* the caller's name for the file, for messages */
	int64_t mono0, real0;
	uint64_t count;
	int err; /* errno of the first failed write; nothing more is written after it */
};

/* The capture is not kept on any failure: its temporary is removed and PATH left as it was. */
static int lost(const pq_pcapw *w, int e, pq_diag *d)
{
	e = e ? e : EIO;
	return pq_diag_set(d, -e, "%s: cannot write %s: %s (the capture is not kept)", w->what, w->path,
			   strerror(e));
}

int pq_pcapw_open(const char *path, const char *what, pq_pcapw **out, pq_diag *d)
{
	int rc = 0;
	pq_pcapw *w = calloc(1, sizeof *w);
	if (!w)
		return pq_diag_set(d, PQ_ENOMEM, "out of memory");
	w->what = what;
	w->path = strdup(path);
	if (!w->path || asprintf(&w->tmp, "%s.partial", path) < 0) {
		w->tmp = NULL;
		rc = pq_diag_set(d, PQ_ENOMEM, "out of memory");
		goto out;
	}
	w->pc = pcap_open_dead(DLT_RAW, 65535);
	if (!w->pc) {
		rc = pq_diag_set(d, PQ_EIO, "%s: libpcap could not start a raw-IP capture", what);
		goto out;
	}
	w->dump = pcap_dump_open(w->pc, w->tmp);
	if (!w->dump) {
		rc = pq_diag_set(d, PQ_EIO, "%s: cannot write '%s': %s", what, path,
				 pcap_geterr(w->pc));
		goto out;
	}
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
		if (w->dump) {
			pcap_dump_close(w->dump);
			remove(w->tmp);
		}
		if (w->pc)
			pcap_close(w->pc);
		free(w->tmp);
		free(w->path);
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
	else if (pcap_dump_flush(w->dump) || ferror(f) || fsync(fileno(f)))
		rc = lost(w, errno, d);
	/* Flushed and synced above: the close that follows has nothing left to write. */
	pcap_dump_close(w->dump);
	pcap_close(w->pc);
	if (!rc && rename(w->tmp, w->path))
		rc = pq_diag_set(d, -errno, "%s: cannot rename '%s' to '%s': %s", w->what, w->tmp,
				 w->path, strerror(errno));
	if (rc)
		remove(w->tmp);
	free(w->tmp);
	free(w->path);
	free(w);
	return rc;
}
