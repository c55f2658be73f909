#include "zeek/gz.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define GZ_IN (1 << 18)

struct pq_zeek_gz {
	int fd;
	int direct;	 /* not gzip: the bytes as they are */
	int end;	 /* nothing more to give */
	int member_done; /* at a member's end: what follows decides */
	int zinit;
	z_stream z;
	unsigned long long off; /* file offset just past the bytes read into in[] */
	enum pq_zeek_gz_end kind;
	char path[512];
	char trouble[200];
	unsigned char in[GZ_IN];
};

/* More input when none is left; 0 at the end of the file, else the bytes read. */
static long refill(pq_zeek_gz *g, pq_diag *d)
{
	if (g->z.avail_in)
		return (long)g->z.avail_in;
	ssize_t r;
	do
		r = read(g->fd, g->in, sizeof g->in);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return pq_diag_set(d, -errno, "%s: cannot read: %s", g->path, strerror(errno));
	g->z.next_in = g->in;
	g->z.avail_in = (uInt)r;
	g->off += (unsigned long long)r;
	return r;
}

/* The file offset of the next input byte not yet given to zlib. */
static unsigned long long at(const pq_zeek_gz *g)
{
	return g->off - g->z.avail_in;
}

/* The reason, short enough for a report's sample (95 bytes): where, then why. */
static void stop(pq_zeek_gz *g, enum pq_zeek_gz_end kind, const char *why)
{
	g->end = 1;
	g->kind = kind;
	snprintf(g->trouble, sizeof g->trouble, "%s byte %llu: %s",
		 kind == PQ_ZGZ_TAIL ? "from" : "at", at(g), why);
}

int pq_zeek_gz_open(const char *path, pq_zeek_gz **out, pq_diag *d)
{
	pq_zeek_gz *g = calloc(1, sizeof *g);
	int rc = 0;
	if (!g)
		return pq_diag_set(d, PQ_ENOMEM, "%s: out of memory", path);
	snprintf(g->path, sizeof g->path, "%s", path);
	g->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (g->fd < 0) {
		rc = pq_diag_set(d, -errno, "%s: cannot open: %s", path, strerror(errno));
		goto out;
	}
	long r = refill(g, d);
	if (r < 0) {
		rc = (int)r;
		goto out;
	}
	g->direct = r < 2 || g->in[0] != 0x1f || g->in[1] != 0x8b;
	if (!g->direct) {
		if (inflateInit2(&g->z, 15 + 16) != Z_OK) { /* gzip only */
			rc = pq_diag_set(d, PQ_ENOMEM, "%s: cannot start zlib", path);
			goto out;
		}
		g->zinit = 1;
	}
	*out = g;
	g = NULL;
out:
	pq_zeek_gz_free(g);
	return rc;
}

/* After a member: another member, the end, or bytes that are not gzip (zlib drops them). */
static int next_member(pq_zeek_gz *g, pq_diag *d)
{
	long r = refill(g, d);
	if (r < 0)
		return (int)r;
	if (r == 0) {
		g->end = 1;
		return 0;
	}
	if (g->z.next_in[0] != 0x1f || (g->z.avail_in > 1 && g->z.next_in[1] != 0x8b)) {
		stop(g, PQ_ZGZ_TAIL,
		     "not gzip after a whole gzip stream (rows appended uncompressed?)");
		return 0;
	}
	g->member_done = 0;
	return inflateReset(&g->z) == Z_OK
		   ? 0
		   : pq_diag_set(d, PQ_EIO, "%s: zlib cannot reset", g->path);
}

long pq_zeek_gz_read(pq_zeek_gz *g, char *buf, size_t n, pq_diag *d)
{
	size_t got = 0;
	while (got < n && !g->end) {
		long r = g->member_done ? 0 : refill(g, d);
		if (r < 0)
			return r;
		if (g->member_done) {
			int rc = next_member(g, d);
			if (rc < 0)
				return rc;
			continue;
		}
		if (r == 0) {
			if (!g->direct)
				stop(g, PQ_ZGZ_DAMAGED, "unexpected end of file");
			g->end = 1;
			break;
		}
		if (g->direct) {
			size_t k = n - got < g->z.avail_in ? n - got : g->z.avail_in;
			memcpy(buf + got, g->z.next_in, k);
			g->z.next_in += k;
			g->z.avail_in -= (uInt)k;
			got += k;
			continue;
		}
		size_t room = n - got > (1u << 30) ? (1u << 30) : n - got;
		g->z.next_out = (unsigned char *)buf + got;
		g->z.avail_out = (uInt)room;
		int zr = inflate(&g->z, Z_NO_FLUSH);
		got += room - g->z.avail_out;
		if (zr == Z_STREAM_END)
			g->member_done = 1;
		else if (zr != Z_OK && zr != Z_BUF_ERROR)
			stop(g, PQ_ZGZ_DAMAGED,
			     g->z.msg ? g->z.msg : "the compressed data is damaged");
	}
	return (long)got;
}

const char *pq_zeek_gz_trouble(const pq_zeek_gz *g)
{
	return g->trouble;
}

enum pq_zeek_gz_end pq_zeek_gz_trouble_kind(const pq_zeek_gz *g)
{
	return g->kind;
}

void pq_zeek_gz_free(pq_zeek_gz *g)
{
	if (!g)
		return;
	if (g->zinit)
		inflateEnd(&g->z);
	if (g->fd >= 0)
		close(g->fd);
	free(g);
}
